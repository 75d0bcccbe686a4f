package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDocsNameOnlyIdentifiersThatExist reads the pages (README.md,
// docs/*.md) and the package docs (every doc.go) of the repository and
// fails for each Go identifier of its packages they name that no package
// declares any more. A name counts where the docs mark it as code: in
// backticks, or in brackets (a doc link of go doc, or a Markdown link's
// text). Its forms: pkg.Name and pkg.Type.Member (a method or field,
// promoted ones included), pkg being the name of a package of the
// repository (any module in it, internal ones and adapters included); in a
// doc.go, [Name] and [Type.Member] of its own package too.
func TestDocsNameOnlyIdentifiersThatExist(t *testing.T) {
	root := moduleRoot(t)
	idx := indexRepository(t, root)
	if len(idx) < 10 {
		t.Fatalf("indexed %d packages under %s: the walk is broken", len(idx), root)
	}
	docs := documents(t, root)
	checked := 0
	for _, d := range docs {
		for _, r := range references(d) {
			checked++
			if why := idx.missing(r); why != "" {
				t.Errorf("%s:%d names %s, %s", d.path, r.line, r, why)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d names in %d documents: the scan is broken", checked, len(docs))
	}
	t.Logf("%d names in %d documents, all declared", checked, len(docs))
}

// The check finds the names that are gone, in each form, and no others.
func TestDocsCheckFindsMissingIdentifiers(t *testing.T) {
	idx := index{}
	idx.add(t, "transport", `package transport
type Stdio struct{ Command string; Base }
type Base struct{ Label string }
func (Base) ServerLabel() string { return "" }
func (s Stdio) Open() error { return nil }
type Aborter interface{ Abort() }
type Far struct{ other.Thing }
const DefaultTerminateTimeout = 2
var ErrNotSent error
func NewStdio() Stdio { return Stdio{} }
`)
	for _, c := range []struct {
		doc  document
		want []string // the names reported missing
	}{
		{doc: document{path: "README.md", text: "Use `transport.NewStdio(cmd)` and `transport.Stdio{Command}`; `transport.ErrNotSent`, `transport.DefaultTerminateTimeout`."}},
		{doc: document{path: "README.md", text: "Gone: `transport.NewStdioCommand(cmd)` and [transport.ErrGone]."},
			want: []string{"transport.NewStdioCommand", "transport.ErrGone"}},
		{doc: document{path: "docs/x.md", text: "`transport.Stdio.Open`, `transport.Stdio.Command`, `transport.Stdio.Label` (promoted), `transport.Stdio.ServerLabel` (promoted), `transport.Aborter.Abort`, `transport.Far.Anything` (embeds a type of another module)."}},
		{doc: document{path: "docs/x.md", text: "`transport.Stdio.Close` and [transport.Aborter.Kill]"},
			want: []string{"transport.Stdio.Close", "transport.Aborter.Kill"}},
		{doc: document{path: "docs/x.md", text: "Not ours, not checked: `mcp.ClientSession.CallTool`, `go.uber.org/zap`, [link text](https://example.com/transport.Gone), transport.Gone outside code."}},
		{doc: document{path: "transport/doc.go", pkg: "transport", text: "// See [Stdio], [Stdio.Open], [NewStdio] and [Aborter]; [Gone] and [Stdio.Gone] are not.\n// A [link]: https://example.com names nothing.\npackage transport\n"},
			want: []string{"transport.Gone", "transport.Stdio.Gone"}},
		{doc: document{path: "docs/x.md", text: "```go\nt := transport.NewStdio(\"x\")\nerr := transport.Missing(t)\n```\n"},
			want: []string{"transport.Missing"}},
		{doc: document{path: "docs/x.md", text: "```go\nts, transport := 1, other.NewClient()\ntransport.Chat.Completions.New()\n```\n`transport.Chat`"},
			want: []string{"transport.Chat"}},
	} {
		var got []string
		for _, r := range references(c.doc) {
			if idx.missing(r) != "" {
				got = append(got, r.String())
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: reported %q, want %q", c.doc.text, got, c.want)
		}
	}
}

// index holds, by package name, what the packages of that name declare;
// packages of one name (a package main in many directories) share it.
type index map[string]*declared

// declared is what one package name's packages declare.
type declared struct {
	names   map[string]bool            // package-level identifiers
	types   map[string]bool            // which of them are types
	members map[string]map[string]bool // methods and fields, by type
	embeds  map[string][]embedded      // embedded types, by type
}

// embedded is a type embedded in another: in a package of the repository,
// or not (external), when any member may come from it.
type embedded struct {
	pkg, typ string
	external bool
}

// reference is a name a document marks as code.
type reference struct {
	pkg, name, member string
	line              int
}

func (r reference) String() string {
	s := r.pkg + "." + r.name
	if r.member != "" {
		s += "." + r.member
	}
	return s
}

// missing says why r names nothing, or "" when it names something (or
// something this check cannot see: a package not of the repository, a
// member of what is not a type).
func (idx index) missing(r reference) string {
	d, ok := idx[r.pkg]
	if !ok {
		return ""
	}
	if !d.names[r.name] {
		return "which package " + r.pkg + " does not declare"
	}
	if r.member == "" || !d.types[r.name] {
		return ""
	}
	if idx.hasMember(r.pkg, r.name, r.member, map[string]bool{}) {
		return ""
	}
	return fmt.Sprintf("which %s.%s has not (no such method or field)", r.pkg, r.name)
}

func (idx index) hasMember(pkg, typ, member string, seen map[string]bool) bool {
	key := pkg + "." + typ
	if seen[key] {
		return false
	}
	seen[key] = true
	d, ok := idx[pkg]
	if !ok {
		return true // not ours to check
	}
	if d.members[typ][member] {
		return true
	}
	for _, e := range d.embeds[typ] {
		if e.external || e.typ == member || idx.hasMember(e.pkg, e.typ, member, seen) {
			return true
		}
	}
	return false
}

// indexRepository parses every non-test Go file under root (every module
// of the repository) and records what each package declares.
func indexRepository(t *testing.T, root string) index {
	t.Helper()
	idx := index{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if p != root && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		idx.addFile(f)
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return idx
}

// add indexes src as a file of package pkg: the check's own test.
func (idx index) add(t *testing.T, pkg, src string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), pkg+".go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	idx.addFile(f)
}

func (idx index) addFile(f *ast.File) {
	pkg := f.Name.Name
	d := idx[pkg]
	if d == nil {
		d = &declared{names: map[string]bool{}, types: map[string]bool{}, members: map[string]map[string]bool{}, embeds: map[string][]embedded{}}
		idx[pkg] = d
	}
	// The package names this file imports, for the embedded types it
	// names: the last element of the path, or the name given.
	imports := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := path.Base(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		imports[name] = p
	}
	member := func(typ, name string) {
		if d.members[typ] == nil {
			d.members[typ] = map[string]bool{}
		}
		d.members[typ][name] = true
	}
	embed := func(typ string, x ast.Expr) {
		for {
			switch e := x.(type) {
			case *ast.StarExpr:
				x = e.X
				continue
			case *ast.IndexExpr:
				x = e.X
				continue
			case *ast.IndexListExpr:
				x = e.X
				continue
			case *ast.Ident:
				d.embeds[typ] = append(d.embeds[typ], embedded{pkg: pkg, typ: e.Name})
			case *ast.SelectorExpr:
				if id, ok := e.X.(*ast.Ident); ok && strings.HasPrefix(imports[id.Name], modulePath) {
					d.embeds[typ] = append(d.embeds[typ], embedded{pkg: path.Base(imports[id.Name]), typ: e.Sel.Name})
				} else {
					d.embeds[typ] = append(d.embeds[typ], embedded{external: true})
				}
			default:
				d.embeds[typ] = append(d.embeds[typ], embedded{external: true})
			}
			return
		}
	}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.FuncDecl:
			if decl.Recv == nil {
				d.names[decl.Name.Name] = true
				continue
			}
			if typ := receiverType(decl.Recv.List[0].Type); typ != "" {
				member(typ, decl.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for _, id := range s.Names {
						d.names[id.Name] = true
					}
				case *ast.TypeSpec:
					name := s.Name.Name
					d.names[name], d.types[name] = true, true
					switch ty := s.Type.(type) {
					case *ast.StructType:
						for _, fld := range ty.Fields.List {
							if len(fld.Names) == 0 {
								embed(name, fld.Type)
							}
							for _, id := range fld.Names {
								member(name, id.Name)
							}
						}
					case *ast.InterfaceType:
						for _, m := range ty.Methods.List {
							if len(m.Names) == 0 {
								embed(name, m.Type)
							}
							for _, id := range m.Names {
								member(name, id.Name)
							}
						}
					default:
						// A type defined from another (or an alias) has
						// its fields, and an alias its methods: any
						// member may be the other's.
						embed(name, s.Type)
					}
				}
			}
		}
	}
}

// receiverType is the type name of a method's receiver.
func receiverType(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr:
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.ParenExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// document is a page or a package doc: its path from the repository's
// root, its text, and for a doc.go its package's name.
type document struct {
	path, pkg, text string
}

// documents are README.md, docs/*.md and every doc.go of the repository.
func documents(t *testing.T, root string) []document {
	t.Helper()
	var docs []document
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	docs = append(docs, document{path: "README.md", text: read("README.md")})
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages under docs/: %v", err)
	}
	for _, p := range pages {
		rel, _ := filepath.Rel(root, p)
		docs = append(docs, document{path: filepath.ToSlash(rel), text: read(rel)})
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			base := d.Name()
			if p != root && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || base == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "doc.go" {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		docs = append(docs, document{path: filepath.ToSlash(rel), pkg: f.Name.Name, text: read(rel)})
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", root, err)
	}
	return docs
}

var (
	// codeSpans are what a document marks as code: a fenced block, a span
	// in backticks, a bracketed name (not a Markdown link's target).
	codeSpans = regexp.MustCompile("(?s)```.*?```|`[^`\n]+`|\\[[^\\]\n]+\\]")
	// qualified is pkg.Name or pkg.Type.Member, not part of a longer
	// dotted name (an import path, example.com/transport.Gone).
	qualified = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./])([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?`)
	// declaredVars are the names a Go block declares as variables (x :=,
	// a, x :=, var x), which shadow a package of the same name there.
	declaredVars = regexp.MustCompile(`(?m)([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*:=|\bvar\s+([A-Za-z_][A-Za-z0-9_]*)`)
	// docLink is a doc link of go doc to the package's own name: [Name],
	// [Name.Member], [*Name].
	docLink = regexp.MustCompile(`^\[\*?([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?\]$`)
)

// references are the names d marks as code, in order.
func references(d document) []reference {
	var refs []reference
	for _, loc := range codeSpans.FindAllStringIndex(d.text, -1) {
		span := d.text[loc[0]:loc[1]]
		line := 1 + strings.Count(d.text[:loc[0]], "\n")
		if strings.HasPrefix(span, "[") && strings.HasPrefix(d.text[loc[1]:], "(") && !strings.Contains(span, ".") {
			continue // a Markdown link's text that names no package
		}
		if m := docLink.FindStringSubmatch(span); m != nil && d.pkg != "" {
			if strings.HasPrefix(d.text[loc[1]:], ":") {
				continue // a link's definition: [link]: https://…
			}
			refs = append(refs, reference{pkg: d.pkg, name: m[1], member: m[2], line: line})
			continue
		}
		shadowed := map[string]bool{}
		if strings.HasPrefix(span, "```") {
			for _, m := range declaredVars.FindAllStringSubmatch(span, -1) {
				for _, v := range strings.Split(m[1]+","+m[2], ",") {
					shadowed[strings.TrimSpace(v)] = true
				}
			}
		}
		for _, m := range qualified.FindAllStringSubmatchIndex(span, -1) {
			if shadowed[span[m[2]:m[3]]] {
				continue // a variable of the block's, not the package
			}
			r := reference{pkg: span[m[2]:m[3]], name: span[m[4]:m[5]], line: line + strings.Count(span[:m[2]], "\n")}
			if m[6] >= 0 {
				r.member = span[m[6]:m[7]]
			}
			refs = append(refs, r)
		}
	}
	return refs
}
