//go:build !unix

package cli

import "io"

// readerGone cannot tell here that stdout's reader went away: the command
// learns it from its next write's error.
func readerGone(io.Writer) (gone <-chan struct{}, stop func()) { return nil, func() {} }
