package gateway

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/config"
	"mcpdeck/jsonrpc"
)

// AuditOptions configure the per-call audit log.
type AuditOptions struct {
	// File is the JSON Lines file; its directory is created (0700) and
	// the file is 0600.
	File string
	// Arguments: config.AuditDigest (default), AuditScrubbed or AuditNone.
	Arguments string
	// MaxSize rotates the file before a line would take it past this many
	// bytes (default 100 MB); MaxFiles rotated files are kept, FILE.1 the
	// newest (default 10).
	MaxSize  int64
	MaxFiles int
	// Scrub replaces a server's configured secrets in its arguments (the
	// CLI passes each server's config.Scrubber); nil scrubs only what
	// looks like a credential.
	Scrub func(server string, b []byte) []byte
	// OnError is told of the first failed write (and each first one after
	// a success): a full disk must not fail the calls, but must be seen.
	OnError func(error)
}

// Audit appends one JSON line per forwarded request the gateway answered:
// tools/call above all, and prompts/get, resources/read and
// completion/complete. Safe for concurrent use.
type Audit struct {
	opts   AuditOptions
	out    *rotatingFile
	failed atomic.Bool
}

// AuditRecord is one line of the audit log. Its fields are stable.
type AuditRecord struct {
	Time time.Time `json:"time"`
	// Client is who called: the verified identity (OAuth) when there is
	// one, the self-reported name, the gateway's id for the client and
	// its address.
	Client AuditClient `json:"client"`
	Method string      `json:"method"`
	Server string      `json:"server,omitempty"`
	// Tool, Prompt and URI name what was called (bridged names).
	Tool   string `json:"tool,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	URI    string `json:"uri,omitempty"`
	// Arguments (scrubbed) or ArgumentsSHA256 (of their canonical JSON),
	// as configured; neither with "none" or no arguments.
	Arguments       json.RawMessage `json:"arguments,omitempty"`
	ArgumentsSHA256 string          `json:"argumentsSha256,omitempty"`
	// Outcome: ok, tool_error (isError), input_required (a 2026-07-28
	// round that asked the client something), task (answered with a task;
	// a second line with the same requestId has its end), refused, busy,
	// rate_limited, timeout, cancelled, unavailable, invalid (bad params)
	// or error; Code and Error say more for the failures.
	Outcome    string  `json:"outcome"`
	Code       int64   `json:"code,omitempty"`
	Error      string  `json:"error,omitempty"`
	DurationMs float64 `json:"durationMs"`
	RequestID  string  `json:"requestId"`
	// Approval is the operator's decision on a call a rule made wait for
	// it (approval.go); absent for the others.
	Approval *AuditApproval `json:"approval,omitempty"`
}

// AuditApproval is the decision on a call that needed approval.
type AuditApproval struct {
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	Decision string `json:"decision"` // approved, denied, timed out, refused, withdrawn
	By       string `json:"by"`
	// WaitedMs is how long the call waited for the decision.
	WaitedMs float64 `json:"waitedMs"`
}

// AuditClient is the caller of an audited request.
type AuditClient struct {
	Identity string `json:"identity,omitempty"`
	Name     string `json:"name,omitempty"`
	ID       string `json:"id"`
	Remote   string `json:"remote,omitempty"`
}

// NewAudit opens (or creates) the log; it fails now, not at the first
// call, when the file cannot be written.
func NewAudit(opts AuditOptions) (*Audit, error) {
	switch opts.Arguments {
	case "":
		opts.Arguments = config.AuditDigest
	case config.AuditDigest, config.AuditScrubbed, config.AuditNone:
	default:
		return nil, fmt.Errorf("audit arguments %q: want %q, %q or %q", opts.Arguments, config.AuditDigest, config.AuditScrubbed, config.AuditNone)
	}
	if opts.MaxSize <= 0 {
		opts.MaxSize = config.DefaultAuditMaxSizeMB << 20
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = config.DefaultAuditMaxFiles
	}
	out, err := openRotating(opts.File, opts.MaxSize, opts.MaxFiles)
	if err != nil {
		return nil, fmt.Errorf("opening the audit log: %w", err)
	}
	return &Audit{opts: opts, out: out}, nil
}

// Close closes the file.
func (a *Audit) Close() error {
	if a == nil {
		return nil
	}
	return a.out.close()
}

// audited methods are the forwarded ones: what reaches a server.
func audited(method string) bool { return slices.Contains(forwarded, method) }

// record writes the line of a request answered with res or err.
func (a *Audit) record(c *call, res any, err error, end time.Time) {
	if a == nil || !audited(c.method) {
		return
	}
	cl := c.cl
	cl.mu.Lock()
	rec := AuditRecord{Time: c.started.UTC(), Client: AuditClient{Name: cl.name, ID: cl.id, Remote: cl.remote},
		Method: c.method, DurationMs: float64(end.Sub(c.started).Microseconds()) / 1000, RequestID: c.id}
	if cl.identity != nil {
		rec.Client.Identity = cl.identity.ID
	}
	cl.mu.Unlock()
	c.mu.Lock()
	rec.Server, rec.Approval = c.srv, c.approval
	c.mu.Unlock()
	var args json.RawMessage
	switch c.method {
	case "tools/call":
		rec.Tool, args = c.p.Name, c.p.Arguments
	case "prompts/get":
		rec.Prompt, args = c.p.Name, c.p.Arguments
	case "resources/read":
		rec.URI = c.p.URI
	case "completion/complete":
		var p struct {
			Ref struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"ref"`
			Argument json.RawMessage `json:"argument"`
		}
		_ = json.Unmarshal(c.params, &p)
		rec.Prompt, rec.URI, args = p.Ref.Name, p.Ref.URI, p.Argument
	}
	a.arguments(&rec, rec.Server, args)
	rec.Outcome, rec.Code, rec.Error = outcome(res, err, c)
	line, merr := json.Marshal(rec)
	if merr != nil {
		return
	}
	if _, werr := a.out.write(append(line, '\n')); werr != nil {
		if !a.failed.Swap(true) && a.opts.OnError != nil {
			a.opts.OnError(fmt.Errorf("writing the audit log %s: %w", a.opts.File, werr))
		}
		return
	}
	a.failed.Store(false)
}

// arguments puts the arguments into rec as configured.
func (a *Audit) arguments(rec *AuditRecord, server string, args json.RawMessage) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || bytes.Equal(args, []byte("null")) || a.opts.Arguments == config.AuditNone {
		return
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		sum := sha256.Sum256(args) // not JSON: its bytes
		rec.ArgumentsSHA256 = hex.EncodeToString(sum[:])
		return
	}
	if a.opts.Arguments == config.AuditDigest {
		canon, _ := json.Marshal(v) // object keys sorted: the same arguments, the same digest
		sum := sha256.Sum256(canon)
		rec.ArgumentsSHA256 = hex.EncodeToString(sum[:])
		return
	}
	out, _ := json.Marshal(scrubValue("", v))
	if a.opts.Scrub != nil {
		out = a.opts.Scrub(server, out)
	}
	rec.Arguments = out
}

// scrubValue replaces the values of credential-looking keys and the
// credential-looking strings anywhere in v.
func scrubValue(key string, v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = scrubValue(k, e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = scrubValue(key, e)
		}
		return x
	case string:
		if (key != "" && config.SecretName(key)) || config.SecretValue(x) {
			return config.RedactedValue
		}
	case json.Number:
		if key != "" && config.SecretName(key) {
			return config.RedactedValue
		}
	}
	return v
}

// outcome classifies an answer for the log.
func outcome(res any, err error, c *call) (string, int64, string) {
	if err != nil {
		var rpc *jsonrpc.Error
		if !errors.As(err, &rpc) {
			if c.ctx.Err() != nil {
				return "cancelled", 0, err.Error()
			}
			return "error", 0, err.Error()
		}
		word := "error"
		switch rpc.Code {
		case CodeRefused:
			word = "refused"
		case CodeBusy:
			word = "busy"
		case CodeRateLimited:
			word = "rate_limited"
		case CodeTimeout:
			word = "timeout"
		case CodeCancelled:
			word = "cancelled"
		case CodeUnavailable:
			word = "unavailable"
		case jsonrpc.CodeInvalidParams:
			word = "invalid"
		}
		return word, rpc.Code, rpc.Message
	}
	switch r := res.(type) {
	case callResult:
		if r.IsError {
			return "tool_error", 0, ""
		}
	case inputRequired:
		return "input_required", 0, ""
	case createTaskResult, legacyCreateTask:
		return "task", 0, "" // its end is a line of its own (tasks.go)
	}
	return "ok", 0, ""
}

// rotatingFile appends to a file and, before a write would take it past
// max bytes, renames it FILE.1 (shifting FILE.1 to FILE.2 and so on, the
// oldest beyond keep dropped) and starts a new one. A line is written in
// one write, so it never straddles two files. Not lumberjack: its Logger
// starts a goroutine on the first write that nothing stops (v2.2.1), and
// its maintained fork brings a zstd library into every mcpdeck binary for
// what is a rename and an open.
type rotatingFile struct {
	path string
	max  int64
	keep int

	mu   sync.Mutex
	f    *os.File
	size int64
}

func openRotating(path string, max int64, keep int) (*rotatingFile, error) {
	if path == "" {
		return nil, errors.New("no file named")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	r := &rotatingFile{path: path, max: max, keep: keep}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, st.Size()
	return nil
}

func (r *rotatingFile) write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		if err := r.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(p)
	r.size += int64(n)
	return n, err
}

// rotate shifts the files and opens a new one. Called with mu held.
func (r *rotatingFile) rotate() error {
	if err := r.f.Close(); err != nil {
		return err
	}
	r.f = nil
	for i := r.keep - 1; i >= 1; i-- {
		_ = os.Rename(r.path+"."+strconv.Itoa(i), r.path+"."+strconv.Itoa(i+1))
	}
	if err := os.Rename(r.path, r.path+".1"); err != nil {
		return err
	}
	return r.open()
}

func (r *rotatingFile) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
