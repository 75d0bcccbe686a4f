//go:build !linux

package transport

// watchStderr starts reading c's stderr into its tail, on a goroutine of
// its own; c.stderrDone is closed when it ends.
func watchStderr(c *stdioConn) { go c.readStderr() }

// unwatchStderr does nothing: closing c's stderr ends its goroutine.
func unwatchStderr(*stdioConn) {}
