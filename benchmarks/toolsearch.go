package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/internal/fixture/toolcorpus"
	"github.com/cuca-go/mcpconnector/mcpconfig"
	"github.com/cuca-go/mcpconnector/toolbox"
)

// Scenarios and subjects of tool search, on the real servers' tool lists
// of toolbox/testdata/tools.
const (
	ScenarioToolSearchRequest = "first request's tool definitions, real tool lists"
	ScenarioToolSearch        = "tool search, one query"
	ScenarioToolSearchHook    = "OnRequest, conversation of 200 messages"

	SubjectEager    = "every definition (eager)"
	SubjectDeferred = "search tool (deferred)"
	SubjectSearch   = "tool search"
	// SubjectSearchLong and SubjectSearchBlob search with LongTask and
	// BlobTask.
	SubjectSearchLong = "tool search, a 2 KB task"
	SubjectSearchBlob = "tool search, a 20 KB paste"
	SubjectOnReq      = "OnRequest with tool search"
	// SubjectEagerHost is the floor of OnRequest: a host copying
	// ToolDefinitions into the request.
	SubjectEagerHost = "host adds ToolDefinitions (floor)"
)

// SearchCopies is how many copies of the corpus the search scenario's
// toolbox serves, each under its own server names: 2 × 582 = 1,164 tools.
const SearchCopies = 2

// searchResults is [toolbox.ToolSearch]'s default Results, the tools one
// search loads.
const searchResults = 5

// ConversationMessages is the length of the OnRequest scenario's
// conversation.
const ConversationMessages = 200

// ToolSearchFigures is what tool search saves in the first request and
// what it costs, measured in one run.
type ToolSearchFigures struct {
	// Tools and Servers count the corpus.
	Tools, Servers int
	// EagerBytes and DeferredBytes are the JSON of the definitions in the
	// first request (name, description, schema, what [toolbox.ToolSearch]'s Threshold
	// counts)
	// without and with tool search; the Tokens are the same text in
	// o200k_base tokens (a provider's own wrapping of tools is not
	// counted).
	EagerBytes, DeferredBytes   int
	EagerTokens, DeferredTokens int
	// SearchTools is how many tools the search scenario's toolbox has, and
	// FirstRequest how long its first OnRequest took, which builds the
	// search index (again after any change of a tool list).
	SearchTools  int
	FirstRequest time.Duration
	// Search is one search call through OnStreamChunk with a short
	// phrasing, SearchLong with a 2 KB task of several steps ([LongTask]),
	// SearchBlob with a 20 KB paste ([BlobTask]); OnRequest and Eager are
	// OnRequest on a conversation of ConversationMessages messages and its
	// floor.
	Search, SearchLong, SearchBlob, OnRequest, Eager Result
	// Sets score the search on each set of tasks (recall at 3, 5 and 10,
	// steps covered at 5), in the order of TaskSets.
	Sets []toolcorpus.Figures
	// Found and Asked count, by server, the task phrasings whose tool was
	// among those a search for the phrasing loaded.
	Found, Asked map[string]int
	// HeldOutFound of HeldOutAsked phrasings written after the search was
	// last tuned had their tool loaded.
	HeldOutFound, HeldOutAsked int
	// FirstTools is how many tools the first corpus has (the servers of
	// toolcorpus.FirstServers, on which the phrasings were written), and
	// HeldOutFirstFound how many of the held-out phrasings a search over
	// those tools alone loads the tool of; TunedFirstFound the same of the
	// tuned phrasings, whose target was met on those tools.
	FirstTools, HeldOutFirstFound, TunedFirstFound int
}

// TaskSets name the sets of tasks that [ToolSearchFigures.Sets] score.
var TaskSets = []string{
	"one-tool phrasings, tuned on (tasks.json)",
	"one-tool phrasings held out before tuning (tasks_heldout.json)",
	"several-step tasks, written before tuning (tasks_steps.json)",
	"several-step tasks, written after tuning (tasks_steps_late.json)",
}

// loadTaskSets reads the sets of TaskSets.
func loadTaskSets() ([][]toolcorpus.StepTask, error) {
	tuned, err := toolcorpus.Tasks()
	if err != nil {
		return nil, err
	}
	heldOut, err := toolcorpus.HeldOutTasks()
	if err != nil {
		return nil, err
	}
	steps, err := toolcorpus.StepTasks()
	if err != nil {
		return nil, err
	}
	late, err := toolcorpus.LateStepTasks()
	if err != nil {
		return nil, err
	}
	return [][]toolcorpus.StepTask{toolcorpus.AsSteps(tuned), toolcorpus.AsSteps(heldOut), steps, late}, nil
}

// Recall is the share of task phrasings whose tool was loaded.
func (f ToolSearchFigures) Recall() float64 {
	found, asked := 0, 0
	for s, n := range f.Asked {
		asked += n
		found += f.Found[s]
	}
	if asked == 0 {
		return 0
	}
	return float64(found) / float64(asked)
}

// CorpusToolbox opens a toolbox of copies of the corpus, each server a
// go-sdk server over loopback HTTP named "<server>" (one copy) or
// "<server><k>". stop closes the toolbox and the servers.
func CorpusToolbox(ctx context.Context, copies int, opts ...toolbox.Option) (tb *toolbox.Toolbox, servers []toolcorpus.Server, stop func(), err error) {
	servers, err = toolcorpus.Load()
	if err != nil {
		return nil, nil, nil, err
	}
	return serversToolbox(ctx, servers, copies, opts...)
}

// serversToolbox is CorpusToolbox over servers.
func serversToolbox(ctx context.Context, servers []toolcorpus.Server, copies int, opts ...toolbox.Option) (tb *toolbox.Toolbox, _ []toolcorpus.Server, stop func(), err error) {
	cfg := &mcpconfig.Config{Servers: map[string]*mcpconfig.Server{}}
	var https []*httptest.Server
	stop = func() {
		if tb != nil {
			_ = tb.Close()
		}
		for _, h := range https {
			h.Close()
		}
	}
	for k := range copies {
		for _, s := range servers {
			h := testserver.NewHTTPServer(toolcorpus.NewServer(s))
			https = append(https, h)
			name := s.Name
			if copies > 1 {
				name = fmt.Sprintf("%s%d", s.Name, k)
			}
			cfg.Servers[name] = &mcpconfig.Server{Name: name, Type: mcpconfig.TypeHTTP, URL: h.URL}
		}
	}
	tb, err = toolbox.Open(ctx, cfg, append([]toolbox.Option{toolbox.WithStrict()}, opts...)...)
	if err != nil {
		stop()
		return nil, nil, nil, err
	}
	return tb, servers, stop, nil
}

// DefinitionTokens counts defs as the JSON a request carries, in
// o200k_base tokens.
func DefinitionTokens(defs []host.ToolDefinition) (int, error) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range defs {
		b, err := json.Marshal(map[string]any{"name": d.Name, "description": d.Description, "input_schema": d.InputSchema})
		if err != nil {
			return 0, err
		}
		ids, _, err := enc.Encode(string(b))
		if err != nil {
			return 0, err
		}
		n += len(ids)
	}
	return n, nil
}

// definitionBytes is the size of defs as JSON objects with the keys
// "name", "description" and "input_schema": what [toolbox.ToolSearch]'s
// Threshold counts.
func definitionBytes(defs []host.ToolDefinition) int {
	n := 0
	for _, d := range defs {
		name, _ := json.Marshal(d.Name)
		desc, _ := json.Marshal(d.Description)
		schema := len(d.InputSchema)
		if schema == 0 {
			schema = len("null")
		}
		n += len(`{"name":,"description":,"input_schema":}`) + len(name) + len(desc) + schema
	}
	return n
}

// MeasureToolSearch measures the first request eager and deferred on the
// corpus, recall on its task phrasings, and, on a toolbox of SearchCopies
// copies, a search and OnRequest, interleaved in rounds of perRound.
func MeasureToolSearch(ctx context.Context, rounds, perRound int) (ToolSearchFigures, error) {
	var f ToolSearchFigures
	tb, servers, stop, err := CorpusToolbox(ctx, 1, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	if err != nil {
		return f, err
	}
	defer stop()
	f.Tools, f.Servers = toolcorpus.Count(servers), len(servers)
	eager := tb.ToolDefinitions()
	req := host.NewRequest("m").AddMessage(host.RoleUser, host.Text{Text: "hello"})
	if err := tb.OnRequest(ctx, req); err != nil {
		return f, err
	}
	f.EagerBytes, f.DeferredBytes = definitionBytes(eager), definitionBytes(req.Tools)
	if f.EagerTokens, err = DefinitionTokens(eager); err != nil {
		return f, err
	}
	if f.DeferredTokens, err = DefinitionTokens(req.Tools); err != nil {
		return f, err
	}
	tasks, err := toolcorpus.Tasks()
	if err != nil {
		return f, err
	}
	loads := func(task toolcorpus.Task) bool {
		return slices.ContainsFunc(tb.Search(task.Task), func(tl toolbox.Tool) bool { return tl.Name == task.Tool })
	}
	f.Found, f.Asked = map[string]int{}, map[string]int{}
	for _, task := range tasks {
		server, _, _ := strings.Cut(task.Tool, "__")
		f.Asked[server]++
		if loads(task) {
			f.Found[server]++
		}
	}
	heldOut, err := toolcorpus.HeldOutTasks()
	if err != nil {
		return f, err
	}
	for _, task := range heldOut {
		f.HeldOutAsked++
		if loads(task) {
			f.HeldOutFound++
		}
	}
	first, _, stopFirst, err := serversToolbox(ctx, toolcorpus.First(servers), 1, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	if err != nil {
		return f, err
	}
	defer stopFirst()
	f.FirstTools = len(first.Tools())
	loadsFirst := func(task toolcorpus.Task) bool {
		return slices.ContainsFunc(first.Search(task.Task), func(tl toolbox.Tool) bool { return tl.Name == task.Tool })
	}
	for _, task := range heldOut {
		if loadsFirst(task) {
			f.HeldOutFirstFound++
		}
	}
	for _, task := range tasks {
		if loadsFirst(task) {
			f.TunedFirstFound++
		}
	}
	if f.Sets, err = measureSets(ctx); err != nil {
		return f, err
	}

	big, _, stopBig, err := CorpusToolbox(ctx, SearchCopies, toolbox.WithToolSearch(toolbox.ToolSearch{}))
	if err != nil {
		return f, err
	}
	defer stopBig()
	f.SearchTools = len(big.Tools())
	t0 := time.Now()
	if err := big.OnRequest(ctx, host.NewRequest("m")); err != nil {
		return f, err
	}
	f.FirstRequest = time.Since(t0)
	conv := Conversation(big, tasks, ConversationMessages)
	steps, err := toolcorpus.StepTasks()
	if err != nil {
		return f, err
	}
	res, err := Interleave(ctx, []*Subject{
		SearchSubject(big, tasks),
		QuerySubject(big, SubjectSearchLong, []string{LongTask(steps)}),
		QuerySubject(big, SubjectSearchBlob, []string{BlobTask()}),
		OnRequestSubject(big, conv), EagerHostSubject(big, conv),
	}, rounds, perRound, perRound)
	if err != nil {
		return f, err
	}
	f.Search, f.SearchLong, f.SearchBlob, f.OnRequest, f.Eager = res[0], res[1], res[2], res[3], res[4]
	return f, nil
}

// measureSets scores the search on each of TaskSets over one copy of the
// corpus, with toolboxes loading each of toolcorpus.Depths.
func measureSets(ctx context.Context) ([]toolcorpus.Figures, error) {
	sets, err := loadTaskSets()
	if err != nil {
		return nil, err
	}
	tbs := map[int]*toolbox.Toolbox{}
	for _, k := range toolcorpus.Depths {
		tb, _, stop, err := CorpusToolbox(ctx, 1, toolbox.WithToolSearch(toolbox.ToolSearch{Results: k}))
		if err != nil {
			return nil, err
		}
		defer stop()
		tbs[k] = tb
	}
	search := func(q string, k int) []string {
		var names []string
		for _, tl := range tbs[k].Search(q) {
			names = append(names, tl.Name)
		}
		return names
	}
	out := make([]toolcorpus.Figures, len(sets))
	for i, set := range sets {
		out[i] = toolcorpus.Measure(set, search)
		out[i].Misses = nil
	}
	return out, nil
}

// SearchSubject searches with each task phrasing in turn, as the model's
// call of the search tool through OnStreamChunk.
func SearchSubject(tb *toolbox.Toolbox, tasks []toolcorpus.Task) *Subject {
	queries := make([]string, len(tasks))
	for i, task := range tasks {
		queries[i] = task.Task
	}
	return QuerySubject(tb, SubjectSearch, queries)
}

// LongTaskBytes and BlobTaskBytes are the sizes of [LongTask] and
// [BlobTask].
const (
	LongTaskBytes = 2 << 10
	BlobTaskBytes = 20 << 10
)

// LongTask is a 2 KB message of several tasks: the several-step tasks
// without pasted content, one after the other, cut at LongTaskBytes.
func LongTask(tasks []toolcorpus.StepTask) string {
	var b strings.Builder
	for _, t := range tasks {
		if b.Len() >= LongTaskBytes {
			break
		}
		if len(t.Task) < 400 && !strings.Contains(t.Task, "\n\n") {
			b.WriteString(t.Task)
			b.WriteString("\n")
		}
	}
	return cutBytes(b.String(), LongTaskBytes)
}

// BlobTask is a short task with a pasted blob making it 20 KB: a base64
// image, then a log of hex request IDs and numbers.
func BlobTask() string {
	var b strings.Builder
	b.WriteString("the upload fails with the screenshot below, find the matching issue on github and add a comment with this log:\n\ndata:image/png;base64,")
	x := uint64(0x9E3779B97F4A7C15)
	const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for b.Len() < BlobTaskBytes/2 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b.WriteByte(b64[x%64])
	}
	b.WriteString("\n\n")
	for i := 0; b.Len() < BlobTaskBytes; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		fmt.Fprintf(&b, "2026-12-02T14:%02d:%02d.%03dZ req=%016x status=500 bytes=%d\n", i/60%60, i%60, i%1000, x, x%65536)
	}
	return cutBytes(b.String(), BlobTaskBytes)
}

// cutBytes cuts s to n bytes (ASCII here).
func cutBytes(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// QuerySubject searches with each of queries in turn, as the model's call
// of the search tool through OnStreamChunk.
func QuerySubject(tb *toolbox.Toolbox, name string, queries []string) *Subject {
	calls := make([]host.ToolCall, len(queries))
	for i, q := range queries {
		args, _ := json.Marshal(map[string]string{"query": q})
		calls[i] = host.ToolCall{ID: fmt.Sprint(i), Name: toolbox.DefaultToolSearchName, Arguments: args}
	}
	return &Subject{Name: name, New: func() Op {
		i := 0
		chunk := &host.Chunk{Blocks: make([]host.Block, 1)}
		return func(ctx context.Context) error {
			chunk.Blocks[0] = calls[i%len(calls)]
			i++
			if err := tb.OnStreamChunk(ctx, chunk); err != nil {
				return err
			}
			if r, ok := chunk.Blocks[0].(host.ToolResult); !ok || r.IsError {
				return fmt.Errorf("search not answered: %#v", chunk.Blocks[0])
			}
			return nil
		}
	}}
}

// Conversation is n messages of a session with the toolbox: user turns,
// searches with the task phrasings and their results, and calls of the
// tools they loaded with their results.
func Conversation(tb *toolbox.Toolbox, tasks []toolcorpus.Task, n int) []host.Message {
	var msgs []host.Message
	for i := 0; len(msgs) < n; i++ {
		task := tasks[i%len(tasks)]
		msgs = append(msgs, host.Message{Role: host.RoleUser, Blocks: []host.Block{host.Text{Text: task.Task}}})
		args, _ := json.Marshal(map[string]string{"query": task.Task})
		sc := host.ToolCall{ID: fmt.Sprintf("s%d", i), Name: toolbox.DefaultToolSearchName, Arguments: args}
		chunk := &host.Chunk{Blocks: []host.Block{sc}}
		_ = tb.OnStreamChunk(context.Background(), chunk)
		msgs = append(msgs,
			host.Message{Role: host.RoleAssistant, Blocks: []host.Block{host.Text{Text: "Let me look."}, sc}},
			host.Message{Role: host.RoleTool, Blocks: []host.Block{chunk.Blocks[0]}})
		if found := tb.Search(task.Task); len(found) > 0 {
			call := host.ToolCall{ID: fmt.Sprintf("c%d", i), Name: found[0].Name, Arguments: json.RawMessage(`{}`)}
			msgs = append(msgs,
				host.Message{Role: host.RoleAssistant, Blocks: []host.Block{call}},
				host.Message{Role: host.RoleTool, Blocks: []host.Block{host.ToolResult{ToolCallID: call.ID, Name: call.Name, Content: "done"}}})
		}
	}
	return slices.Clip(msgs[:n])
}

// OnRequestSubject runs OnRequest on a fresh request holding conv, as a
// host does before each turn.
func OnRequestSubject(tb *toolbox.Toolbox, conv []host.Message) *Subject {
	return &Subject{Name: SubjectOnReq, New: func() Op {
		req := &host.Request{Model: "m"}
		return func(ctx context.Context) error {
			req.Messages, req.Tools = conv, req.Tools[:0]
			return tb.OnRequest(ctx, req)
		}
	}}
}

// EagerHostSubject is what a host without tool search does instead: copy
// every definition into the request.
func EagerHostSubject(tb *toolbox.Toolbox, conv []host.Message) *Subject {
	return &Subject{Name: SubjectEagerHost, New: func() Op {
		req := &host.Request{Model: "m"}
		return func(context.Context) error {
			req.Messages = conv
			req.Tools = append(req.Tools[:0], tb.ToolDefinitions()...)
			return nil
		}
	}}
}
