// Package docscheck holds tests that keep the module's documentation in step
// with its code. It has no API: its tests read the sources of the public
// packages with go/parser and check pages under docs/ against them, so that
// a name added to a package without a word on its page fails the build.
//
// TestErrorsPageListsEverySentinel checks docs/errors.md: every exported
// package-level var whose name starts with "Err" and every exported type whose
// name ends in "Error", in every public package (not internal/, examples/,
// benchmarks/, conformance/, interop/, adapters/ or testdata), must be named
// there as pkgname.Name, unless its doc comment marks it Deprecated.
// TestEveryErrorsPageRowHasATest checks that each row of that page names,
// in the test's rowTests, the tests that produce its error through the
// public API and match it with errors.Is or errors.As, and that those tests
// exist.
//
// TestDocsNameOnlyIdentifiersThatExist checks the other way round, so that
// a page cannot go on naming what the code no longer has: README.md,
// docs/*.md and every doc.go may name, as code (in backticks, a fenced
// block, or brackets), only Go identifiers the repository's packages still
// declare: pkg.Name and pkg.Type.Member (a method or a field, promoted ones
// included) for pkg the name of any package of the repository, and in a
// doc.go the doc links to names of its own package. It reads declarations with
// go/parser, without building; a name of another module (mcp.Tool) is not
// its to check, nor a variable of a fenced Go block that has a package's
// name. TestDocsCheckFindsMissingIdentifiers runs it on synthetic
// documents that name missing identifiers.
//
// TestDocGoClaimsHaveTests holds a doc.go to what it says of other
// packages: a sentence that tells how another package of the module
// behaves (not one that only names or points to it) is kept only with a
// test that shows it, listed in the test's docClaims by doc.go, phrase and
// "dir.TestName" (an adapter module's tests count); the phrase must still
// be in the doc comment, whitespace aside, and each test must exist. A
// claim of which package imports which is shown by the README's package
// paragraph's check. TestDocClaimsCheckFindsWhatIsMissing runs the check
// on a made-up phrase and made-up tests.
package docscheck
