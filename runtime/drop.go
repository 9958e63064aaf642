package runtime

import (
	"errors"
	"fmt"
)

// ErrDropped is the close cause of a transport dropped on purpose by Drop.
var ErrDropped = errors.New("transport dropped on purpose")

// Drop terminates a server's transport abruptly, as a crash would: a stdio
// server's process group gets SIGKILL; a remote server's connection is cut
// without ending its session. Outstanding requests are rejected and the
// server moves to failed (reconnectable), like any transport closure. The
// compatibility check uses it to test reconnection.
func (c *Controller) Drop(name string) error {
	pub := c.pub.Load()
	sess := pub.live[name]
	if sess == nil {
		return fmt.Errorf("dropping %q: %w", name, ErrNotReady)
	}
	if sess.proc != nil {
		if err := sess.proc.Kill(); err != nil {
			return fmt.Errorf("dropping %q: %w", name, err)
		}
		return nil
	}
	go sess.conn.CloseWithCause(ErrDropped)
	return nil
}
