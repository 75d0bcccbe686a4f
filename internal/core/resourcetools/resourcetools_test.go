package resourcetools

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefinitionsAreValidSchemas(t *testing.T) {
	for _, many := range []bool{false, true} {
		defs := Definitions(many)
		require.Len(t, defs, 2)
		assert.Equal(t, ListName, defs[0].Name)
		assert.Equal(t, ReadName, defs[1].Name)
		for _, d := range defs {
			var schema map[string]any
			require.NoError(t, json.Unmarshal(d.InputSchema, &schema), d.Name)
			assert.Equal(t, "object", schema["type"])
			assert.NotEmpty(t, d.Description)
		}
	}
	var read struct{ Required []string }
	require.NoError(t, json.Unmarshal(Definitions(true)[1].InputSchema, &read))
	assert.Equal(t, []string{"server", "uri"}, read.Required)
	require.NoError(t, json.Unmarshal(Definitions(false)[1].InputSchema, &read))
	assert.Equal(t, []string{"uri"}, read.Required)
	assert.Same(t, Tools(true)[0], Tools(true)[0], "one pointer per tool, for tool search's cache")
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		in      string
		want    Args
		problem string
	}{
		{"", Args{}, ""},
		{"null", Args{}, ""},
		{`{}`, Args{}, ""},
		{`{"server":" docs ","uri":"file:///a"}`, Args{Server: "docs", URI: "file:///a"}, ""},
		{`{"uri":null}`, Args{}, ""},
		{`{"uri":3}`, Args{}, `"uri" must be a string`},
		{`{"server":true}`, Args{}, `"server" must be a string`},
		{`[1]`, Args{}, "the arguments are not a JSON object"},
		{`{`, Args{}, "the arguments are not a JSON object"},
	}
	for _, c := range cases {
		got, problem := ParseArgs(json.RawMessage(c.in))
		assert.Equal(t, c.want, got, c.in)
		assert.Equal(t, c.problem, problem, c.in)
	}
}

func TestRenderList(t *testing.T) {
	assert.Equal(t, "[]", RenderList(nil))
	got := RenderList([]Listing{
		{Server: "a", Resources: []*mcp.Resource{{URI: "file:///x", Name: "x", MIMEType: "text/plain", Size: 12}, nil},
			Templates: []*mcp.ResourceTemplate{{URITemplate: "file:///{id}", Name: "t"}}},
		{Server: "b", Err: errors.New("down")},
		{Server: "c", Note: "not started"},
	})
	assert.Equal(t, "[\n"+
		`{"server":"a","uri":"file:///x","name":"x","mimeType":"text/plain","size":12},`+"\n"+
		`{"server":"a","uriTemplate":"file:///{id}","name":"t"},`+"\n"+
		`{"server":"b","error":"down"},`+"\n"+
		`{"server":"c","note":"not started"}`+"\n]", got)
	var parsed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(got), &parsed))
	assert.Equal(t, "[\n"+`{"uri":"u","name":"n"}`+"\n]", RenderList([]Listing{{Resources: []*mcp.Resource{{URI: "u", Name: "n"}}}}))
}

func TestRenderRead(t *testing.T) {
	assert.Equal(t, "[no contents]", RenderRead(nil))
	assert.Equal(t, "[no contents]", RenderRead(&mcp.ReadResourceResult{}))
	assert.Equal(t, "hello", RenderRead(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "u", Text: "hello"}}}))
	assert.Equal(t, "[resource: u (image/png, 3 B): binary, not shown]",
		RenderRead(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "u", MIMEType: "image/png", Blob: []byte{1, 2, 3}}}}))
	assert.Equal(t, "[resource: a (text/plain)]\none\n[resource: b (unknown type)]\ntwo\n[empty content]",
		RenderRead(&mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: "a", MIMEType: "text/plain", Text: "one"}, {URI: "b", Text: "two"}, nil}}))
}

func TestLinkHint(t *testing.T) {
	assert.Equal(t, "read it with read_mcp_resource", LinkHint(""))
	assert.Equal(t, `read it with read_mcp_resource, server "docs"`, LinkHint("docs"))
}

func TestAllReadsEveryPageAndStopsAnEndlessList(t *testing.T) {
	got, err := All(func(cursor string) ([]int, string, error) {
		n, _ := strconv.Atoi(cursor)
		next := ""
		if n < 2 {
			next = strconv.Itoa(n + 1)
		}
		return []int{n}, next, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, got)

	calls := 0
	_, err = All(func(string) ([]int, string, error) { calls++; return nil, "again", nil })
	assert.ErrorContains(t, err, "more than 1000 pages")
	assert.Equal(t, MaxPages, calls)

	boom := errors.New("boom")
	_, err = All(func(string) ([]int, string, error) { return nil, "", boom })
	assert.ErrorIs(t, err, boom)
}

func TestSizeOf(t *testing.T) {
	assert.Equal(t, "0 B", SizeOf(0))
	assert.Equal(t, "1023 B", SizeOf(1023))
	assert.Equal(t, "1.0 KiB", SizeOf(1024))
	assert.Equal(t, "1.5 GiB", SizeOf(3*1024*1024*1024/2))
}

func TestMIMEOr(t *testing.T) {
	assert.Equal(t, "unknown type", MIMEOr(""))
	assert.Equal(t, "text/plain", MIMEOr("text/plain"))
}
