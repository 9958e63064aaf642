package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// Format identifies a recording's first line; FormatVersion is the version
// this package writes. A reader accepts any 1.x file: a newer minor
// version only adds kinds or fields, which are kept raw or ignored. A newer
// major version changed the meaning of something and is refused.
const (
	Format        = "mcpdeck-recording"
	FormatVersion = "1.1"
	formatMajor   = 1
)

// Sentinel errors of the package.
var (
	// ErrNotRecording: the file does not start with a recording header.
	ErrNotRecording = errors.New("not an mcpdeck recording")
	// ErrNewerFormat: the recording was written by a newer, incompatible
	// mcpdeck (a newer major format version).
	ErrNewerFormat = errors.New("recording format is newer than this mcpdeck reads")
)

// Header is a recording's first line: what wrote it, when, and the
// configuration it ran (redacted: env and header values are replaced).
type Header struct {
	Kind    string          `json:"kind"` // always "header"
	Format  string          `json:"format"`
	Version string          `json:"version"`
	MCPDeck string          `json:"mcpdeck"` // the writing mcpdeck's version
	Started time.Time       `json:"started"` // wall time the recording began
	Part    int             `json:"part"`    // 1, then +1 after each rotation
	Sources []string        `json:"sources,omitempty"`
	Servers []config.Server `json:"servers"` // Redacted()
}

// Entry is one recorded event and where it sits in the recording.
type Entry struct {
	Seq  uint64        // line number among events, from 1
	Mono time.Duration // monotonic offset from the recording's start
	Kind string        // the registry's name of the event's type
	Era  string        // "modern", "legacy" or "" when not known
	// Event is a runtime event, or one of this package's own: Gap, Live,
	// ReloadPlanned, Unknown.
	Event runtime.Event
}

// checkVersion accepts version strings of the form MAJOR.MINOR whose major
// this package reads.
func checkVersion(v string) error {
	maj, _, ok := strings.Cut(v, ".")
	n, err := strconv.Atoi(maj)
	if !ok || err != nil || n < 0 {
		return fmt.Errorf("%w: version %q is not MAJOR.MINOR", ErrNotRecording, v)
	}
	if n > formatMajor {
		return fmt.Errorf("%w: the file is format %s, this mcpdeck reads %d.x; open it with a newer mcpdeck", ErrNewerFormat, v, formatMajor)
	}
	return nil
}
