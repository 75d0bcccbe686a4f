package mcpconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corpusFile is what a file's host would do with it, recorded in
// testdata/corpus/<part>.expect.json (see testdata/corpus/README.md).
type corpusFile struct {
	Host    string                  `json:"host"`
	Read    bool                    `json:"read"`    // the host reads the file
	Refused bool                    `json:"refused"` // the file is truly broken
	Servers map[string]corpusServer `json:"servers"` // what the host would start
}

type corpusServer struct {
	Transport string   `json:"transport"`
	Command   string   `json:"command,omitempty"`
	Args      []string `json:"args,omitempty"`
	Env       []string `json:"env,omitempty"`
	URL       string   `json:"url,omitempty"`
	Headers   []string `json:"headers,omitempty"`
	Disabled  bool     `json:"disabled,omitempty"`
}

// corpusFigures are the measures the report gives for a part.
type corpusFigures struct {
	files, hostReads, read, broken, refusedAtPos int
	servers, matching, misread                   int
	failures                                     []string
}

func (f corpusFigures) String() string {
	return fmt.Sprintf("files read %d of %d the host reads (%d files); truly broken files refused at file:line:column %d of %d; servers matching %d of %d; servers misread %d",
		f.read, f.hostReads, f.files, f.refusedAtPos, f.broken, f.matching, f.servers, f.misread)
}

// everyVariableSet answers every variable a file names, as its author's
// shell would have it set: "val-NAME", with what may not be in a host name
// replaced by '-'.
func everyVariableSet(name string) (string, bool) { return "val-" + urlSafe(name), true }

// urlSafe replaces what may not be in a host name by '-'.
func urlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_.-", r) {
			return r
		}
		return '-'
	}, s)
}

// measureCorpus loads each file of part as its host would, every variable
// set and every input answered, and compares what it reads with the
// expectations.
func measureCorpus(t *testing.T, part string) corpusFigures {
	root := filepath.Join("testdata", "corpus")
	data, err := os.ReadFile(filepath.Join(root, part+".expect.json"))
	require.NoError(t, err)
	var want map[string]corpusFile
	require.NoError(t, json.Unmarshal(data, &want))
	var f corpusFigures
	for _, rel := range slices.Sorted(maps.Keys(want)) {
		w := want[rel]
		path := filepath.Join(root, rel)
		f.files++
		cfg, err := Load(path, WithVariables(everyVariableSet),
			WithInputs(func(in Input) (string, error) { return "input-" + urlSafe(in.ID), nil }))
		if w.Refused {
			f.broken++
			var cerr *Error
			if errors.As(err, &cerr) && cerr.Path == path && cerr.Line >= 1 && cerr.Column >= 1 && strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d:%d: ", path, cerr.Line, cerr.Column)) {
				f.refusedAtPos++
			} else {
				f.failures = append(f.failures, fmt.Sprintf("%s: broken, want an error at file:line:column, got %v", rel, err))
			}
			continue
		}
		if !w.Read {
			continue
		}
		f.hostReads++
		f.servers += len(w.Servers)
		if err != nil {
			f.failures = append(f.failures, fmt.Sprintf("%s: refused: %v", rel, err))
			continue
		}
		fileOK := true
		for _, name := range slices.Sorted(maps.Keys(w.Servers)) {
			got := cfg.Servers[name]
			if got == nil {
				fileOK = false
				f.failures = append(f.failures, fmt.Sprintf("%s: server %q missing; problems: %v", rel, name, cfg.Problems))
				continue
			}
			if diff := compareServer(w.Servers[name], got); diff != "" {
				fileOK = false
				f.misread++
				f.failures = append(f.failures, fmt.Sprintf("%s: server %q misread: %s", rel, name, diff))
				continue
			}
			f.matching++
		}
		for name := range cfg.Servers {
			if _, ok := w.Servers[name]; !ok {
				fileOK = false
				f.misread++
				f.failures = append(f.failures, fmt.Sprintf("%s: server %q read, which the host does not start", rel, name))
			}
		}
		if fileOK {
			f.read++
		}
	}
	return f
}

// compareServer says how got differs from what the host would start.
func compareServer(w corpusServer, got *Server) string {
	var diffs []string
	check := func(what string, want, have any) {
		if fmt.Sprint(want) != fmt.Sprint(have) {
			diffs = append(diffs, fmt.Sprintf("%s: want %v, got %v", what, want, have))
		}
	}
	check("transport", w.Transport, got.Type)
	check("disabled", w.Disabled, got.Disabled)
	if w.Transport == TypeStdio {
		check("command", w.Command, got.Command)
		check("args", w.Args, nilIfEmpty(got.Args))
		check("env", w.Env, nilIfEmpty(slices.Sorted(maps.Keys(got.Env))))
	} else {
		check("url", w.URL, got.URL)
		check("headers", w.Headers, nilIfEmpty(slices.Sorted(maps.Keys(got.Headers))))
	}
	return strings.Join(diffs, "; ")
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// The tuned part of the corpus: files read while the reader was built.
func TestCorpusTuned(t *testing.T) {
	checkCorpus(t, "tuned")
}

// The held-out part: files chosen by a hash of their source before any was
// read, and not read while the reader was built.
func TestCorpusHeldOut(t *testing.T) {
	checkCorpus(t, "heldout")
}

func checkCorpus(t *testing.T, part string) {
	f := measureCorpus(t, part)
	t.Logf("%s: %s", part, f)
	for _, msg := range f.failures {
		t.Error(msg)
	}
	assert.Equal(t, f.hostReads, f.read, "every file its host reads is read, with the same servers")
	assert.Equal(t, f.broken, f.refusedAtPos, "every truly broken file is refused at file:line:column")
	assert.Zero(t, f.misread, "no server is misread")
	assert.GreaterOrEqual(t, f.files, 30)
}
