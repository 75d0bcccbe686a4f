// Package onlytests has test files only.
package onlytests
