package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
)

// changeLog records what status handlers hear.
type changeLog struct {
	mu  sync.Mutex
	all []plugin.Status
}

func (l *changeLog) add(s plugin.Status) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, s)
}

// changed reports whether a ready status reported added and removed.
func (l *changeLog) changed(added, removed []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.all, func(s plugin.Status) bool {
		return s.State == actors.Ready && slices.Equal(s.ToolsAdded, added) && slices.Equal(s.ToolsRemoved, removed)
	})
}

// keepCalling runs hook calls of "text" on p until stop is closed and
// returns the failures it saw.
func keepCalling(p host.Plugin, n int, stop <-chan struct{}) func() []string {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for w := range n {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				want := fmt.Sprintf("w%di%d", w, i)
				out := hookCall(ctx, p, want, "text", fmt.Sprintf(`{"unit":%q,"times":1}`, want))
				cancel()
				if out.IsError || out.Content != want || out.ToolCallID != want {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%+v", out))
					mu.Unlock()
				}
			}
		})
	}
	return func() []string {
		wg.Wait()
		return failures
	}
}

func TestToolAddedAndRemovedAtRuntimeWhileCallsRun(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			var statuses changeLog
			core, logs := observer.New(zap.InfoLevel)
			p := connect(t, tr, plugin.WithToolRefresh(), plugin.WithStatusHandler(statuses.add), plugin.WithLogger(zap.New(core)))
			require.False(t, p.HasTool("fresh"))

			stop := make(chan struct{})
			wait := keepCalling(p, 4, stop)

			assert.Equal(t, "added fresh", callText(t, p, "add_tool", map[string]any{"name": "fresh"}))
			require.Eventually(t, func() bool { return p.HasTool("fresh") }, 10*time.Second, 5*time.Millisecond)
			assert.Equal(t, host.ToolResult{ToolCallID: "f1", Name: "fresh", Content: "I am fresh"},
				hookCall(context.Background(), p, "f1", "fresh", `{}`))
			assert.Eventually(t, func() bool { return statuses.changed([]string{"fresh"}, nil) }, 5*time.Second, 5*time.Millisecond,
				"the status handler hears of the added tool")
			assert.Contains(t, toolNames(p), "fresh")

			assert.Equal(t, "removed fresh", callText(t, p, "remove_tool", map[string]any{"name": "fresh"}))
			require.Eventually(t, func() bool { return !p.HasTool("fresh") }, 10*time.Second, 5*time.Millisecond)
			assert.Eventually(t, func() bool { return statuses.changed(nil, []string{"fresh"}) }, 5*time.Second, 5*time.Millisecond)
			// A name no longer discovered passes through untouched.
			chunk := &host.Chunk{Blocks: []host.Block{host.ToolCall{ID: "f2", Name: "fresh"}}}
			require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
			assert.Equal(t, host.ToolCall{ID: "f2", Name: "fresh"}, chunk.Blocks[0])

			close(stop)
			assert.Empty(t, wait(), "calls in flight while the list changed")
			assert.Equal(t, testserver.ControlsToolNames, toolNames(p))
			changes := logs.FilterMessage("mcp tool list changed").All()
			require.Len(t, changes, 2)
			assert.Equal(t, []any{"fresh"}, changes[0].ContextMap()["added"])
			assert.Equal(t, []any{"fresh"}, changes[1].ContextMap()["removed"])
		})
	}
}

func toolNames(p *plugin.McpPlugin) []string {
	var names []string
	for _, tl := range p.Tools() {
		names = append(names, tl.Name)
	}
	return names
}

func TestToolListStaysAsDiscoveredWithoutToolRefresh(t *testing.T) {
	leakCheck(t)
	// The tools are discovered once, at connect. The server announces its
	// change and gives a TTL; neither is acted on.
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{ToolsTTL: 100 * time.Millisecond}))
	assert.Equal(t, "added fresh", callText(t, p, "add_tool", map[string]any{"name": "fresh"}))
	assert.Never(t, func() bool { return p.HasTool("fresh") }, 600*time.Millisecond, 20*time.Millisecond)
	assert.Equal(t, testserver.ControlsToolNames, toolNames(p))
}

func TestToolListIsListedAgainAfterItsTTL(t *testing.T) {
	leakCheck(t)
	// No list_changed here: only the TTL brings the new tool in.
	core, logs := observer.New(zap.InfoLevel)
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{ToolsTTL: 300 * time.Millisecond, NoListChanged: true}),
		plugin.WithToolRefresh(), plugin.WithLogger(zap.New(core)))
	assert.Equal(t, "added late", callText(t, p, "add_tool", map[string]any{"name": "late"}))
	// Each HasTool is a use: the first after the TTL starts a listing and
	// answers from the old list.
	require.Eventually(t, func() bool { return p.HasTool("late") }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "I am late", callText(t, p, "late", nil))
	changes := logs.FilterMessage("mcp tool list changed").All()
	require.Len(t, changes, 1)
	assert.Equal(t, []any{"late"}, changes[0].ContextMap()["added"])

	// Lists that did not change are listed again too, and say nothing:
	// once the TTL has passed, a use starts a listing whose snapshot
	// replaces the one in force.
	before := plugin.ToolListOf(p)
	require.Eventually(t, func() bool {
		p.HasTool("late")
		return plugin.ToolListOf(p) != before
	}, 10*time.Second, 10*time.Millisecond)
	assert.True(t, p.HasTool("late"))
	assert.Len(t, logs.FilterMessage("mcp tool list changed").All(), 1)
}

func quietSystem() *actor.ActorSystem {
	return actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
}

// TestAttachedFacadeHasTheControls runs every control through a facade
// attached to a supervisor it did not spawn, as on another member of a
// cluster, here in one actor system (attach_remote_test.go does it across
// protoactor's remote, in wire forms).
func TestAttachedFacadeHasTheControls(t *testing.T) {
	leakCheck(t)
	sys := quietSystem()
	t.Cleanup(sys.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var target *actor.PID
	host, err := plugin.Connect(context.Background(), testserver.Controls(t, testserver.ControlsOptions{}), plugin.WithRetryConnect(),
		plugin.WithActorSystem(sys), plugin.WithToolRefresh(),
		plugin.WithSpawn(func(props *actor.Props) (*actor.PID, error) {
			target = sys.Root.Spawn(props)
			return target, nil
		}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close() })
	require.NoError(t, host.WaitReady(ctx))
	attachedControls(t, sys, host, target)
}

// attachedControls checks each control through a facade attached from
// facadeSys to target, the controls server's supervisor (or grain), which
// host also reaches.
func attachedControls(t *testing.T, facadeSys *actor.ActorSystem, host *plugin.McpPlugin, target *actor.PID) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var log progressLog
	var statuses changeLog
	// The facade's own PID of the target, as another member has: a PID
	// caches the process it resolves to, and a shared one would carry the
	// facade's messages past the wire.
	f, err := attachTo(ctx, facadeSys, "attached", func(context.Context) (*actor.PID, error) { return actor.NewPID(target.Address, target.Id), nil },
		plugin.WithApproval(func(_ context.Context, r plugin.ApprovalRequest) error {
			if r.Tool == "text" && strings.Contains(string(r.Arguments), "forbidden") {
				return errors.New("forbidden word")
			}
			return nil
		}),
		plugin.WithProgress(log.add), plugin.WithMaxResultBytes(100), plugin.WithIdleTimeout(2*time.Second),
		plugin.WithToolRefresh(), plugin.WithStatusHandler(statuses.add))
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })

	// Approval: denied on this side, nothing sent.
	out := hookCall(ctx, f, "d", "text", `{"unit":"forbidden","times":1}`)
	assert.True(t, out.IsError)
	assert.Contains(t, out.Content, "forbidden word")
	_, err = f.CallTool(ctx, "text", map[string]any{"unit": "forbidden", "times": 1}).Await(ctx)
	assert.ErrorIs(t, err, plugin.ErrDenied)
	assert.Equal(t, int64(0), stats(t, host).Calls)

	// Progress: from the hosting connection to this facade, in order.
	out = hookCall(ctx, f, "p", "progress", `{"steps":4,"ms":20}`)
	assert.Equal(t, "done", out.Content)
	got := log.of("p")
	require.Len(t, got, 4)
	for i, e := range got {
		assert.Equal(t, plugin.Progress{Server: "attached", Tool: "progress", CallID: "p", Progress: float64(i + 1), Total: 4,
			Message: fmt.Sprintf("step %d", i+1)}, e)
	}

	// The cap.
	out = hookCall(ctx, f, "c", "text", `{"unit":"é","times":1000}`)
	assert.LessOrEqual(t, len(out.Content), 100)
	assert.Contains(t, out.Content, "more cut]")

	// The idle timeout: one step, then silence (5 s, past the 2 s; the
	// timeout is no tighter, so that a busy machine never spends it on
	// the calls above).
	out = hookCall(ctx, f, "i", "progress", `{"steps":1,"ms":5000}`)
	assert.True(t, out.IsError)
	// Cut at the cap of 100 bytes: the situation, then the limit's name.
	assert.True(t, strings.HasPrefix(out.Content, `mcp-connector: timed out (internal): attached: tools/call "progress": idle timeo`), out.Content)
	assert.Eventually(t, func() bool { return stats(t, host).Running == 0 }, 10*time.Second, 20*time.Millisecond)

	// The list, watched: a change on the hosting side reaches the facade.
	_, err = f.CallTool(ctx, "add_tool", map[string]any{"name": "fresh"}).Await(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.HasTool("fresh") }, 10*time.Second, 5*time.Millisecond)
	assert.Eventually(t, func() bool { return statuses.changed([]string{"fresh"}, nil) }, 5*time.Second, 5*time.Millisecond)
	res, err := f.CallTool(ctx, "fresh", json.RawMessage(`{}`)).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "I am fresh", plugin.RenderResult(res))
}

func TestToolRefreshWithoutSupervision(t *testing.T) {
	leakCheck(t)
	var statuses changeLog
	p := connect(t, testserver.Controls(t, testserver.ControlsOptions{}),
		plugin.WithoutSupervision(), plugin.WithToolRefresh(), plugin.WithStatusHandler(statuses.add))
	assert.Equal(t, "added fresh", callText(t, p, "add_tool", map[string]any{"name": "fresh"}))
	require.Eventually(t, func() bool { return p.HasTool("fresh") }, 10*time.Second, 5*time.Millisecond)
	assert.Eventually(t, func() bool { return statuses.changed([]string{"fresh"}, nil) }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, "I am fresh", callText(t, p, "fresh", nil))
}

func TestAttachedFacadeListsAgainAfterTheTTL(t *testing.T) {
	leakCheck(t)
	sys := quietSystem()
	t.Cleanup(sys.Shutdown)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The hosting side neither subscribes nor lists on its own: only the
	// facade's request after the TTL brings the new tool.
	var target *actor.PID
	host, err := plugin.Connect(context.Background(), testserver.Controls(t, testserver.ControlsOptions{ToolsTTL: 300 * time.Millisecond, NoListChanged: true}), plugin.WithRetryConnect(),
		plugin.WithActorSystem(sys),
		plugin.WithSpawn(func(props *actor.Props) (*actor.PID, error) {
			target = sys.Root.Spawn(props)
			return target, nil
		}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close() })
	require.NoError(t, host.WaitReady(ctx))
	f, err := attachTo(ctx, sys, "attached", func(context.Context) (*actor.PID, error) { return target, nil }, plugin.WithToolRefresh())
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })

	_, err = f.CallTool(ctx, "add_tool", map[string]any{"name": "late"}).Await(ctx)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return f.HasTool("late") }, 10*time.Second, 10*time.Millisecond)
	res, err := f.CallTool(ctx, "late", nil).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "I am late", plugin.RenderResult(res))
	// One connection, one list: the plugin over it on the hosting side
	// takes the listing the facade asked for too.
	assert.True(t, host.HasTool("late"))
}

// A server may take the subscription of subscriptions/listen after the
// session's next requests: go-sdk sends it and waits for nothing. A tool
// added right after connecting was then announced to nobody, and never
// seen. The tools are listed once the server has acknowledged the
// subscription (SEP-2575's first message on the stream); an ack later
// than the wait for it has them listed again. (Over HTTP the listen's
// POST returns with its stream's first event, the ack, so that connecting
// waits for it anyway: the late case is stdio's.)
func TestAToolAddedAsTheSessionStartsIsNotMissed(t *testing.T) {
	for _, c := range []struct {
		name   string
		listen time.Duration
		late   bool
	}{
		{"acknowledged before the list", 300 * time.Millisecond, false},
		{"acknowledged after the wait", 2500 * time.Millisecond, true},
	} {
		for name, tr := range controlsTransports(t, testserver.ControlsOptions{SlowListen: c.listen}) {
			if c.late && name != "stdio" {
				continue
			}
			t.Run(c.name+"/"+name, func(t *testing.T) {
				leakCheck(t)
				core, logs := observer.New(zap.InfoLevel)
				p := connect(t, tr, plugin.WithToolRefresh(), plugin.WithLogger(zap.New(core)))
				assert.Equal(t, "added fresh", callText(t, p, "add_tool", map[string]any{"name": "fresh"}))
				require.Eventually(t, func() bool { return p.HasTool("fresh") }, 15*time.Second, 5*time.Millisecond)
				// Only the late case asserts which way the tool came: an ack
				// 300 ms away may still come after the wait on a busy
				// machine, and the tool is then listed again as it comes.
				if c.late {
					assert.Equal(t, 1, logs.FilterMessageSnippet("subscriptions/listen not acknowledged").Len(),
						"the wait gave up, and the late ack listed the tools again")
				}
			})
		}
	}
}

// A change announced while the first list is being taken may be missing
// from it: the tools are listed again once the connection is ready.
func TestAChangeAnnouncedDuringTheFirstListIsNotMissed(t *testing.T) {
	for name, tr := range controlsTransports(t, testserver.ControlsOptions{ChangeInFirstList: true}) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			p := connect(t, tr, plugin.WithToolRefresh())
			require.Eventually(t, func() bool { return p.HasTool("early") }, 15*time.Second, 5*time.Millisecond)
			assert.Equal(t, "I am early", callText(t, p, "early", nil))
		})
	}
}
