package tasks_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cuca-go/mcpconnector/internal/core/directcall"
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
)

// FuzzTaskAnswer feeds a tools/call answer and a tasks/get answer of any
// shape to the task driver as a connection would: the answer read as a
// task (ParseCreated), the task driven with every tasks/get answered by
// the second input (twice at most, then the connection fails), its input
// requests answered, its result decoded as a tools/call result. Nothing
// may panic, and a drive that returns no error returns a result.
func FuzzTaskAnswer(f *testing.F) {
	for _, seed := range []struct{ call, got string }{
		// Started, then completed with its result on tasks/get.
		{`{"resultType":"task","task":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":60,"pollIntervalMilliseconds":100}}`,
			`{"taskId":"t1","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:01Z","ttlSeconds":60,"result":{"content":[{"type":"text","text":"done"}]}}`},
		// Started completed, its result inline.
		{`{"resultType":"task","task":{"taskId":"t2","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null,"result":{"content":[]}}}`, `{}`},
		// Started completed without its result: one tasks/get brings it.
		{`{"resultType":"task","task":{"taskId":"t3","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}}`,
			`{"taskId":"t3","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null,"result":{"content":[{"type":"text","text":"late"}],"isError":true}}`},
		// Failed with its error, and without.
		{`{"resultType":"task","task":{"taskId":"t4","status":"failed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null,"statusMessage":"boom","error":{"code":-32603,"message":"boom"}}}`, `{}`},
		{`{"resultType":"task","task":{"taskId":"t5","status":"failed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}}`,
			`{"taskId":"t5","status":"failed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}`},
		// An unknown status, and no taskId.
		{`{"resultType":"task","task":{"taskId":"t6","status":"paused","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}}`, `{"taskId":"t6","status":"exploded"}`},
		{`{"resultType":"task","task":{"status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}}`, `{"status":"completed"}`},
		// Input required, then cancelled by the server.
		{`{"resultType":"task","task":{"taskId":"t7","status":"input_required","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null,"inputRequests":{"k":{"method":"elicitation/create","params":{}}}}}`,
			`{"taskId":"t7","status":"cancelled","statusMessage":"no","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlSeconds":null}`},
		// The draft's shape: the task's fields at the top.
		{`{"taskId":"t8","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null}`, `null`},
		{`null`, `[]`},
		{`{"resultType":"task","task":null}`, `"x"`},
	} {
		f.Add([]byte(seed.call), []byte(seed.got))
	}
	errLost := errors.New("connection closed")
	f.Fuzz(func(t *testing.T, call, got []byte) {
		task, err := tasks.ParseCreated(call)
		if err != nil {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			polls := 0
			send := func(_ context.Context, method, _ string, _ any) (json.RawMessage, error) {
				if method != "tasks/get" {
					return json.RawMessage(`{}`), nil
				}
				if polls++; polls > 2 {
					return nil, errLost
				}
				return json.RawMessage(got), nil
			}
			answer := func(_ context.Context, key string, _ json.RawMessage) (json.RawMessage, error) {
				if key == "" {
					return nil, errors.New("no handler")
				}
				return json.RawMessage(`{"action":"decline"}`), nil
			}
			cfg := tasks.Config{Answer: answer, Seen: func(*tasks.Task) {}, Keep: func(t *tasks.Task) error { _ = t.State(); return nil }}
			res, err := tasks.Drive(ctx, send, cfg, task)
			if err != nil {
				return
			}
			if res == nil {
				t.Fatalf("the drive ended well without a result")
			}
			_, _ = directcall.DecodeCallToolResult(res)
		})
	})
}
