package failcause_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/auth"
	"github.com/cuca-go/mcpconnector/internal/core/failcause"
	"github.com/cuca-go/mcpconnector/messages"
	"github.com/cuca-go/mcpconnector/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// A token refusal is the cause, and the refusal itself stays in Err,
// where errors.As finds the very error.
func TestOfKeepsATokenRefusalInErr(t *testing.T) {
	token := &auth.TokenError{Endpoint: "https://as.example/token", GrantType: "client_credentials", StatusCode: 401}
	f := failcause.Of(&messages.Failure{Kind: messages.FailureIO}, fmt.Errorf("post: %w", token))
	assert.Equal(t, messages.CauseTokenRefused, f.Cause)
	var te *auth.TokenError
	require.ErrorAs(t, f, &te)
	assert.Same(t, token, te)
	assert.Nil(t, failcause.Of(&messages.Failure{}, nil).Err)
}

// An oversized message's failure matches transport.ErrMessageTooLarge
// even when the error it was made of no longer holds it.
func TestErrAddsTheSentinelOfACause(t *testing.T) {
	assert.Same(t, transport.ErrMessageTooLarge, failcause.Err(messages.CauseMessageTooLarge, nil))
	held := fmt.Errorf("read: %w", transport.ErrMessageTooLarge)
	assert.Same(t, held, failcause.Err(messages.CauseMessageTooLarge, held), "it holds the sentinel already")
	other := errors.New(`sending "tools/call": over the limit`)
	got := failcause.Err(messages.CauseMessageTooLarge, other)
	assert.Equal(t, other.Error(), got.Error(), "the text is the original's")
	assert.ErrorIs(t, got, other)
	assert.ErrorIs(t, got, transport.ErrMessageTooLarge)
	assert.Same(t, other, failcause.Err(messages.CauseDeadline, other), "other causes keep the error as it is")
	assert.Nil(t, failcause.Err(messages.CauseNone, nil))
}
