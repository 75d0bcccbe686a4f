package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// normalizeArgs turns CallTool's args into a JSON object's text, or nil for
// no arguments.
func normalizeArgs(args any) (json.RawMessage, error) {
	switch a := args.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return objectText(a)
	case []byte:
		return objectText(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("arguments do not marshal to JSON: %w", err)
		}
		return objectText(b)
	}
}

var errNotObject = errors.New("arguments must be a JSON object or null")

// objectText accepts a JSON object, or empty/null for no arguments. Only
// JSON's own whitespace is trimmed: text that JSON would reject (a leading
// form feed or no-break space, say) is rejected here too.
func objectText(b []byte) (json.RawMessage, error) {
	t := bytes.Trim(b, " \t\r\n")
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	if !json.Valid(t) {
		return nil, fmt.Errorf("%w: invalid JSON", errNotObject)
	}
	if t[0] != '{' {
		return nil, fmt.Errorf("%w: got %s", errNotObject, jsonKind(t[0]))
	}
	return json.RawMessage(t), nil
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
