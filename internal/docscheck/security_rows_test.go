package docscheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const securityPage = "docs/security.md"

// testName is a test named on a page: `TestName` (dir/).
var testName = regexp.MustCompile("`(Test\\w+)` \\(([a-z][a-z0-9/]*)/\\)")

// Every row of docs/security.md's tables names at least one test, and
// every test it names exists.
func TestEverySecurityPageRowNamesATestThatExists(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, securityPage))
	if err != nil {
		t.Fatalf("reading %s: %v", securityPage, err)
	}
	tests := map[string]map[string]bool{}
	rows := 0
	for line := range strings.SplitSeq(string(page), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Guarantee") {
			continue
		}
		rows++
		names := testName.FindAllStringSubmatch(line, -1)
		if len(names) == 0 {
			t.Errorf("%s: row %q names no test", securityPage, line)
		}
		for _, n := range names {
			fn, dir := n[1], n[2]
			if tests[dir] == nil {
				tests[dir] = testFuncs(t, filepath.Join(root, filepath.FromSlash(dir)))
			}
			if !tests[dir][fn] {
				t.Errorf("%s: no func %s in %s/*_test.go", securityPage, fn, dir)
			}
		}
	}
	if rows < 15 {
		t.Fatalf("found %d rows in %s: the scan is broken", rows, securityPage)
	}
}
