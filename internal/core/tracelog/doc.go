// Package tracelog ties log lines to traces: the zap fields of the span a
// context carries.
package tracelog
