package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"mcpdeck/jsonrpc"
	"mcpdeck/runtime/mcp"
)

// The stdio era probe. server/discover goes first; when a fallback wait is
// set and passes without an answer, initialize is sent too, and both are
// outstanding on the one pipe. No timer decides the era: the answers do.
// A discovery result or a 2026-07-28 error is authoritative whenever it
// comes (before the session is ready): the server is spoken to in the
// modern era, on the same process when it refused the initialize, on a
// fresh one when it accepted it (a dual-era server that accepted
// initialize serves that process in the legacy era). A legacy answer to
// the probe, or initialize answering first, means legacy; then the probe
// stays open until the session is ready, and a modern answer before that
// still wins.

// initStage is where the initialize sent alongside the probe stands.
type initStage int

const (
	initNotSent initStage = iota
	initPending
	// initAccepted: it was answered with a result. A dual-era server has
	// now pinned the process to the legacy revisions.
	initAccepted
	// initRefused: it was answered with an error, or failed.
	initRefused
)

// probeState is what the stdio era negotiation knows so far. Its next
// method is the whole decision, a pure function, so each order in which
// the answers can arrive is one row of a table test.
type probeState struct {
	fallsBack    bool         // the preference offers legacy revisions
	fallbackOver bool         // the fallback wait has passed (never, without one)
	verdict      *mcp.Verdict // the probe's answer; nil while it is outstanding
	init         initStage
	// initModern: initialize was refused as only a modern server refuses
	// it (-32022, or a version refusal naming a 2026 revision).
	initModern bool
	// refusalWaitOver: initialize was refused otherwise, and the probe,
	// still out, has been waited for refusalWait since.
	refusalWaitOver bool
}

// probeAction is what to do next.
type probeAction int

const (
	probeWait           probeAction = iota // for an answer, or the fallback wait
	probeSendInitialize                    // send initialize alongside the probe
	probeModern                            // speak the modern era on this process
	probeRetryDiscover                     // -32022 named a mutual version: ask again with it
	probeRestartModern                     // initialize pinned the process to legacy: start it again, modern
	probeLegacy                            // speak legacy on the session initialize opened
	probeLegacyForNow                      // legacy, but a modern answer before ready still wins
	probeRestartLegacy                     // the probe cost the process: start it again, then initialize
	probeFailVerdict                       // the server is modern but cannot be used: the verdict's error
	probeFailLegacyOnly                    // a legacy server, and the preference offers no legacy revision
	probeFailInit                          // initialize failed, and the probe says nothing else
)

// next decides what to do from what is known.
func (p probeState) next() probeAction {
	v := p.verdict
	switch {
	case v == nil:
		switch {
		case p.init == initAccepted:
			return probeLegacyForNow
		case p.init == initRefused && !p.initModern && p.refusalWaitOver:
			return probeFailInit
		case p.init == initNotSent && p.fallsBack && p.fallbackOver:
			return probeSendInitialize
		}
		return probeWait
	case v.Err != nil:
		return probeFailVerdict
	case v.Era == mcp.Modern:
		switch {
		case p.init == initPending:
			return probeWait // whether the process took it decides whether it must start again
		case p.init == initAccepted:
			return probeRestartModern
		case v.Retry:
			return probeRetryDiscover
		}
		return probeModern
	case !p.fallsBack:
		return probeFailLegacyOnly
	case v.Restart && p.init == initRefused:
		return probeFailInit // it refused initialize too: starting it again would not help
	case v.Restart:
		return probeRestartLegacy
	}
	switch p.init {
	case initNotSent:
		return probeSendInitialize
	case initAccepted:
		return probeLegacy
	case initRefused:
		return probeFailInit
	}
	return probeWait
}

// initOutcome classifies initialize's answer for probeState.
func initOutcome(err error) (stage initStage, modern bool) {
	if err == nil {
		return initAccepted, false
	}
	if mcp.AsModern(err) != nil {
		return initRefused, true
	}
	for _, v := range supportedVersions(err) {
		if mcp.EraOf(v) == mcp.Modern {
			return initRefused, true
		}
	}
	return initRefused, false
}

// probePlan is how negotiateStdio starts.
type probePlan struct {
	// decision is what a modern answer records when initialize was never
	// sent: EraDiscoverAnswered, EraRemembered, EraPinned or EraSwitched.
	decision EraDecision
	// why is what decided before the probe answered (remembered, pinned,
	// switched), for the reason; "" for a plain probe.
	why string
	// fallback is how long the probe is waited for alone before initialize
	// is sent alongside it; 0 never sends it before a legacy answer.
	fallback time.Duration
	// version is the modern revision to ask with; "" is the preference's
	// newest.
	version string
}

// negotiateStdio runs the stdio probe as plan says and opens the session
// in the era it settles on. It returns the session to keep: a new one when
// the server had to be started again (the old one is closed), nil when
// that start failed.
func (c *Controller) negotiateStdio(ctx context.Context, s *session, pref mcp.Preference, plan probePlan) (*session, error) {
	version := plan.version
	if version == "" {
		version = pref.Offer(mcp.Modern)[0]
	}
	st := probeState{fallsBack: pref.FallsBack()}
	sent := time.Now()
	probe := s.startCall(ctx, mcp.MethodDiscover, s.envelope(version).Apply(nil))
	var (
		ini      *pendingCall
		versions []string // those initialize offered
		kept     bool     // the probe was handed to the session (legacy for now)
		timer    *time.Timer
		fallback <-chan time.Time // the fallback wait
		refused  <-chan time.Time // refusalWait, after initialize was refused
		ticker   = time.NewTicker(startingPoll)
		poll     <-chan time.Time // ticker's, while a starting server has not read the probe
		readLate time.Duration    // how long after sending the server read the probe, when it was late
	)
	ticker.Stop()
	defer ticker.Stop()
	if plan.fallback > 0 && st.fallsBack {
		timer = time.NewTimer(plan.fallback)
		defer timer.Stop()
		fallback = timer.C
	}
	defer func() {
		if !kept {
			probe.stop()
		}
		ini.stop()
	}()
	for retries := 0; ; {
		switch act := st.next(); act {
		case probeWait:
			var probeDone, initDone <-chan struct{}
			if st.verdict == nil {
				probeDone = probe.done
			}
			if st.init == initPending {
				initDone = ini.done
			}
			select {
			case <-probeDone:
				v := mcp.Decide(pref, probe.raw, probe.err, probe.at)
				st.verdict = &v
			case <-initDone:
				st.init, st.initModern = initOutcome(ini.err)
				if st.init == initRefused && !st.initModern && st.verdict == nil {
					wait := time.NewTimer(refusalWait)
					defer wait.Stop()
					refused = wait.C
				}
			case <-refused:
				refused, st.refusalWaitOver = nil, true
			case <-fallback:
				fallback = nil
				if !s.stillStarting() {
					st.fallbackOver = true
					break
				}
				// It has not read the probe yet: it is starting (npx, a
				// JVM), not silent. The wait begins when it reads it.
				ticker.Reset(startingPoll)
				poll = ticker.C
			case <-poll:
				if !s.stillStarting() {
					ticker.Stop()
					poll, readLate = nil, time.Since(sent).Round(10*time.Millisecond)
					timer.Reset(plan.fallback)
					fallback = timer.C
				}
			case <-ctx.Done():
				what := mcp.MethodDiscover
				if st.verdict != nil {
					what = "initialize"
				}
				return s, fmt.Errorf("waiting for the answer to %s: %w", what, context.Cause(ctx))
			}
		case probeSendInitialize:
			var params mcp.InitializeParams
			var err error
			if params, versions, err = s.initializeRequest(pref); err != nil {
				return s, err
			}
			ini = s.startCall(ctx, mcp.MethodInitialize, params)
			st.init = initPending
		case probeRetryDiscover:
			if retries == maxVersionRetries {
				return s, fmt.Errorf("%w: server/discover kept answering -32022, last naming %s", ErrUnsupportedVersion, st.verdict.Version)
			}
			retries++
			version = st.verdict.Version
			probe.stop()
			probe = s.startCall(ctx, mcp.MethodDiscover, s.envelope(version).Apply(nil))
			st.verdict = nil
		case probeModern:
			v := st.verdict
			n := negotiated{era: mcp.Modern, version: v.Version, discover: v.Discover, reason: joinReason(plan.why, v.Reason), decision: plan.decision}
			if st.init != initNotSent {
				n.decision = EraSwitched
				n.reason = fmt.Sprintf("server/discover answered after %s, later than the %s fallback that sent initialize (which it refused); speaking %s",
					probe.at.Sub(sent).Round(10*time.Millisecond), plan.fallback, v.Version)
			}
			return s, s.useModern(n)
		case probeRestartModern:
			why := fmt.Sprintf("server/discover answered after %s, later than the %s fallback that sent initialize, which the server accepted (pinning that process to the legacy revisions); started it again for the modern era",
				probe.at.Sub(sent).Round(10*time.Millisecond), plan.fallback)
			next, err := c.restart(ctx, s)
			if err != nil {
				return nil, err
			}
			return c.negotiateStdio(ctx, next, pref, probePlan{decision: EraSwitched, why: why, version: st.verdict.Version})
		case probeLegacy, probeLegacyForNow:
			s.eraReason, s.eraDecision = "", EraLegacyError
			if st.verdict != nil {
				s.eraReason = st.verdict.Reason
			}
			if act == probeLegacyForNow {
				s.eraReason, s.eraDecision = fmt.Sprintf("no answer to server/discover within the %s fallback%s; initialize answered first", plan.fallback, readLateText(readLate)), EraTimedOut
				s.lateProbe, kept = probe, true
			}
			return s, s.finishInitialize(ctx, ini.raw, ini.err, versions, pref)
		case probeRestartLegacy:
			next, err := c.restart(ctx, s)
			if err != nil {
				return nil, err
			}
			next.eraReason, next.eraDecision = st.verdict.Reason, EraLegacyError
			return next, next.initialize(ctx, pref)
		case probeFailVerdict:
			return s, negotiationError(st.verdict.Err)
		case probeFailLegacyOnly:
			return s, fmt.Errorf("%w: %s, but the protocol setting is %s: this server speaks only the legacy revisions", ErrUnsupportedVersion, st.verdict.Reason, pref)
		case probeFailInit:
			return s, s.finishInitialize(ctx, ini.raw, ini.err, versions, pref)
		}
	}
}

// refusalWait is how long an initialize refusal waits for the probe's
// answer before it is the outcome. A server may have taken the probe and
// refuse the initialize because of it: go-sdk's, once server/discover has
// set its session up, answers a later initialize "duplicate "initialize"
// received", and, handling calls concurrently, can send that answer before
// the discovery result. Seen under load with go-sdk v1.8.0 on stdio.
const refusalWait = 2 * time.Second

// startingPoll is how often the probe checks whether a server that is
// still starting has read its stdin.
const startingPoll = 50 * time.Millisecond

// stillStarting reports whether a stdio server has yet to read what was
// written to its stdin: one that has not read the probe cannot have
// ignored it. False when that cannot be known (remote, not Linux).
func (s *session) stillStarting() bool {
	if s.proc == nil {
		return false
	}
	n, ok := pipeUnread(s.proc.Stdin())
	return ok && n > 0
}

// readLateText words when a starting server read the probe, for a reason.
func readLateText(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return fmt.Sprintf(" after it read the probe (%s after it was sent)", d)
}

// joinReason prefixes a reason with what decided before it.
func joinReason(why, reason string) string {
	if why == "" {
		return reason
	}
	return why + "; " + reason
}

// restart closes s and starts its server again.
func (c *Controller) restart(ctx context.Context, s *session) (*session, error) {
	s.close()
	return c.openTransport(ctx, s.gen, s.cfg, s.fresh)
}

// lateSwitch ends the probe a legacy-for-now session kept open and reports
// the modern verdict when it answered as a modern server before the
// session became ready; nil otherwise.
func (s *session) lateSwitch(pref mcp.Preference) *mcp.Verdict {
	p := s.lateProbe
	if p == nil {
		return nil
	}
	s.lateProbe = nil
	p.stop() // an answer the connection already took still comes back
	if v := mcp.Decide(pref, p.raw, p.err, p.at); v.Era == mcp.Modern && v.Err == nil {
		return &v
	}
	return nil
}

// pendingCall is a request running alongside another on the session's
// connection (the probe and initialize).
type pendingCall struct {
	done   chan struct{} // closed when the call returned
	raw    json.RawMessage
	err    error
	at     time.Time // when it returned
	cancel context.CancelFunc
}

// startCall sends method on a goroutine the session owns. The call sends
// no notifications/cancelled when abandoned: a legacy server never saw a
// request it did not understand, and a late answer is dropped and counted
// by the connection.
func (s *session) startCall(ctx context.Context, method string, params any) *pendingCall {
	ctx, cancel := context.WithCancel(ctx)
	p := &pendingCall{done: make(chan struct{}), cancel: cancel}
	run := func() {
		defer close(p.done)
		p.raw, p.err = s.chain(ctx, &request{method: method, wire: params, quiet: true})
		p.at = time.Now()
	}
	if !s.spawn(run) {
		p.err, p.at = &jsonrpc.ClosedError{Method: method, Cause: jsonrpc.ErrClosedByClient}, time.Now()
		close(p.done)
	}
	return p
}

// stop abandons the call, if it is still outstanding, and waits for its
// goroutine. It is a no-op on nil.
func (p *pendingCall) stop() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}
