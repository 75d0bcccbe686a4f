package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// This file turns one stdio line into a jsonrpc.Request or jsonrpc.Response
// and back. go-sdk's jsonrpc.DecodeMessage builds a fresh JSON decoder for
// every message (most of the bytes a stdio call allocates); here a line is
// validated and split into its members by a hand-written scanner, and only
// the payload (params or result) is copied out, or not even that when the
// line's memory is the message's to keep.

// maxJSONDepth bounds the nesting the scanner follows. Deeper lines are not
// JSON-RPC to us; go-sdk would refuse anything past 1,000 levels anyway when
// it decodes the payload, and that refusal fails only the call.
const maxJSONDepth = 10000

// lineDecoder decodes lines; it keeps the scanner's nesting stack between
// lines, so a connection pays for it once. It is not safe for concurrent use.
type lineDecoder struct {
	stack []uint64 // one bit per open container: 1 object, 0 array
	sent  *sentIDs // the ids of calls written, if known
}

// sentIDs remembers the ids of the last calls written, by number, so that
// an answer carries the id value go-sdk made for its call instead of a new
// one (an id is a boxed int64: one allocation per answer saved).
type sentIDs struct {
	mu  sync.Mutex
	ids [32]jsonrpc.ID
}

func (s *sentIDs) remember(id jsonrpc.ID) {
	if n, ok := id.Raw().(int64); ok {
		s.mu.Lock()
		s.ids[n&31] = id
		s.mu.Unlock()
	}
}

func (s *sentIDs) lookup(n int64) (jsonrpc.ID, bool) {
	s.mu.Lock()
	id := s.ids[n&31]
	s.mu.Unlock()
	if v, ok := id.Raw().(int64); ok && v == n {
		return id, true
	}
	return jsonrpc.ID{}, false
}

// span is a member's raw value within a line; a missing member has end 0.
type span struct{ start, end int }

func (s span) present() bool { return s.end > 0 }

// members are the top-level members of a JSON-RPC line, last one winning as
// with encoding/json.
type members struct {
	version, id, method, params, result, err span
}

// Why a line is not a message.
const (
	reasonNotJSON    = "not JSON"
	reasonNotJSONRPC = "not JSON-RPC"
	reasonTooLarge   = "over the size limit"
)

// decode returns the message on line, or the reason it is none. owned says
// that line's memory will never be reused, so the payload may point into it.
func (d *lineDecoder) decode(line []byte, owned bool) (jsonrpc.Message, string) {
	var m members
	i := skipWS(line, 0)
	if i == len(line) || line[i] != '{' {
		// Valid JSON or not, anything but an object is no message.
		if end, ok := d.skipValue(line, i, maxJSONDepth); ok && skipWS(line, end) == len(line) {
			return nil, reasonNotJSONRPC
		}
		return nil, reasonNotJSON
	}
	end, ok := d.object(line, i, &m, false)
	if !ok || skipWS(line, end) != len(line) {
		return nil, reasonNotJSON
	}
	msg, ok := build(line, &m, owned, d.sent)
	if !ok {
		return nil, reasonNotJSONRPC
	}
	return msg, ""
}

// idFromStart reads the id of an over-long line from the members complete
// within head, its first bytes. It reports false when the line's start names
// no id, or a method (a server's own request, which no call of ours awaits).
func (d *lineDecoder) idFromStart(head []byte) (jsonrpc.ID, bool) {
	var m members
	i := skipWS(head, 0)
	if i == len(head) || head[i] != '{' {
		return jsonrpc.ID{}, false
	}
	d.object(head, i, &m, true)
	if !m.id.present() || m.method.present() {
		return jsonrpc.ID{}, false
	}
	id, ok := parseID(head[m.id.start:m.id.end], d.sent)
	return id, ok && id.IsValid()
}

// object scans the object starting at line[i] == '{' and records its
// members. With partial set it stops quietly at the first member that does
// not end within line, keeping those before it.
func (d *lineDecoder) object(line []byte, i int, m *members, partial bool) (int, bool) {
	i = skipWS(line, i+1)
	if i < len(line) && line[i] == '}' {
		return i + 1, true
	}
	for {
		keyStart := i
		keyEnd, ok := skipString(line, i)
		if !ok {
			return i, false
		}
		i = skipWS(line, keyEnd)
		if i == len(line) || line[i] != ':' {
			return i, false
		}
		valStart := skipWS(line, i+1)
		// The object itself is one level of the depth allowed.
		valEnd, ok := d.skipValue(line, valStart, maxJSONDepth-1)
		if !ok {
			return valStart, false
		}
		if partial && valEnd == len(line) && !closedAtEnd(line[valStart:valEnd]) {
			// A number running into the end of head may go on beyond it.
			return valStart, false
		}
		if s := member(m, line[keyStart:keyEnd]); s != nil {
			*s = span{valStart, valEnd}
		}
		i = skipWS(line, valEnd)
		if i == len(line) {
			return i, false
		}
		switch line[i] {
		case ',':
			i = skipWS(line, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// closedAtEnd reports whether a value that ends its input is certainly
// complete: anything but a number is.
func closedAtEnd(v []byte) bool {
	c := v[len(v)-1]
	return c < '0' || c > '9'
}

// member returns where the value of the key quoted in raw goes, or nil for
// a key JSON-RPC does not define. Keys match exactly, as in go-sdk.
func member(m *members, raw []byte) *span {
	key := raw[1 : len(raw)-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		key = []byte(s)
	}
	switch string(key) {
	case "jsonrpc":
		return &m.version
	case "id":
		return &m.id
	case "method":
		return &m.method
	case "params":
		return &m.params
	case "result":
		return &m.result
	case "error":
		return &m.err
	}
	return nil
}

// build makes the message of m, with the rules of jsonrpc.DecodeMessage: the
// version must be "2.0"; a method makes a request (a notification without an
// id), otherwise an id makes a response.
func build(line []byte, m *members, owned bool, sent *sentIDs) (jsonrpc.Message, bool) {
	if !m.version.present() {
		return nil, false
	}
	if raw := line[m.version.start:m.version.end]; string(raw) != `"2.0"` {
		// Spelled with escapes, it may still say 2.0.
		if v, ok := stringValue(raw); !ok || v != "2.0" {
			return nil, false
		}
	}
	var id jsonrpc.ID
	if m.id.present() {
		var ok bool
		if id, ok = parseID(line[m.id.start:m.id.end], sent); !ok {
			return nil, false
		}
	}
	if m.method.present() {
		raw := line[m.method.start:m.method.end]
		method := ""
		if string(raw) != "null" {
			var ok bool
			if method, ok = methodName(raw); !ok {
				return nil, false
			}
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: payload(line, m.params, owned)}, true
	}
	if !id.IsValid() {
		return nil, false
	}
	resp := &jsonrpc.Response{ID: id, Result: payload(line, m.result, owned)}
	if m.err.present() {
		raw := line[m.err.start:m.err.end]
		if string(raw) != "null" {
			werr := new(jsonrpc.Error)
			if json.Unmarshal(raw, werr) != nil {
				return nil, false
			}
			resp.Error = werr
		}
	}
	return resp, true
}

// payload is the raw value of s: the line's own bytes when the line is the
// message's to keep, a copy otherwise.
func payload(line []byte, s span, owned bool) json.RawMessage {
	if !s.present() {
		return nil
	}
	if owned {
		return json.RawMessage(line[s.start:s.end:s.end])
	}
	return json.RawMessage(bytes.Clone(line[s.start:s.end]))
}

// methodName reads a method, a JSON string. The methods a server sends are
// few; they are returned without an allocation.
func methodName(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	switch string(raw[1 : len(raw)-1]) {
	case "notifications/progress":
		return "notifications/progress", true
	case "notifications/message":
		return "notifications/message", true
	case "notifications/cancelled":
		return "notifications/cancelled", true
	case "notifications/tools/list_changed":
		return "notifications/tools/list_changed", true
	case "ping":
		return "ping", true
	}
	return stringValue(raw)
}

// stringValue reads a JSON string: directly when it has no escapes and is
// valid UTF-8, else as encoding/json does (invalid bytes become U+FFFD).
func stringValue(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// parseID reads an id as jsonrpc.MakeID reads the value encoding/json gives
// it: null is no id, a string is a string id, a number is a float64 cut to
// an int64; anything else is an error. An integer id found in sent, if
// given, is taken from there.
func parseID(raw []byte, sent *sentIDs) (jsonrpc.ID, bool) {
	switch c := raw[0]; {
	case c == 'n':
		return jsonrpc.ID{}, true
	case c == '"':
		s, ok := stringValue(raw)
		if !ok {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	case c == '-' || (c >= '0' && c <= '9'):
		f, ok := numberValue(raw)
		if !ok {
			return jsonrpc.ID{}, false
		}
		if n := int64(f); sent != nil && float64(n) == f {
			if id, ok := sent.lookup(n); ok {
				return id, true
			}
		}
		id, err := jsonrpc.MakeID(f)
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}

// numberValue is the float64 of a JSON number; integers of up to 15 digits,
// which every float64 holds exactly, are read without strconv.
func numberValue(raw []byte) (float64, bool) {
	digits, neg := raw, false
	if digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) <= 15 {
		var n int64
		simple := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				simple = false
				break
			}
			n = n*10 + int64(c-'0')
		}
		if simple {
			if neg {
				n = -n
			}
			return float64(n), true
		}
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// skipWS returns the index of the first byte at or after i that is not JSON
// whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringStop marks the bytes that end a run of plain string content.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// skipString checks the JSON string at b[i] and returns the index after its
// closing quote.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i++
	for i < len(b) {
		c := b[i]
		if !stringStop[c] {
			i++
			continue
		}
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		}
		// A backslash.
		if i+1 >= len(b) {
			return i, false
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
				return i, false
			}
			i += 6
		default:
			return i, false
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// skipNumber checks the JSON number at b[i] and returns the index after it.
func skipNumber(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := skipDigits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func skipDigits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skipLiteral checks that b[i:] starts with lit.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// skipValue checks the JSON value at b[i], nested at most maxDepth deep,
// and returns the index after it. It does not recurse: a line of a million
// '[' costs a bit each, not a stack frame each.
func (d *lineDecoder) skipValue(b []byte, i, maxDepth int) (int, bool) {
	depth := 0
	for {
		// A value starts at i.
		i = skipWS(b, i)
		if i >= len(b) {
			return i, false
		}
		var ok bool
		switch c := b[i]; c {
		case '{', '[':
			if depth == maxDepth {
				return i, false // an empty container is a level too
			}
			j := skipWS(b, i+1)
			if j < len(b) && ((c == '{' && b[j] == '}') || (c == '[' && b[j] == ']')) {
				i, ok = j+1, true
				break
			}
			d.push(depth, c == '{')
			depth++
			i = j
			if c == '{' {
				if i, ok = d.key(b, i); !ok {
					return i, false
				}
			}
			continue
		case '"':
			i, ok = skipString(b, i)
		case 't':
			i, ok = skipLiteral(b, i, "true")
		case 'f':
			i, ok = skipLiteral(b, i, "false")
		case 'n':
			i, ok = skipLiteral(b, i, "null")
		default:
			i, ok = skipNumber(b, i)
		}
		if !ok {
			return i, false
		}
		// A value ended at i: close containers until one goes on.
		for {
			if depth == 0 {
				return i, true
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return i, false
			}
			isObject := d.stack[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			if b[i] == ',' {
				i++
				if isObject {
					if i, ok = d.key(b, skipWS(b, i)); !ok {
						return i, false
					}
				}
				break
			}
			if (isObject && b[i] == '}') || (!isObject && b[i] == ']') {
				i++
				depth--
				continue
			}
			return i, false
		}
	}
}

// key checks an object's key and its colon at b[i], returning where the
// value may start.
func (d *lineDecoder) key(b []byte, i int) (int, bool) {
	i, ok := skipString(b, i)
	if !ok {
		return i, false
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// push records the kind of the container opened at depth.
func (d *lineDecoder) push(depth int, object bool) {
	w, bit := depth/64, uint64(1)<<(depth%64)
	for len(d.stack) <= w {
		d.stack = append(d.stack, 0)
	}
	if object {
		d.stack[w] |= bit
	} else {
		d.stack[w] &^= bit
	}
}

// appendMessage writes msg as one line's worth of JSON, in the member order
// of jsonrpc.EncodeMessage.
func appendMessage(dst []byte, msg jsonrpc.Message) ([]byte, error) {
	var err error
	switch m := msg.(type) {
	case *jsonrpc.Request:
		dst = append(dst, `{"jsonrpc":"2.0"`...)
		if m.ID.IsValid() {
			dst = append(dst, `,"id":`...)
			dst = appendID(dst, m.ID)
		}
		if m.Method != "" {
			dst = append(dst, `,"method":`...)
			dst = appendString(dst, m.Method)
		}
		if len(m.Params) > 0 {
			dst = append(dst, `,"params":`...)
			if dst, err = appendRaw(dst, m.Params); err != nil {
				return dst, err
			}
		}
	case *jsonrpc.Response:
		dst = append(dst, `{"jsonrpc":"2.0"`...)
		if m.ID.IsValid() {
			dst = append(dst, `,"id":`...)
			dst = appendID(dst, m.ID)
		}
		if len(m.Result) > 0 {
			dst = append(dst, `,"result":`...)
			if dst, err = appendRaw(dst, m.Result); err != nil {
				return dst, err
			}
		}
		if m.Error != nil {
			dst = append(dst, `,"error":`...)
			b, err := json.Marshal(wireError(m.Error))
			if err != nil {
				return dst, err
			}
			dst = append(dst, b...)
		}
	default:
		return dst, errors.New("unknown message type")
	}
	return append(dst, '}'), nil
}

// wireError is err as a JSON-RPC error object, by the rule of go-sdk's
// encoder: a wrapped wire error lends its code, the outer error its text.
func wireError(err error) *jsonrpc.Error {
	if w, ok := err.(*jsonrpc.Error); ok {
		return w
	}
	out := &jsonrpc.Error{Message: err.Error()}
	var wrapped *jsonrpc.Error
	if errors.As(err, &wrapped) {
		out.Code = wrapped.Code
	}
	return out
}

func appendID(dst []byte, id jsonrpc.ID) []byte {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.AppendInt(dst, v, 10)
	case string:
		return appendString(dst, v)
	}
	return append(dst, "null"...)
}

// appendRaw appends a raw JSON value. go-sdk marshals every payload, so it
// is valid and compact; a newline inside one would still end the line
// early, so such a value is compacted first.
func appendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, escaped as encoding/json does
// without HTML escaping: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029
// are escaped.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
