// Package t is test data.
package t
