package apicheck_test

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cuca-go/mcpconnector/internal/apicheck"
)

var update = flag.Bool("update", false, "rewrite api/mcpconnector.txt from the tree instead of comparing")

// updateCommand is the command that rewrites the checked-in listing.
const updateCommand = "go test ./internal/apicheck -run TestPublicAPI -update"

// budget is the most the listing may hold. The goal is 700 lines in all
// and 450 outside messages and adapters; the figures here are what the
// module holds to until it gets there, and only ever go down.
var budget = apicheck.Budget{Total: 774, Outside: 615}

// TestPublicAPI compares the public API of the tree with the listing
// checked in at api/mcpconnector.txt, or rewrites it with -update.
func TestPublicAPI(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := apicheck.FindModuleRoot(wd, apicheck.ModulePath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := apicheck.List(root)
	if err != nil {
		t.Fatal(err)
	}
	logCounts(t, api)
	for _, over := range budget.Over(api.Lines) {
		t.Errorf("the public API is %s: hide what only the module uses, or drop a name", over)
	}
	file := filepath.Join(root, "api", "mcpconnector.txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(api.Text()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d lines", file, len(api.Lines))
		return
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s is missing; write it with: %s", file, updateCommand)
	} else if err != nil {
		t.Fatal(err)
	}
	added, removed := apicheck.Diff(apicheck.ParseListing(data), api.Lines)
	if len(added) > 0 || len(removed) > 0 {
		t.Errorf("the public API differs from %s (%d added, %d removed):\n%s\nIf the change is meant, rewrite the file with:\n\t%s",
			file, len(added), len(removed), diffText(added, removed), updateCommand)
	}
}

// logCounts logs the number of exported top-level names per package and
// in total.
func logCounts(t *testing.T, api *apicheck.API) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSpace(api.CountsText()), "\n") {
		t.Logf("exported names: %s", line)
	}
}

// diffText writes the added lines with "+ " and the removed ones with
// "- ".
func diffText(added, removed []string) string {
	var b strings.Builder
	for _, l := range added {
		b.WriteString("+ " + l + "\n")
	}
	for _, l := range removed {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// TestListSample compares the listing of the synthetic package
// testdata/sample with the one written by hand in testdata/sample.txt.
func TestListSample(t *testing.T) {
	api, err := apicheck.ListPackages([]apicheck.Package{
		{ImportPath: "example.com/sample", Dir: filepath.Join("testdata", "sample")},
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "sample.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := apicheck.ParseListing(data)
	if added, removed := apicheck.Diff(want, api.Lines); len(added) > 0 || len(removed) > 0 {
		t.Errorf("listing of testdata/sample (+ listed but not expected, - expected but not listed):\n%s", diffText(added, removed))
	}
	if len(api.Lines) != len(want) {
		t.Errorf("listed %d lines, want %d (a line repeated?)", len(api.Lines), len(want))
	}
	if !slices.IsSorted(api.Lines) {
		t.Error("the lines are not sorted")
	}
	if got, want := api.Counts["example.com/sample"], 27; got != want {
		t.Errorf("exported top-level names = %d, want %d", got, want)
	}
}

// TestPackages checks which directories of the synthetic module
// testdata/tree are public packages.
func TestPackages(t *testing.T) {
	root := filepath.Join("testdata", "tree")
	pkgs, err := apicheck.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pkgs {
		got = append(got, p.ImportPath)
	}
	want := []string{
		"example.com/tree",
		"example.com/tree/a",
		"example.com/tree/adapters/ad",
		"example.com/tree/adapters/ad/sub",
	}
	if !slices.Equal(got, want) {
		t.Errorf("packages:\n got %q\nwant %q", got, want)
	}
}

// TestFindModuleRoot walks up from a package of the synthetic module to
// its root, and past a go.mod of another module.
func TestFindModuleRoot(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{"testdata/tree/a/internal/x", "testdata/tree/adapters/ad/sub"} {
		got, err := apicheck.FindModuleRoot(filepath.FromSlash(start), "example.com/tree")
		if err != nil || got != want {
			t.Errorf("FindModuleRoot(%s) = %q, %v; want %q", start, got, err, want)
		}
	}
	if _, err := apicheck.FindModuleRoot(".", "example.com/none"); err == nil {
		t.Error("FindModuleRoot found a module that no go.mod names")
	}
}

// TestParseListingAndDiff checks that comment and blank lines are not
// part of a listing and that Diff reports both sides.
func TestParseListingAndDiff(t *testing.T) {
	lines := apicheck.ParseListing([]byte(apicheck.Header + "\n\npkg p, func A()\n# note\npkg p, func B()\n"))
	if want := []string{"pkg p, func A()", "pkg p, func B()"}; !slices.Equal(lines, want) {
		t.Fatalf("ParseListing = %q, want %q", lines, want)
	}
	api := &apicheck.API{Lines: lines}
	if again := apicheck.ParseListing([]byte(api.Text())); !slices.Equal(again, lines) {
		t.Errorf("ParseListing(Text()) = %q, want %q", again, lines)
	}
	added, removed := apicheck.Diff(lines, []string{"pkg p, func B()", "pkg p, func C()"})
	if !slices.Equal(added, []string{"pkg p, func C()"}) || !slices.Equal(removed, []string{"pkg p, func A()"}) {
		t.Errorf("Diff: added %q, removed %q", added, removed)
	}
}

// TestBudgetCountsLines checks the budget on a made-up listing, so that a
// listing over budget cannot pass unseen.
func TestBudgetCountsLines(t *testing.T) {
	m := apicheck.ModulePath
	lines := []string{
		"pkg " + m + "/messages, type A struct",
		"pkg " + m + "/adapters/eino, func B()",
		"pkg " + m + "/plugin, func C()",
		"pkg " + m + "/plugin, func D()",
	}
	if over := (apicheck.Budget{Total: 4, Outside: 2}).Over(lines); len(over) != 0 {
		t.Errorf("a listing within budget was found over it: %v", over)
	}
	if over := (apicheck.Budget{Total: 3, Outside: 2}).Over(lines); len(over) != 1 {
		t.Errorf("4 lines against a budget of 3 in all: %v", over)
	}
	if over := (apicheck.Budget{Total: 4, Outside: 1}).Over(lines); len(over) != 1 {
		t.Errorf("2 lines outside messages and adapters against a budget of 1: %v", over)
	}
}
