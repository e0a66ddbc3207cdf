package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

// GateRequest is a tool call as a door hands it to the core.
type GateRequest struct {
	// Call is what the agent wants to do.
	Call policy.Call
	// CallID is the agent's id for the call (OpenCode callID, Claude tool_use_id).
	CallID string
	// Source names agent and door, e.g. "opencode/monitor".
	Source string
	// Extra holds door-specific fields kept in the tool.call record as-is.
	Extra map[string]any
	// Truncated says the door received only the head of the call (a
	// spec-only monitor client cuts commands at 100 characters). A call the
	// policy would allow on its head alone is asked about instead, since the
	// unseen tail could do anything; a deny stands.
	Truncated bool
	// RequireApproval, when set, is the reason a call the policy allows must
	// still wait for a person (the control door's security.requireApproval
	// for destructive operations). A deny stands.
	RequireApproval string
	// Before are events of the caller's recorded in the same transaction,
	// ahead of the call and its decision (warden's agent: the model's
	// message.assistant that made the call), so what led to the call costs
	// no commit of its own and is never durable without it.
	Before []event.Event
}

// Verdict is the core's final answer for a gated call: the call may run only
// when Allowed is true.
type Verdict struct {
	Allowed bool `json:"allowed"`
	// Decision is the policy's decision (its Action may be ask).
	Decision policy.Decision `json:"decision"`
	// Reason and Rule explain the final answer (for an ask, the person's or
	// the deadline's reason).
	Reason string `json:"reason"`
	Rule   string `json:"rule"`
	// ApprovalID and Outcome are set when a person was asked.
	ApprovalID string           `json:"approvalId,omitempty"`
	Outcome    approval.Outcome `json:"outcome,omitempty"`
	// Always is set when the person asked for a standing answer.
	Always bool `json:"always,omitempty"`
}

// Gate decides a call, records the call and the decision durably, waits for
// a person when the policy asks, and returns the final verdict. It never
// returns Allowed unless the decision that allows the call is durable in the
// log. Every failure (policy error, log error, deadline, canceled context)
// yields Allowed == false with a reason saying why: callers block.
func (c *Core) Gate(ctx context.Context, req GateRequest) Verdict {
	call := req.Call
	if call.Cwd == "" {
		call.Cwd = call.Workspace
	}
	d := c.decide(call)
	if req.Truncated && d.Action == policy.Allow {
		d = policy.Decision{
			Action: policy.Ask, Rule: "warden.truncated-command", Argv: d.Argv, Span: d.Span,
			Reason: "the client sent only the first characters of this command; warden cannot check the rest",
		}
	}
	if req.RequireApproval != "" && d.Action == policy.Allow {
		d = policy.Decision{
			Action: policy.Ask, Rule: "warden.require-approval", Argv: d.Argv, Span: d.Span,
			Reason: req.RequireApproval,
		}
	}
	sess := call.Session
	base := event.Event{Session: sess, Source: req.Source, Workspace: call.Workspace}

	evs := append(slices.Clip(req.Before),
		withData(base, event.ToolCall, event.ToolCallData{CallID: req.CallID, Tool: call.Tool, Args: call.Args, Cwd: call.Cwd, Truncated: req.Truncated, Extra: req.Extra}),
		withData(base, event.ToolDecision, event.ToolDecisionData{
			CallID: req.CallID, Tool: call.Tool, Decision: string(d.Action), Final: d.Action != policy.Ask,
			Reason: d.Reason, Rule: d.Rule, Argv: d.Argv, Span: d.Span, Audit: auditHits(d.Audit),
		}),
	)
	var areq approval.Request
	if d.Action == policy.Ask {
		now := c.now().UTC()
		deadline := now.Add(c.ApprovalTimeout())
		areq = approval.Request{
			ID: c.newID(), Session: sess, Workspace: call.Workspace, Source: req.Source,
			CallID: req.CallID, Call: call, Decision: d, Created: now, Deadline: deadline,
		}
		evs = append(evs, withData(base, event.ApprovalRequested, event.ApprovalData{
			ApprovalID: areq.ID, CallID: req.CallID, Tool: call.Tool, Args: call.Args, Cwd: call.Cwd,
			Reason: d.Reason, Rule: d.Rule, Deadline: &deadline,
		}))
	}
	// the approval is pending before approval.requested is in the log, so
	// a reader of the log or the bus that answers it at once finds it; it
	// cannot be claimed (answered) before the request is durable
	var done <-chan approval.Resolution
	if d.Action == policy.Ask {
		c.askMu.Lock()
		done = c.approvals.Add(areq)
	}
	_, err := c.Record(ctx, evs...)
	if d.Action == policy.Ask {
		if err != nil {
			// never asked after all: nobody may answer it
			if _, cerr := c.approvals.Claim(areq.ID); cerr == nil {
				c.approvals.Deliver(areq.ID, approval.Resolution{Outcome: approval.Denied, By: "warden"})
			}
		}
		c.askMu.Unlock()
	}
	if err != nil {
		c.logger.Error("gate: could not record decision; blocking", "session", sess, "tool", call.Tool, "err", err)
		return Verdict{Decision: d, Rule: "warden.record-failed", Reason: "blocked: warden could not record the decision: " + err.Error()}
	}
	switch d.Action {
	case policy.Allow:
		return Verdict{Allowed: true, Decision: d, Reason: d.Reason, Rule: d.Rule}
	case policy.Deny:
		return Verdict{Decision: d, Reason: d.Reason, Rule: d.Rule}
	}
	res := c.wait(ctx, areq, done)
	v := Verdict{Allowed: res.Allowed(), Decision: d, Reason: res.Reason, Rule: d.Rule, ApprovalID: areq.ID, Outcome: res.Outcome, Always: res.Always}
	if v.Reason == "" {
		v.Reason = fmt.Sprintf("%s by a person (%s)", res.Outcome, d.Reason)
	}
	return v
}

// decide runs the policy, turning a panic into a deny (fail-closed).
func (c *Core) decide(call policy.Call) (d policy.Decision) {
	defer func() {
		if r := recover(); r != nil {
			c.logger.Error("policy panicked; blocking", "tool", call.Tool, "panic", r)
			d = policy.Decision{Action: policy.Deny, Rule: "warden.policy-error", Reason: fmt.Sprintf("blocked: the policy failed on this call (%v)", r)}
		}
	}()
	if reason := call.Malformed(); reason != "" {
		// the last line behind the doors' own checks: a shell call with no
		// command line is never judged as an empty (harmless) command
		return policy.Decision{Action: policy.Deny, Rule: "warden.malformed-call", Reason: "blocked: " + reason}
	}
	p := c.policy.Load()
	if p == nil {
		return policy.Decision{Action: policy.Deny, Rule: "warden.no-policy", Reason: "blocked: no policy is loaded"}
	}
	d = p.Decide(call)
	switch d.Action {
	case policy.Allow, policy.Deny, policy.Ask:
	default:
		d = policy.Decision{Action: policy.Deny, Rule: "warden.policy-error", Reason: fmt.Sprintf("blocked: the policy answered %q", d.Action)}
	}
	return d
}

// wait holds an asked call until a person resolves it, the deadline passes,
// or the caller goes away.
func (c *Core) wait(ctx context.Context, req approval.Request, done <-chan approval.Resolution) approval.Resolution {
	timer := time.NewTimer(req.Deadline.Sub(c.now()))
	defer timer.Stop()
	var res approval.Resolution
	select {
	case r := <-done:
		return r
	case <-timer.C:
		res = approval.Resolution{Outcome: approval.Expired, By: "deadline",
			Reason: fmt.Sprintf("blocked: nobody approved the call within %s", req.Deadline.Sub(req.Created))}
	case <-ctx.Done():
		res = approval.Resolution{Outcome: approval.Canceled, By: "warden",
			Reason: "blocked: the agent stopped waiting for the approval"}
	}
	if _, err := c.claim(req.ID); err != nil {
		// Someone resolved it at the same moment; theirs stands.
		return <-done
	}
	// The caller may be gone; record with a context of our own.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := c.Record(rctx, c.resolutionEvents(req, res)...); err != nil {
		c.logger.Error("could not record approval resolution", "approval", req.ID, "err", err)
	}
	c.approvals.Deliver(req.ID, res)
	return <-done
}

// claim is approvals.Claim once the approval.requested of an asked call is
// durable (see askMu).
func (c *Core) claim(id string) (approval.Request, error) {
	c.askMu.Lock()
	defer c.askMu.Unlock()
	return c.approvals.Claim(id)
}

// Resolve answers a pending approval. The resolution is durable before the
// waiting call learns of it. With Always, a standing rule for this call and
// workspace is added to the policy overlay.
func (c *Core) Resolve(ctx context.Context, id string, res approval.Resolution) (approval.Request, error) {
	switch res.Outcome {
	case approval.Approved, approval.Denied:
	default:
		return approval.Request{}, fmt.Errorf("resolve %s: outcome must be approved or denied, not %q", id, res.Outcome)
	}
	req, err := c.claim(id)
	if err != nil {
		return approval.Request{}, fmt.Errorf("resolve %s: %w", id, err)
	}
	if res.Reason == "" {
		res.Reason = fmt.Sprintf("%s by %s", res.Outcome, orDefault(res.By, "a person"))
	}
	if _, err := c.Record(ctx, c.resolutionEvents(req, res)...); err != nil {
		blocked := approval.Resolution{Outcome: approval.Denied, By: "warden", Reason: "blocked: warden could not record the approval: " + err.Error()}
		c.approvals.Deliver(id, blocked)
		return req, fmt.Errorf("resolve %s: %w", id, err)
	}
	var alwaysErr error
	if res.Always {
		action := policy.Deny
		if res.Allowed() {
			action = policy.Allow
		}
		rule := policy.RuleFor(req.Call, action, "always-"+id)
		if err := c.addOverlayRule(rule); err != nil {
			alwaysErr = fmt.Errorf("resolved %s, but could not add the standing rule: %w", id, err)
		}
	}
	c.approvals.Deliver(id, res)
	return req, alwaysErr
}

// resolutionEvents builds approval.resolved and the call's final decision.
func (c *Core) resolutionEvents(req approval.Request, res approval.Resolution) []event.Event {
	base := event.Event{Session: req.Session, Source: req.Source, Workspace: req.Workspace}
	final := policy.Deny
	if res.Allowed() {
		final = policy.Allow
	}
	return []event.Event{
		withData(base, event.ApprovalResolved, event.ApprovalData{
			ApprovalID: req.ID, CallID: req.CallID, Tool: req.Call.Tool,
			Outcome: string(res.Outcome), Reason: res.Reason, By: res.By, Always: res.Always,
		}),
		withData(base, event.ToolDecision, event.ToolDecisionData{
			CallID: req.CallID, Tool: req.Call.Tool, Decision: string(final), Final: true,
			Reason: res.Reason, Rule: req.Decision.Rule, ApprovalID: req.ID,
		}),
	}
}

// auditHits are the audit rules of a decision as the log keeps them.
func auditHits(hits []policy.AuditHit) []event.AuditHit {
	if len(hits) == 0 {
		return nil
	}
	out := make([]event.AuditHit, len(hits))
	for i, h := range hits {
		out[i] = event.AuditHit{Rule: h.Rule, Decision: string(h.Action), Reason: h.Reason}
	}
	return out
}

func withData(base event.Event, t event.Type, v any) event.Event {
	base.Type = t
	base.Data = mustJSON(v)
	return base
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ErrWithdrawApproves is returned by Withdraw for an approving outcome.
var ErrWithdrawApproves = errors.New("only an admin-authenticated client approves a call; a withdrawal never lets it through")

// Withdraw closes the pending approval of the call callID from source
// without a person's answer: the agent answered it itself (canceled or
// denied) or forgot it (approval.Lost). It never approves: an approving
// outcome is refused with ErrWithdrawApproves and the approval keeps
// waiting, since only Resolve, which the admin API alone calls, lets a
// waiting call run. The resolution is durable before the waiting Gate
// returns it. It returns approval.ErrNotFound when no such approval waits.
func (c *Core) Withdraw(ctx context.Context, source, callID string, res approval.Resolution) (approval.Request, error) {
	if res.Allowed() {
		return approval.Request{}, fmt.Errorf("withdraw call %s of %s: %w", callID, source, ErrWithdrawApproves)
	}
	for _, req := range c.approvals.List() {
		if req.Source != source || req.CallID != callID {
			continue
		}
		if _, err := c.claim(req.ID); err != nil {
			return approval.Request{}, fmt.Errorf("withdraw %s: %w", req.ID, err)
		}
		if _, err := c.Record(ctx, c.resolutionEvents(req, res)...); err != nil {
			// Fail closed: the waiting call is blocked, whatever the outcome.
			c.logger.Error("could not record withdrawn approval; blocking the call", "approval", req.ID, "err", err)
			c.approvals.Deliver(req.ID, approval.Resolution{Outcome: approval.Denied, By: "warden",
				Reason: "blocked: warden could not record the approval's end: " + err.Error()})
			return req, fmt.Errorf("withdraw %s: %w", req.ID, err)
		}
		c.approvals.Deliver(req.ID, res)
		return req, nil
	}
	return approval.Request{}, fmt.Errorf("withdraw call %s of %s: %w", callID, source, approval.ErrNotFound)
}

// CancelPending resolves every waiting approval as canceled (the call is
// blocked) with reason, recording each resolution. The daemon calls it on
// shutdown so no agent waits on a warden that is going away.
func (c *Core) CancelPending(ctx context.Context, reason string) {
	for _, req := range c.approvals.List() {
		if _, err := c.claim(req.ID); err != nil {
			continue
		}
		res := approval.Resolution{Outcome: approval.Canceled, By: "warden", Reason: "blocked: " + reason}
		if _, err := c.Record(ctx, c.resolutionEvents(req, res)...); err != nil {
			c.logger.Error("could not record canceled approval", "approval", req.ID, "err", err)
		}
		c.approvals.Deliver(req.ID, res)
	}
}

// Check is the policy's decision for call, as Gate would start from, without
// recording anything or asking anyone. It is for filtering what a person or
// an agent is shown (search results, listings), never for letting a call
// run: a call runs only through Gate. Failures decide deny, as in Gate.
func (c *Core) Check(call policy.Call) policy.Decision {
	if call.Cwd == "" {
		call.Cwd = call.Workspace
	}
	return c.decide(call)
}

// Refuse records a call a door refused before the policy saw it (a
// control.security switch, an environment that would run code, a
// directory that is no registered workspace, ...) as a tool.call and its
// final deny, so every refusal is in the log like the policy's own. It
// returns the verdict the door answers with; a failure to record is logged
// (the call is refused either way).
func (c *Core) Refuse(ctx context.Context, req GateRequest, rule, reason string) Verdict {
	call := req.Call
	if call.Cwd == "" {
		call.Cwd = call.Workspace
	}
	d := policy.Decision{Action: policy.Deny, Rule: rule, Reason: reason}
	base := event.Event{Session: call.Session, Source: req.Source, Workspace: call.Workspace}
	evs := append(slices.Clip(req.Before),
		withData(base, event.ToolCall, event.ToolCallData{CallID: req.CallID, Tool: call.Tool, Args: call.Args, Cwd: call.Cwd, Extra: req.Extra}),
		withData(base, event.ToolDecision, event.ToolDecisionData{
			CallID: req.CallID, Tool: call.Tool, Decision: string(policy.Deny), Final: true, Reason: reason, Rule: rule,
		}),
	)
	if _, err := c.Record(context.WithoutCancel(ctx), evs...); err != nil {
		c.logger.Error("could not record a refusal", "session", call.Session, "tool", call.Tool, "rule", rule, "err", err)
	}
	return Verdict{Decision: d, Reason: reason, Rule: rule}
}
