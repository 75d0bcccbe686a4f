package toolsearch

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tool is what a search reads of one tool.
type Tool struct {
	// Name is the server's own name of the tool, not the exposed one.
	Name string
	// Title is the tool's title, or its annotations' title.
	Title string
	// Description and InputSchema are those of the tool's definition.
	Description string
	InputSchema json.RawMessage
	// Params, when not nil, are the schema's properties, read already:
	// InputSchema is then not read.
	Params []Param
}

// Param is one property of a tool's input schema.
type Param struct {
	Name, Description string
}

// Field is where in a tool a keyword is.
type Field uint8

// The fields of a tool that a search reads.
const (
	FieldName Field = iota
	FieldTitle
	FieldDesc // the description's first sentence
	FieldDescRest
	FieldParamName
	FieldParamDesc
)

// Word is one keyword of a tool and the field it is in.
type Word struct {
	Key   string
	Field Field
}

// Words lists the keywords of a tool, field by field: its name, title,
// description (first sentence, then the rest), and its parameters' names
// and descriptions, parameters in name order.
func Words(tool Tool) []Word {
	var out []Word
	add := func(text string, field Field) {
		Keywords(text, func(k string) { out = append(out, Word{k, field}) })
	}
	add(tool.Name, FieldName)
	add(tool.Title, FieldTitle)
	first, rest := firstSentence(tool.Description)
	add(first, FieldDesc)
	add(rest, FieldDescRest)
	params := tool.Params
	if params == nil {
		params = paramsOf(tool.InputSchema)
	}
	for _, p := range params {
		add(p.Name, FieldParamName)
		add(p.Description, FieldParamDesc)
	}
	return out
}

// paramsOf reads the properties of a JSON schema, in name order.
func paramsOf(schema json.RawMessage) []Param {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]Param, 0, len(s.Properties))
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		out = append(out, Param{name, s.Properties[name].Description})
	}
	return out
}

// ParamsOf reads the properties of a decoded JSON schema (as a tool's
// InputSchema decodes: map[string]any), in name order, as [Words] reads
// them of its JSON; ok is false when schema is not of that form, and the
// JSON is to be read instead.
func ParamsOf(schema any) (params []Param, ok bool) {
	m, isMap := schema.(map[string]any)
	if !isMap {
		return nil, false
	}
	props, isMap := m["properties"].(map[string]any)
	if !isMap {
		if _, has := m["properties"]; has {
			return nil, false
		}
		return []Param{}, true
	}
	params = make([]Param, 0, len(props))
	for _, name := range slices.Sorted(maps.Keys(props)) {
		pm, isMap := props[name].(map[string]any)
		if !isMap {
			return nil, false
		}
		desc, isString := pm["description"].(string)
		if _, has := pm["description"]; has && !isString {
			return nil, false
		}
		params = append(params, Param{name, desc})
	}
	return params, true
}

// firstSentence splits a description after its first sentence: at the
// first full stop, question or exclamation mark followed by a space, or
// the first line break.
func firstSentence(desc string) (first, rest string) {
	for i := 0; i < len(desc); i++ {
		switch desc[i] {
		case '\n':
			return desc[:i], desc[i+1:]
		case '.', '?', '!':
			if i+1 == len(desc) || desc[i+1] == ' ' || desc[i+1] == '\n' {
				return desc[:i], desc[i+1:]
			}
		}
	}
	return desc, ""
}

// Keywords calls yield with each keyword of text: its words split at
// anything but letters and digits and at camelCase humps, lower-cased,
// stop words dropped, each reduced to a crude stem so that "pages", "page"
// and "paging" meet.
func Keywords(text string, yield func(string)) {
	var buf [64]byte
	words(text, func(w string) {
		if len(w) > len(buf) {
			return
		}
		lower := buf[:0]
		for _, r := range w {
			if r < utf8.RuneSelf {
				if 'A' <= r && r <= 'Z' {
					r += 'a' - 'A'
				}
				lower = append(lower, byte(r))
				continue
			}
			lower = utf8.AppendRune(lower, unicode.ToLower(r))
		}
		if len(lower) < 2 || stopWords[string(lower)] {
			return
		}
		yield(stem(string(lower)))
	})
}

// words splits text at every rune that is not a letter or a digit and
// before an upper-case letter that follows a lower-case one or starts a
// word after an acronym ("getHTTPResponse" is get, HTTP, Response).
func words(text string, yield func(string)) {
	start := -1
	var prev, prev2 rune
	for i, r := range text {
		var alnum bool
		if r < utf8.RuneSelf {
			alnum = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		} else {
			alnum = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		switch {
		case !alnum:
			if start >= 0 {
				yield(text[start:i])
				start = -1
			}
		case start < 0:
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			yield(text[start:i])
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && unicode.IsUpper(prev2) && i-start > 1:
			// "HTTPResponse": the word began at the last capital.
			j := i - utf8.RuneLen(prev)
			yield(text[start:j])
			start = j
		}
		prev2, prev = prev, r
	}
	if start >= 0 {
		yield(text[start:])
	}
}

// stem strips common English endings, the same way for queries and tools;
// it need not make words, only make related ones meet.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ation", "ment", "able", "ible", "ize", "ise", "ing", "ion", "ed", "er", "y"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 4 {
			w = w[:len(w)-len(suf)]
			if n := len(w); w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
				w = w[:n-1] // "running" → "run"
			}
			break
		}
	}
	if strings.HasSuffix(w, "e") && len(w) > 4 {
		w = w[:len(w)-1]
	}
	return w
}

// stopWords carry no meaning for choosing a tool.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or of to in on for with by from at as is are was were be been being
		this that these those it its into onto using use used via your you my me mine i we our us can could would should
		will shall may might must please want need needs some any all do does did how what which who whom when why have has had
		there here if then than so just about also only very much many more most such not no nor out up down over under
		again each few own same too let lets tool tools i'd i'm it's don't something anything thing things one`) {
		m[w] = true
	}
	return m
}()
