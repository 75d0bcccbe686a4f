package tasks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Inputs answers a task's input requests with the handlers of o
// (plugin.WithInputRequired) and roots; a request none answers fails with
// [ErrNoInput], naming its method, and the task is cancelled.
func Inputs(o *mcp.ClientOptions, roots []*mcp.Root) Answerer {
	return func(ctx context.Context, key string, request json.RawMessage) (json.RawMessage, error) {
		var req struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(request, &req); err != nil {
			return nil, fmt.Errorf("input request %q: %w", key, err)
		}
		var res any
		var err error
		switch {
		case req.Method == "elicitation/create" && o != nil && o.ElicitationHandler != nil:
			var p mcp.ElicitParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("input request %q: %w", key, err)
			}
			res, err = o.ElicitationHandler(ctx, &mcp.ElicitRequest{Params: &p})
		case req.Method == "sampling/createMessage" && o != nil && o.CreateMessageWithToolsHandler != nil:
			var p mcp.CreateMessageWithToolsParams
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, fmt.Errorf("input request %q: %w", key, err)
			}
			res, err = o.CreateMessageWithToolsHandler(ctx, &mcp.CreateMessageWithToolsRequest{Params: &p})
		case req.Method == "roots/list" && len(roots) > 0:
			res = &mcp.ListRootsResult{Roots: roots}
		default:
			return nil, fmt.Errorf("%w: %s (request %q)", ErrNoInput, req.Method, key)
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}
