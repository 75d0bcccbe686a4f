//go:build ignore

// Package ign has an ignored file only.
package ign
