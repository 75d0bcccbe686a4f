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
package docscheck
