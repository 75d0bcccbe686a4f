package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
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
