package docscheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rowTests names, for each row of docs/errors.md, the tests that produce
// the row's error through the public API (against a real server, process
// or endpoint) and match it with errors.Is or errors.As, so that a layer
// that loses the cause fails them. A test is "dir.TestName", dir the
// package's directory under the module root. A row is named by the error
// it tests: the first name in backticks of its first cell ("*plugin.Error",
// "plugin.ErrIO"), the target of an errors.Is or errors.As of the causes'
// table, or the cell's text.
var rowTests = map[string][]string{
	// plugin
	"*plugin.Error":             {"plugin.TestErrorsPageRowsThroughThePlugin"},
	"plugin.ErrIO":              {"plugin.TestErrorsPageRowsThroughThePlugin", "toolbox.TestErrorsPageCausesThroughTheToolbox", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"},
	"plugin.ErrNotSupported":    {"plugin.TestErrorsPageRowsThroughThePlugin", "plugin.TestResultTypesThatNeedMoreRoundsAreNotSupported", "plugin.TestTaskInputWithoutHandler", "plugin.TestTasksOff", "toolbox.TestErrorsPageCausesThroughTheToolbox"},
	"plugin.ErrValidation":      {"plugin.TestErrorsPageRowsThroughThePlugin", "toolbox.TestAPluginOptionWithNoEffectFailsOpen"},
	"plugin.ErrDenied":          {"plugin.TestErrorsPageRowsThroughThePlugin"},
	"plugin.ErrInternal":        {"plugin.TestErrorsPageRowsThroughThePlugin"},
	"plugin.ErrConnectionLost":  {"plugin.TestErrorsPageRowsThroughThePlugin", "plugin.TestCallInFlightWhenTheServerDiesIsConnectionLost"},
	"plugin.ErrProtocolVersion": {"plugin.TestErrorsPageRowsThroughThePlugin", "plugin.TestConnectFailuresSayWhatHappened"},
	"plugin.ErrResultTooLarge":  {"plugin.TestReadResourceErrors"},
	"plugin.ErrCircuitOpen":     {"plugin.TestRestartBudgetSpentFailsFastAndCloseStillWorks"},
	"plugin.ErrTaskLost":        {"plugin.TestTaskLostWhenServerForgets"},
	// the causes of KindInternal
	"context.DeadlineExceeded":     {"plugin.TestErrorsPageRowsThroughThePlugin", "plugin.TestEveryDeadlineWrapsDeadlineExceededAndNamesItsLimit", "plugin.TestTaskTimeoutCancels", "plugin.TestTaskIdleTimeoutCancels"},
	"context.Canceled":             {"plugin.TestErrorsPageRowsThroughThePlugin"},
	"*jsonrpc.Error":               {"plugin.TestErrorsPageRowsThroughThePlugin", "plugin.TestTaskIsErrorAndFailure", "plugin.TestReadResourceErrors", "toolbox.TestErrorsPageCausesThroughTheToolbox", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"},
	"transport.ErrMessageTooLarge": {"plugin.TestOversizedResultIsRefusedInBoundedMemory", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"},
	"*auth.TokenError":             {"auth.TestAuthErrorsReachThePluginsError"},
	"none of the above":            {"plugin.TestErrorsPageRowsThroughThePlugin"},
	// toolbox
	"toolbox.ErrUnknownTool":            {"toolbox.TestUnknownToolFailsWithoutReachingAServer"},
	"toolbox.ErrNameCollision":          {"toolbox.TestLateServerThatWouldCollideStaysOut"},
	"toolbox.ErrServerDown":             {"toolbox.TestFailedServersToolSaysTheServerIsDownAndWhy"},
	"toolbox.ErrToolChanged":            {"toolbox.TestPinnedToolsHoldOutAChangedTool"},
	"toolbox.ErrDeniedByPolicy":         {"toolbox.TestADeniedServerIsNotStartedAndSaysWhichRule"},
	"toolbox.ErrApprovalHandlerMissing": {"toolbox.TestAnApprovalModeThatAsksWithoutAHandlerDenies"},
	"toolbox.ErrRequiredServer":         {"toolbox.TestErrorsPageCausesThroughTheToolbox", "toolbox.TestARequiredServerThatExitsFailsOpenAndClosesTheOthers"},
	"toolbox.ErrUntrusted":              {"toolbox.TestAnUntrustedLayersServerStartsNothingUntilApproved"},
	"toolbox.ErrHeadersHelper":          {"toolbox.TestErrorsPageCausesThroughTheToolbox"},
	"toolbox.ErrUnknownServer":          {"toolbox.TestStartStartsALazyServer"},
	// transport
	"transport.ErrNotSupported":   {"plugin.TestErrorsPageRowsThroughThePlugin", "toolbox.TestErrorsPageCausesThroughTheToolbox"},
	"*transport.SpawnError":       {"plugin.TestErrorsPageRowsThroughThePlugin", "toolbox.TestErrorsPageCausesThroughTheToolbox", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"},
	"transport.ErrNotSent":        {"plugin.TestErrorsPageRowsThroughThePlugin", "transport.TestHTTPDirectCallNotSentWhenNothingListens"},
	"transport.ErrMessageTooDeep": {"transport.TestAnAnswerTooDeepFailsItsCallAtOnce"},
	// auth
	"auth.ErrBadTokenResponse": {"auth.TestAuthErrorsReachThePluginsError"},
	"auth.ErrDPoPNonce":        {"auth.TestAuthErrorsReachThePluginsError"},
	"auth.ErrDPoPProofRefused": {"auth.TestAuthErrorsReachThePluginsError"},
	// mcpconfig, client, messages
	"*mcpconfig.Error":           {"mcpconfig.TestErrorFields"},
	"client.ErrConfig":           {"client.TestNewConfiguration"},
	"client.ErrRequest":          {"client.TestRequestInvalid"},
	"*client.StatusError":        {"client.TestStreamHTTPError"},
	"client.ErrIncompleteStream": {"client.TestStreamCutInTheMiddle"},
	"client.ErrMalformedStream":  {"client.TestStreamMalformed"},
	"client.ErrHook":             {"client.TestStreamHookErrors"},
	"*messages.Failure":          {"plugin.TestErrorsPageRowsThroughThePlugin", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"},
}

// Every row of docs/errors.md names a test in rowTests, every test named
// there exists, and every name there is a row of the page: a row added
// without a test, or a test renamed, fails here.
func TestEveryErrorsPageRowHasATest(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, errorsPage))
	if err != nil {
		t.Fatalf("reading the errors page: %v", err)
	}
	rows := errorRows(string(page))
	if len(rows) < 40 {
		t.Fatalf("found %d rows in %s: the scan is broken", len(rows), errorsPage)
	}
	for _, r := range rows {
		if len(rowTests[r]) == 0 {
			t.Errorf("%s: row %q names no test in rowTests", errorsPage, r)
		}
	}
	t.Logf("%d rows in %s", len(rows), errorsPage)
	tests := map[string]map[string]bool{} // dir → test functions
	for row, names := range rowTests {
		if !slices.Contains(rows, row) {
			t.Errorf("rowTests names %q, which is no row of %s", row, errorsPage)
		}
		for _, n := range names {
			dir, fn, ok := strings.Cut(n, ".")
			if !ok {
				t.Errorf("row %q: %q is not dir.TestName", row, n)
				continue
			}
			if tests[dir] == nil {
				tests[dir] = testFuncs(t, filepath.Join(root, filepath.FromSlash(dir)))
			}
			if !tests[dir][fn] {
				t.Errorf("row %q: no func %s in %s/*_test.go", row, fn, dir)
			}
		}
	}
}

// situationHeader is the first header cell of docs/errors.md's table of
// what each situation prints, whose rows name their tests themselves.
const situationHeader = "Situation"

// Every row of docs/errors.md's table "What each situation prints" names a
// test, `TestName` (dir/), and every test it names exists.
func TestEverySituationRowNamesATestThatExists(t *testing.T) {
	root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, errorsPage))
	if err != nil {
		t.Fatalf("reading the errors page: %v", err)
	}
	rows := situationRows(string(page))
	if len(rows) < 10 {
		t.Fatalf("found %d situation rows in %s: the scan is broken", len(rows), errorsPage)
	}
	tests := map[string]map[string]bool{}
	for _, line := range rows {
		names := testName.FindAllStringSubmatch(line, -1)
		if len(names) == 0 {
			t.Errorf("%s: situation row %q names no test", errorsPage, line)
		}
		for _, n := range names {
			fn, dir := n[1], n[2]
			if tests[dir] == nil {
				tests[dir] = testFuncs(t, filepath.Join(root, filepath.FromSlash(dir)))
			}
			if !tests[dir][fn] {
				t.Errorf("%s: no func %s in %s/*_test.go", errorsPage, fn, dir)
			}
		}
	}
}

// situationRows is the rows of the table of situations in page, its
// header and rule left out.
func situationRows(page string) []string {
	var rows []string
	in := false
	for line := range strings.SplitSeq(page, "\n") {
		if !strings.HasPrefix(line, "|") {
			in = false
			continue
		}
		cells := strings.Split(line, "|")
		first := ""
		if len(cells) > 1 {
			first = strings.TrimSpace(cells[1])
		}
		switch {
		case first == situationHeader:
			in = true
		case in && !strings.HasPrefix(first, "---"):
			rows = append(rows, line)
		}
	}
	return rows
}

// The scan reads each kind of first cell as its row's name.
func TestErrorRowsAreReadFromEachKindOfCell(t *testing.T) {
	page := "| Name | Meaning |\n|---|---|\n" +
		"| `plugin.ErrConnectionLost` (= `messages.ErrConnectionLost`) | x |\n" +
		"| `errors.Is(err, context.Canceled)` | you cancelled |\n" +
		"| `errors.As(err, &rpcErr)` with `rpcErr *jsonrpc.Error` (go-sdk's) | x |\n" +
		"| `messages.ErrA`, `messages.ErrB` | x |\n" +
		"| none of the above | x |\n" +
		"| Test | Cause |\n" +
		"\n| Situation | Prints | Test |\n|---|---|---|\n| A child exits | `server exited` | `TestX` (plugin/) |\n\n" +
		"| Name | Meaning |\n| `plugin.ErrIO` | x |\n"
	got := errorRows(page)
	want := []string{"plugin.ErrConnectionLost", "context.Canceled", "*jsonrpc.Error", "messages.ErrA", "messages.ErrB", "none of the above", "plugin.ErrIO"}
	if !slices.Equal(got, want) {
		t.Errorf("errorRows = %q, want %q", got, want)
	}
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	isTarget = regexp.MustCompile(`^errors\.Is\(err, ([^)]+)\)$`)
	asTarget = regexp.MustCompile(`^\w+ (\*[\w.]+)$`)
)

// errorRows is the name of every row of every table of page, in order,
// without repeats: the tables' header rows ("Name", "Test") and rules are
// no rows. A first cell that lists several names in backticks and
// nothing else (`a`, `b`) is a row for each.
func errorRows(page string) []string {
	var rows []string
	add := func(name string) {
		if !slices.Contains(rows, name) {
			rows = append(rows, name)
		}
	}
	situations := false // in the table of situations, checked apart
	for line := range strings.SplitSeq(page, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| ") || len(cells) < 3 {
			situations = situations && strings.HasPrefix(line, "|")
			continue
		}
		first := strings.TrimSpace(cells[1])
		if first == situationHeader {
			situations = true
		}
		if situations || first == "Name" || first == "Test" || strings.HasPrefix(first, "---") {
			continue
		}
		spans := codeSpan.FindAllStringSubmatch(first, -1)
		switch {
		case len(spans) == 0:
			add(first)
		case isTarget.MatchString(spans[0][1]):
			add(isTarget.FindStringSubmatch(spans[0][1])[1])
		case strings.HasPrefix(spans[0][1], "errors.As(") && len(spans) > 1 && asTarget.MatchString(spans[1][1]):
			add(asTarget.FindStringSubmatch(spans[1][1])[1])
		case strings.Trim(codeSpan.ReplaceAllString(first, ""), ", ") == "":
			for _, s := range spans {
				add(s[1])
			}
		default:
			add(spans[0][1])
		}
	}
	return rows
}

// testFuncs is the set of Test functions of dir's _test.go files.
func testFuncs(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files in %s: %v", dir, err)
	}
	fset := token.NewFileSet()
	funcs := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parsing %s: %v", path, err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs
}
