package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
)

// Sentinel errors, for errors.Is. The errors that [Client.Stream] returns
// wrap one of these or the cause from below (an *openai.Error for an HTTP
// error status, a context error, a network error); errors.As reaches it.
var (
	// ErrRequest: the request cannot be mapped to the chat-completions
	// format (a ToolCall outside an assistant message, a ToolResult with no
	// ToolCallID, a tool whose input schema is not a JSON object, an unknown
	// role).
	ErrRequest = errors.New("client: invalid request")
	// ErrIncompleteStream: the stream ended before the server sent a
	// finish_reason; the answer is cut short.
	ErrIncompleteStream = errors.New("client: stream ended before the model finished")
	// ErrMalformedStream: the server streamed deltas that cannot form an
	// answer, such as more arguments for a tool call after the next one
	// began.
	ErrMalformedStream = errors.New("client: malformed stream")
	// ErrHook: a plugin hook returned an error. The error names the plugin
	// and the hook, and wraps the hook's error.
	ErrHook = errors.New("client: plugin hook failed")
)

// StatusError is the error [Client.Stream] returns when the server answers
// the request with an HTTP error status (after any retries). It wraps the
// openai-go *openai.Error, which errors.As also reaches.
type StatusError struct {
	// URL is the base URL the request went to.
	URL string
	// StatusCode is the HTTP status, e.g. 404.
	StatusCode int
	// Message is the server's own explanation (the "message" of its JSON
	// error body), or empty.
	Message string
	// Err is the cause, an *openai.Error.
	Err error
}

// Error reads like `client: http://localhost:1234/v1 answered HTTP 404 Not Found: model "x" not found`.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("client: %s answered HTTP %d", e.URL, e.StatusCode)
	if t := http.StatusText(e.StatusCode); t != "" {
		s += " " + t
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns the cause.
func (e *StatusError) Unwrap() error { return e.Err }

// streamError classifies the error that ended a stream.
func streamError(ctx context.Context, baseURL string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("client: stream from %s: %w", baseURL, ctx.Err())
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		return &StatusError{URL: baseURL, StatusCode: apiErr.StatusCode, Message: serverMessage(apiErr), Err: err}
	}
	return fmt.Errorf("client: stream from %s: %w", baseURL, err)
}

// serverMessage finds the server's explanation of an error status: the
// "message" of an OpenAI-style {"error":{...}} body, of a vLLM-style
// top-level {"message":...} body, or else the body's first bytes.
func serverMessage(e *openai.Error) string {
	if e.Message != "" {
		return e.Message
	}
	if e.Response == nil || e.Response.Body == nil {
		return strings.TrimSpace(e.RawJSON())
	}
	body, _ := io.ReadAll(io.LimitReader(e.Response.Body, 1024))
	var top struct{ Message string }
	if json.Unmarshal(body, &top) == nil && top.Message != "" {
		return top.Message
	}
	return strings.TrimSpace(string(body))
}
