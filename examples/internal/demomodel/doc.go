// Package demomodel decides where the examples' model runs, the way
// examples/mcp and examples/toolbox share: the OpenAI-compatible server that
// CUCA_BASE_URL names, llama-server at its default address if something
// answers there, or else [Scripted], a built-in stand-in that streams the
// real wire format but follows a script, so that an example runs end to end
// on a machine without an LLM.
//
// [Choose] makes the decision and prints it in one line; [Endpoint] is what
// it chose.
package demomodel
