package named_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/internal/core/named"
	"github.com/cuca-go/mcpconnector/transport"
)

// wrapper wraps a transport as the plugin's do.
type wrapper struct{ transport.McpTransport }

// other is a transport of a program's own, of no kind the module knows.
type other struct{ transport.McpTransport }

func (other) String() string { return "a program's own transport" }

func (w wrapper) Unwrap() transport.McpTransport { return w.McpTransport }

func TestLabelOf(t *testing.T) {
	stdio := transport.NewStdio("srv", "-v")
	http := transport.StreamableHTTP{URL: "http://127.0.0.1:9/mcp"}
	for _, tc := range []struct {
		name string
		t    transport.McpTransport
		want string
	}{
		{"stdio without a label", stdio, stdio.String()},
		{"stdio with a label", transport.Stdio{Command: "srv", Label: "files"}, "files"},
		{"a pointer to one", &transport.Stdio{Command: "srv", Label: "files"}, "files"},
		{"http with a label", transport.StreamableHTTP{URL: http.URL, Label: "remote"}, "remote"},
		{"http without a label", http, http.String()},
		{"sse with a label", transport.SSE{URL: http.URL, Label: "old"}, "old"},
		{"an entry of a toolbox", named.Transport("docs", transport.Stdio{Command: "srv", Label: "files"}), "docs"},
		{"wrapped", wrapper{transport.StreamableHTTP{URL: http.URL, Label: "remote"}}, "remote"},
		{"a wrapped entry", wrapper{named.Transport("docs", stdio)}, "docs"},
		{"a transport of no kind it knows", other{}, other{}.String()},
		{"nil", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, named.LabelOf(tc.t)) })
	}
}
