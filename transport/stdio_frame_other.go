//go:build !unix

package transport

import "io"

// rawReader is unused here: a lineReader keeps its buffer while it waits.
type rawReader struct{}

func rawReaderOf(io.Reader) *rawReader { return nil }

func (lr *lineReader) fillEmpty() bool { return false }
