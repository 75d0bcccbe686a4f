// Package reply asks an actor and waits for its answer or a context's end:
// a one-shot mailbox registered with the actor system, like protoactor's
// own futures, but readable as a channel so that the wait can also end on
// a context.
package reply
