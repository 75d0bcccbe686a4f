package directcall

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNextEventReadsEventsAsGoSDKDoes(t *testing.T) {
	long := strings.Repeat("y", 10000)
	stream := ": a comment\n\nid: 1\n\n" + // no data: skipped
		"event: message\ndata: {\"a\":\ndata:  1}\r\n\r\n" +
		"data: " + long + "\n\n" +
		"event: other\ndata: x\n\n" +
		"data: last"
	br := bufio.NewReaderSize(strings.NewReader(stream), 4096)
	type ev struct{ data, name string }
	var got []ev
	for {
		data, name, err := nextEvent(br, 20000)
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		got = append(got, ev{string(data), name})
	}
	assert.Equal(t, []ev{{"{\"a\":\n1}", "message"}, {long, ""}, {"x", "other"}, {"last", ""}}, got)

	_, _, err := nextEvent(bufio.NewReaderSize(strings.NewReader("data: "+long+"\n\n"), 4096), 5000)
	assert.ErrorIs(t, err, errEventTooLarge)
	_, _, err = nextEvent(bufio.NewReader(strings.NewReader("data: 1\nno colon\n\n")), 0)
	assert.ErrorIs(t, err, errMalformedEvent)
}
