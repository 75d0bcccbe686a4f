package httppool

import (
	"net/http"
	"sync"
)

// Transport is the pool: a clone of http.DefaultTransport, made on first
// use (so it has what a program set on the default before), that keeps up
// to MaxIdleConns idle connections per server.
var Transport = sync.OnceValue(func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(t.MaxIdleConns, t.MaxIdleConnsPerHost)
	return t
})

// CloseIdle closes the pool's idle connections, and net/http's default
// transport's.
func CloseIdle() {
	Transport().CloseIdleConnections()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}
