package actors

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
)

// A list's cache hints over its pages: the smallest positive ttl, and the
// narrowest scope any page gave.
func TestListHintsFoldThePagesHints(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pages []mcp.Cacheable
		ttl   time.Duration
		scope string
	}{
		{"no hints", []mcp.Cacheable{{}, {}}, 0, ""},
		{"the smallest positive ttl", []mcp.Cacheable{{TTLMs: 5000}, {TTLMs: 0}, {TTLMs: 2000}}, 2 * time.Second, ""},
		{"public", []mcp.Cacheable{{CacheScope: "public"}, {}}, 0, "public"},
		{"private wins over public, whichever page says it", []mcp.Cacheable{{CacheScope: "private"}, {CacheScope: "public"}}, 0, "private"},
		{"private on a later page", []mcp.Cacheable{{CacheScope: "public", TTLMs: 100}, {CacheScope: "private"}}, 100 * time.Millisecond, "private"},
		{"an unknown scope is no hint", []mcp.Cacheable{{CacheScope: "shared"}}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h listHints
			for _, p := range tc.pages {
				h.note(p)
			}
			assert.Equal(t, tc.ttl, h.ttl)
			assert.Equal(t, tc.scope, h.scope)
		})
	}
}
