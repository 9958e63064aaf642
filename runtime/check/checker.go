package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"mcpdeck/config"
	"mcpdeck/runtime"
)

// shutdownTimeout bounds the final teardown of the checker's controller:
// the whole stop sequence, with its grace periods, fits well within it.
const shutdownTimeout = time.Minute

// closeSettle bounds the wait, after a request met a closed transport, for
// the controller to mark the server failed.
const closeSettle = 5 * time.Second

// checker runs one check. Everything runs on Run's goroutine except the
// observer, which collects the controller's events on its own.
type checker struct {
	ctx      context.Context
	srv      config.Server
	name     string
	opts     Options
	progress func(Item)
	rt       *runtime.Controller
	obs      *observer
	report   Report

	// What the steps learned, for the steps and rules after them.
	initFailed   string                // why initialization failed, "" if it did not
	listFailed   string                // why listing failed after a good initialize
	tools        []runtime.Tool        // as first listed
	instructions string                // the server's, as it first gave them
	dropped      []runtime.DroppedTool // listed, but left out as every client must
	toolsAfter   []runtime.Tool        // as listed after the reconnect; nil if it failed
	leaks        []string              // where configured secrets appeared, every listing
	calledTool   string                // the tool the call step called successfully
	calledArgs   json.RawMessage
	calledTook   time.Duration // how long that call took
	seenSlow     *candidate    // a call the call step saw take its time or report progress
	noAnswer     []pending     // requests that got no response in time
	tooLarge     bool          // a result went over the maximum message size
	errorProbe   Item          // actionable-errors, probed while the server was up
	probedError  bool
	appReads     map[string]appRead // MCP Apps: each resourceUri's resources/read, by URI
	appCaps      json.RawMessage    // the capabilities the server declared, seen while it was up

	// A request that met a closed transport: the controller may not have
	// published the server's failure yet when the request returns, so the
	// next step waits for it (from liveFrom, the events since the server
	// was last seen live) before it decides whether to reconnect.
	closed   bool
	liveFrom int
}

// pending is a request that got no response within the call timeout.
type pending struct {
	id         uint64
	what       string // "tools/call echo"
	start, end time.Time
}

func newChecker(ctx context.Context, srv config.Server, opts Options, progress func(Item)) *checker {
	srv.Enabled = true
	srv.PingInterval = 0 // the check sends its own pings, when it wants them
	srv.AutoReconnect = config.Reconnect{}
	srv.CallTimeout = opts.CallTimeout
	if srv.StartupTimeout <= 0 {
		srv.StartupTimeout = config.DefaultStartupTimeout
	}
	c := &checker{
		ctx: ctx, srv: srv, name: srv.Name, opts: opts, progress: progress,
		report: Report{Server: srv.Name, Transport: string(srv.Transport)},
	}
	c.rt = runtime.New(runtime.Options{
		Config:         &config.Config{Servers: []config.Server{srv}},
		ResultLimit:    opts.ResultMax,
		MaxCallTime:    opts.MaxCallTime,
		StopGrace:      opts.StopGrace,
		ClientVersion:  opts.ClientVersion,
		Protocol:       opts.Protocol,
		MaxMessageSize: maxMessage(opts),
		Auth:           opts.Auth,
		Elicitor:       opts.Elicitor,
		Sampler:        opts.Sampler,
		Roots:          opts.Roots,
		LogLevel:       opts.LogLevel,
		Telemetry:      opts.Telemetry,
		Tools:          opts.Tools,
	})
	if opts.OnController != nil {
		opts.OnController(c.rt)
	}
	c.obs = observe(c.rt)
	return c
}

// maxMessage bounds every message the check reads: well over the result
// maximum, so a larger one is refused by the transport rather than
// buffered whole; bounded-results reports it.
func maxMessage(opts Options) int { return opts.ResultMax + 1<<20 }

func (c *checker) maxMessage() int { return maxMessage(c.opts) }

// close tears the controller down and stops the observer; after it, the
// observer holds every event the controller published.
func (c *checker) close() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	_ = c.rt.Shutdown(ctx)
	c.obs.stop()
}

// run decides every item, in report order. The rules that judge the whole
// session are decided last, once the server has been stopped and every
// event is in.
func (c *checker) run() {
	c.step(IDInitialize, c.initialize)
	c.step(IDToolsList, c.toolsList)
	c.step(IDCall, c.needLive(c.call))
	c.step(IDInvalidInput, c.needLive(c.invalidInput))
	c.step(IDCancellation, c.needLive(c.cancellation))
	if c.initFailed == "" && c.listFailed == "" && c.ctx.Err() == nil {
		if skip := c.ensureLive(); skip == "" {
			c.errorProbe, c.probedError = c.probeErrors(), true
			c.probeApps()
		}
	}
	c.step(IDReconnect, c.needLive(c.reconnect))
	c.step(IDShutdown, c.needLive(c.shutdown))
	c.close()
	c.step(IDStableNames, c.stableNames)
	c.step(IDBoundedResults, c.boundedResults)
	c.step(IDActionableErrors, c.actionableErrors)
	c.step(IDNoSecrets, c.noSecrets)
	c.step(IDResponseIDs, c.responseIDs)
	c.step(IDNoNotification, c.noNotification)
	c.step(IDStdoutClean, c.stdoutClean)
	c.step(IDAuthorization, c.authorization)
	c.step(IDEnvironment, c.environment)
	c.changedStep(IDPinned, c.pinnedDefinitions)
	c.changedStep(IDInstructionText, c.instructionText)
	c.modernSteps()
	c.appSteps()
	c.profileSteps()
}

// step decides one item and reports it.
func (c *checker) step(id string, decide func() (Status, string)) {
	start := time.Now()
	var st Status
	var reason string
	if c.ctx.Err() != nil && id != IDStdoutClean && id != IDResponseIDs {
		st, reason = Skip, "skipped: the check was cancelled"
	} else {
		st, reason = decide()
	}
	c.add(Item{ID: id, Name: Name(id), Status: st, Reason: reason, Duration: time.Since(start)})
}

// changedStep is step for an item that lists changed tools.
func (c *checker) changedStep(id string, decide func() (Status, string, []ChangedTool)) {
	start := time.Now()
	it := Item{ID: id, Name: Name(id), Status: Skip, Reason: "skipped: the check was cancelled"}
	if c.ctx.Err() == nil {
		it.Status, it.Reason, it.Changed = decide()
	}
	it.Duration = time.Since(start)
	c.add(it)
}

// add reports a decided item.
func (c *checker) add(it Item) {
	c.report.Items = append(c.report.Items, it)
	if c.progress != nil {
		c.progress(it)
	}
}

// needLive wraps a step that talks to the server: it is skipped when an
// earlier step says it cannot run, and it first brings the server back if
// an earlier step left it down (a crash is that step's finding, not this
// one's).
func (c *checker) needLive(decide func() (Status, string)) func() (Status, string) {
	return func() (Status, string) {
		if skip := c.prerequisite(); skip != "" {
			return Skip, skip
		}
		if skip := c.ensureLive(); skip != "" {
			return Skip, skip
		}
		return decide()
	}
}

// prerequisite says why the server steps cannot run, or "".
func (c *checker) prerequisite() string {
	switch {
	case c.initFailed != "":
		return "skipped: initialization failed"
	case c.listFailed != "":
		return "skipped: tool listing failed"
	}
	return ""
}

// ensureLive reconnects the server if an earlier step left it down.
func (c *checker) ensureLive() string {
	if c.closed {
		c.closed = false
		c.obs.waitFor(c.ctx, c.liveFrom, min(c.opts.CallTimeout, closeSettle), func(e runtime.Event) bool {
			s, ok := e.(runtime.StateChanged)
			return ok && s.Server == c.name && s.To == runtime.StateFailed
		})
	}
	if c.server().State.Live() {
		c.liveFrom = c.obs.mark()
		return ""
	}
	c.liveFrom = c.obs.mark()
	if err := c.rt.Reconnect(c.ctx, c.name); err != nil {
		return "skipped: the server went down in an earlier step and reconnecting failed: " + errText(err)
	}
	v := c.server()
	if !v.State.Live() {
		return "skipped: the server went down in an earlier step and did not come back: " + c.failure(v)
	}
	c.leaks = runtime.MergeLeaks(c.leaks, v.SecretLeaks...)
	return ""
}

// server is the server's current snapshot.
func (c *checker) server() runtime.ServerSnapshot {
	v, _ := c.rt.Snapshot().Server(c.name)
	return v
}

// failure says why a server that is not live failed.
func (c *checker) failure(v runtime.ServerSnapshot) string {
	if v.LastError != nil {
		// The message without the hint: the runtime's hints speak to the
		// TUI (press R), and the check's reasons say what to fix.
		return v.LastError.Message
	}
	if v.Reason != "" {
		return v.Reason
	}
	return "the server's state is " + v.State.String()
}

// errText renders an error for a reason: the actionable form when it is
// one (it carries the hint).
func errText(err error) string {
	var ce *runtime.CallError
	if errors.As(err, &ce) {
		return ce.Info.Error()
	}
	return err.Error()
}

// ms renders a duration for a reason.
func ms(d time.Duration) string {
	if d >= time.Minute {
		return d.Round(time.Second).String()
	}
	if d >= time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}
