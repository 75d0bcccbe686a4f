// Package h is hidden.
package h
