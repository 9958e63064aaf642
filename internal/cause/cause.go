// Package cause words the cause of a failed request or file operation for
// a message that already names the URL or the path: the wrapper's own
// repetition of it is dropped. A *url.Error quotes the whole URL, query
// and all, so it could carry a token into a message, a log or a metric
// label; a *fs.PathError repeats the path the message names. It is below
// every other package of ours but config, which keeps no dependency.
package cause

import (
	"errors"
	"io/fs"
	"net/url"
)

// Of is err without the *url.Error or *fs.PathError that wraps its
// cause, wherever that wrapper is in err's chain; err itself when there
// is none (nil for nil).
func Of(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
