package jsonrpctest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// Mode names one fake server behaviour: the normal server, or the normal server with
// exactly one defect.
type Mode string

// The fake server modes. Each is the Normal server plus the one defect its comment names.
const (
	// Normal is a well-behaved MCP server: the baseline every other mode departs from.
	Normal Mode = "normal"
	// CrashOnCall exits with status 3 on the first tools/call, leaving that request outstanding.
	CrashOnCall Mode = "crash-on-call"
	// Noise writes non-JSON lines to stdout at startup and before every message.
	Noise Mode = "noise"
	// Oversized answers every tools/call with one line larger than MCPDECK_FAKE_SIZE bytes.
	Oversized Mode = "oversized"
	// Hang never answers tools/call; like every mode it logs each cancellation on stderr.
	Hang Mode = "hang"
	// IgnoreTerm keeps running after stdin EOF and ignores SIGTERM: only SIGKILL stops it.
	IgnoreTerm Mode = "ignore-term"
	// IgnoreEOF keeps running after stdin EOF but exits 0 on SIGTERM, like server-everything.
	IgnoreEOF Mode = "ignore-eof"
	// Grandchild spawns a SIGTERM-ignoring Sleeper in its process group and logs "grandchild <pid>".
	Grandchild Mode = "grandchild"
	// Sleeper ignores SIGTERM and blocks forever; Grandchild spawns it.
	Sleeper Mode = "sleeper"
	// WrongID answers every tools/call with the request id plus 1000.
	WrongID Mode = "wrong-id"
	// NotifyInstead answers every tools/call with a notifications/message, never a response.
	NotifyInstead Mode = "notify-instead"
	// SecretLeak puts the value of FAKE_SECRET into the echo tool's description.
	SecretLeak Mode = "secret-leak"
	// RenameTools suffixes every tool name with _<pid>, so names change across restarts.
	RenameTools Mode = "rename-tools"
	// InvalidSchema adds two tools whose inputSchema is not a valid object schema.
	InvalidSchema Mode = "invalid-schema"
	// VersionBad answers initialize with protocolVersion "1999-01-01", whatever was asked.
	VersionBad Mode = "version-bad"
	// SlowInit waits MCPDECK_FAKE_DELAY (default 10s) before answering initialize.
	SlowInit Mode = "slow-init"
	// ExitEarly writes "fatal: missing API key" to stderr and exits 1 before reading anything.
	ExitEarly Mode = "exit-early"
	// Flood sends MCPDECK_FAKE_COUNT notifications right after notifications/initialized.
	Flood Mode = "flood"
	// AnswerCancelled stops a cancelled call but still answers it, with an
	// error, as some SDK servers do.
	AnswerCancelled Mode = "answer-cancelled"
	// StopReading stops reading stdin for good at the first tools/call,
	// answering nothing more, as a server wedged in a long synchronous
	// task does; it logs "stopped reading" on stderr first.
	StopReading Mode = "stop-reading"
)

// The environment variables a fake server reads.
const (
	// EnvMode selects the fake server mode; when it is set, MaybeServe serves and exits.
	EnvMode = "MCPDECK_FAKE_SERVER"
	// EnvSize is the padding in bytes of the Oversized answer (default 40 MiB).
	EnvSize = "MCPDECK_FAKE_SIZE"
	// EnvDelay is how long SlowInit delays initialize: a Go duration or seconds (default 10s).
	EnvDelay = "MCPDECK_FAKE_DELAY"
	// EnvCount is how many notifications Flood sends after initialization (default 100000).
	EnvCount = "MCPDECK_FAKE_COUNT"
	// EnvSecret is the value SecretLeak puts into the echo tool's description.
	EnvSecret = "FAKE_SECRET"
	// EnvEchoDescription, when set, replaces the echo tool's description:
	// a server whose tool definition changes between two runs, as a
	// rug pull does, while its command line and variable names stay.
	EnvEchoDescription = "MCPDECK_FAKE_ECHO_DESC"
	// EnvEvidence names a file every fake appends its stderr evidence lines
	// to ("cancelled 3 …", "task cancelled task-1").
	EnvEvidence = "MCPDECK_FAKE_EVIDENCE"
)

const (
	defaultSize  = 40 << 20
	defaultDelay = 10 * time.Second
	defaultCount = 100000
)

var (
	errUnknownMode = errors.New("unknown fake server mode")
	errBadSetting  = errors.New("invalid fake server setting")
)

var allModes = []Mode{
	Normal, CrashOnCall, Noise, Oversized, Hang, IgnoreTerm, IgnoreEOF, Grandchild,
	Sleeper, WrongID, NotifyInstead, SecretLeak, RenameTools, InvalidSchema, VersionBad,
	SlowInit, ExitEarly, Flood, AnswerCancelled, StopReading,
	// The modern era (modern.go) and the go-sdk peer (gosdk.go).
	Modern, ModernNoResultType, ModernChangedState, ModernEndlessInput, ModernNoCommonVersion,
	ModernListenNoAck, LegacySilentDiscover, LegacyDiscoverInvalidParams, DualLateDiscover, GoSDKModern, GoSDKModernHTTP, GoSDKFlood,
	HostileEscapes, EchoSecret,
	NullIDError, DeepResponse, DeepSchema, BadUTF8, // hostile.go
	SteadyProgress, ErrorText, // checkfakes.go
	AppsBroken,    // apps.go
	ProgressBurst, // burst.go
}

// Modes returns every mode a fake server understands, Normal first.
func Modes() []Mode { return slices.Clone(allModes) }

func (m Mode) known() bool { return slices.Contains(allModes, m) }

// settings are the knobs a fake server reads from its environment at startup.
type settings struct {
	size     int64
	delay    time.Duration
	count    int
	secret   string
	echoDesc string
}

// loadSettings rejects malformed values instead of falling back to defaults, so a test
// that mistypes a knob fails loudly rather than testing something else.
func loadSettings(getenv func(string) string) (settings, error) {
	s := settings{size: defaultSize, delay: defaultDelay, count: defaultCount, secret: getenv(EnvSecret), echoDesc: getenv(EnvEchoDescription)}
	if v := getenv(EnvSize); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return s, fmt.Errorf("reading %s=%q: %w: want a byte count", EnvSize, v, errBadSetting)
		}
		s.size = n
	}
	if v := getenv(EnvDelay); v != "" {
		d, err := parseDelay(v)
		if err != nil {
			return s, fmt.Errorf("reading %s=%q: %w: want a duration such as 250ms or a number of seconds", EnvDelay, v, errBadSetting)
		}
		s.delay = d
	}
	if v := getenv(EnvCount); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s, fmt.Errorf("reading %s=%q: %w: want a count", EnvCount, v, errBadSetting)
		}
		s.count = n
	}
	return s, nil
}

func parseDelay(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, nil
	}
	secs, err := strconv.ParseFloat(v, 64)
	if err != nil || secs < 0 || math.IsInf(secs, 0) || math.IsNaN(secs) {
		return 0, errBadSetting
	}
	return time.Duration(secs * float64(time.Second)), nil
}
