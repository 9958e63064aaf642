package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"mcpdeck/runtime"
)

// Approvals: a tools/call that a rule of the gateway block marks (an
// approve pattern on its server or bridged tool, or approveDestructive for
// a tool annotated destructiveHint: true) waits for the operator before it
// reaches the server. The operator answers from the TUI (the gateway it
// serves with --serve) or, for a headless gateway, over its control socket
// (control.go). A call that nobody can answer is refused at once; one that
// is not answered within approvalTimeout is refused then. Every decision
// is published (ApprovalDecided) and recorded in the runtime
// (runtime.OperatorDecision), with who decided and when.

// ErrNoSuchApproval: Decide was given an ID that is not waiting (never
// was, or was decided, timed out or withdrawn already).
var ErrNoSuchApproval = errors.New("no call waits for approval under this ID")

// Approval is one client call waiting for the operator's decision.
type Approval struct {
	// ID names the call for Decide and `mcpdeck gateway approve|deny ID`:
	// "<pid>-<n>", unique on the machine, the pid naming the gateway
	// process (and its control socket).
	ID string `json:"id"`
	// Client is who asks, as it says it is, with its transport and
	// address.
	Client    ClientInfo      `json:"client"`
	RequestID string          `json:"requestId"` // the client's request id on the wire
	Server    string          `json:"server"`
	Tool      string          `json:"tool"` // the bridged name the client called
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Rule is the rule that asks for the approval, with where it is written.
	Rule     string    `json:"rule"`
	Asked    time.Time `json:"asked"`
	Deadline time.Time `json:"deadline"`
}

// Who words the client for a person: "claude-code 1.2 (c3, http
// 127.0.0.1:50432)".
func (a Approval) Who() string {
	return clientWords(a.Client)
}

// clientWords names a client for messages and decisions.
func clientWords(ci ClientInfo) string {
	name := ci.Name
	if ci.Title != "" && ci.Title != ci.Name {
		name = ci.Title + " (" + ci.Name + ")"
	}
	if name == "" {
		name = "an unnamed client"
	}
	if ci.Version != "" {
		name += " " + ci.Version
	}
	where := ci.ID + ", " + string(ci.Transport)
	if ci.Remote != "" {
		where += " " + ci.Remote
	}
	return name + " (" + where + ")"
}

// The decisions an approval ends with (ApprovalDecided.Decision).
const (
	Approved  = "approved"
	Denied    = "denied"
	TimedOut  = "timed out"
	Refused   = "refused"   // nobody could answer
	Withdrawn = "withdrawn" // the client cancelled or went away first
)

// ApprovalRequested: a call waits for the operator (Approval).
type ApprovalRequested struct {
	Time     time.Time
	Approval Approval
}

// ApprovalDecided: a waiting call was decided: Decision is Approved,
// Denied, TimedOut, Refused or Withdrawn; By says who decided.
type ApprovalDecided struct {
	Time     time.Time
	Approval Approval
	Decision string
	By       string
	Reason   string
}

func (e ApprovalRequested) eventTime() time.Time { return e.Time }
func (e ApprovalDecided) eventTime() time.Time   { return e.Time }

// verdict is the operator's answer to one approval.
type verdict struct {
	approve bool
	by      string
	reason  string
}

// pending is an approval waiting; answer is buffered, written once.
type pending struct {
	Approval
	answer chan verdict
}

// approvals is the gateway's table of waiting calls.
type approvals struct {
	seq       atomic.Uint64
	approvers atomic.Int32 // attached operators (the TUI, a control socket)
	mu        sync.Mutex
	waiting   map[string]*pending
}

// AttachApprover says that an operator can answer approvals from now on
// (the TUI, a control socket). While none is attached, a call that needs
// approval is refused at once, saying why. detach undoes it; it is safe to
// call more than once.
func (g *Gateway) AttachApprover() (detach func()) {
	g.appr.approvers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { g.appr.approvers.Add(-1) }) }
}

// Pending returns the calls waiting for approval, oldest first.
func (g *Gateway) Pending() []Approval {
	a := &g.appr
	a.mu.Lock()
	out := make([]Approval, 0, len(a.waiting))
	for _, p := range a.waiting {
		out = append(out, p.Approval)
	}
	a.mu.Unlock()
	slices.SortFunc(out, func(x, y Approval) int { return x.Asked.Compare(y.Asked) })
	return out
}

// Decide answers the approval id: approve lets the call through, else it
// is refused with reason (optional). by names who decided, for the log and
// the recording.
func (g *Gateway) Decide(id string, approve bool, by, reason string) error {
	a := &g.appr
	a.mu.Lock()
	p := a.waiting[id]
	delete(a.waiting, id)
	a.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%w: %q (see the waiting ones with mcpdeck gateway pending)", ErrNoSuchApproval, id)
	}
	p.answer <- verdict{approve: approve, by: by, reason: reason}
	return nil
}

// approvalFor reports whether the client's call of tool t needs the
// operator's approval, and the rule that says so.
func (g *Gateway) approvalFor(pol *policy, tool *runtime.Tool) (bool, string) {
	// The annotations are read only where they can matter: a call pays no
	// JSON decoding for a setting that is off.
	d := pol.rules.ApproveDestructive != nil && pol.rules.ApproveDestructive.On && destructive(tool.Annotations)
	return pol.approval(tool.Server, tool.Name, d)
}

// destructive reports a tool annotated destructiveHint: true and not
// readOnlyHint: true (the hint means nothing for a read-only tool). A tool
// without the annotation is not taken as destructive, though the
// specification's default is true: then every unannotated tool would wait.
func destructive(annotations json.RawMessage) bool {
	if len(annotations) == 0 {
		return false
	}
	var a struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	if json.Unmarshal(annotations, &a) != nil || a.Destructive == nil {
		return false
	}
	return *a.Destructive && (a.ReadOnly == nil || !*a.ReadOnly)
}

// awaitApproval holds the client's call c until the operator decides, the
// approval times out, or the client gives up. nil lets the call through.
func (g *Gateway) awaitApproval(ctx context.Context, c *call, t *target) error {
	pol := c.cl.policy()
	timeout := pol.approvalTimeout()
	now := time.Now()
	p := &pending{Approval: Approval{
		ID:     strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(g.appr.seq.Add(1), 10),
		Client: c.cl.info(), RequestID: c.id, Server: t.server, Tool: t.name, Arguments: c.p.Arguments,
		Rule: t.approval, Asked: now, Deadline: now.Add(timeout),
	}, answer: make(chan verdict, 1)}
	p.Client.InFlight = nil // the call itself is among them; the approval says it already
	if g.appr.approvers.Load() == 0 {
		reason := "mcpdeck's gateway runs headless and no operator can answer (its control socket is not open)"
		g.decided(c, p.Approval, Refused, "nobody", reason)
		return rpcError(CodeRefused, runtime.KindRefused, errData{Reason: "approval", Rule: t.approval, Server: t.server},
			"mcpdeck gateway: %s needs the operator's approval (%s), and nobody can give it: %s; run the gateway in the TUI (mcpdeck --serve ADDR), or leave its control socket open for mcpdeck gateway approve", t.what, t.approval, reason)
	}
	g.appr.mu.Lock()
	if g.appr.waiting == nil {
		g.appr.waiting = map[string]*pending{}
	}
	g.appr.waiting[p.ID] = p
	g.appr.mu.Unlock()
	g.ev.publish(ApprovalRequested{Time: now, Approval: p.Approval})
	withdraw := func() bool {
		g.appr.mu.Lock()
		defer g.appr.mu.Unlock()
		if g.appr.waiting[p.ID] != p {
			return false // decided meanwhile: the answer is in the channel
		}
		delete(g.appr.waiting, p.ID)
		return true
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var v verdict
	select {
	case v = <-p.answer:
	case <-timer.C:
		if withdraw() {
			g.decided(c, p.Approval, TimedOut, "the timeout", fmt.Sprintf("nobody answered within %s", timeout))
			return rpcError(CodeRefused, runtime.KindRefused, errData{Reason: "approval_timeout", Rule: t.approval, Server: t.server},
				"mcpdeck gateway: %s needs the operator's approval (%s), and none came within %s (gateway.approvalTimeout); ask the operator, then call again", t.what, t.approval, timeout)
		}
		v = <-p.answer
	case <-ctx.Done():
		if withdraw() {
			g.decided(c, p.Approval, Withdrawn, clientWords(p.Client), "the client cancelled the call or went away")
			return ctx.Err()
		}
		v = <-p.answer
	}
	if !v.approve {
		g.decided(c, p.Approval, Denied, v.by, v.reason)
		why := ""
		if v.reason != "" {
			why = ": " + v.reason
		}
		return rpcError(CodeRefused, runtime.KindRefused, errData{Reason: "denied", Rule: t.approval, Server: t.server},
			"mcpdeck gateway: the operator denied %s (%s asked for approval)%s", t.what, t.approval, why)
	}
	g.decided(c, p.Approval, Approved, v.by, v.reason)
	return nil
}

// decided publishes a decision to the gateway's subscribers and the
// runtime (recordings, event streams), and notes it on the call for its
// audit line.
func (g *Gateway) decided(c *call, a Approval, decision, by, reason string) {
	now := time.Now()
	c.mu.Lock()
	c.approval = &AuditApproval{ID: a.ID, Rule: a.Rule, Decision: decision, By: by, WaitedMs: float64(now.Sub(a.Asked).Microseconds()) / 1000}
	c.mu.Unlock()
	g.ev.publish(ApprovalDecided{Time: now, Approval: a, Decision: decision, By: by, Reason: reason})
	g.rt.RecordDecision(runtime.OperatorDecision{EventHeader: runtime.EventHeader{Time: now, Server: a.Server},
		Kind: runtime.DecisionApproval, ID: a.ID, Client: a.Who(), Subject: "tools/call " + a.Tool, Rule: a.Rule,
		Decision: decision, By: by, Reason: reason, Asked: a.Asked})
}
