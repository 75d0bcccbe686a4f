// Package e is an example.
package e
