package docscheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docClaim is a sentence (or the part of one) of a doc.go that tells how
// another package of the module behaves, and the tests that show it. A
// test is "dir.TestName", dir the package's directory under the module
// root (an adapter's, adapters/<name>, counts too).
type docClaim struct {
	phrase string
	tests  []string
}

// readmeImports is the test that holds the README's package paragraph to
// go list; a claim of which package imports which is shown by it.
const readmeImports = "internal/docscheck.TestReadmePackagesImportWhatTheySay"

// docClaims lists, for each doc.go (relative to the module root), the
// claims it makes about other packages of the module. A claim with no test
// to show it, or that belongs in its owner's doc, is not kept in a doc.go:
// it points to the owning package instead.
var docClaims = map[string][]docClaim{
	"actors/doc.go": {
		{"package plugin installs it (plugin.WithTasks)", []string{"plugin.TestTaskOfTheAcceptedExtension", "plugin.TestTasksOff"}},
		{"uses package plugin, which is built on them", []string{readmeImports}},
	},
	"messages/doc.go": {
		{"a call whose deadline has passed is answered with a failure and never sent to the server", []string{"actors.TestActorsSpeakTheMessagesProtocol"}},
		{"each message has a protobuf wire form, which the members of a cluster exchange, and MCP payloads travel in it as their JSON, losslessly",
			[]string{"internal/core/wire.TestEveryMessageRoundTrips", "grid.TestPayloadsRoundTripLosslessly"}},
		{"its wire form leaves that error out, and the code that reads it back rebuilds only what its cause stands for",
			[]string{"internal/core/wire.TestFailureKeepsItsErrorInProcessAndFlattensItOnTheWire", "grid.TestCausesAreKeptOnTheGrainsMemberAndFlattenedAcrossTheWire"}},
		{"one that stands for another package's error (a token refusal, an oversized message) matches it through Err, which whoever made the failure sets",
			[]string{"auth.TestAuthErrorsReachThePluginsError", "plugin.TestOversizedResultIsRefusedInBoundedMemory"}},
	},
	"plugin/doc.go": {
		{"lives in package host, which imports nothing of this module", []string{readmeImports}},
	},
	"host/doc.go": {
		{"package client imports host alone of this module", []string{readmeImports}},
	},
	"auth/doc.go": {
		{"so it goes in transport.StreamableHTTP's OAuthHandler",
			[]string{"auth.TestClientCredentialsJWTAuthenticatesWithAFreshAssertionPerGrant", "auth.TestAuthErrorsReachThePluginsError"}},
		{"This package imports nothing of this module; transport imports it.", []string{readmeImports}},
	},
	"client/doc.go": {
		{"a plugin that runs a chunk's calls concurrently (the MCP plugin and the toolbox do)",
			[]string{"client.TestStreamRunsATurnsToolCallsTogether", "plugin.TestApprovalDecidesTheCallsOfAChunkConcurrently", "toolbox.TestCallsToDifferentServersInOneChunkRunConcurrently"}},
	},
	"mcpconfig/doc.go": {
		{"toolbox.Open(ctx, cfg) // the broken entries show as failed servers", []string{"toolbox.TestABrokenEntryIsAFailedServerAndTheOthersStart"}},
	},
	"toolbox/doc.go": {
		{"Package mcpconfig reads it ([mcpconfig.Load]), Codex's config.toml too", []string{"mcpconfig.TestParseCodexTOML"}},
		{"(grid.OpenToolbox) a lazy server's grain is activated by the first call", []string{"grid.TestLazyGrainIsActivatedOnFirstCall"}},
	},
	"transport/doc.go": {
		{"That path is package internal/core/directcall's, which decodes the result into the one go-sdk would give",
			[]string{"internal/core/directcall.TestDecodeCallToolResultAsGoSDK"}},
	},
	"toolbox/internal/manifest/doc.go": {
		{"The toolbox decides when to write and what to hold out",
			[]string{"toolbox.TestLazyServerStartsOnFirstCallOnceAManifestIsKept", "toolbox.TestPinnedToolsHoldOutAChangedTool"}},
	},
	"internal/core/agenttools/doc.go": {
		{"the MCP tool's inputSchema as the server sent it, handed on as raw JSON", []string{"internal/core/agenttools.TestToolsAreTheExposedNamesWithTheSchemasAsSent"}},
		{"the small interface that both a *plugin.McpPlugin and a *toolbox.Toolbox satisfy",
			[]string{"internal/core/agenttools.TestAPluginIsASource", "internal/core/agenttools.TestToolsAreTheExposedNamesWithTheSchemasAsSent"}},
		{"so the seed's rules apply unchanged: approval, the result cap, held (changed, pinned) tools, the rendering of results and failures",
			[]string{"internal/core/agenttools.TestCallsReachTheModelAsResultText", "internal/core/agenttools.TestAHeldToolIsAResultAndIsNotListed"}},
		{"ctx's end cancels the MCP call (notifications/cancelled reaches the server); the toolbox's spans are children of the span in ctx",
			[]string{"internal/core/agenttools.TestACancelledCallCancelsTheServersCall", "internal/core/agenttools.TestTheToolboxSpansNestUnderTheSpanInCtx"}},
		{`its OnRequest hook publishes the search tool, the tools of "alwaysLoad" servers and the tools the conversation's messages have loaded (a search result listed them, or a call named them)`,
			[]string{"toolbox.TestLoadedToolsJoinTheNextRequestOnce", "toolbox.TestAlwaysLoadedServerIsPublishedAndNotSearched", "toolbox.TestDeferredToolCalledWithoutSearchRunsAndIsLoaded"}},
	},
	"internal/core/attach/doc.go": {
		{"so that plugin's own tests can follow an actor without a cluster", []string{"plugin.TestAttachFollowsTheActor", "plugin.TestAttachResendsADeadLetter"}},
	},
	"internal/core/hostmsg/doc.go": {
		{"[FinishCalls] before a grain hands its server over", []string{"grid.TestGrainDrainAnswersThenHandsOver"}},
	},
	"internal/core/resourcetools/doc.go": {
		{"plugin.WithResourceTools and toolbox.WithResourceTools turn the tools on",
			[]string{"plugin.TestResourceToolsListReadAndFollowALink", "plugin.TestWithoutResourceToolsNothingChanges", "toolbox.TestToolboxResourceToolsListReadAndFollowALink"}},
	},
	"internal/core/tasks/doc.go": {
		{"a task whose connection is lost handed back through the core to resume on the next session", []string{"plugin.TestTaskResumesAfterHTTPServerRestart"}},
		{"Package plugin installs it ([NewExtension], plugin.WithTasks)", []string{"plugin.TestTaskOfTheAcceptedExtension", "plugin.TestTasksOff"}},
		{"the grid's grain finds its store ([StoreOf])", []string{"grid.TestTaskOutlivesItsGrainsMember"}},
	},
	"adapters/anthropic/doc.go": {
		{"A call runs as the toolbox's hook runs it: approval, the result cap, held tools and the rendering of results apply",
			[]string{"adapters/anthropic.TestTheModelAnswersFromAToolResult", "adapters/anthropic.TestAHeldToolReachesTheModelAsItsResult"}},
		{"the toolbox's spans are children of the span in it", []string{"adapters/anthropic.TestTheToolboxSpansNestUnderTheRunnersToolSpan"}},
	},
	"adapters/eino/doc.go": {
		{"A call runs as the toolbox's stream hook runs it, so the host controls apply: approval, the result cap, held (changed, pinned) tools, the rendering of results.",
			[]string{"adapters/eino.TestFailuresAreResultTextAndTheLoopGoesOn", "adapters/eino.TestAHeldToolReachesTheModelAsItsResult"}},
		{"A call's spans (the toolbox's, given plugin.WithTracerProvider) are children of the span in the ctx eino runs the tool with",
			[]string{"adapters/eino.TestThePluginsSpansNestUnderEinosToolSpan"}},
	},
	"adapters/genkit/doc.go": {
		{"A call runs as the toolbox's stream hook runs it, so the host controls apply: approval, the result cap, held (changed, pinned) tools, the rendering of results.",
			[]string{"adapters/genkit.TestFailuresAreOutputTextAndGenerateGoesOn", "adapters/genkit.TestAHeldToolIsNotOffered"}},
		{"A call's spans (the toolbox's, given plugin.WithTracerProvider) nest under the span in the tool's ctx",
			[]string{"adapters/genkit.TestThePluginsSpansNestUnderGenkitsSpans"}},
	},
	"adapters/langchaingo/doc.go": {
		{"A call runs as the toolbox's stream hook runs it, so the host controls apply: approval, the result cap, held (changed, pinned) tools, the rendering of results.",
			[]string{"adapters/langchaingo.TestFailuresAreObservationsAndTheExecutorGoesOn", "adapters/langchaingo.TestAHeldToolReachesTheModelAsItsResult"}},
		{"a call's spans (the toolbox's, given plugin.WithTracerProvider) are children of the span in the ctx the run was given",
			[]string{"adapters/langchaingo.TestThePluginsSpansNestUnderTheRunsSpan"}},
	},
	"adapters/openai/doc.go": {
		{"A call runs as the toolbox's hook runs it: approval, the result cap, held tools and the rendering of results apply",
			[]string{"adapters/openai.TestTheModelAnswersFromAToolResult", "adapters/openai.TestAHeldToolReachesTheModelAsItsResult"}},
		{"the toolbox's spans are children of the span in ctx", []string{"adapters/openai.TestTheToolboxSpansNestUnderTheSpanInCtx"}},
	},
}

// TestDocGoClaimsHaveTests holds each kept claim of a doc.go about another
// package to its doc.go and its tests: the phrase is still in the doc
// comment, and every test it names exists.
func TestDocGoClaimsHaveTests(t *testing.T) {
	root := moduleRoot(t)
	if len(docClaims) < 10 {
		t.Fatalf("docClaims holds %d doc.go files: the table is broken", len(docClaims))
	}
	for _, p := range checkDocClaims(root, docClaims) {
		t.Error(p)
	}
}

// TestDocClaimsCheckFindsWhatIsMissing runs the check on a synthetic
// module, so that a phrase gone from its doc.go or a test that does not
// exist fails rather than passes.
func TestDocClaimsCheckFindsWhatIsMissing(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/doc.go", "// Package a uses package b, which runs\n// every call   twice.\npackage a\n\n// not the doc: b never fails.\n")
	write("b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestTwice(t *testing.T) {}\n\nfunc helper() {}\n")
	write("c/c.go", "package c\n")

	good := docClaim{"package b, which runs every call twice", []string{"b.TestTwice"}}
	if got := checkDocClaims(root, map[string][]docClaim{"a/doc.go": {good}}); len(got) != 0 {
		t.Fatalf("a claim that holds was refused: %v", got)
	}
	for name, c := range map[string]struct {
		claims map[string][]docClaim
		want   string
	}{
		"made-up phrase":                 {map[string][]docClaim{"a/doc.go": {{"runs every call once", []string{"b.TestTwice"}}}}, "no longer says"},
		"phrase outside the doc comment": {map[string][]docClaim{"a/doc.go": {{"b never fails", []string{"b.TestTwice"}}}}, "no longer says"},
		"made-up test":                   {map[string][]docClaim{"a/doc.go": {{good.phrase, []string{"b.TestOnce"}}}}, "no func TestOnce"},
		"not a test":                     {map[string][]docClaim{"a/doc.go": {{good.phrase, []string{"b.helper"}}}}, "not dir.TestName"},
		"no test files":                  {map[string][]docClaim{"a/doc.go": {{good.phrase, []string{"c.TestTwice"}}}}, "no test files"},
		"no such dir":                    {map[string][]docClaim{"a/doc.go": {{good.phrase, []string{"d.TestTwice"}}}}, "no test files"},
		"not dir.Test":                   {map[string][]docClaim{"a/doc.go": {{good.phrase, []string{"TestTwice"}}}}, "not dir.TestName"},
		"no tests":                       {map[string][]docClaim{"a/doc.go": {{good.phrase, nil}}}, "names no test"},
		"no doc.go":                      {map[string][]docClaim{"e/doc.go": {good}}, "reading"},
	} {
		t.Run(name, func(t *testing.T) {
			got := checkDocClaims(root, c.claims)
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("got %q, want one problem saying %q", got, c.want)
			}
		})
	}
}

// checkDocClaims returns a line for each claim whose phrase is not in its
// doc.go's package comment (its text joined across lines, whitespace
// collapsed) and for each named test that does not exist.
func checkDocClaims(root string, claims map[string][]docClaim) []string {
	var problems []string
	tests := map[string]map[string]bool{} // dir → its Test functions; nil: none
	for path, cs := range claims {
		doc, err := packageComment(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: reading its package comment: %v", path, err))
			continue
		}
		for _, c := range cs {
			if !strings.Contains(doc, normalizeSpace(c.phrase)) {
				problems = append(problems, fmt.Sprintf("%s no longer says %q: rewrite the claim or drop it from docClaims", path, c.phrase))
			}
			if len(c.tests) == 0 {
				problems = append(problems, fmt.Sprintf("%s: %q names no test", path, c.phrase))
			}
			for _, n := range c.tests {
				dir, fn, ok := strings.Cut(n, ".")
				if !ok || !strings.HasPrefix(fn, "Test") {
					problems = append(problems, fmt.Sprintf("%s: %q is not dir.TestName", path, n))
					continue
				}
				if _, seen := tests[dir]; !seen {
					tests[dir] = testFuncsIn(filepath.Join(root, filepath.FromSlash(dir)))
				}
				switch {
				case tests[dir] == nil:
					problems = append(problems, fmt.Sprintf("%s: %q: no test files in %s", path, c.phrase, dir))
				case !tests[dir][fn]:
					problems = append(problems, fmt.Sprintf("%s: %q: no func %s in %s/*_test.go", path, c.phrase, fn, dir))
				}
			}
		}
	}
	return problems
}

// packageComment is the package doc comment of the Go file at path, its
// lines joined and its whitespace collapsed.
func packageComment(path string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return "", err
	}
	if f.Doc == nil {
		return "", fmt.Errorf("no package comment")
	}
	return normalizeSpace(f.Doc.Text()), nil
}

func normalizeSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// testFuncsIn is the set of Test functions of dir's _test.go files, or nil
// when it has none (or one does not parse).
func testFuncsIn(dir string) map[string]bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if len(files) == 0 {
		return nil
	}
	fset := token.NewFileSet()
	funcs := map[string]bool{}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				funcs[fd.Name.Name] = true
			}
		}
	}
	return funcs
}
