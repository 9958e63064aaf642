package runtime

import "time"

// DecisionKind says what an OperatorDecision decided.
type DecisionKind string

// The kinds of questions a person decides.
const (
	// DecisionSampling: a server's sampling/createMessage request was
	// answered or declined.
	DecisionSampling DecisionKind = "sampling"
	// DecisionApproval: a gateway client's call that needed the operator's
	// approval was approved, denied, timed out or refused.
	DecisionApproval DecisionKind = "approval"
)

// OperatorDecision: a question that waits for a person was decided. The
// recording keeps it with who decided and when, and the event streams show
// it. Sampling decisions are the runtime's own; the gateway's approvals
// reach the runtime through RecordDecision.
type OperatorDecision struct {
	EventHeader
	Kind DecisionKind
	// ID names the question (an approval's id); "" for sampling.
	ID string
	// Client is who asked: the gateway client ("claude-code 1.2 (c3)"); ""
	// for a server's own question.
	Client string
	// Subject is what was decided: the bridged tool, or the method.
	Subject string
	// Rule is the configuration rule that asked for the decision.
	Rule string
	// Decision is what was decided: sampling "answered" or "declined";
	// approvals "approved", "denied", "timed out", "refused" (nobody could
	// answer) or "withdrawn" (the client gave up first).
	Decision string
	// By names who decided: "the operator (TUI)", "mcpdeck gateway approve
	// (pid 42, uid 1000)", "--sampling FILE", "the timeout".
	By     string
	Reason string
	// Asked is when the question was put; Time when it was decided.
	Asked time.Time
}

// RecordDecision publishes a decision made outside the runtime (the
// gateway's approvals), so that recordings and event streams keep it next
// to the traffic it allowed.
func (c *Controller) RecordDecision(d OperatorDecision) {
	if d.Time.IsZero() {
		d.Time = time.Now()
	}
	c.bus.publish(d)
}
