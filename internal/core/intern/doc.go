// Package intern keeps one copy of values that many connections of a
// process learn alike, such as the _meta envelope go-sdk writes.
package intern
