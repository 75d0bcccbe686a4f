// Package s is skipped.
package s
