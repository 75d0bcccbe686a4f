package einomcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schema eino hands a model is the server's inputSchema, keyword for
// keyword, and the fields eino's model adapters read are filled in.
func TestInputSchemaWritesBackWhatTheServerSent(t *testing.T) {
	for name, raw := range map[string]string{
		"go-sdk inferred": `{"type":"object","properties":{"a":{"type":"number","description":"the first number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`,
		"empty object":    `{"type":"object"}`,
		"draft-07 definitions and x- keys": `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"id":{"type":"string"}},` +
			`"properties":{"id":{"$ref":"#/definitions/id","x-order":1},"tags":{"type":"array","items":{"type":"string","x-kind":"tag"},"additionalItems":false}},"x-vendor":{"a":[1,2]}}`,
		"zero values sent on purpose": `{"type":"object","properties":{"free":{}},"required":[],"uniqueItems":false,"description":""}`,
		"numbers as sent":             `{"type":"object","properties":{"n":{"type":"integer","enum":[9007199254740993,1e3],"default":1.50,"maximum":1e2}}}`,
		"nullable and combinators":    `{"type":"object","properties":{"v":{"type":["string","null"],"anyOf":[{"minLength":1},{"const":null}]}},"not":{"required":["x"]}}`,
		"draft-04 boolean bound":      `{"type":"object","properties":{"n":{"type":"number","maximum":5,"exclusiveMaximum":true}}}`,
		"tuple items":                 `{"type":"object","properties":{"p":{"type":"array","items":[{"type":"number"},{"type":"number"}]}}}`,
		"boolean subschemas":          `{"type":"object","properties":{"any":true,"none":false},"additionalProperties":true}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := inputSchema(json.RawMessage(raw))
			info := &schema.ToolInfo{Name: "t", ParamsOneOf: schema.NewParamsOneOfByJSONSchema(s)}
			js, err := info.ToJSONSchema()
			require.NoError(t, err)
			out, err := json.Marshal(js)
			require.NoError(t, err)
			assert.Equal(t, decodeNumbers(t, raw), decodeNumbers(t, string(out)))
		})
	}
}

// decodeNumbers decodes JSON keeping each number's text, so a number that
// went through a float64 on the way shows.
func decodeNumbers(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestInputSchemaFillsTheFields(t *testing.T) {
	s := inputSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"first"}},"required":["a"],"x-vendor":1}`))
	assert.Equal(t, "object", s.Type)
	assert.Equal(t, []string{"a"}, s.Required)
	a, ok := s.Properties.Get("a")
	require.True(t, ok)
	assert.Equal(t, "number", a.Type)
	assert.Equal(t, "first", a.Description)
}
