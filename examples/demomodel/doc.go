// Package demomodel decides where the examples' model runs, the way
// examples/mcp and examples/toolbox share: the OpenAI-compatible server that
// CUCA_BASE_URL names, llama-server at its default address if something
// answers there, or else [Scripted], a built-in stand-in that streams the
// real wire format but follows a script, so that an example runs end to end
// on a machine without an LLM.
//
// [Choose] makes the decision and prints it in one line; [Endpoint] is what
// it chose.
//
// It is a helper of the examples, not of the library: a program of yours may
// import it (github.com/cuca-go/mcpconnector/examples/demomodel) or copy it,
// for a demo or a test that needs a model, but it is outside the module's
// API listing and may change with the examples. It uses only the public
// package client of this module.
package demomodel
