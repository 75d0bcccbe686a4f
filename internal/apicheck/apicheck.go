package apicheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ModulePath is the import path of the module whose API is listed.
const ModulePath = "github.com/cuca-go/mcpconnector"

// Header is the comment line that starts the checked-in listing. Lines
// starting with # and blank lines are not part of the listing.
const Header = "# Public API of " + ModulePath + ". Rewrite after a change made on purpose: go test ./internal/apicheck -run TestPublicAPI -update"

// excludedTop names the directories at a module's root whose packages are
// not public API.
var excludedTop = map[string]bool{
	"examples": true, "benchmarks": true, "conformance": true, "interop": true,
}

// Package is one public package: its import path and its directory.
type Package struct {
	ImportPath string
	Dir        string
}

// API is the listing of a set of packages.
type API struct {
	// Lines holds one line per exported item, sorted, without duplicates.
	Lines []string
	// Counts holds, per import path, the number of exported top-level
	// names (funcs, types, consts, vars; not methods or fields).
	Counts map[string]int
}

// Total returns the number of exported top-level names over all packages.
func (a *API) Total() int {
	n := 0
	for _, c := range a.Counts {
		n += c
	}
	return n
}

// Text returns the listing as it is checked in: Header, then the lines.
func (a *API) Text() string {
	return Header + "\n" + strings.Join(a.Lines, "\n") + "\n"
}

// CountsText returns the per-package counts of exported top-level names,
// one "import/path count" line per package in import path order, then a
// "total count" line.
func (a *API) CountsText() string {
	paths := make([]string, 0, len(a.Counts))
	for p := range a.Counts {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&b, "%s %d\n", p, a.Counts[p])
	}
	fmt.Fprintf(&b, "total %d\n", a.Total())
	return b.String()
}

// Budget is the most lines the listing may hold: in all, and outside the
// packages Unbudgeted names (the plain-data protocol and the adapters).
type Budget struct {
	Total   int
	Outside int
}

// Unbudgeted reports whether the lines of package path count toward
// Budget.Total only: messages, and the modules under adapters/.
func Unbudgeted(path string) bool {
	rel := strings.TrimPrefix(path, ModulePath+"/")
	return rel == "messages" || strings.HasPrefix(rel, "adapters/")
}

// Over returns what of the listing lines exceeds b, one sentence per
// figure over budget, and nil when it fits.
func (b Budget) Over(lines []string) []string {
	total, outside := len(lines), 0
	for _, l := range lines {
		if !Unbudgeted(linePackage(l)) {
			outside++
		}
	}
	var over []string
	if total > b.Total {
		over = append(over, fmt.Sprintf("%d lines in all, over the budget of %d", total, b.Total))
	}
	if outside > b.Outside {
		over = append(over, fmt.Sprintf("%d lines outside messages and adapters, over the budget of %d", outside, b.Outside))
	}
	return over
}

// linePackage is the import path a listing line is about:
// "pkg a/b, func F()" gives "a/b".
func linePackage(line string) string {
	rest, _ := strings.CutPrefix(line, "pkg ")
	path, _, _ := strings.Cut(rest, ",")
	return path
}

// ParseListing returns the lines of a checked-in listing, leaving out
// blank lines and comment lines (those starting with #).
func ParseListing(data []byte) []string {
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

// Diff returns the lines of got missing from want (added) and the lines of
// want missing from got (removed), each in the order they come in.
func Diff(want, got []string) (added, removed []string) {
	inWant := make(map[string]bool, len(want))
	for _, l := range want {
		inWant[l] = true
	}
	inGot := make(map[string]bool, len(got))
	for _, l := range got {
		inGot[l] = true
		if !inWant[l] {
			added = append(added, l)
		}
	}
	for _, l := range want {
		if !inGot[l] {
			removed = append(removed, l)
		}
	}
	return added, removed
}

// FindModuleRoot walks up from dir to the directory whose go.mod names
// the module modulePath, and returns it.
func FindModuleRoot(dir, modulePath string) (string, error) {
	start, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for dir = start; ; {
		if path, err := ModuleName(filepath.Join(dir, "go.mod")); err == nil && path == modulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("apicheck: no go.mod of module %s at or above %s", modulePath, start)
		}
		dir = parent
	}
}

// ModuleName returns the module path that the go.mod file gomod names on
// its module line.
func ModuleName(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "module" {
			return strings.Trim(fields[1], "\"`"), nil
		}
	}
	return "", fmt.Errorf("apicheck: %s has no module line", gomod)
}

// List returns the listing of the public packages of the module at root
// and of its adapter modules (see Packages).
func List(root string) (*API, error) {
	pkgs, err := Packages(root)
	if err != nil {
		return nil, err
	}
	return ListPackages(pkgs)
}

// Packages returns, sorted by import path, the public packages of the
// module at root and of each module adapters/<name> under it: the
// directories with non-test .go files whose import path has no internal
// element and that are under none of examples/, benchmarks/, conformance/,
// interop/ (at a module's root), a testdata directory, a directory whose
// name starts with . or _, or another module.
func Packages(root string) ([]Package, error) {
	modPath, err := ModuleName(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	pkgs, err := modulePackages(root, modPath)
	if err != nil {
		return nil, err
	}
	adapters, err := filepath.Glob(filepath.Join(root, "adapters", "*", "go.mod"))
	if err != nil {
		return nil, err
	}
	for _, gomod := range adapters {
		path, err := ModuleName(gomod)
		if err != nil {
			return nil, err
		}
		more, err := modulePackages(filepath.Dir(gomod), path)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, more...)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ImportPath < pkgs[j].ImportPath })
	return pkgs, nil
}

// modulePackages returns the public packages of the module modPath whose
// root directory is modRoot, leaving out the modules nested in it.
func modulePackages(modRoot, modPath string) ([]Package, error) {
	var pkgs []Package
	err := filepath.WalkDir(modRoot, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(modRoot, dir)
		if err != nil {
			return err
		}
		if rel != "." && skipDir(rel, dir) {
			return filepath.SkipDir
		}
		files, err := sourceFiles(dir)
		if err != nil {
			return err
		}
		if len(files) > 0 {
			path := modPath
			if rel != "." {
				path += "/" + filepath.ToSlash(rel)
			}
			pkgs = append(pkgs, Package{ImportPath: path, Dir: dir})
		}
		return nil
	})
	return pkgs, err
}

// skipDir reports whether the directory dir, rel from its module's root,
// and all below it hold no public package.
func skipDir(rel, dir string) bool {
	base := filepath.Base(dir)
	switch {
	case strings.HasPrefix(base, "."), strings.HasPrefix(base, "_"),
		base == "testdata", base == "internal", base == "vendor",
		rel == base && excludedTop[base]:
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// sourceFiles returns the paths of the non-test .go files in dir, leaving
// out those whose //go:build line names the tag ignore.
func sourceFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") ||
			strings.HasSuffix(name, "_test.go") ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if !ignored(f) {
			files = append(files, path)
		}
	}
	return files, nil
}

// ignored reports whether f's //go:build line names the tag ignore.
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			ignore := false
			expr.Eval(func(tag string) bool {
				ignore = ignore || tag == "ignore"
				return true
			})
			if ignore {
				return true
			}
		}
	}
	return false
}

// ListPackages returns the listing of the packages pkgs.
func ListPackages(pkgs []Package) (*API, error) {
	api := &API{Counts: make(map[string]int)}
	for _, pkg := range pkgs {
		l, err := listPackage(pkg)
		if err != nil {
			return nil, err
		}
		api.Lines = append(api.Lines, l.lines...)
		api.Counts[pkg.ImportPath] = len(l.names)
	}
	sort.Strings(api.Lines)
	api.Lines = slices.Compact(api.Lines)
	return api, nil
}

// listPackage parses the source files of pkg and lists their exported
// declarations.
func listPackage(pkg Package) (*lister, error) {
	files, err := sourceFiles(pkg.Dir)
	if err != nil {
		return nil, err
	}
	l := &lister{
		fset:   token.NewFileSet(),
		prefix: "pkg " + pkg.ImportPath + ", ",
		names:  make(map[string]bool),
	}
	for _, path := range files {
		f, err := parser.ParseFile(l.fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			l.decl(d)
		}
	}
	return l, nil
}

// lister gathers the lines of one package.
type lister struct {
	fset   *token.FileSet
	prefix string          // "pkg import/path, "
	lines  []string        // unsorted, may repeat
	names  map[string]bool // exported top-level names
}

// emit adds a line.
func (l *lister) emit(format string, args ...any) {
	l.lines = append(l.lines, l.prefix+fmt.Sprintf(format, args...))
}

// decl lists one top-level declaration.
func (l *lister) decl(d ast.Decl) {
	switch d := d.(type) {
	case *ast.FuncDecl:
		l.funcDecl(d)
	case *ast.GenDecl:
		var last *ast.ValueSpec // the const spec an implicit one repeats
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				l.typeSpec(s)
			case *ast.ValueSpec:
				if d.Tok == token.CONST {
					last = l.constSpec(s, last)
				} else {
					l.varSpec(s)
				}
			}
		}
	}
}

// funcDecl lists an exported func, or an exported method of an exported
// type.
func (l *lister) funcDecl(d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	if d.Recv == nil {
		l.names[d.Name.Name] = true
		l.emit("func %s%s%s", d.Name.Name, l.typeParams(d.Type.TypeParams), l.signature(d.Type))
		return
	}
	if len(d.Recv.List) != 1 || !ast.IsExported(baseName(d.Recv.List[0].Type)) {
		return
	}
	l.emit("method (%s) %s%s", l.typeString(d.Recv.List[0].Type), d.Name.Name, l.signature(d.Type))
}

// typeSpec lists an exported type, its exported fields or its interface
// methods.
func (l *lister) typeSpec(s *ast.TypeSpec) {
	if !s.Name.IsExported() {
		return
	}
	l.names[s.Name.Name] = true
	head := "type " + s.Name.Name + l.typeParams(s.TypeParams)
	if s.Assign.IsValid() {
		l.emit("%s = %s", head, l.typeString(s.Type))
		return
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		l.structType(head, t)
	case *ast.InterfaceType:
		l.interfaceType(head, t)
	default:
		l.emit("%s %s", head, l.typeString(s.Type))
	}
}

// structType lists a struct type and its exported fields, embedded ones
// as "embedded T".
func (l *lister) structType(head string, t *ast.StructType) {
	l.emit("%s struct", head)
	for _, f := range t.Fields.List {
		typ := l.typeString(f.Type)
		if len(f.Names) == 0 {
			if ast.IsExported(baseName(f.Type)) {
				l.emit("%s struct, embedded %s", head, typ)
			}
			continue
		}
		for _, n := range f.Names {
			if n.IsExported() {
				l.emit("%s struct, %s %s", head, n.Name, typ)
			}
		}
	}
}

// interfaceType lists an interface type with the sorted names of its
// exported methods and its embedded elements, then one line per exported
// method and per embedded type name.
func (l *lister) interfaceType(head string, t *ast.InterfaceType) {
	var elems []string
	unexported := false
	for _, f := range t.Methods.List {
		ft, isMethod := f.Type.(*ast.FuncType)
		if len(f.Names) == 0 || !isMethod {
			e := l.typeString(f.Type)
			elems = append(elems, e)
			if isTypeName(f.Type) {
				l.emit("%s interface, embedded %s", head, e)
			}
			continue
		}
		for _, n := range f.Names {
			if !n.IsExported() {
				unexported = true
				continue
			}
			elems = append(elems, n.Name)
			l.emit("%s interface, %s%s", head, n.Name, l.signature(ft))
		}
	}
	sort.Strings(elems)
	if unexported {
		elems = append(elems, "unexported methods")
	}
	if len(elems) == 0 {
		l.emit("%s interface {}", head)
		return
	}
	l.emit("%s interface { %s }", head, strings.Join(elems, ", "))
}

// constSpec lists the exported names of a const spec: "const X T = expr",
// the type if written (or repeated from last), the value if written (or
// repeated) unless it uses iota. It returns the spec that the next
// implicit spec repeats.
func (l *lister) constSpec(s, last *ast.ValueSpec) *ast.ValueSpec {
	if len(s.Values) > 0 || last == nil {
		last = s
	}
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		l.names[n.Name] = true
		line := "const " + n.Name
		if last.Type != nil {
			line += " " + l.typeString(last.Type)
		}
		if i < len(last.Values) && !mentionsIota(last.Values[i]) {
			line += " = " + l.exprString(last.Values[i])
		}
		l.emit("%s", line)
	}
	return last
}

// varSpec lists the exported names of a var spec: "var X T" if the type
// is written, else "var X = expr".
func (l *lister) varSpec(s *ast.ValueSpec) {
	for i, n := range s.Names {
		if !n.IsExported() {
			continue
		}
		l.names[n.Name] = true
		switch {
		case s.Type != nil:
			l.emit("var %s %s", n.Name, l.typeString(s.Type))
		case len(s.Values) == len(s.Names):
			l.emit("var %s = %s", n.Name, l.exprString(s.Values[i]))
		default:
			values := make([]string, len(s.Values))
			for j, v := range s.Values {
				values[j] = l.exprString(v)
			}
			l.emit("var %s = %s", n.Name, strings.Join(values, ", "))
		}
	}
}

// typeParams returns a type parameter list as "[K comparable, V any]", or
// "" for none.
func (l *lister) typeParams(fl *ast.FieldList) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	parts := make([]string, len(fl.List))
	for i, f := range fl.List {
		names := make([]string, len(f.Names))
		for j, n := range f.Names {
			names[j] = n.Name
		}
		parts[i] = strings.Join(names, ", ") + " " + l.typeString(f.Type)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// signature returns a func type's parameters and results without the
// func keyword and without parameter names: "(int, ...string) (T, error)".
func (l *lister) signature(ft *ast.FuncType) string {
	s := "(" + strings.Join(l.fieldTypes(ft.Params), ", ") + ")"
	switch res := l.fieldTypes(ft.Results); len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

// fieldTypes returns the type of each parameter or result in fl, once per
// name.
func (l *lister) fieldTypes(fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var types []string
	for _, f := range fl.List {
		t := l.typeString(f.Type)
		for range max(1, len(f.Names)) {
			types = append(types, t)
		}
	}
	return types
}

// typeString returns a type expression's source on one line, with the
// parameter names of func types dropped.
func (l *lister) typeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return l.typeString(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + l.typeString(t.X)
	case *ast.ParenExpr:
		return "(" + l.typeString(t.X) + ")"
	case *ast.Ellipsis:
		return "..." + l.typeString(t.Elt)
	case *ast.ArrayType:
		if t.Len == nil {
			return "[]" + l.typeString(t.Elt)
		}
		return "[" + l.exprString(t.Len) + "]" + l.typeString(t.Elt)
	case *ast.MapType:
		return "map[" + l.typeString(t.Key) + "]" + l.typeString(t.Value)
	case *ast.FuncType:
		return "func" + l.signature(t)
	case *ast.UnaryExpr:
		return t.Op.String() + l.typeString(t.X)
	case *ast.BinaryExpr:
		return l.typeString(t.X) + " " + t.Op.String() + " " + l.typeString(t.Y)
	}
	return l.compositeTypeString(e)
}

// compositeTypeString is typeString for channel, struct, interface and
// instantiated types, and the source of any other expression.
func (l *lister) compositeTypeString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.ChanType:
		switch t.Dir {
		case ast.SEND:
			return "chan<- " + l.typeString(t.Value)
		case ast.RECV:
			return "<-chan " + l.typeString(t.Value)
		}
		return "chan " + l.typeString(t.Value)
	case *ast.IndexExpr:
		return l.typeString(t.X) + "[" + l.typeString(t.Index) + "]"
	case *ast.IndexListExpr:
		args := make([]string, len(t.Indices))
		for i, x := range t.Indices {
			args[i] = l.typeString(x)
		}
		return l.typeString(t.X) + "[" + strings.Join(args, ", ") + "]"
	case *ast.StructType:
		return "struct{" + l.inlineFields(t.Fields, false) + "}"
	case *ast.InterfaceType:
		return "interface{" + l.inlineFields(t.Methods, true) + "}"
	}
	return l.exprString(e)
}

// inlineFields returns the fields of a struct type or the methods and
// elements of an interface type written inside another type, as
// " A int; B string " (" " for none in between).
func (l *lister) inlineFields(fl *ast.FieldList, methods bool) string {
	if fl == nil || len(fl.List) == 0 {
		return ""
	}
	parts := make([]string, len(fl.List))
	for i, f := range fl.List {
		names := make([]string, len(f.Names))
		for j, n := range f.Names {
			names[j] = n.Name
		}
		ft, isFunc := f.Type.(*ast.FuncType)
		switch {
		case len(names) == 0:
			parts[i] = l.typeString(f.Type)
		case methods && isFunc:
			parts[i] = names[0] + l.signature(ft)
		default:
			parts[i] = strings.Join(names, ", ") + " " + l.typeString(f.Type)
		}
	}
	return " " + strings.Join(parts, "; ") + " "
}

// lineBreak matches a line break and the space around it.
var lineBreak = regexp.MustCompile(`\s*\n\s*`)

// exprString returns an expression's source, printed by go/printer, on
// one line.
func (l *lister) exprString(e ast.Expr) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, l.fset, e); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	s := lineBreak.ReplaceAllString(b.String(), " ")
	return strings.ReplaceAll(s, ", }", " }")
}

// baseName returns the name of the type that a receiver or embedded field
// names, without pointer, package or type arguments.
func baseName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.StarExpr:
		return baseName(t.X)
	case *ast.ParenExpr:
		return baseName(t.X)
	case *ast.IndexExpr:
		return baseName(t.X)
	case *ast.IndexListExpr:
		return baseName(t.X)
	}
	return ""
}

// isTypeName reports whether e names a type (possibly instantiated), as
// an embedded interface does, rather than a union or ~T element.
func isTypeName(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		return true
	}
	return false
}

// mentionsIota reports whether the expression e uses iota.
func mentionsIota(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
			found = true
		}
		return !found
	})
	return found
}
