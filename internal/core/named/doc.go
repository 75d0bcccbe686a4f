// Package named names a server's transport after its entry in an mcp.json,
// so that logs and errors say which server, and says how logs name any
// transport's server ([LabelOf]).
package named
