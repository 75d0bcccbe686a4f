// Package attach is package grid's facade link: how a plugin facade
// (plugin.Connect given a link.Target) follows a connection actor it did
// not spawn and that may live on another member of a protoactor cluster
// and move. A [Link] implements link.Link (internal/core/link): it finds
// the actor with a [Locator], watches it, sends each call there in its
// wire form and keeps what it needs to send the call again when it bounces
// as a dead letter or the actor hands over, gives the calls in flight a
// grace period when the actor is lost, and follows the actor's tool list.
// [Follower] is the NewLink of a link.Target.
//
// Every goroutine a Link starts (a resend, a hand-over, a listing, a
// loss's grace) is its own: [Link.Close] cancels it, waits for it, then
// runs [Config.Release]. Nothing of a link runs once Close
// has returned.
//
// The seam to package plugin is link.Link, typed, which the caller passes
// in as a link.Target. It lives here rather than in grid
// so that plugin's own tests can follow an actor without a cluster.
package attach
