package directcall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
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

// The standalone stream of the revisions before 2026-07-28. After
// initialize, go-sdk's Streamable HTTP connection opens a GET stream on
// which the server sends what answers no request (notifications/
// tools/list_changed, logging, its own requests), and puts the
// negotiated revision in the MCP-Protocol-Version header of every
// request. It does so in a private hook of its connection, which the
// wrappers around it hide; so the connection does both here: it learns
// the revision from the answer to initialize, hands it to the transport
// (HTTPConfig.Revision), and opens the stream itself. 2026-07-28 has no
// such stream (SEP-2575), and no initialize.

const (
	// modernRevision is the first revision without initialize.
	modernRevision = "2026-07-28"
	// listenRetry is the pause before the standalone stream is opened
	// again after it ended, and listenTries how many times in a row it
	// may fail to open before it is given up.
	listenRetry = time.Second
	listenTries = 5
)

// sawInitialized looks at msg, read while the answer to initialize is
// awaited: when it is that answer and negotiated an older revision, the
// revision goes to HTTPConfig.Revision and the standalone stream opens.
func (c *HTTP) sawInitialized(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok {
		return
	}
	c.initMu.Lock()
	mine := r.ID == c.initID
	if mine {
		c.initPending.Store(false)
	}
	c.initMu.Unlock()
	if !mine || r.Error != nil {
		return
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(r.Result, &res) != nil || res.ProtocolVersion == "" || res.ProtocolVersion >= modernRevision {
		return
	}
	v := res.ProtocolVersion
	if c.revision != nil {
		c.revision.Store(&v)
	}
	c.background(func(halted context.Context) { c.listen(halted, v) })
}

// listen keeps the standalone stream of a session of revision open until
// the connection ends, handing each message to the session. A server
// that offers none (405, or any answer that is not an event stream) is
// not asked again; one whose stream ends is asked again after
// listenRetry, as go-sdk's client does.
func (c *HTTP) listen(halted context.Context, revision string) {
	listened := false
	for failed := 0; failed < listenTries; {
		if failed > 0 || listened {
			t := time.NewTimer(listenRetry)
			select {
			case <-halted.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		req, err := http.NewRequestWithContext(halted, http.MethodGet, c.url, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(protocolHeader, revision)
		if sid := c.Connection.SessionID(); sid != "" {
			req.Header.Set(sessionHeader, sid)
		}
		if c.oauth != nil && !c.authorize(halted, req.Header) {
			return
		}
		resp, err := c.client.Do(req)
		if halted.Err() != nil {
			if err == nil {
				_ = resp.Body.Close()
			}
			return
		}
		if err != nil {
			failed++
			continue
		}
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode < 200 || resp.StatusCode > 299 || mt != "text/event-stream" {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDiscard))
			_ = resp.Body.Close()
			return // no stream offered: the session goes on without one
		}
		failed, listened = 0, true
		c.readListen(halted, resp.Body)
		_ = resp.Body.Close()
	}
}

// readListen hands each message of the standalone stream body to the
// session until the stream ends. An event that is no message is skipped.
func (c *HTTP) readListen(halted context.Context, body io.Reader) {
	br, release := pooledReader(body)
	defer release()
	for {
		data, name, err := nextEvent(br, c.maxEvent)
		if err != nil {
			return
		}
		if len(data) == 0 || name != "" && name != "message" {
			continue
		}
		if msg, _ := decodeAnswer(data); msg != nil {
			c.hand(halted, msg)
		}
		if halted.Err() != nil {
			return
		}
	}
}
