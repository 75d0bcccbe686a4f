package transportext

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestReadsAsError(t *testing.T) {
	for line, want := range map[string]bool{
		"ERROR: Database connection configuration is required.": true,
		"Fatal: cannot bind":               true,
		"java.lang.NullPointerException":   true,
		"panic: runtime error":             true,
		"--dsn is required":                true,
		"config file not found":            true,
		"Not Found":                        true,
		"listening on :8080":               false,
		"Please provide configuration":     false,
		strings.Repeat("x", 100) + "error": true,
	} {
		assert.Equal(t, want, ReadsAsError(line), line)
	}
}

func TestRedactURL(t *testing.T) {
	assert.Equal(t, "https://h.example/mcp", RedactURL("https://user:pw@h.example/mcp?token=s#f"))
	assert.Equal(t, `"%zz"`, RedactURL("%zz"))
}

func TestHTTPStatusOf(t *testing.T) {
	err := fmt.Errorf("calling: %w", &jsonrpc.Error{Code: -32603, Message: HTTPStatusPrefix + "503 Service Unavailable"})
	assert.Equal(t, 503, HTTPStatusOf(err))
	assert.Equal(t, 0, HTTPStatusOf(&jsonrpc.Error{Code: -32603, Message: "boom"}), "the server's own error")
	assert.Equal(t, 0, HTTPStatusOf(errors.New(HTTPStatusPrefix+"503")), "not a JSON-RPC error")
	assert.Equal(t, 0, HTTPStatusOf(&jsonrpc.Error{Message: HTTPStatusPrefix + "200 OK"}), "not an error status")
}
