package directcall

import (
	"bytes"
	"errors"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DecodeCallToolResult decodes a tools/call result into the same
// *mcp.CallToolResult go-sdk's decoding gives, or fails as it does.
//
// go-sdk decodes every value through a fresh JSON decoder that reads into a
// new 32 KiB buffer, and a call through ClientSession.CallTool pays it twice.
// Here the common result (text content, with or without _meta,
// structuredContent and isError) is read by a pooled jsontext.Decoder, the
// same syntax layer the stdio lines are read with. Whatever it does not read
// as go-sdk would is handed to go-sdk's own decoding: other content kinds,
// annotations, resultType and input requests, escaped member names,
// duplicate names, invalid UTF-8 and very deep nesting. The fast reading
// never decides a result differently; a differential test and a fuzz target
// hold it to that.
func DecodeCallToolResult(raw []byte) (*mcp.CallToolResult, error) {
	d := resultDecoders.Get().(*resultDecoder)
	res, ok := d.decode(raw)
	d.rd.Reset(nil)
	resultDecoders.Put(d)
	if ok {
		return res, nil
	}
	res = new(mcp.CallToolResult)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return res, nil
}

// resultOptions are strict where go-sdk's decoding is lenient (duplicate
// names, invalid UTF-8): such a result errs here and goes to go-sdk.
var resultOptions = []jsontext.Options{
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
}

// completeResult is an empty result of resultType "complete", as go-sdk
// decodes one.
var completeResult = func() mcp.CallToolResult {
	var r mcp.CallToolResult
	if err := r.UnmarshalJSON([]byte(`{"resultType":"complete"}`)); err != nil {
		panic(err)
	}
	return r
}()

// maxFastDepth is the nesting beyond which a result goes to go-sdk, which
// refuses more than 1,000 levels.
const maxFastDepth = 500

type resultDecoder struct {
	dec jsontext.Decoder
	rd  bytes.Reader
}

var resultDecoders = sync.Pool{New: func() any { return new(resultDecoder) }}

// decode reads raw as go-sdk would, or reports false when it cannot say.
func (d *resultDecoder) decode(raw []byte) (*mcp.CallToolResult, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	d.rd.Reset(raw)
	d.dec.Reset(&d.rd, resultOptions...)
	if t, err := d.dec.ReadToken(); err != nil || t.Kind() != '{' {
		return nil, false
	}
	var r fastResult
	for d.dec.PeekKind() != '}' {
		name, err := d.dec.ReadValue()
		if err != nil || bytes.IndexByte(name, '\\') >= 0 || !d.member(name, &r) {
			return nil, false
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, false
	}
	res := &r.res
	res.Content = r.content
	if res.Content == nil {
		res.Content = []mcp.Content{} // go-sdk's, for a missing or null content
	}
	if r.complete {
		c := completeResult
		c.Meta, c.Content, c.StructuredContent, c.IsError = res.Meta, res.Content, res.StructuredContent, res.IsError
		return &c, true
	}
	return res, true
}

// fastResult is a result as decode reads it.
type fastResult struct {
	res      mcp.CallToolResult
	content  []mcp.Content
	complete bool // resultType "complete"
}

// member reads the value of the result's member name into r, or reports
// false when go-sdk is to decide.
func (d *resultDecoder) member(name []byte, r *fastResult) bool {
	var ok bool
	switch string(name) {
	case `"content"`:
		var err error
		r.content, err = d.content()
		return err == nil
	case `"isError"`:
		v, err := d.dec.ReadValue()
		if err != nil {
			return false
		}
		switch string(v) {
		case "true":
			r.res.IsError = true
		case "false":
			r.res.IsError = false
		case "null":
		default:
			return false
		}
		return true
	case `"_meta"`:
		r.res.Meta, ok = d.meta(1)
		return ok
	case `"structuredContent"`:
		r.res.StructuredContent, ok = d.value(1)
		return ok
	case `"resultType"`:
		// "complete", which go-sdk's servers put on every result, is kept
		// in a field of go-sdk's own; a copy of completeResult carries it.
		// The others go to go-sdk.
		v, err := d.dec.ReadValue()
		if err != nil {
			return false
		}
		switch string(v) {
		case `"complete"`:
			r.complete = true
		case `null`, `""`:
			r.complete = false
		default:
			return false
		}
		return true
	case `"inputRequests"`, `"requestState"`:
		return false
	}
	return d.dec.SkipValue() == nil
}

// errNotFast says a result is not one the fast reading decides.
var errNotFast = errors.New("directcall: result left to go-sdk's decoding")

// content reads the content array, text blocks only.
func (d *resultDecoder) content() ([]mcp.Content, error) {
	switch d.dec.PeekKind() {
	case 'n':
		_, err := d.dec.ReadToken()
		return nil, err
	case '[':
	default:
		return nil, errNotFast
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	blocks := make([]mcp.Content, 0, 1)
	for d.dec.PeekKind() != ']' {
		if d.dec.PeekKind() != '{' {
			return nil, errNotFast
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		text, isText := &mcp.TextContent{}, false
		for d.dec.PeekKind() != '}' {
			name, err := d.dec.ReadValue()
			if err != nil || bytes.IndexByte(name, '\\') >= 0 {
				return nil, errNotFast
			}
			switch string(name) {
			case `"type"`:
				v, err := d.dec.ReadValue()
				if err != nil {
					return nil, err
				}
				isText = string(v) == `"text"`
				if !isText {
					return nil, errNotFast
				}
			case `"text"`:
				v, err := d.dec.ReadValue()
				if err != nil {
					return nil, err
				}
				s, ok := unquote(v)
				if !ok {
					return nil, errNotFast
				}
				text.Text = s
			case `"_meta"`:
				m, ok := d.meta(3)
				if !ok {
					return nil, errNotFast
				}
				text.Meta = m
			default:
				// The other members of wireContent belong to other kinds
				// (go-sdk reads and drops them); unknown ones are skipped.
				return nil, errNotFast
			}
		}
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, err
		}
		if !isText {
			return nil, errNotFast
		}
		blocks = append(blocks, text)
	}
	_, err := d.dec.ReadToken()
	return blocks, err
}

// meta reads a _meta value: null or an object.
func (d *resultDecoder) meta(depth int) (mcp.Meta, bool) {
	switch d.dec.PeekKind() {
	case 'n':
		_, err := d.dec.ReadToken()
		return nil, err == nil
	case '{':
		v, ok := d.value(depth)
		if !ok {
			return nil, false
		}
		return mcp.Meta(v.(map[string]any)), true
	}
	return nil, false
}

// value reads any JSON value as encoding/json reads it into an any.
func (d *resultDecoder) value(depth int) (any, bool) {
	if depth > maxFastDepth {
		return nil, false
	}
	switch d.dec.PeekKind() {
	case '{':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, false
		}
		m := map[string]any{}
		for d.dec.PeekKind() != '}' {
			name, err := d.dec.ReadValue()
			if err != nil {
				return nil, false
			}
			k, ok := unquote(name)
			if !ok {
				return nil, false
			}
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
		}
		_, err := d.dec.ReadToken()
		return m, err == nil
	case '[':
		if _, err := d.dec.ReadToken(); err != nil {
			return nil, false
		}
		a := []any{}
		for d.dec.PeekKind() != ']' {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		_, err := d.dec.ReadToken()
		return a, err == nil
	}
	v, err := d.dec.ReadValue()
	if err != nil {
		return nil, false
	}
	switch v[0] {
	case 'n':
		return nil, true
	case 't':
		return true, true
	case 'f':
		return false, true
	case '"':
		return unquote(v)
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// unquote is a JSON string's text; false for one whose escapes name a
// surrogate, which go-sdk's decoding reads in its own way.
func unquote(v jsontext.Value) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	if bytes.Contains(v, []byte(`\u`)) && (bytes.Contains(v, []byte(`\ud`)) || bytes.Contains(v, []byte(`\uD`))) {
		return "", false
	}
	b, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", false
	}
	return string(b), true
}
