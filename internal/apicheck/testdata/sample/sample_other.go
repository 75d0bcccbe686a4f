//go:build !linux

package sample

// Platform is declared once per platform: listed and counted once.
func Platform() string { return "other" }
