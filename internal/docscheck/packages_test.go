package docscheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// packageLine is a line of the README's package paragraph:
// "- `toolbox` (imports `actors`, `plugin`): what it is." or
// "- `host` (imports none of ours): ...".
var packageLine = regexp.MustCompile("^- `([a-z/]+)` \\(imports ([^)]*)\\)")

// readmePackages reads the README's package paragraph: each public
// package in the order the README gives, with the module's public packages
// it says the package imports.
func readmePackages(readme string) (order []string, imports map[string][]string, err error) {
	imports = map[string][]string{}
	// A list item that wraps goes on in lines indented by two spaces.
	var items []string
	for _, line := range strings.Split(readme, "\n") {
		if cont, ok := strings.CutPrefix(line, "  "); ok && len(items) > 0 && strings.HasPrefix(items[len(items)-1], "- ") {
			items[len(items)-1] += " " + strings.TrimSpace(cont)
			continue
		}
		items = append(items, line)
	}
	for _, line := range items {
		m := packageLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var deps []string
		if m[2] != "none of ours" {
			for _, d := range strings.Split(m[2], ",") {
				d = strings.Trim(strings.TrimSpace(d), "`")
				deps = append(deps, d)
			}
		}
		slices.Sort(deps)
		order = append(order, m[1])
		imports[m[1]] = deps
	}
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("no line of the form \"- `pkg` (imports ...)\"")
	}
	return order, imports, nil
}

// publicDeps lists, with go list -deps, the module's public packages pkg
// imports, directly or through any internal package: every package of the
// module whose path has no internal element, but pkg itself.
func publicDeps(t *testing.T, root, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "./"+pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./%s: %v", pkg, err)
	}
	var deps []string
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, modulePath+"/")
		if !ok || rel == pkg || slices.Contains(strings.Split(rel, "/"), "internal") {
			continue
		}
		deps = append(deps, rel)
	}
	slices.Sort(deps)
	return deps
}

// publicPackages lists the module's public packages that a user imports:
// every package of the main module but internal ones and the tools under
// conformance/.
func publicPackages(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: %v", err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, modulePath+"/")
		if !ok || strings.HasPrefix(rel, "conformance/") ||
			slices.Contains(strings.Split(rel, "/"), "internal") {
			continue
		}
		pkgs = append(pkgs, rel)
	}
	slices.Sort(pkgs)
	return pkgs
}

// TestReadmePackagesImportWhatTheySay checks the README's package
// paragraph against go list: it names every public package of the main
// module once, each line says exactly which of them the package imports
// (directly or through internal packages), and each imports only packages
// named above it.
func TestReadmePackagesImportWhatTheySay(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	order, said, err := readmePackages(string(data))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	if want := publicPackages(t, root); !slices.Equal(sorted, want) {
		t.Errorf("README.md's package paragraph names %v; the module's public packages are %v", sorted, want)
	}
	for i, pkg := range order {
		got := publicDeps(t, root, pkg)
		if !slices.Equal(said[pkg], got) {
			t.Errorf("README.md says %s imports %v; go list -deps ./%s says %v", pkg, said[pkg], pkg, got)
		}
		for _, d := range got {
			if !slices.Contains(order[:i], d) {
				t.Errorf("README.md lists %s above %s, which it imports", pkg, d)
			}
		}
	}
}

// TestReadmePackagesAreRead runs the paragraph's reader on synthetic
// lines, so that a paragraph it cannot read fails rather than passes.
func TestReadmePackagesAreRead(t *testing.T) {
	order, said, err := readmePackages("x\n- `host` (imports none of ours): a.\n- `plugin` (imports `host`,\n  `actors`): b.\n- `c` without imports\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []string{"host", "plugin"}) {
		t.Errorf("order = %v", order)
	}
	if len(said["host"]) != 0 || !slices.Equal(said["plugin"], []string{"actors", "host"}) {
		t.Errorf("imports = %v", said)
	}
	if _, _, err := readmePackages("no paragraph\n"); err == nil {
		t.Error("a README without the paragraph was read without an error")
	}
}

// TestSharedInternalPackagesHaveSeveralOwners keeps internal/core for what
// several packages share: a package there that one public package alone
// imports (directly, or through other internal/core packages; its tests
// count, since a package that another's tests drive serves both) belongs
// under that package's own internal/.
func TestSharedInternalPackagesHaveSeveralOwners(t *testing.T) {
	const core = "internal/core/"
	importers := map[string][]string{} // internal/core package -> importing packages
	for from, imps := range moduleImports(t, "{{.ImportPath}} {{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		"./...", modulePath+"/adapters/...") {
		for _, rel := range imps {
			if strings.HasPrefix(rel, core) && rel != from {
				importers[rel] = append(importers[rel], from)
			}
		}
	}
	var owners func(pkg string, seen map[string]bool) map[string]bool
	owners = func(pkg string, seen map[string]bool) map[string]bool {
		got := map[string]bool{}
		if seen[pkg] {
			return got
		}
		seen[pkg] = true
		for _, from := range importers[pkg] {
			if strings.HasPrefix(from, core) {
				for o := range owners(from, seen) {
					got[o] = true
				}
				continue
			}
			got[strings.Split(from, "/")[0]] = true
		}
		return got
	}
	if len(importers) == 0 {
		t.Fatal("no package imports any internal/core package: the check reads nothing")
	}
	for pkg := range importers {
		o := owners(pkg, map[string]bool{})
		if len(o) == 1 {
			for only := range o {
				if only != "internal" && only != "adapters" {
					t.Errorf("%s is used by %s alone: it belongs under %s/internal/", pkg, only, only)
				}
			}
		}
	}
}

// TestSharedInternalPackagesSitBelowTheirOwners checks that no import runs
// from a shared package of internal/core up past a public package that
// uses it: every public package such a package imports is one each of its
// owners (the public packages that import it, directly or through other
// internal packages) depends on without it. So `go list -deps` of a public
// package shows the layering as it is: an internal package adds no
// dependency its owners do not have.
func TestSharedInternalPackagesSitBelowTheirOwners(t *testing.T) {
	imports := moduleImports(t, "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	importers := map[string][]string{}
	for from, imps := range imports {
		for _, rel := range imps {
			importers[rel] = append(importers[rel], from)
		}
	}
	internal := func(pkg string) bool { return strings.Contains("/"+pkg+"/", "/internal/") }
	// deps is what pkg depends on through any package but skip.
	var deps func(pkg, skip string, got map[string]bool) map[string]bool
	deps = func(pkg, skip string, got map[string]bool) map[string]bool {
		for _, imp := range imports[pkg] {
			if imp != skip && !got[imp] {
				got[imp] = true
				deps(imp, skip, got)
			}
		}
		return got
	}
	var owners func(pkg string, got map[string]bool) map[string]bool
	owners = func(pkg string, got map[string]bool) map[string]bool {
		for _, from := range importers[pkg] {
			if internal(from) {
				owners(from, got)
			} else {
				got[from] = true
			}
		}
		return got
	}
	checked := 0
	for pkg, imps := range imports {
		if !strings.HasPrefix(pkg, "internal/core/") {
			continue
		}
		for _, up := range imps {
			if internal(up) {
				continue
			}
			for owner := range owners(pkg, map[string]bool{}) {
				checked++
				if owner != up && !deps(owner, pkg, map[string]bool{})[up] {
					t.Errorf("%s imports %s, which %s (its owner) does not depend on: the import runs up", pkg, up, owner)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no shared internal package imports a public one: the check reads nothing")
	}
}

// moduleImports runs go list with format (the package's import path, then
// the paths it imports) on patterns from the module's root, and returns
// each of the module's packages with the module's packages it imports,
// every path relative to the module.
func moduleImports(t *testing.T, format string, patterns ...string) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-f", format}, patterns...)...)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		from, ok := strings.CutPrefix(f[0], modulePath+"/")
		if !ok {
			continue
		}
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imports[from] = append(imports[from], rel)
			}
		}
	}
	return imports
}
