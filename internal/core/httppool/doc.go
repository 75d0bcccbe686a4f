// Package httppool holds the HTTP connections of every Streamable HTTP and
// HTTP+SSE server the module talks to without an *http.Client of the
// program's: one pool, as net/http's default transport is, with room for as
// many idle connections to one server as to all. net/http's default keeps 2
// per server, so that a third call at once opened a new connection (and a
// TLS handshake) and closed it after.
//
// Its idle connections live as the default transport's do, until the
// server closes them or they idle out; a test that checks for goroutines
// left behind closes them with [CloseIdle] first, as it does
// http.DefaultTransport's.
package httppool
