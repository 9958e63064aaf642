package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"mcpdeck/config"
	"mcpdeck/runtime"
	"mcpdeck/runtime/record"
	"mcpdeck/ui"
)

// recordFlags are --record and --record-max: the TUI, watch, call and
// check record their session with them.
type recordFlags struct {
	path string
	max  string
}

func addRecordFlags(cmd *cobra.Command, f *recordFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.path, "record", "", "record the session to `FILE` (JSON Lines, created 0600; read it with mcpdeck replay FILE)")
	fl.StringVar(&f.max, "record-max", "", "rotate the recording to FILE.1 before it grows past `SIZE` (e.g. 50MB, 512KiB); one older file is kept")
}

// options validates the flags into recorder options; ok is false when
// nothing is to be recorded.
func (f *recordFlags) options(cfg *config.Config) (opts record.Options, ok bool, err error) {
	if f.path == "" {
		if f.max != "" {
			return opts, false, withCode(ExitUsage, fmt.Errorf("--record-max goes with --record FILE"))
		}
		return opts, false, nil
	}
	opts = record.Options{Path: f.path, Version: version(), Config: cfg}
	if f.max != "" {
		n, err := record.ParseSize(f.max)
		if err != nil {
			return opts, false, withCode(ExitUsage, fmt.Errorf("--record-max: %w", err))
		}
		opts.MaxSize = n
	}
	return opts, true, nil
}

// recording is one command's --record: start subscribes it to the
// session before anything starts; finish, after the session has shut
// down, writes what is left and says where the file is.
type recording struct {
	flags *recordFlags
	cfg   *config.Config

	mu  sync.Mutex
	rec *record.Recorder
}

// validate checks the flags before anything starts.
func (rc *recording) validate() error {
	_, _, err := rc.flags.options(rc.cfg)
	return err
}

// start begins recording src; nothing happens without --record.
func (rc *recording) start(src record.Source) error {
	opts, ok, err := rc.flags.options(rc.cfg)
	if err != nil || !ok {
		return err
	}
	r, err := record.Start(src, opts)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	rc.mu.Lock()
	rc.rec = r
	rc.mu.Unlock()
	return nil
}

// withConfig starts recording rt, which runs cfg: startRuntime's hook.
func (rc *recording) withConfig(rt *runtime.Controller, cfg *config.Config) error {
	rc.cfg = cfg
	return rc.start(rt)
}

// recorder is the running recorder, nil without --record.
func (rc *recording) recorder() *record.Recorder {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.rec
}

// finish closes the recorder (after the runtime's shutdown, so the
// teardown is in the file) and reports a write error or lost events. A
// recording that could not be written (a full disk) is a failure of the
// command: it returns ExitUsage, as for a --record file that cannot be
// created (the README's exit code table), once it has said so.
func (rc *recording) finish(stderr io.Writer) error {
	r := rc.recorder()
	if r == nil {
		return nil
	}
	err := r.Close()
	st := r.Stats()
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "mcpdeck: the recording %s failed and is incomplete (%d events written): %v\n", r.Path(), st.Events, err)
		return silentExit(ExitUsage)
	case st.Dropped > 0:
		fmt.Fprintf(stderr, "mcpdeck: the recording %s misses %d events the disk could not keep up with (marked as gaps)\n", r.Path(), st.Dropped)
	}
	return nil
}

// finishInto is finish for a command that returns err: a failed
// recording makes a command that otherwise succeeded fail; a command
// that failed keeps its own code.
func (rc *recording) finishInto(stderr io.Writer, err error) error {
	if ferr := rc.finish(stderr); ferr != nil && err == nil {
		return ferr
	}
	return err
}

// checkRecording is the recording of one server's check: with several
// servers, each gets FILE with its name before the extension
// (check.jsonl → check.demo.jsonl), since each check is its own session.
func checkRecording(f *recordFlags, srv config.Server, several bool) *recording {
	cfg := &config.Config{Servers: []config.Server{srv}}
	if !several || f.path == "" {
		return &recording{flags: f, cfg: cfg}
	}
	ext := filepath.Ext(f.path)
	per := *f
	per.path = strings.TrimSuffix(f.path, ext) + "." + srv.Name + ext
	return &recording{flags: &per, cfg: cfg}
}

// set makes r the recording whose file reloads are noted in and which
// finish closes: the TUI's record key calls it (nil when stopped).
func (rc *recording) set(r *record.Recorder) {
	rc.mu.Lock()
	rc.rec = r
	rc.mu.Unlock()
}

// tuiRecording lets the TUI's record key record with the same settings
// as --record, and stop a --record recording.
func tuiRecording(rc *recording, cfg *config.Config) *ui.Recording {
	opts := record.Options{Version: version(), Config: cfg}
	if o, ok, err := rc.flags.options(cfg); ok && err == nil {
		opts.MaxSize = o.MaxSize
	}
	return &ui.Recording{Options: opts, Active: rc.recorder(), Changed: rc.set}
}
