//go:build ignore

package main

// Ignored is in a file that the build ignores: not listed.
func Ignored() {}
