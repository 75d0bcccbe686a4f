package hostmsg

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/messages"
)

// FinishCalls asks a supervisor of package actors (or its connection actor)
// to answer, with [CallsFinished], once the calls it was sent before this
// message are done: the calls in flight have their answers, and the calls
// a supervisor was holding for a reconnection are handed back unsent. A
// host that is about to stop a supervisor asks it first, so that what it
// started finishes and what it never started can go elsewhere; the host
// bounds the wait itself. Calls sent after it are served as usual.
type FinishCalls struct{}

// CallsFinished answers [FinishCalls].
type CallsFinished struct {
	// Unsent are the calls the supervisor held without sending them to its
	// connection (waiting for a reconnection), taken out of its queue: they
	// never reached the server, and no one else answers them.
	Unsent []UnsentCall
}

// UnsentCall is a call that never reached the server, with the sender its
// answer was for.
type UnsentCall struct {
	Sender *actor.PID
	Call   *messages.CallTool
}

// WatchDirect asks a supervisor of package actors to give Notify the connection
// actor's PID whenever the connection is ready and the calls queued
// meanwhile have gone to it (at once, when it is ready already), and nil
// as soon as it is not ready. While it has a PID, a host in the
// supervisor's process may send calls straight to the connection, saving
// the supervisor's hop. Notify runs on the supervisor's goroutine and must
// not block for long; once it has returned, the host sends nothing more to
// the PID it replaced (the supervisor retires that connection then): a
// host reads the PID and sends under a lock Notify takes. A later
// WatchDirect replaces it. A supervisor that its parent
// restarts tells Notify nil and forgets it: calls then go through the
// supervisor, as before any WatchDirect.
type WatchDirect struct {
	Notify func(conn *actor.PID)
}
