// Package i is internal to the adapter.
package i
