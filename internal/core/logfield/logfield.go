package logfield

import (
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Server returns l with the field mcp_server=label, or l itself when l
// writes nothing at any level (zap.NewNop's), whose With would only copy
// it: every idle connection of a silent plugin holds its loggers.
func Server(l *zap.Logger, label string) *zap.Logger {
	if !l.Core().Enabled(zapcore.FatalLevel) {
		return l
	}
	return l.With(zap.String("mcp_server", label))
}
