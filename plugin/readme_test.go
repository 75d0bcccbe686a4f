package plugin_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tourMarker opens the README's tour: the file and the Example function whose
// body the fenced Go code below it is. `<!-- end tour -->` closes it.
var tourMarker = regexp.MustCompile(`<!-- tour: (\S+) (\w+) -->`)

const tourEnd = "<!-- end tour -->"

// The README's tour is the body of an Example that go test compiles and
// runs, so it cannot rot: this test fails when the two differ.
func TestReadmeTourIsTheExample(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	file, fn, block, err := readmeTour(string(readme))
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatalf("README.md's tour names %s: %v", file, err)
	}
	body, err := funcBody(src, fn)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	want, got := normalise(body), normalise(block)
	if want != got {
		t.Errorf("README.md's tour is not the body of %s in %s (- the Example, + the README):\n%s",
			fn, file, lineDiff(want, got))
	}
}

// moduleRoot walks up from the package's directory to the directory of the
// go.mod that declares this module.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(mod, []byte("module github.com/cuca-go/mcpconnector\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod of module github.com/cuca-go/mcpconnector above the package")
		}
		dir = parent
	}
}

// readmeTour finds the tour's marker in readme and returns the file and
// function it names and the fenced Go code between it and the end marker.
func readmeTour(readme string) (file, fn, code string, err error) {
	loc := tourMarker.FindStringSubmatchIndex(readme)
	if loc == nil {
		return "", "", "", fmt.Errorf("no %q marker", "<!-- tour: FILE FUNC -->")
	}
	file, fn = readme[loc[2]:loc[3]], readme[loc[4]:loc[5]]
	rest := readme[loc[1]:]
	end := strings.Index(rest, tourEnd)
	if end < 0 {
		return "", "", "", fmt.Errorf("no %q after the tour's marker", tourEnd)
	}
	section := rest[:end]
	open := strings.Index(section, "```go\n")
	if open < 0 {
		return "", "", "", fmt.Errorf("no ```go block between the tour's markers")
	}
	section = section[open+len("```go\n"):]
	closing := strings.Index(section, "```")
	if closing < 0 {
		return "", "", "", fmt.Errorf("the tour's ```go block is not closed before %q", tourEnd)
	}
	if strings.Contains(section[closing+3:], "```") {
		return "", "", "", fmt.Errorf("more than one code block between the tour's markers")
	}
	return file, fn, section[:closing], nil
}

// funcBody returns the text between the braces of the function fn in src,
// one tab of indentation taken off each line, without its `// Output:`
// comment and what follows (the README may leave it out).
func funcBody(src []byte, fn string) (string, error) {
	fset := gotoken.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != fn || fd.Body == nil {
			continue
		}
		body := string(src[fset.Position(fd.Body.Lbrace).Offset+1 : fset.Position(fd.Body.Rbrace).Offset])
		if i := strings.Index(body, "\t// Output:"); i >= 0 {
			body = body[:i]
		}
		lines := strings.Split(body, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, "\t")
		}
		return strings.Join(lines, "\n"), nil
	}
	return "", fmt.Errorf("no function %s", fn)
}

// normalise makes two texts of code comparable: each line's leading tabs
// become four spaces, trailing blanks go, and so do blank lines at either end.
func normalise(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		trimmed := strings.TrimLeft(l, " \t")
		indent := strings.ReplaceAll(l[:len(l)-len(trimmed)], "\t", "    ")
		lines[i] = indent + trimmed
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

// lineDiff is a unified-style diff of a and b, line by line: "  " for a
// line both have, "- " for one of a only, "+ " for one of b only, with
// runs of more than three common lines elided.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:], y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var out []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			out = append(out, line{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, line{'-', x[i]})
			i++
		default:
			out = append(out, line{'+', y[j]})
			j++
		}
	}
	// Print the changes with three lines of context; "  ..." stands for
	// the common lines left out between them.
	const around = 3
	var sb strings.Builder
	elided := false
	for k, l := range out {
		near := false
		for d := max(0, k-around); d <= min(len(out)-1, k+around); d++ {
			near = near || out[d].op != ' '
		}
		if !near {
			if !elided {
				sb.WriteString("  ...\n")
			}
			elided = true
			continue
		}
		elided = false
		fmt.Fprintf(&sb, "%c %s\n", l.op, l.text)
	}
	return sb.String()
}
