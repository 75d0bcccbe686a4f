package demomodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
)

// ScriptedModelName is the model the scripted endpoint reports and answers as.
const ScriptedModelName = "scripted"

// Scripted is a stand-in for an LLM when none is reachable: an
// OpenAI-compatible chat-completions endpoint that streams the real wire
// format (server-sent events of chat.completion.chunk, reasoning in
// reasoning_content, tool calls in tool_calls deltas with the arguments in
// fragments) but follows a script instead of thinking:
//
//   - offered an add tool (the first tool whose name ends in "add": "add"
//     itself, or "local__add" as a toolbox exposes it) and asked
//     "What is X + Y?", it calls that tool with {"a":X,"b":Y};
//   - offered no add tool but a tool search (a tool named "tool_search", as
//     a toolbox with tool search publishes it), it calls that with
//     {"query":"add two numbers"}; the search's answer (a tool message
//     starting "Loaded ") is not an answer to the question, so on the next
//     turn, offered the add tool the search loaded, it calls that;
//   - given the tool's answer, in a tool message or quoted in the prompt as
//     `answered "N"`, it replies "The sum of X and Y is N." — built from
//     that answer, never computed itself;
//   - asked about the latest note ("What does the latest note say?"), it
//     calls the offered tool whose name ends in [NoteToolSuffix]; when
//     the last tool result holds a resource link with its hint
//     ("[resource link: URI (name); read it with read_mcp_resource,
//     server "S"]") and the read tool is offered, it follows the link:
//     it calls that tool with {"server":S,"uri":URI} (no server when the
//     hint names none); given the read's answer, it replies
//     "The latest note says: TEXT".
//
// The zero value follows the script; the fields bend it for tests.
type Scripted struct {
	// Tool is the tool name it calls instead of the offered add tool; empty
	// means the offered one.
	Tool string
	// ArgFragments, if set, replace the arguments it streams on the tool
	// call turn, for tests of malformed arguments.
	ArgFragments []string
}

// SearchToolName is the tool search the script calls when no add tool is
// offered: the default name of a toolbox's tool search.
const SearchToolName = "tool_search"

// searchLoaded starts a tool search's answer that loaded tools.
const searchLoaded = "Loaded "

// NoteToolSuffix ends the name of the tool the script calls when asked
// about the latest note: "latest_note", or "notes__latest_note" as a
// toolbox exposes it.
const NoteToolSuffix = "latest_note"

// ReadToolName is the tool that reads a resource, which the script calls
// to follow a resource link: the read tool of plugin.WithResourceTools and
// toolbox.WithResourceTools.
const ReadToolName = "read_mcp_resource"

var (
	sumQuestion  = regexp.MustCompile(`(-?\d+(?:\.\d+)?)\s*\+\s*(-?\d+(?:\.\d+)?)`)
	quotedAnswer = regexp.MustCompile(`answered "([^"]*)"`)
	noteQuestion = regexp.MustCompile(`(?i)\blatest note\b`)
	// linkHint is a resource link in a tool result as a plugin or toolbox
	// with resource tools renders it: its URI, the read tool, and the
	// server when calls name one.
	linkHint = regexp.MustCompile(`\[resource link: (\S+) [^\]]*; read it with (\w+)(?:, server "([^"]*)")?\]`)
)

// chatRequest is the part of a chat-completions request the script reads.
type chatRequest struct {
	Stream   bool `json:"stream"`
	Messages []struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		ToolCalls []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// ServeHTTP serves GET /v1/models and POST /v1/chat/completions.
func (m *Scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"mcpconnector"}]}`, ScriptedModelName)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		m.chat(w, r)
	default:
		httpError(w, http.StatusNotFound, "the scripted endpoint serves GET /v1/models and POST /v1/chat/completions only")
	}
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": status}})
	_, _ = w.Write(b)
}

func (m *Scripted) chat(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		httpError(w, http.StatusBadRequest, "request body is not JSON: "+err.Error())
		return
	}
	if !req.Stream {
		httpError(w, http.StatusBadRequest, "the scripted endpoint only streams")
		return
	}
	var question, answer string
	var lastCall, lastTool string // the last tool the model called, and the last tool result
	for _, msg := range req.Messages {
		text := contentText(msg.Content)
		switch msg.Role {
		case "user":
			question = text
			if a := quotedAnswer.FindStringSubmatch(text); a != nil {
				answer = a[1]
			}
		case "assistant":
			for _, tc := range msg.ToolCalls {
				lastCall = tc.Function.Name
			}
		case "tool":
			lastTool = text
			if !strings.HasPrefix(text, searchLoaded) {
				answer = text
			}
		}
	}
	if noteQuestion.MatchString(question) && sumQuestion.FindStringSubmatch(question) == nil {
		m.note(w, req.toolNames(), lastCall, lastTool)
		return
	}
	// A toolbox publishes add under an exposed name such as "local__add".
	offered, search := "", false
	for _, t := range req.Tools {
		if offered == "" && strings.HasSuffix(t.Function.Name, "add") {
			offered = t.Function.Name
		}
		search = search || t.Function.Name == SearchToolName
	}
	tool := m.Tool
	if tool == "" {
		tool = offered
	}
	nums := sumQuestion.FindStringSubmatch(question)

	s := newSSE(w)
	s.delta(map[string]any{"role": "assistant", "content": ""}, "")
	switch {
	case answer != "" && nums != nil:
		s.reasoning("The prompt already holds the add tool's answer, so I only have to report it.")
		s.content(fmt.Sprintf("The sum of %s and %s is %s.", nums[1], nums[2], answer))
		s.delta(map[string]any{}, "stop")
	case offered != "" && nums != nil:
		s.reasoning(fmt.Sprintf("The user asks for %s + %s. I have an add tool, so I will call it.", nums[1], nums[2]))
		args := m.ArgFragments
		if args == nil {
			args = []string{`{"a":` + nums[1] + `,`, `"b":` + nums[2] + `}`}
		}
		s.toolCall("call_scripted_1", tool, args)
		s.delta(map[string]any{}, "tool_calls")
	case search && nums != nil:
		s.reasoning("No add tool is loaded yet, but I can search for one.")
		s.toolCall("call_scripted_search", SearchToolName, []string{`{"query":`, `"add two numbers"}`})
		s.delta(map[string]any{}, "tool_calls")
	default:
		s.content("I am a scripted model: I can only add two numbers with the add tool.")
		s.delta(map[string]any{}, "stop")
	}
	s.done()
}

// toolNames are the names of the tools the request offers.
func (r *chatRequest) toolNames() []string {
	names := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		names[i] = t.Function.Name
	}
	return names
}

// note answers a question about the latest note: the note tool first,
// then the read tool on the link its result holds, then the note's text.
func (m *Scripted) note(w http.ResponseWriter, offered []string, lastCall, lastTool string) {
	noteTool, canRead := "", false
	for _, n := range offered {
		if noteTool == "" && strings.HasSuffix(n, NoteToolSuffix) {
			noteTool = n
		}
		canRead = canRead || n == ReadToolName
	}
	link := linkHint.FindStringSubmatch(lastTool)
	s := newSSE(w)
	s.delta(map[string]any{"role": "assistant", "content": ""}, "")
	switch {
	case lastCall == ReadToolName && lastTool != "":
		s.reasoning("I read the resource the link pointed to; its text is the note.")
		s.content("The latest note says: " + strings.TrimSpace(lastTool))
		s.delta(map[string]any{}, "stop")
	case link != nil && link[2] == ReadToolName && canRead:
		s.reasoning("The tool answered with a link, not the note: I will read the resource it links to.")
		args := map[string]string{"uri": link[1]}
		if link[3] != "" {
			args["server"] = link[3]
		}
		b, _ := json.Marshal(args)
		s.toolCall("call_scripted_read", ReadToolName, []string{string(b)})
		s.delta(map[string]any{}, "tool_calls")
	case noteTool != "" && lastCall == "":
		s.reasoning("I have a tool that finds the latest note, so I will call it.")
		s.toolCall("call_scripted_note", noteTool, []string{`{}`})
		s.delta(map[string]any{}, "tool_calls")
	default:
		s.content("I am a scripted model: I can find the latest note with its tool and follow the link it gives.")
		s.delta(map[string]any{}, "stop")
	}
	s.done()
}

// contentText returns a message's content as text, whether it was sent as
// a string or as an array of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// sseWriter streams chat.completion.chunk events, one flush per event.
type sseWriter struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	return &sseWriter{w: w, f: f}
}

func (s *sseWriter) event(data string) {
	fmt.Fprintf(s.w, "data: %s\n\n", data)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s *sseWriter) delta(delta map[string]any, finish string) {
	var fr any
	if finish != "" {
		fr = finish
	}
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": ScriptedModelName,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fr}},
	})
	s.event(string(b))
}

// reasoning streams text word by word in reasoning_content, as llama-server
// streams a thinking model's reasoning token by token.
func (s *sseWriter) reasoning(text string) {
	for _, w := range strings.SplitAfter(text, " ") {
		s.delta(map[string]any{"content": nil, "reasoning_content": w}, "")
	}
}

// content streams text word by word.
func (s *sseWriter) content(text string) {
	for _, w := range strings.SplitAfter(text, " ") {
		s.delta(map[string]any{"content": w}, "")
	}
}

// toolCall streams one tool call: its id and name first, then the
// arguments in fragments.
func (s *sseWriter) toolCall(id, name string, fragments []string) {
	s.delta(map[string]any{"tool_calls": []any{map[string]any{
		"index": 0, "id": id, "type": "function",
		"function": map[string]any{"name": name, "arguments": ""},
	}}}, "")
	for _, f := range fragments {
		s.delta(map[string]any{"tool_calls": []any{map[string]any{
			"index": 0, "function": map[string]any{"arguments": f},
		}}}, "")
	}
}

func (s *sseWriter) done() { s.event("[DONE]") }

// StartScripted serves m on a loopback port and returns its base URL and a
// function that stops it. A nil m follows the script unchanged.
func StartScripted(m *Scripted) (baseURL string, stop func(), err error) {
	if m == nil {
		m = &Scripted{}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("scripted endpoint: %w", err)
	}
	srv := &http.Server{Handler: m}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "scripted endpoint:", err)
		}
	}()
	stop = func() {
		_ = srv.Shutdown(context.Background())
		<-served
	}
	return "http://" + ln.Addr().String() + "/v1", stop, nil
}
