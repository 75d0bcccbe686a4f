package einomcp

import (
	"bytes"
	"encoding/json"

	"github.com/eino-contrib/jsonschema"
)

// inputSchema turns an MCP tool's inputSchema, as the server sent it, into
// the *jsonschema.Schema eino's ToolInfo takes, without losing a keyword.
//
// eino's schema type has a field for each keyword of JSON Schema 2020-12
// and an Extras map for the rest, but its decoder drops what has no field
// (draft-07's "definitions", "x-" annotations, "additionalItems") and its
// encoder drops zero values that were sent on purpose ("required": []).
// So the schema is decoded into the fields, which eino's model adapters
// read, and every keyword the fields would not write back goes into
// Extras as the raw JSON the server sent; encoding the result gives the
// server's schema again. A schema the fields cannot hold at all (draft-04's
// boolean "exclusiveMaximum", an array "items") is carried whole in Extras.
func inputSchema(raw json.RawMessage) *jsonschema.Schema {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return &jsonschema.Schema{Type: "object", Extras: map[string]any{}}
	}
	s := new(jsonschema.Schema)
	if err := json.Unmarshal(raw, s); err != nil {
		return whole(raw)
	}
	if !keepExtras(s, raw) {
		return whole(raw)
	}
	return s
}

// whole carries a schema entirely in Extras: the fields stay empty, and
// encoding it writes the server's object as it was.
func whole(raw json.RawMessage) *jsonschema.Schema {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		// Not an object (a boolean schema decodes above): no arguments
		// schema a model can use, so the plain object schema.
		return &jsonschema.Schema{Type: "object", Extras: map[string]any{}}
	}
	extras := make(map[string]any, len(m))
	for k, v := range m {
		extras[k] = v
	}
	return &jsonschema.Schema{Extras: extras}
}

// Keywords whose value is a schema, a list of schemas, or a map of them:
// keepExtras walks into them.
var (
	oneSchema  = []string{"not", "if", "then", "else", "items", "contains", "additionalProperties", "propertyNames", "contentSchema"}
	listSchema = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapSchema  = []string{"properties", "patternProperties", "$defs", "dependentSchemas"}
	// Keywords decoded into an `any` field: a number in them comes back as
	// a float64, which may not write back as sent.
	anyValued = []string{"enum", "const", "default", "examples"}
)

// keepExtras puts into s.Extras, at every level, the keywords of raw the
// fields of s do not write back as sent. It reports false when s and raw
// do not line up (which only a decoder change could cause).
func keepExtras(s *jsonschema.Schema, raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		// A boolean schema: its own form writes it back.
		return true
	}
	// An empty but non-nil Extras also keeps an empty schema "{}" from
	// being written as "true".
	s.Extras = map[string]any{}
	for _, k := range anyValued {
		v, ok := m[k]
		if !ok {
			continue
		}
		if !sameJSON(fieldJSON(s, k), v) {
			clearField(s, k)
		}
	}
	out, err := json.Marshal(s)
	if err != nil {
		return false
	}
	var written map[string]json.RawMessage
	if err := json.Unmarshal(out, &written); err != nil {
		// The fields wrote "true" (nothing of raw has a field): keep it all.
		written = nil
	}
	for k, v := range m {
		if _, ok := written[k]; !ok {
			s.Extras[k] = v
		}
	}
	for _, k := range oneSchema {
		if sub := schemaField(s, k); sub != nil && written[k] != nil {
			if !keepExtras(sub, m[k]) {
				return false
			}
		}
	}
	for _, k := range listSchema {
		subs := listField(s, k)
		if len(subs) == 0 || written[k] == nil {
			continue
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(m[k], &raws); err != nil || len(raws) != len(subs) {
			return false
		}
		for i, sub := range subs {
			if sub != nil && !keepExtras(sub, raws[i]) {
				return false
			}
		}
	}
	for _, k := range mapSchema {
		if written[k] == nil {
			continue
		}
		var raws map[string]json.RawMessage
		if err := json.Unmarshal(m[k], &raws); err != nil {
			return false
		}
		for name, sub := range mapField(s, k) {
			r, ok := raws[name]
			if !ok {
				return false
			}
			if sub != nil && !keepExtras(sub, r) {
				return false
			}
		}
	}
	return true
}

func sameJSON(a, b []byte) bool {
	var x, y bytes.Buffer
	if json.Compact(&x, a) != nil || json.Compact(&y, b) != nil {
		return false
	}
	return bytes.Equal(x.Bytes(), y.Bytes())
}

// fieldJSON encodes the value decoded into the field of keyword k.
func fieldJSON(s *jsonschema.Schema, k string) []byte {
	var v any
	switch k {
	case "enum":
		v = s.Enum
	case "const":
		v = s.Const
	case "default":
		v = s.Default
	case "examples":
		v = s.Examples
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

func clearField(s *jsonschema.Schema, k string) {
	switch k {
	case "enum":
		s.Enum = nil
	case "const":
		s.Const = nil
	case "default":
		s.Default = nil
	case "examples":
		s.Examples = nil
	}
}

func schemaField(s *jsonschema.Schema, k string) *jsonschema.Schema {
	switch k {
	case "not":
		return s.Not
	case "if":
		return s.If
	case "then":
		return s.Then
	case "else":
		return s.Else
	case "items":
		return s.Items
	case "contains":
		return s.Contains
	case "additionalProperties":
		return s.AdditionalProperties
	case "propertyNames":
		return s.PropertyNames
	case "contentSchema":
		return s.ContentSchema
	}
	return nil
}

func listField(s *jsonschema.Schema, k string) []*jsonschema.Schema {
	switch k {
	case "allOf":
		return s.AllOf
	case "anyOf":
		return s.AnyOf
	case "oneOf":
		return s.OneOf
	case "prefixItems":
		return s.PrefixItems
	}
	return nil
}

func mapField(s *jsonschema.Schema, k string) map[string]*jsonschema.Schema {
	switch k {
	case "properties":
		if s.Properties == nil {
			return nil
		}
		m := make(map[string]*jsonschema.Schema, s.Properties.Len())
		for p := s.Properties.Oldest(); p != nil; p = p.Next() {
			m[p.Key] = p.Value
		}
		return m
	case "patternProperties":
		return s.PatternProperties
	case "$defs":
		return s.Definitions
	case "dependentSchemas":
		return s.DependentSchemas
	}
	return nil
}
