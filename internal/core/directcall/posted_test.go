package directcall

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// postBox is a connection's way out that keeps what is posted.
type postBox struct {
	mu      sync.Mutex
	posted  []byte
	flushes int
	after   []func() // AfterLines' functions, run by the test
}

func (p *postBox) WriteLine([]byte) error { return errors.New("posted calls never write") }
func (p *postBox) PostLine(line []byte) {
	p.mu.Lock()
	p.posted = append(p.posted, line...)
	p.mu.Unlock()
}
func (p *postBox) FlushLines()          { p.flushes++ }
func (p *postBox) AfterLines(fn func()) { p.after = append(p.after, fn) }

// answers records what a posted call is told.
type answers struct {
	results []string
	errs    []error
	unsent  []error
}

func (a *answers) Answer(result json.RawMessage, werr error) {
	a.results = append(a.results, string(result))
	a.errs = append(a.errs, werr)
}
func (a *answers) Unsent(err error) { a.unsent = append(a.unsent, err) }

func answerLine(n int64, member string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + strconv.FormatInt(n, 10) + `,` + member + `}`)
}

// A posted call's line waits for the flush; its answer goes to its
// Answerer straight from the line read, as the result's bytes or the
// server's error; a call withdrawn first is told nothing, and its answer
// is still no message for go-sdk.
func TestPostedCallsAnswers(t *testing.T) {
	box := &postBox{}
	l := NewLines(box)
	var a, b, c answers
	na, err := l.Post(Call{Name: "t", Arguments: json.RawMessage(`{"x":1}`)}, &a)
	require.NoError(t, err)
	nb, err := l.Post(Call{Name: "t"}, &b)
	require.NoError(t, err)
	nc, err := l.Post(Call{Name: "t"}, &c)
	require.NoError(t, err)
	assert.Equal(t, 3, bytes.Count(box.posted, []byte("\n")), "three lines posted")
	assert.Equal(t, 0, box.flushes)
	l.Flush()
	assert.Equal(t, 1, box.flushes)

	d := &Decoder{Lines: l}
	msg, why := d.Decode(answerLine(na, `"result":{"content":[]}`), false)
	assert.Nil(t, msg)
	assert.Equal(t, ReasonAnswered, why)
	assert.Equal(t, []string{`{"content":[]}`}, a.results)
	assert.Equal(t, []error{nil}, a.errs)

	_, why = d.Decode(answerLine(nb, `"error":{"code":-32602,"message":"no"}`), false)
	assert.Equal(t, ReasonAnswered, why)
	require.Len(t, b.errs, 1)
	var werr *jsonrpc.Error
	require.ErrorAs(t, b.errs[0], &werr)
	assert.Equal(t, "no", werr.Message)

	assert.True(t, l.Withdraw(nc))
	assert.False(t, l.Withdraw(nc), "once")
	_, why = d.Decode(answerLine(nc, `"result":{}`), false)
	assert.Equal(t, ReasonAnswered, why, "an answer to a call given up is no message for go-sdk")
	assert.Empty(t, c.results)

	// Another id is go-sdk's, as before.
	msg, why = d.Decode(answerLine(3, `"result":{}`), false)
	assert.Empty(t, why)
	assert.NotNil(t, msg)
}

// The calls whose lines a failed write did not write are told they were
// never sent; the others wait for their answer.
func TestPostedCallsUnsent(t *testing.T) {
	box := &postBox{}
	l := NewLines(box)
	var a, b answers
	_, err := l.Post(Call{Name: "t"}, &a)
	require.NoError(t, err)
	nb, err := l.Post(Call{Name: "t"}, &b)
	require.NoError(t, err)
	first := bytes.IndexByte(box.posted, '\n') + 1
	boom := errors.New("broken pipe")
	l.Unsent(box.posted[first:], boom)
	assert.Empty(t, a.unsent, "its line was written")
	assert.Equal(t, []error{boom}, b.unsent)
	assert.False(t, l.Withdraw(nb), "the call is the write's now")
}

// Once the connection has ended, a call is not posted.
func TestPostAfterEnd(t *testing.T) {
	l := NewLines(&postBox{})
	l.End(errors.New("gone"))
	_, err := l.Post(Call{Name: "t"}, &answers{})
	require.ErrorIs(t, err, mcp.ErrConnectionClosed)
}
