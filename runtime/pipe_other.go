//go:build !linux

package runtime

import "io"

// pipeUnread cannot tell, off Linux, whether a child has read its stdin:
// the era probe's fallback wait then runs from when the probe was sent.
func pipeUnread(io.Writer) (int, bool) { return 0, false }
