package einomcp

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	"github.com/cuca-go/mcpconnector/plugin"
)

// Progress hands the servers' notifications/progress to the eino calls
// they belong to. Give its [Progress.Handle] to plugin.WithProgress (for a
// toolbox, inside toolbox.WithPluginOptions) and the Progress itself to
// [WithProgress]:
//
//	p := einomcp.NewProgress()
//	tb, err := toolbox.Open(ctx, cfg, toolbox.WithPluginOptions(plugin.WithProgress(p.Handle)))
//	tools, err := einomcp.Tools(ctx, tb, einomcp.WithProgress(p))
//
// It is safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	calls map[string]*progressQueue
	seq   atomic.Uint64
}

// NewProgress returns a Progress with no calls.
func NewProgress() *Progress {
	return &Progress{calls: map[string]*progressQueue{}}
}

// WithProgress makes every tool a [tool.StreamableTool] too: in a streamed
// run (the ReAct agent's Stream, a graph's Stream) each progress the server
// sends for a call is a chunk of the call's stream, as a line such as
// "[progress 3/10: indexing]", and the last chunk is the result. eino
// joins a tool's chunks into its message, so the model reads the progress
// lines before the result. Invoked runs are unchanged.
func WithProgress(p *Progress) Option {
	return func(o *options) { o.progress = p }
}

// Handle is the handler for plugin.WithProgress. It never blocks: the
// progress waits in the call's queue until the call's stream takes it.
func (p *Progress) Handle(pr plugin.Progress) {
	p.mu.Lock()
	q := p.calls[pr.CallID]
	p.mu.Unlock()
	if q != nil {
		q.push(progressLine(pr))
	}
}

func progressLine(pr plugin.Progress) string {
	s := "[progress " + strconv.FormatFloat(pr.Progress, 'g', -1, 64)
	if pr.Total > 0 {
		s += "/" + strconv.FormatFloat(pr.Total, 'g', -1, 64)
	}
	if pr.Message != "" {
		s += ": " + pr.Message
	}
	return s + "]\n"
}

// register opens the queue of a call and returns the call id progress
// carries: eino's id, or a fresh one when it is empty or already in
// flight (ids come from the model, which may repeat them).
func (p *Progress) register(id string) (string, *progressQueue) {
	q := &progressQueue{wake: make(chan struct{}, 1)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, busy := p.calls[id]; id == "" || busy {
		id = fmt.Sprintf("%s#einomcp-%d", id, p.seq.Add(1))
	}
	p.calls[id] = q
	return id, q
}

func (p *Progress) unregister(id string) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
}

// progressQueue is one call's progress lines, unbounded so that Handle
// never waits for a slow reader.
type progressQueue struct {
	mu    sync.Mutex
	lines []string
	wake  chan struct{}
}

func (q *progressQueue) push(line string) {
	q.mu.Lock()
	q.lines = append(q.lines, line)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *progressQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	lines := q.lines
	q.lines = nil
	return lines
}

// streamingTool is an mcpTool that streams its call's progress.
type streamingTool struct {
	*mcpTool
	progress *Progress
}

var _ tool.StreamableTool = (*streamingTool)(nil)

// StreamableRun runs the call; its stream carries the call's progress
// lines, then the result. When ctx ends, the stream ends with ctx's error.
func (t *streamingTool) StreamableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (*schema.StreamReader[string], error) {
	id, q := t.progress.register(callID(ctx))
	sr, sw := schema.Pipe[string](8)
	type outcome struct {
		text string
		err  error
	}
	done := make(chan outcome, 1)
	go func() {
		text, err := t.run(ctx, id, argumentsInJSON)
		done <- outcome{text, err}
	}()
	go func() {
		defer sw.Close()
		defer t.progress.unregister(id)
		forward := func() bool {
			for _, line := range q.take() {
				if closed := sw.Send(line, nil); closed {
					return false
				}
			}
			return true
		}
		for {
			select {
			case <-q.wake:
				if !forward() {
					// The reader went away; the call still ends by its ctx.
					<-done
					return
				}
			case out := <-done:
				// Every progress sent before the result has been handed
				// to Handle by now.
				if forward() {
					sw.Send(out.text, out.err)
				}
				return
			}
		}
	}()
	return sr, nil
}
