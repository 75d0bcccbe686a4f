package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/cuca-go/mcpconnector/host"
)

// reasoningFields are the delta fields that carry reasoning text, in order of
// preference: llama-server and older vLLM send reasoning_content, newer vLLM
// and Ollama send reasoning, and some servers send both with the same text,
// so only the first one present is used.
var reasoningFields = [...]string{"reasoning_content", "reasoning"}

type blockKind int

const (
	kindNone blockKind = iota
	kindText
	kindThinking
	kindToolCall
)

// assembler turns a stream of deltas into complete blocks. Deltas arrive in
// runs of one kind (reasoning, then text, then tool calls, in any order); a
// block is complete when a delta of another kind, or another tool call,
// begins, or when the stream finishes.
type assembler struct {
	open blockKind
	text strings.Builder

	call     host.ToolCall
	callIdx  int64
	callArgs strings.Builder
	doneIdx  map[int64]bool

	thinkingDeltas int
	calls          []host.ToolCall
}

// feed consumes one delta and returns the blocks it completed, in order.
func (a *assembler) feed(d openai.ChatCompletionChunkChoiceDelta) ([]host.Block, error) {
	var done []host.Block
	if r := reasoningOf(d); r != "" {
		a.thinkingDeltas++
		done = a.switchTo(kindThinking, done)
		a.text.WriteString(r)
	}
	if s := d.Content + d.Refusal; s != "" {
		done = a.switchTo(kindText, done)
		a.text.WriteString(s)
	}
	for _, tc := range d.ToolCalls {
		idx, ok := a.indexOf(tc)
		if !ok || a.open != kindToolCall || idx != a.callIdx {
			done = a.switchTo(kindNone, done)
			if a.doneIdx[idx] {
				return done, fmt.Errorf("%w: tool call %d continued after it completed", ErrMalformedStream, idx)
			}
			a.open = kindToolCall
			a.callIdx = idx
			a.call = host.ToolCall{}
		}
		if tc.ID != "" {
			a.call.ID = tc.ID
		}
		a.call.Name += tc.Function.Name
		a.callArgs.WriteString(tc.Function.Arguments)
	}
	return done, nil
}

// indexOf returns the tool call's index. A server that sends no index (it
// streams each call whole) gets the next index whenever the id changes.
func (a *assembler) indexOf(tc openai.ChatCompletionChunkChoiceDeltaToolCall) (int64, bool) {
	if tc.JSON.Index.Valid() {
		return tc.Index, true
	}
	if a.open == kindToolCall && (tc.ID == "" || tc.ID == a.call.ID) {
		return a.callIdx, true
	}
	next := int64(len(a.doneIdx))
	if a.open == kindToolCall {
		next++
	}
	return next, false
}

// flush completes the open block, if any. The stream calls it on a
// finish_reason.
func (a *assembler) flush() []host.Block {
	return a.switchTo(kindNone, nil)
}

// switchTo completes the open block unless it is of kind k, appending it to
// done, and leaves a block of kind k open.
func (a *assembler) switchTo(k blockKind, done []host.Block) []host.Block {
	if a.open == k && k != kindNone {
		return done
	}
	switch a.open {
	case kindText:
		done = append(done, host.Text{Text: a.text.String()})
	case kindThinking:
		done = append(done, host.Thinking{Text: a.text.String()})
	case kindToolCall:
		call := a.call
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", a.callIdx)
		}
		if a.callArgs.Len() > 0 {
			call.Arguments = json.RawMessage(a.callArgs.String())
		}
		if a.doneIdx == nil {
			a.doneIdx = make(map[int64]bool)
		}
		a.doneIdx[a.callIdx] = true
		a.calls = append(a.calls, call)
		done = append(done, call)
	}
	a.text.Reset()
	a.callArgs.Reset()
	a.open = k
	return done
}

// reasoningOf returns the reasoning text a delta carries in its extra JSON
// fields, or "".
func reasoningOf(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, name := range reasoningFields {
		f, ok := d.JSON.ExtraFields[name]
		if !ok {
			continue
		}
		var s *string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != nil && *s != "" {
			return *s
		}
	}
	return ""
}
