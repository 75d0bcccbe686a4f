package wire

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/cuca-go/mcpconnector/internal/core/reply"
)

// Codec asks an actor on another member in wire forms ([Request]) and
// reads its wire answers as plain messages ([Plain]), for reply.Ask.
var Codec = reply.Codec{Request: Request, Read: Plain}

// localAddress is the address protoactor gives the PIDs of a system before
// (or without) its remote: such a PID is always of this process.
const localAddress = "nonhost"

// Remote reports whether pid is an actor of another member than system's,
// by the test protoactor's process registry makes: an address that is
// neither the system's nor the local one. A nil pid is not.
func Remote(system *actor.ActorSystem, pid *actor.PID) bool {
	return pid != nil && pid.Address != localAddress && pid.Address != system.Address()
}

// For returns msg as it travels from system to to: its wire form when to is
// on another member and msg is a message of package messages, msg itself
// otherwise.
func For(system *actor.ActorSystem, to *actor.PID, msg any) any {
	if Remote(system, to) {
		if w, ok := ToWire(msg); ok {
			return w
		}
	}
	return msg
}

// Plain returns an arriving message as its receiver reads it: the plain
// message of a wire form, msg itself otherwise.
func Plain(msg any) any {
	if p, ok := FromWire(msg); ok {
		return p
	}
	return msg
}

// Send sends msg to to from system's root, in its wire form when to is on
// another member.
func Send(system *actor.ActorSystem, to *actor.PID, msg any) {
	system.Root.Send(to, For(system, to, msg))
}

// Request is Send with sender as the message's sender, where to's answers
// go.
func Request(system *actor.ActorSystem, to *actor.PID, msg any, sender *actor.PID) {
	system.Root.RequestWithCustomSender(to, For(system, to, msg), sender)
}

// Respond answers the message ctx is receiving with msg, in its wire form
// when its sender is on another member.
func Respond(ctx actor.Context, msg any) {
	ctx.Respond(For(ctx.ActorSystem(), ctx.Sender(), msg))
}
