package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzNormalizeArgs holds normalizeArgs, which stands between a model's
// tool-call arguments and the server, to the arguments rule: an object stays as
// it is, null (or nothing) becomes no arguments, anything else is an error.
// The oracle is encoding/json itself: text is accepted exactly when it
// decodes to an object, or is empty or null.
func FuzzNormalizeArgs(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, ` null `, `{}`, `{"a":1}`, ` {"a":[1,{"b":null}]} `, `[]`, `[1]`, `1`, `-0.5e3`,
		`"s"`, `true`, `false`, `{`, `{"a":}`, `{} {}`, `{}x`, `nul`, `NULL`, `{"a":1,"a":2}`,
		"\ufeff{}", "\u00a0{}", "\v{}", "\f{}", "{\"\xff\":1}", `{"a":1e400}`, `{"\u0000":0}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`x`), uint8(2))
	f.Add([]byte(`{"a":1}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		switch kind % 4 {
		case 0:
			checkArgsText(t, data, json.RawMessage(data))
		case 1:
			checkArgsText(t, data, data)
		case 2:
			// A Go string is a JSON string: never an object.
			raw, err := normalizeArgs(string(data))
			if err == nil || raw != nil {
				t.Fatalf("string %q accepted as %q", data, raw)
			}
			if !errors.Is(err, errNotObject) {
				t.Fatalf("string %q: %v", data, err)
			}
		case 3:
			// A Go map is an object, and arrives whole.
			in := map[string]any{string(data): string(data), "n": len(data)}
			raw, err := normalizeArgs(in)
			if err != nil {
				t.Fatalf("map rejected: %v", err)
			}
			var back map[string]any
			if err := json.Unmarshal(raw, &back); err != nil {
				t.Fatalf("map became %q: %v", raw, err)
			}
			want := map[string]any{}
			b, _ := json.Marshal(in)
			_ = json.Unmarshal(b, &want)
			if !reflect.DeepEqual(want, back) {
				t.Fatalf("map %v became %v", want, back)
			}
		}
	})
}

// checkArgsText checks normalizeArgs on JSON text given as RawMessage or
// []byte.
func checkArgsText(t *testing.T, data []byte, args any) {
	t.Helper()
	raw, err := normalizeArgs(args)
	trimmed := bytes.Trim(data, " \t\r\n")
	none := len(trimmed) == 0 || string(trimmed) == "null"
	var obj map[string]json.RawMessage
	isObject := !none && json.Unmarshal(data, &obj) == nil && obj != nil

	switch {
	case none:
		if err != nil || raw != nil {
			t.Fatalf("%q must mean no arguments, got %q, %v", data, raw, err)
		}
	case isObject:
		if err != nil {
			t.Fatalf("object %q rejected: %v", data, err)
		}
		if !bytes.Equal(raw, trimmed) {
			t.Fatalf("object %q became %q", data, raw)
		}
	default:
		if err == nil {
			t.Fatalf("non-object %q accepted as %q", data, raw)
		}
		if !errors.Is(err, errNotObject) {
			t.Fatalf("non-object %q: error %v is not errNotObject", data, err)
		}
		if raw != nil {
			t.Fatalf("non-object %q: error with text %q", data, raw)
		}
	}
}
