// Package attach is how a plugin facade follows a connection actor it did
// not spawn and that may live on another member of a protoactor cluster
// and move: a [Link] finds the actor with a [Locator], watches it, sends
// each call there and keeps what it needs to send the call again when it
// bounces as a dead letter or the actor hands over, gives the calls in
// flight a grace period when the actor is lost, and follows the actor's
// tool list.
//
// Package plugin reaches its connection through one small seam (send a
// call, cancel it, ask the actor, list again, close): a plugin that
// spawned its own actor implements it in plugin, a facade implements it
// with a [Link]. The deprecated plugin.Attach and package grid's facade
// over a grain both build that facade with [Facade], which package plugin
// sets in its init, so the relocating code lives here once.
package attach
