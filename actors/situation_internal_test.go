package actors

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/messages"
)

// The Streamable HTTP transport's stand-in for a POST that got no answer
// is a lost connection, and no *jsonrpc.Error a server sent.
func TestNoAnswerStandInIsALostConnection(t *testing.T) {
	err := fmt.Errorf("calling %q: %w", "tools/call", &jsonrpc.Error{Code: -32603,
		Message: "transport: no answer to the POST (the session goes on until 3 in a row): EOF"})
	f := causeOf(&messages.Failure{Kind: messages.FailureInternal}, err)
	assert.Equal(t, messages.CauseConnectionLost, f.Cause)
	assert.Nil(t, f.RPC)
	assert.Equal(t, messages.CauseConnectionLost, f.Cause)
	var re *jsonrpc.Error
	assert.False(t, errors.As(f, &re), "no server sent it")
	assert.True(t, noAnswer(err))
	_, ok := serverAnswered("", err)
	assert.False(t, ok)
}

// A connection attempt that reached nothing is Unreachable; another
// failure is not.
func TestSituatedMarksAnEndpointOutOfReach(t *testing.T) {
	dial := &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	f := situated(&messages.Failure{Kind: messages.FailureInternal, Op: "connect", Err: dial})
	assert.True(t, f.Unreachable)
	f = situated(&messages.Failure{Kind: messages.FailureInternal, Op: "connect", Err: errors.New("tools/list failed")})
	assert.False(t, f.Unreachable)
	assert.Empty(t, childExit(nil), "no child, no exit")
}
