package benchmarks

import (
	"context"
	"fmt"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/cuca-go/mcpconnector/transport"
)

// SubjectMCPGo is mark3labs/mcp-go's client, calling from the calling
// goroutine as go-sdk direct does: the other Go MCP client a program could
// choose.
const SubjectMCPGo = "mcp-go client direct"

// ConnectMCPGo starts t's command under mcp-go's stdio client and connects
// with MCP 2026-07-28 (server/discover, no initialize).
func ConnectMCPGo(ctx context.Context, t transport.Stdio) (*mcpgoclient.Client, error) {
	c, err := mcpgoclient.NewStdioMCPClient(t.Command, append(transport.DefaultEnv(), t.Env...), t.Args...)
	if err != nil {
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ProtocolVersion = "2026-07-28"
	req.Params.ClientInfo = mcpgo.Implementation{Name: "bench-mcp-go", Version: "0"}
	res, err := c.Initialize(ctx, req)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	if res.ProtocolVersion != "2026-07-28" {
		_ = c.Close()
		return nil, fmt.Errorf("mcp-go client negotiated %q", res.ProtocolVersion)
	}
	return c, nil
}

// MCPGoDirect calls c on mcp-go's client from the calling goroutine.
func MCPGoDirect(cl *mcpgoclient.Client, c Call) *Subject {
	return &Subject{Name: SubjectMCPGo, New: func() Op {
		return func(ctx context.Context) error {
			req := mcpgo.CallToolRequest{}
			req.Params.Name = c.Tool
			req.Params.Arguments = c.Args
			res, err := cl.CallTool(ctx, req)
			if err != nil {
				return err
			}
			if res.IsError || len(res.Content) != 1 {
				return fmt.Errorf("unexpected result %+v", res)
			}
			if t, ok := mcpgo.AsTextContent(res.Content[0]); !ok || t.Text != c.Want {
				return fmt.Errorf("unexpected content %#v, want %q", res.Content[0], c.Want)
			}
			return nil
		}
	}}
}
