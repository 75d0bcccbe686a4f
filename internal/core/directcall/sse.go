package directcall

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

var (
	errEventTooLarge  = errors.New("SSE event too large")
	errMalformedEvent = errors.New("malformed event") // go-sdk's words
)

// nextEvent reads the next event that has data or a name, as go-sdk reads
// events: "field: value" lines, data lines joined by newlines, lines
// starting with ':' ignored, an event ended by a blank line or the end of
// the stream; a line without ':' is malformed. An event's lines may take
// at most limit bytes (none when limit <= 0). At the end of the stream
// the error is io.EOF. The data is the event's own memory.
func nextEvent(br *bufio.Reader, limit int) (data []byte, name string, err error) {
	var buf []byte
	hasData, used := false, 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it, within the limit.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if limit > 0 && used+len(long) > limit {
					return nil, "", errEventTooLarge
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		used += len(line)
		if limit > 0 && used > limit {
			return nil, "", errEventTooLarge
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, "", err
		}
		eof := err != nil
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if hasData || name != "" {
				return buf, name, nil
			}
			if eof {
				return nil, "", io.EOF
			}
			used = 0
			continue
		}
		key, value, found := bytes.Cut(line, []byte{':'})
		if !found {
			return nil, "", fmt.Errorf("%w: malformed line in SSE stream: %q", errMalformedEvent, string(line))
		}
		switch string(key) {
		case "event":
			name = string(bytes.TrimSpace(value))
		case "data":
			if hasData {
				buf = append(buf, '\n')
			}
			buf = append(buf, bytes.TrimSpace(value)...)
			hasData = true
		}
		if eof {
			if hasData || name != "" {
				return buf, name, nil
			}
			return nil, "", io.EOF
		}
	}
}
