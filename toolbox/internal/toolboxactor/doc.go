// Package toolboxactor is the parent actor of a toolbox's servers: each
// server's supervisor is its child,
// spawned on request and named by server, so that stopping it stops every
// server at once, in parallel. No user spawns it.
package toolboxactor
