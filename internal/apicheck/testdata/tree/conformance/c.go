// Package conformance is excluded.
package conformance
