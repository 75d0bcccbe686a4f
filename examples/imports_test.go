package examples_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the module the examples belong to.
const modulePath = "github.com/cuca-go/mcpconnector"

// notForUsers are the module root's directories that hold no package a
// user would import: test suites and measurements, not the library.
var notForUsers = []string{"benchmarks", "conformance", "interop"}

// userCannotImport says why a program outside the module could not, or
// should not, import path, or "" when it is a public package of the module
// (or no package of the module at all: the standard library and third
// parties are fine).
func userCannotImport(path string) string {
	rest, ok := strings.CutPrefix(path, modulePath)
	if !ok || (rest != "" && rest[0] != '/') {
		return "" // another module's, or the standard library's
	}
	elems := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	if slices.Contains(elems, "internal") {
		return "an internal package: a program outside the module cannot import it"
	}
	if slices.Contains(notForUsers, elems[0]) {
		return "not a package of the library (" + elems[0] + "/ is a test suite)"
	}
	return ""
}

func TestUserCannotImport(t *testing.T) {
	for path, bad := range map[string]bool{
		modulePath + "/internal/fixture/gridmember":  true,
		modulePath + "/examples/internal/demoserver": true,
		modulePath + "/plugin/internal/x":            true,
		modulePath + "/benchmarks":                   true,
		modulePath + "/plugin":                       false,
		modulePath + "/examples/demoserver":          false,
		modulePath:                                   false,
		modulePath + "x/internal/y":                  false, // another module
		"github.com/asynkron/protoactor-go/cluster":  false,
		"github.com/modelcontextprotocol/go-sdk/mcp": false,
	} {
		if got := userCannotImport(path) != ""; got != bad {
			t.Errorf("userCannotImport(%q) != \"\" is %v, want %v", path, got, bad)
		}
	}
}

// TestExamplesImportOnlyPublicPackages reads the imports of every Go file
// under examples/ (tests and every build constraint included) and fails on
// each import of a package of this module that a user could not import.
func TestExamplesImportOnlyPublicPackages(t *testing.T) {
	files, ofModule := 0, 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if strings.HasPrefix(imp, modulePath+"/") {
				ofModule++
			}
			if why := userCannotImport(imp); why != "" {
				t.Errorf("%s imports %s: %s; examples import only public packages of the module (move what they share to a package under examples/ without an internal element)",
					fset.Position(spec.Pos()), imp, why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A walk that found nothing would pass: make sure it read the examples.
	if files < 10 || ofModule == 0 {
		t.Fatalf("read %d Go files with %d imports of %s: the walk is broken", files, ofModule, modulePath)
	}
	if !t.Failed() {
		t.Logf("%d Go files, %d imports of the module's packages, all public", files, ofModule)
	}
}
