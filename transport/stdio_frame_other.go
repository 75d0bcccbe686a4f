//go:build !unix

package transport

import "io"

// rawReader is unused here: a lineReader keeps its buffer while it waits.
type rawReader struct{}

func rawReaderOf(io.Reader) *rawReader { return nil }

func (lr *lineReader) fillEmpty() bool { return false }

// rawWriter is unused here: a flush hands its lines to a goroutine.
type rawWriter struct{}

func rawWriterOf(io.Writer) *rawWriter { return nil }

func (*rawWriter) write([]byte) (int, error) { return 0, nil }
