package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeywordsSplitStemAndDropStopWords(t *testing.T) {
	var got []string
	Keywords("Take the screenshots of getHTTPResponse pages, in 1Password's vault_list", func(k string) { got = append(got, k) })
	assert.Equal(t, []string{"take", "screenshot", "get", "http", "respons", "page", "1password", "vault", "list"}, got)
	for _, pair := range [][2]string{{"creating", "create"}, {"creation", "created"}, {"directories", "directory"}, {"running", "run"}, {"memorable", "memorize"}} {
		assert.Equal(t, stem(pair[0]), stem(pair[1]), pair)
	}
}

func TestWordsReadsEachFieldInOrder(t *testing.T) {
	got := Words(Tool{
		Name: "read_file", Title: "Reader", Description: "Read a file. Any text file works",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"description":"Where"},"encoding":{}}}`),
	})
	assert.Equal(t, []Word{
		{"read", FieldName}, {"file", FieldName}, {"read", FieldTitle},
		{"read", FieldDesc}, {"file", FieldDesc}, {"text", FieldDescRest}, {"file", FieldDescRest}, {"work", FieldDescRest},
		{"encod", FieldParamName}, {"path", FieldParamName}, {"wher", FieldParamDesc},
	}, got)
	assert.Equal(t, []Word{{"op", FieldName}}, Words(Tool{Name: "op", InputSchema: json.RawMessage(`not json`)}))
}

func TestStemMeetsDerivedNouns(t *testing.T) {
	for _, pair := range [][2]string{{"information", "inform"}, {"configuration", "configure"}, {"management", "manage"}} {
		assert.Equal(t, stem(pair[1]), stem(pair[0]), pair)
	}
	assert.Equal(t, "creat", stem("creation"), "too short for -ation: -ion")
}

// TestParamsOfADecodedSchemaAreTheJSONs checks that the properties read
// of a decoded schema are those read of its JSON, for every tool of the
// corpus and for schemas of other forms.
func TestParamsOfADecodedSchemaAreTheJSONs(t *testing.T) {
	n := 0
	for _, s := range loadAll(t) {
		for _, tl := range s.Tools {
			raw, err := json.Marshal(tl.InputSchema)
			require.NoError(t, err)
			var decoded any
			require.NoError(t, json.Unmarshal(raw, &decoded))
			params, ok := ParamsOf(decoded)
			require.True(t, ok, tl.Name)
			want := paramsOf(raw)
			if len(want) == 0 {
				want = []Param{}
			}
			assert.Equal(t, want, params, tl.Name)
			n += len(params)
		}
	}
	assert.Greater(t, n, 1000, "the corpus's tools have parameters")
	for _, schema := range []any{nil, "x", map[string]any{"properties": true}, map[string]any{"properties": map[string]any{"a": true}},
		map[string]any{"properties": map[string]any{"a": map[string]any{"description": 3}}}} {
		_, ok := ParamsOf(schema)
		assert.False(t, ok, "%v", schema)
	}
	params, ok := ParamsOf(map[string]any{"type": "object"})
	assert.True(t, ok)
	assert.Empty(t, params)
}
