package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/cuca-go/mcpconnector/client"
	"github.com/cuca-go/mcpconnector/host"
)

// ScenarioTurn is one model turn that asks for tool calls, streamed by an
// OpenAI-compatible endpoint on loopback and run by [client.Client] with the
// plugin registered: what a turn of several calls costs against a turn of
// one.
const ScenarioTurn = "one turn of tool calls, 100 ms tool, stdio"

// Subject names of [ScenarioTurn].
const (
	SubjectTurn1 = "1 call"
	SubjectTurn4 = "4 calls in one turn"
)

// TurnCall is "slow" {ms:100}: a tool that takes 100 ms, as one that waits
// on a remote service does.
var TurnCall = Call{Tool: "slow", Args: json.RawMessage(`{"ms":100}`), Want: "done"}

// ScriptedTurn is an OpenAI-compatible chat-completions endpoint on loopback
// whose every answer is one streamed turn asking for n calls of c, each in
// one delta, then finish_reason "tool_calls".
type ScriptedTurn struct {
	srv *httptest.Server
}

// NewScriptedTurn starts the endpoint. The caller closes it.
func NewScriptedTurn(n int, c Call) *ScriptedTurn {
	var body []byte
	for i := range n {
		delta, _ := json.Marshal(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": fmt.Sprintf("call_%d", i), "type": "function",
			"function": map[string]any{"name": c.Tool, "arguments": string(c.Args)},
		}}})
		body = fmt.Appendf(body, "data: %s\n\n", turnChunk(string(delta), "null"))
	}
	body = fmt.Appendf(body, "data: %s\n\ndata: [DONE]\n\n", turnChunk("{}", `"tool_calls"`))
	return &ScriptedTurn{srv: httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))}
}

func turnChunk(delta, finish string) string {
	return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"scripted",` +
		`"choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
}

// BaseURL is the endpoint's chat-completions base URL.
func (s *ScriptedTurn) BaseURL() string { return s.srv.URL + "/v1" }

// Close stops the endpoint.
func (s *ScriptedTurn) Close() { s.srv.Close() }

// Turn is one streamed turn of s's n calls through a client with p
// registered: each op streams the answer, and every call must come back as
// c's result, in the model's order.
func Turn(name string, s *ScriptedTurn, n int, p host.Plugin, c Call) (*Subject, error) {
	cl, err := client.New(client.WithProvider(client.OpenAICompatible), client.WithBaseURL(s.BaseURL()),
		client.WithModel("scripted"), client.WithMaxRetries(0), client.WithPlugin(p))
	if err != nil {
		return nil, err
	}
	req := host.NewRequest("").AddMessage(host.RoleUser, host.Text{Text: "Run the tool."})
	return &Subject{Name: name, New: func() Op {
		return func(ctx context.Context) error {
			res, err := cl.Stream(ctx, req)
			if err != nil {
				return err
			}
			got := res.ToolResults()
			if len(got) != n {
				return fmt.Errorf("turn left %d results, want %d: %#v", len(got), n, res.Blocks)
			}
			for i, r := range got {
				if r.IsError || r.Content != c.Want || r.ToolCallID != fmt.Sprintf("call_%d", i) {
					return fmt.Errorf("result %d is %#v, want call_%d %q", i, r, i, c.Want)
				}
			}
			return nil
		}
	}}, nil
}

// turn measures one turn of 4 calls of the 100 ms tool against a turn of
// one call, interleaved, on the runner's stdio plugin.
func (r *runner) turn(ctx context.Context) error {
	one, four := NewScriptedTurn(1, TurnCall), NewScriptedTurn(4, TurnCall)
	defer one.Close()
	defer four.Close()
	s1, err := Turn(SubjectTurn1, one, 1, r.plugin, TurnCall)
	if err != nil {
		return err
	}
	s4, err := Turn(SubjectTurn4, four, 4, r.plugin, TurnCall)
	if err != nil {
		return err
	}
	res, err := Interleave(ctx, []*Subject{s1, s4}, r.cfg.TurnRounds, 1, 1)
	if err != nil {
		return err
	}
	r.add(ScenarioTurn, res...)
	return nil
}

// turnRatio is the p50 of a turn of 4 calls over that of one, or 0 when the
// report lacks either row.
func (r *Report) turnRatio() (float64, *Row, *Row) {
	one, four := r.find(ScenarioTurn, SubjectTurn1, 0), r.find(ScenarioTurn, SubjectTurn4, 0)
	if one == nil || four == nil || one.Latency.P50 == 0 {
		return 0, one, four
	}
	return float64(four.Latency.P50) / float64(one.Latency.P50), one, four
}

// turnTarget is the goal of [ScenarioTurn]: the calls of one turn run
// together, so four cost about what one does.
func (r *Report) turnTarget() (Target, bool) {
	x, one, four := r.turnRatio()
	if x == 0 {
		return Target{}, false
	}
	return Target{
		Goal: "one turn of 4 calls of a 100 ms tool: p50 at most 1.2x a turn of 1 call",
		Got:  fmt.Sprintf("%.2fx (%s vs %s)", x, Dur(four.Latency.P50), Dur(one.Latency.P50)),
		Met:  x <= 1.2,
	}, true
}

// turnNote is the last column of [ScenarioTurn]'s rows.
func (r *Report) turnNote(row *Row) string {
	if x, _, _ := r.turnRatio(); row.Subject == SubjectTurn4 && x != 0 {
		return fmt.Sprintf("%.2fx the turn of 1 call", x)
	}
	return ""
}
