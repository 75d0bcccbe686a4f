// Package interop is excluded.
package interop
