package client

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/cuca-go/mcpconnector/host"
)

// Stream sends req as a streaming chat completion and returns the answer
// once the stream ends. Around it, every registered plugin runs its hooks in
// registration order:
//
//  1. OnRequest, on a copy of req (the caller's request is not modified), so
//     plugins may add tools or messages;
//  2. OnStreamChunk, while the stream waits, each plugin seeing the chunk as
//     the plugins before it left it. A Thinking or Text run is a chunk of
//     its own as soon as it is complete. ToolCalls wait for the rest of
//     their run: every call the model streams one after another (in
//     practice, all the calls of one turn) is handed over in one chunk, in
//     the model's order, once the run ends (a Thinking or Text delta
//     begins, or the server sends its finish_reason), so a plugin can run
//     them concurrently;
//  3. ExecuteLocalTool, offered each ToolCall still in the chunk, in order;
//     the first plugin that handles it replaces it with its ToolResult;
//  4. OnResponseComplete, once, on the final blocks, after the server's
//     finish_reason.
//
// A tool call whose arguments were cut off is never handed to a hook, and
// neither are the complete calls of a run the stream broke off (they stay in
// [Result.Blocks] as ToolCalls: no tool of an unfinished answer runs).
//
// Stream returns an error when the request cannot be mapped ([ErrRequest]),
// the server answers with an HTTP error status ([*StatusError]),
// the connection breaks, ctx is cancelled (the error wraps ctx's error), the
// stream ends with no finish_reason ([ErrIncompleteStream]), the deltas make
// no sense ([ErrMalformedStream]), or a hook fails ([ErrHook]). Once
// streaming has begun, the Result assembled so far is returned along with
// the error, so a caller can see which tools already ran.
func (c *Client) Stream(ctx context.Context, req *host.Request) (*Result, error) {
	if req == nil {
		req = host.NewRequest("")
	}
	req = cloneRequest(req)
	for _, p := range c.plugins {
		if err := p.OnRequest(ctx, req); err != nil {
			return nil, hookError(p, "OnRequest", err)
		}
	}
	params, err := toParams(req, c.model)
	if err != nil {
		return nil, err
	}

	stream := c.chat.NewStreaming(ctx, params)
	defer stream.Close()
	t := &turn{c: c, ctx: ctx, res: &Result{}}
	err = t.read(stream)
	t.finish()
	if err != nil {
		return t.res, err
	}
	return t.complete()
}

// turn is one answer as it streams: what the hooks have left so far, the
// assembler of the deltas, and the run of calls not yet handed over.
type turn struct {
	c   *Client
	ctx context.Context
	res *Result
	asm assembler
	// calls is the run of complete ToolCalls not yet handed to the
	// hooks: they go together, in one chunk, when the run ends.
	calls []host.Block
}

// read feeds the stream's deltas to the assembler and delivers the blocks
// it completes, until the stream ends or a hook fails.
func (t *turn) read(stream *ssestream.Stream[openai.ChatCompletionChunk]) error {
	for stream.Next() {
		chunk := stream.Current()
		for _, choice := range chunk.Choices {
			if choice.Index != 0 {
				continue // n > 1 is not requested; ignore extra choices
			}
			done, err := t.asm.feed(choice.Delta)
			if err == nil {
				err = t.deliver(done)
			}
			if err == nil && choice.FinishReason != "" && t.res.FinishReason == "" {
				t.res.FinishReason = choice.FinishReason
				err = t.deliver(t.asm.flush())
			}
			if err != nil {
				return err
			}
		}
	}
	if err := stream.Err(); err != nil {
		return streamError(t.ctx, t.c.baseURL, err)
	}
	if t.res.FinishReason == "" {
		return fmt.Errorf("%w (from %s)", ErrIncompleteStream, t.c.baseURL)
	}
	return nil
}

// run hands one chunk to the hooks and keeps what they leave.
func (t *turn) run(blocks []host.Block) error {
	out, err := t.c.runChunk(t.ctx, blocks)
	t.res.Blocks = append(t.res.Blocks, out...)
	return err
}

// runCalls hands the pending run of ToolCalls to the hooks.
func (t *turn) runCalls() error {
	if len(t.calls) == 0 {
		return nil
	}
	blocks := t.calls
	t.calls = nil
	return t.run(blocks)
}

// deliver takes the blocks the assembler completed: a Thinking or Text
// block goes to the hooks at once (after the calls before it), a ToolCall
// joins the pending run.
func (t *turn) deliver(blocks []host.Block) error {
	for _, b := range blocks {
		if _, ok := b.(host.ToolCall); ok {
			t.calls = append(t.calls, b)
			continue
		}
		if err := t.runCalls(); err != nil {
			return err
		}
		if err := t.run([]host.Block{b}); err != nil {
			return err
		}
	}
	// A run of calls ends when a block of another kind is open.
	if t.asm.open != kindToolCall {
		return t.runCalls()
	}
	return nil
}

// finish records what the assembler learnt; it runs on every way out.
// Calls still pending were not handed to the hooks: they stay in the
// answer as the model made them.
func (t *turn) finish() {
	t.res.Blocks = append(t.res.Blocks, t.calls...)
	t.calls = nil
	t.res.ThinkingBlocks = t.asm.thinkingDeltas
	t.res.ToolCalls = t.asm.calls
}

// complete runs every plugin's OnResponseComplete on the final blocks.
func (t *turn) complete() (*Result, error) {
	resp := &host.Response{Blocks: t.res.Blocks, FinishReason: t.res.FinishReason}
	for _, p := range t.c.plugins {
		if err := p.OnResponseComplete(t.ctx, resp); err != nil {
			return t.res, hookError(p, "OnResponseComplete", err)
		}
	}
	t.res.Blocks = resp.Blocks
	return t.res, nil
}

// runChunk runs OnStreamChunk of every plugin on a chunk of blocks, then
// offers each remaining ToolCall to ExecuteLocalTool. It returns the blocks
// the plugins left, even on error.
func (c *Client) runChunk(ctx context.Context, blocks []host.Block) ([]host.Block, error) {
	chunk := &host.Chunk{Blocks: blocks}
	for _, p := range c.plugins {
		if err := p.OnStreamChunk(ctx, chunk); err != nil {
			return chunk.Blocks, hookError(p, "OnStreamChunk", err)
		}
	}
	for i, blk := range chunk.Blocks {
		call, ok := blk.(host.ToolCall)
		if !ok {
			continue
		}
		for _, p := range c.plugins {
			result, handled, err := p.ExecuteLocalTool(ctx, call)
			if err != nil {
				return chunk.Blocks, hookError(p, "ExecuteLocalTool", err)
			}
			if handled {
				if result.ToolCallID == "" {
					result.ToolCallID = call.ID
				}
				if result.Name == "" {
					result.Name = call.Name
				}
				chunk.Blocks[i] = result
				break
			}
		}
	}
	return chunk.Blocks, nil
}

func hookError(p host.Plugin, hook string, err error) error {
	return fmt.Errorf("%w: plugin %q: %s: %w", ErrHook, p.Name(), hook, err)
}

// cloneRequest copies the request and its slices, so that hooks editing the
// copy leave the caller's request as it was.
func cloneRequest(r *host.Request) *host.Request {
	c := *r
	c.Messages = make([]host.Message, len(r.Messages))
	for i, m := range r.Messages {
		c.Messages[i] = host.Message{Role: m.Role, Blocks: append([]host.Block(nil), m.Blocks...)}
	}
	c.Tools = append([]host.ToolDefinition(nil), r.Tools...)
	return &c
}
