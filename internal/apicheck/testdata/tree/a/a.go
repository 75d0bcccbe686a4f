// Package a is a public package.
package a
