package docscheck

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the module whose public packages the page must cover.
const modulePath = "github.com/cuca-go/mcpconnector"

// errorsPage is the page, relative to the module root.
const errorsPage = "docs/errors.md"

// skippedTopDirs are the module root's directories that hold no public
// package: internal code, programs, test suites, adapters (own modules).
var skippedTopDirs = map[string]bool{
	"internal":     true,
	"examples":     true,
	"benchmarks":   true,
	"conformance":  true,
	"interop":      true,
	"adapters":     true,
	"testdata":     true,
	"docs":         true,
	"node_modules": true,
}

// errorName is an exported error name of a public package.
type errorName struct {
	pkg, name string // package name (not path) and identifier
	pos       string // where it is declared, for the failure message
}

func (n errorName) String() string { return n.pkg + "." + n.name }

func TestErrorsPageListsEverySentinel(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, errorsPage))
	if err != nil {
		t.Fatalf("reading the errors page: %v", err)
	}
	names := publicErrorNames(t, root)
	if len(names) == 0 {
		t.Fatalf("found no exported error names under %s: the walk is broken", root)
	}
	var missing []errorName
	for _, n := range names {
		if !mentions(string(page), n) {
			missing = append(missing, n)
		}
	}
	for _, n := range missing {
		t.Errorf("%s does not mention %s (declared at %s)", errorsPage, n, n.pos)
	}
	if len(missing) == 0 {
		t.Logf("%s mentions all %d exported error names", errorsPage, len(names))
	}
}

// mentions reports whether page names n as pkg.Name, not as a part of a
// longer identifier (plugin.Error is not mentioned by plugin.Errors).
func mentions(page string, n errorName) bool {
	re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_])` + regexp.QuoteMeta(n.String()) + `(?:[^A-Za-z0-9_]|$)`)
	return re.MatchString(page)
}

// moduleRoot walks up from the working directory to the go.mod of
// modulePath.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if moduleOf(filepath.Join(dir, "go.mod")) == modulePath {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod of module %s above the working directory", modulePath)
		}
		dir = parent
	}
}

// moduleOf is the module path of the go.mod at path, "" when there is
// none.
func moduleOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"') {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// publicErrorNames collects, from the non-test sources of every public
// package under root, the exported package-level vars named Err… and the
// exported types named …Error, leaving out the deprecated ones.
func publicErrorNames(t *testing.T, root string) []errorName {
	t.Helper()
	fset := token.NewFileSet()
	var names []errorName
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			base := d.Name()
			switch {
			case strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_"):
				return filepath.SkipDir // ignored by the go tool
			case base == "testdata" || base == "internal":
				return filepath.SkipDir // not importable from outside
			case !strings.Contains(rel, "/") && skippedTopDirs[base]:
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := f.Name.Name
		if pkg == "main" || strings.HasSuffix(pkg, "_test") {
			return nil
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					if gd.Tok != token.VAR || deprecated(s.Doc) || deprecated(gd.Doc) {
						continue
					}
					for _, id := range s.Names {
						if id.IsExported() && strings.HasPrefix(id.Name, "Err") {
							names = append(names, errorName{pkg, id.Name, rel + ":" + strconv.Itoa(fset.Position(id.Pos()).Line)})
						}
					}
				case *ast.TypeSpec:
					if deprecated(s.Doc) || deprecated(gd.Doc) {
						continue
					}
					if s.Name.IsExported() && strings.HasSuffix(s.Name.Name, "Error") {
						names = append(names, errorName{pkg, s.Name.Name, rel + ":" + strconv.Itoa(fset.Position(s.Name.Pos()).Line)})
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	slices.SortFunc(names, func(a, b errorName) int { return strings.Compare(a.String(), b.String()) })
	return slices.CompactFunc(names, func(a, b errorName) bool { return a.String() == b.String() })
}

// deprecated reports whether doc has a paragraph that starts with
// "Deprecated:", as go doc and gopls read it.
func deprecated(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for para := range strings.SplitSeq(doc.Text(), "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Deprecated:") {
			return true
		}
	}
	return false
}
