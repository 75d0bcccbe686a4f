package toolbox

import (
	"context"

	"github.com/cuca-go/mcpconnector/host"
)

// Table is what a test sees of a route table as it goes in.
type Table struct {
	Tools []Tool
	Defs  []host.ToolDefinition
	// Owners is the server each exposed name is routed to.
	Owners map[string]string
}

// WithTestHooks calls read when a rebuild has read a server's list (before
// it lets go of that server's lock) and committed with every table that goes in (under
// the toolbox lock: it must not call the toolbox). Either may be nil.
func WithTestHooks(read func(server string), committed func(Table)) Option {
	h := &testHooks{read: read}
	if committed != nil {
		h.committed = func(rt *routeTable) {
			tb := Table{Tools: rt.tools, Defs: rt.defs, Owners: make(map[string]string, len(rt.byName))}
			for name, r := range rt.byName {
				tb.Owners[name] = r.server.cfg.Name
			}
			committed(tb)
		}
	}
	return optionFunc(func(o *options) { o.test = h })
}

// QueueRebuild queues a rebuild, as a server's status change does.
func QueueRebuild(t *Toolbox) { t.statusChanged() }

// RebuildNow rebuilds the table on the caller's goroutine.
func RebuildNow(t *Toolbox) { t.serverChanged() }

// WithSerialHook calls held(server) when a call to a server not safe for
// parallel calls has been sent and that server's next call of the chunk
// waits for it.
func WithSerialHook(held func(server string)) Option {
	return optionFunc(func(o *options) {
		if o.test == nil {
			o.test = &testHooks{}
		}
		o.test.serialHeld = held
	})
}

// StartAsClosing asks server to start as a call that arrives just after
// Close began would (Close's first step: the toolbox marked closed), and
// reports the call's error and whether a start is left under way, one
// that Close would wait for.
func StartAsClosing(t *Toolbox, server string) (error, bool) {
	t.closed.Store(true)
	_, err := t.ensureStarted(context.Background(), t.servers[server])
	return err, t.servers[server].startUnderWay() != nil
}
