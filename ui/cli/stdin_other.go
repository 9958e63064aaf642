//go:build !unix

package cli

import (
	"io"
	"os"
)

// pollableStdin returns stdin as it is: closing it may not interrupt a
// pending read here, so the gateway's stdio serving ends when the client
// closes its end.
func pollableStdin(r io.Reader) io.ReadCloser {
	if f, ok := r.(*os.File); ok {
		return f
	}
	return io.NopCloser(r)
}
