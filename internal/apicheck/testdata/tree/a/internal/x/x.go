// Package x is internal.
package x
