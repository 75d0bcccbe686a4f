package actors

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

// A failure keeps the error it was made of, and errors.As reaches what
// it wraps; the *jsonrpc.Errors no server sent (go-sdk's own codes, the
// transport's stand-in for an oversized message) are left out, so that a
// *jsonrpc.Error found in a failure is the server's.
func TestAFailureKeepsItsErrorButNoStandInForTheServer(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	rejected := &jsonrpc.Error{Code: codeRejectedByTransport, Message: "rejected by transport"}
	token := &auth.TokenError{Endpoint: "https://as.test/token", GrantType: "client_credentials", StatusCode: 401, Code: "invalid_client"}
	server := &jsonrpc.Error{Code: -32602, Message: "bad arguments"}
	tooLarge := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: transport.ErrMessageTooLarge.Error()}

	t.Run("an HTTP post nothing accepted", func(t *testing.T) {
		err := sdkWrapped("tools/call", fmt.Errorf("%w: %w", rejected,
			&url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: fmt.Errorf("%w: %w", transport.ErrNotSent, refused)}))
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal, Message: "lost"}, err)
		assert.Equal(t, messages.CauseNone, f.Cause)
		assert.Equal(t, err.Error(), f.Err.Error(), "the text is the original's")
		var re *jsonrpc.Error
		assert.False(t, errors.As(f, &re), "go-sdk's own code is no server's error")
		var ue *url.Error
		require.ErrorAs(t, f, &ue)
		var oe *net.OpError
		require.ErrorAs(t, f, &oe)
		assert.Same(t, refused, oe)
		assert.ErrorIs(t, f, syscall.ECONNREFUSED)
		assert.ErrorIs(t, f, transport.ErrNotSent)
	})
	t.Run("a token refusal under go-sdk's code", func(t *testing.T) {
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal}, sdkWrapped("tools/call", fmt.Errorf("%w: %w", rejected, token)))
		assert.Equal(t, messages.CauseTokenRefused, f.Cause)
		var te *auth.TokenError
		require.ErrorAs(t, f, &te)
		assert.Same(t, token, te, "the original, not the cause's copy")
		var re *jsonrpc.Error
		assert.False(t, errors.As(f, &re))
	})
	t.Run("the server's error", func(t *testing.T) {
		err := sdkWrapped("tools/call", server)
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal}, err)
		assert.Equal(t, messages.CauseServerError, f.Cause)
		assert.Same(t, err, f.Err, "nothing to leave out: the error as it came")
		var re *jsonrpc.Error
		require.ErrorAs(t, f, &re)
		assert.Same(t, server, re)
	})
	t.Run("the transport's answer to an oversized message", func(t *testing.T) {
		f := causeOf(&messages.Failure{Kind: messages.FailureInternal}, sdkWrapped("tools/call", tooLarge))
		assert.Equal(t, messages.CauseMessageTooLarge, f.Cause)
		assert.ErrorIs(t, f, transport.ErrMessageTooLarge)
		var re *jsonrpc.Error
		assert.False(t, errors.As(f, &re), "the stand-in is no server's error")
	})
	t.Run("a stand-in alone", func(t *testing.T) {
		assert.Nil(t, kept(rejected))
		assert.Nil(t, kept(nil))
	})
}
