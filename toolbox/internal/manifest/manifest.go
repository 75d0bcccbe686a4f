package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/mcpconfig"
)

// Version is the layout of a manifest file; a file of another version is
// ignored.
const Version = 1

// Manifest is one server's last tool list, kept on disk between
// processes.
type Manifest struct {
	Version int `json:"version"`
	// Server is the entry's name, for people reading the file.
	Server string `json:"server"`
	// Entry is the digest of the entry the list came from
	// ([EntryDigest]); a file whose Entry differs is not used.
	Entry string `json:"entry"`
	// ListedAt is when the server last listed these tools.
	ListedAt time.Time `json:"listedAt"`
	// TTLMs and CacheScope are the list's cache hints (SEP-2549), when
	// known: TTLMs is the smallest positive ttlMs of its tools/list pages;
	// a lazy server whose manifest is older than it is started at Open to
	// list again ([Manifest.Expired]). CacheScope is the list's
	// cacheScope ("private", "public", or "" when the server gave none).
	TTLMs      int64  `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
	// Tools are the definitions as the server sent them, sorted by name.
	Tools []*mcp.Tool `json:"tools"`
	// Digests holds each listed tool's digest, by the tool's own name
	// (without its parts: only pins need those).
	Digests map[string]Digest `json:"digests"`
	// Pins are the tools trusted on first use or by AcceptTools, by name;
	// nil when nothing is pinned.
	Pins map[string]Digest `json:"pins,omitempty"`
}

// New is the manifest of sc listing tools now, with their digests and
// the pins.
func New(sc *mcpconfig.Server, tools []*mcp.Tool, digests, pins map[string]Digest) *Manifest {
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return &Manifest{Version: Version, Server: sc.Name, Entry: EntryDigest(sc), ListedAt: time.Now().UTC(),
		Tools: sorted, Digests: digests, Pins: pins}
}

// Listing is a server's tool list as the toolbox has just read it.
type Listing struct {
	Tools   []*mcp.Tool
	Digests map[string]Digest // by tool name, without parts (see [Digests.Named])
	// Real is true for a list read from the server; false for one read
	// from the manifest itself (a lazy server not started).
	Real bool
	// TTL and CacheScope are a real list's cache hints.
	TTL        time.Duration
	CacheScope string
}

// Update returns the manifest of sc to write after l was read, with pins,
// or nil when mf (nil if none) still says it: when a real list's digests
// differ from mf's, when its cache hints differ or half its ttl has
// passed since mf was listed (so that listedAt says when it was last
// seen), or when firstPins are taken. A list read from mf keeps mf's
// tools, listedAt and hints.
func Update(mf *Manifest, sc *mcpconfig.Server, l Listing, pins map[string]Digest, firstPins bool) *Manifest {
	changed := l.Real && (mf == nil || !SameDigests(mf.Digests, l.Digests))
	hinted := l.Real && mf != nil && (mf.TTLMs != l.TTL.Milliseconds() || mf.CacheScope != l.CacheScope ||
		l.TTL > 0 && time.Since(mf.ListedAt) > l.TTL/2)
	if !changed && !firstPins && !hinted || !l.Real && mf == nil {
		return nil
	}
	if !l.Real {
		next := New(sc, mf.Tools, mf.Digests, pins)
		next.ListedAt, next.TTLMs, next.CacheScope = mf.ListedAt, mf.TTLMs, mf.CacheScope
		return next
	}
	next := New(sc, l.Tools, l.Digests, pins)
	next.TTLMs, next.CacheScope = l.TTL.Milliseconds(), l.CacheScope
	return next
}

// Expired reports whether the list's ttlMs has passed since it was
// listed: its tools are then not trusted until the server lists again.
func (mf *Manifest) Expired(now time.Time) bool {
	return mf.TTLMs > 0 && now.Sub(mf.ListedAt) > time.Duration(mf.TTLMs)*time.Millisecond
}

// Definitions are the manifest's tools as a plugin publishes them.
func (mf *Manifest) Definitions() []host.ToolDefinition {
	defs := make([]host.ToolDefinition, 0, len(mf.Tools))
	for _, tool := range mf.Tools {
		defs = append(defs, definitionOf(tool))
	}
	return defs
}

// definitionOf is tool as a plugin publishes it.
func definitionOf(tool *mcp.Tool) host.ToolDefinition {
	if raw, ok := tool.InputSchema.(json.RawMessage); ok && len(raw) > 0 {
		// A manifest's, read as it was written (valid JSON).
		return host.ToolDefinition{Name: tool.Name, Description: tool.Description, InputSchema: raw}
	}
	schema, err := json.Marshal(tool.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return host.ToolDefinition{Name: tool.Name, Description: tool.Description, InputSchema: schema}
}

// Digest is a digest of the parts of a tool a user trusts: one over all
// of them, and one per part, so that a change can say what changed.
type Digest struct {
	Digest string            `json:"digest"`
	Parts  map[string]string `json:"parts,omitempty"`
}

// pinnedParts are the members of a tool's JSON that a pin covers.
var pinnedParts = []string{"annotations", "description", "inputSchema", "outputSchema", "title"}

// DigestTool digests tool's pinned parts. Each part is decoded and encoded
// again, so that key order and spacing do not count as a change.
func DigestTool(tool *mcp.Tool) Digest {
	raw, err := json.Marshal(tool)
	var members map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &members)
	}
	d := Digest{Parts: make(map[string]string, len(pinnedParts))}
	all := sha256.New()
	for _, part := range pinnedParts {
		var canonical []byte
		if v, ok := members[part]; ok && err == nil {
			var x any
			if json.Unmarshal(v, &x) == nil {
				canonical, _ = json.Marshal(x)
			}
		}
		sum := sha256.Sum256(canonical)
		d.Parts[part] = hex.EncodeToString(sum[:])
		fmt.Fprintf(all, "%s=%x\n", part, sum)
	}
	d.Digest = hex.EncodeToString(all.Sum(nil))
	return d
}

// ChangedParts names, sorted, the parts of now that differ from pin:
// among "annotations", "description", "inputSchema", "outputSchema",
// "title".
func ChangedParts(pin, now Digest) []string {
	var out []string
	for _, part := range pinnedParts {
		if pin.Parts[part] != now.Parts[part] {
			out = append(out, part)
		}
	}
	return out
}

// SameDigests reports whether a and b digest the same tools alike.
func SameDigests(a, b map[string]Digest) bool {
	return maps.EqualFunc(a, b, func(x, y Digest) bool { return x.Digest == y.Digest })
}

// EntryDigest identifies a server's entry: its type, command, args, url
// and the names (never the values) of its env variables and headers. A
// manifest is kept under it, so that an entry that now runs another
// command does not use the old one's tools.
func EntryDigest(sc *mcpconfig.Server) string {
	key := struct {
		Type    string   `json:"type"`
		Command string   `json:"command,omitempty"`
		Args    []string `json:"args,omitempty"`
		URL     string   `json:"url,omitempty"`
		Env     []string `json:"env,omitempty"`
		Headers []string `json:"headers,omitempty"`
	}{sc.Type, sc.Command, sc.Args, sc.URL, slices.Sorted(maps.Keys(sc.Env)), slices.Sorted(maps.Keys(sc.Headers))}
	raw, _ := json.Marshal(key)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// Digests digests each tool once per definition (by pointer): a server's
// listed tools keep their pointers until its list changes. The zero value
// is ready; it is not safe for concurrent use.
type Digests struct {
	m map[*mcp.Tool]Digest
}

// DigestsOf is a Digests that knows the digests mf keeps of its tools
// (without their parts), which spares digesting them again.
func DigestsOf(mf *Manifest) Digests {
	m := make(map[*mcp.Tool]Digest, len(mf.Tools))
	for _, tool := range mf.Tools {
		if d, ok := mf.Digests[tool.Name]; ok && d.Digest != "" {
			m[tool] = d
		}
	}
	return Digests{m: m}
}

// Of digests tool once per definition; a digest read from a manifest
// lacks the parts.
func (c *Digests) Of(tool *mcp.Tool) Digest {
	if d, ok := c.m[tool]; ok {
		return d
	}
	return c.digest(tool)
}

// Full is Of with the parts.
func (c *Digests) Full(tool *mcp.Tool) Digest {
	if d := c.Of(tool); d.Parts != nil {
		return d
	}
	return c.digest(tool)
}

func (c *Digests) digest(tool *mcp.Tool) Digest {
	if c.m == nil {
		c.m = map[*mcp.Tool]Digest{}
	}
	d := DigestTool(tool)
	c.m[tool] = d
	return d
}

// Named digests tools, by their names, and forgets every other tool.
func (c *Digests) Named(tools []*mcp.Tool) map[string]Digest {
	out := make(map[string]Digest, len(tools))
	live := make(map[*mcp.Tool]bool, len(tools))
	for _, tool := range tools {
		out[tool.Name] = c.Of(tool)
		live[tool] = true
	}
	maps.DeleteFunc(c.m, func(tool *mcp.Tool, _ Digest) bool { return !live[tool] })
	return out
}

// Pins are the tools' digests with their parts, by name: what pinning
// them keeps.
func (c *Digests) Pins(tools []*mcp.Tool) map[string]Digest {
	out := make(map[string]Digest, len(tools))
	for _, tool := range tools {
		out[tool.Name] = c.Full(tool)
	}
	return out
}

// Compare compares tool with its pin among pins: same when the pin
// matches; else isNew when it has none, or the parts that changed
// ([ChangedParts]).
func (c *Digests) Compare(pins map[string]Digest, tool *mcp.Tool) (same, isNew bool, changed []string) {
	pin, ok := pins[tool.Name]
	switch {
	case !ok:
		return false, true, nil
	case pin.Digest != c.Of(tool).Digest:
		return false, false, ChangedParts(pin, DigestTool(tool)) // with its parts
	}
	return true, false, nil
}
