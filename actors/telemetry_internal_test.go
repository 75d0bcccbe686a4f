package actors

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/attribute"

	"github.com/cuca-go/mcpconnector/internal/core/instrument"
	"github.com/cuca-go/mcpconnector/internal/core/tracelog"
	"github.com/cuca-go/mcpconnector/transport"
)

// wrapped wraps a transport as a toolbox does.
type wrapped struct{ transport.McpTransport }

func (n wrapped) Unwrap() transport.McpTransport { return n.McpTransport }

func TestPeerAttributes(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    transport.McpTransport
		want map[attribute.Key]string
	}{
		{"stdio", transport.NewStdio("srv"), map[attribute.Key]string{"network.transport": "pipe"}},
		{"http with a port", transport.StreamableHTTP{URL: "http://127.0.0.1:8080/mcp"},
			map[attribute.Key]string{"network.transport": "tcp", "network.protocol.name": "http", "server.address": "127.0.0.1", "server.port": "8080"}},
		{"https without a port", transport.StreamableHTTP{URL: "https://mcp.example.com/mcp"},
			map[attribute.Key]string{"network.transport": "tcp", "server.address": "mcp.example.com", "server.port": "443"}},
		{"wrapped", wrapped{transport.StreamableHTTP{URL: "http://[::1]:9/mcp"}},
			map[attribute.Key]string{"network.transport": "tcp", "server.address": "::1", "server.port": "9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := peerOf(tc.t)
			got := map[attribute.Key]string{}
			for _, kv := range p.attrs {
				got[kv.Key] = kv.Value.String()
			}
			for k, v := range tc.want {
				assert.Equal(t, v, got[k], k)
			}
			assert.Equal(t, tc.t.String(), got[instrument.AttrServer])
			if tc.name == "stdio" {
				assert.NotContains(t, got, attribute.Key("server.address"))
			}
		})
	}
}

func TestClassifyOutcome(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		res      mcp.Result
		err      error
		errType  string
		wantCode string
	}{
		{"success", context.Background(), &mcp.CallToolResult{}, nil, "", ""},
		{"isError", context.Background(), &mcp.CallToolResult{IsError: true}, nil, instrument.ErrorTypeToolError, ""},
		{"JSON-RPC error", context.Background(), nil, fmt.Errorf("calling: %w", &jsonrpc.Error{Code: -32602, Message: "unknown tool"}), "-32602", "-32602"},
		{"deadline", context.Background(), nil, context.DeadlineExceeded, instrument.ErrorTypeTimeout, ""},
		{"cancelled", cancelled, nil, errors.New("call aborted"), instrument.ErrorTypeCancelled, ""},
		{"connection closed", context.Background(), nil, fmt.Errorf("x: %w", mcp.ErrConnectionClosed), instrument.ErrorTypeConnection, ""},
		{"other", context.Background(), nil, errors.New("odd"), "_OTHER", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errType, code := classifyOutcome(tc.ctx, tc.res, tc.err)
			assert.Equal(t, tc.errType, errType)
			assert.Equal(t, tc.wantCode, code)
		})
	}
	assert.Equal(t, "unknown tool", statusDescription("-32602", &jsonrpc.Error{Code: -32602, Message: "unknown tool"}))
}

func TestNilTelemetryRecordsNothing(t *testing.T) {
	assert.Nil(t, NewTelemetry(nil, nil), "no provider, no telemetry")
	var tel *Telemetry
	ctx := context.Background()
	assert.Equal(t, ctx, tel.extract(ctx, map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}))
	assert.Empty(t, tracelog.Fields(ctx))
}
