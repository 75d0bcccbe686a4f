// Package toolcorpus serves the real servers' tool lists kept in
// toolbox/testdata/tools as go-sdk MCP servers, with the task phrasings
// written for them, for the tests and benchmarks of tool search.
package toolcorpus
