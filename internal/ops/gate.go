package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/debug"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/policy/shell"
	"github.com/warden-dev/warden/internal/terminal"
	"github.com/warden-dev/warden/internal/wsfs"
)

// Caller is who asks for an operation: the door, the session and the call,
// as they go into the gated and recorded events.
type Caller struct {
	// Source names the door (and agent), e.g. "control" or "mcp".
	Source string
	// Session is the agent session the call belongs to.
	Session string
	// CallID is the door's id for the call.
	CallID string
	// Extra holds door-specific fields kept in the tool.call record.
	Extra map[string]any
	// RequireApproval, when set, makes destructive operations wait for a
	// person even when the policy allows them (the control door's
	// security.requireApproval); it is the reason shown.
	RequireApproval string
	// OwnResult says the caller records the call's one tool.result itself
	// (warden's agent, with the content its model is shown): the
	// operation then records none.
	OwnResult bool
	// Before, when set, is called when the operation's call is recorded
	// (gated or refused); the events it returns are recorded in the same
	// transaction, ahead of the call (core.GateRequest.Before).
	Before func() []event.Event
}

// ErrDenied reports an operation the policy, or a person, refused. The
// error is a *DeniedError.
var ErrDenied = errors.New("denied by warden")

// DeniedError is an operation that did not pass the gate.
type DeniedError struct {
	// Tool is the policy tool the operation was judged as.
	Tool string
	// Verdict is the core's answer (its Reason, Rule and, when a person
	// was asked, ApprovalID and Outcome).
	Verdict core.Verdict
}

func (e *DeniedError) Error() string {
	rule := e.Verdict.Rule
	if rule == "" {
		rule = "(none)"
	}
	if e.Verdict.ApprovalID != "" {
		return fmt.Sprintf("%s: %s was not approved (approval %s, rule %s): %s", ErrDenied, e.Tool, e.Verdict.ApprovalID, rule, e.Verdict.Reason)
	}
	return fmt.Sprintf("%s: %s was blocked by policy rule %s: %s", ErrDenied, e.Tool, rule, e.Verdict.Reason)
}

// Unwrap makes errors.Is(err, ErrDenied) hold.
func (e *DeniedError) Unwrap() error { return ErrDenied }

// Permit is proof that one call passed the gate in one workspace. The
// workspace's mechanisms that touch the disk or start processes are
// reachable only through a Permit, so no door can run an operation the
// policy did not see. The zero Permit grants nothing.
type Permit struct {
	w       *Workspace
	verdict core.Verdict
}

// Verdict is the core's answer that allowed the call.
func (p Permit) Verdict() core.Verdict { return p.verdict }

func (p Permit) ws() *Workspace {
	if p.w == nil || !p.verdict.Allowed {
		// A door built a Permit by hand: a programming error that must
		// never run anything.
		panic("ops: use of a Permit that did not come from Workspace.Gate")
	}
	return p.w
}

// FS is the workspace's file system (os.Root-sandboxed).
func (p Permit) FS() *wsfs.FS { return p.ws().fs }

// Git is the workspace's git.
func (p Permit) Git() *gitcli.Repo { return p.ws().git }

// Debug is the workspace's debuggers.
func (p Permit) Debug() *debug.Manager { return p.ws().debug }

// Terminals is the workspace's terminal manager.
func (p Permit) Terminals() *terminal.Manager { return p.ws().terms }

// Gate asks the core about the call tool(args), run in cwd ("" means the
// workspace root), and returns a Permit only when it may run. A refusal is
// a *DeniedError. destructive operations wait for a person when the caller
// says so (Caller.RequireApproval).
func (w *Workspace) Gate(ctx context.Context, c Caller, cwd, tool string, args map[string]any, destructive bool) (Permit, error) {
	if cwd == "" {
		cwd = w.root
	}
	if root, err := w.svc.Resolve(w.root); err != nil || root != w.root {
		// removed since: nothing runs in it any more, and its services stop
		go w.svc.Forget(w.root)
		return Permit{}, &NotRegisteredError{Path: w.root}
	}
	req := core.GateRequest{
		Call: policy.Call{
			Tool: tool, Args: args, Cwd: cwd, Workspace: w.root,
			Session: c.Session, Source: c.Source,
		},
		CallID: c.CallID,
		Source: c.Source,
		Extra:  maps.Clone(c.Extra),
	}
	if c.Before != nil {
		req.Before = c.Before()
	}
	if destructive && c.RequireApproval != "" {
		req.RequireApproval = c.RequireApproval
	}
	v := w.svc.core().Gate(ctx, req)
	if !v.Allowed {
		return Permit{}, &DeniedError{Tool: tool, Verdict: v}
	}
	return Permit{w: w, verdict: v}, nil
}

// GateShell gates an operation as the shell command line argv amounts to,
// so the policy's shell rules (rm, git, ...) apply to it.
func (w *Workspace) GateShell(ctx context.Context, c Caller, description string, destructive bool, argv ...string) (Permit, error) {
	return w.Gate(ctx, c, "", "bash", map[string]any{"command": shell.Join(argv...), "description": description}, destructive)
}

// Record records the outcome of an operation that changed something
// (nothing when the caller records its own: Caller.OwnResult).
func (w *Workspace) Record(ctx context.Context, c Caller, tool string, err error) {
	if c.OwnResult {
		return
	}
	ok := err == nil
	data := event.ToolResultData{CallID: c.CallID, Tool: tool, Success: &ok, Extra: maps.Clone(c.Extra)}
	if err != nil {
		data.Error = err.Error()
	}
	b, merr := event.Encode(data)
	if merr != nil {
		w.svc.log.Warn("could not encode an operation's result", "tool", tool, "err", merr)
		return
	}
	if _, rerr := w.svc.core().Record(background(ctx), event.Event{Session: c.Session, Type: event.ToolResult, Source: c.Source, Workspace: w.root, Data: b}); rerr != nil {
		w.svc.log.Warn("could not record an operation's result", "tool", tool, "source", c.Source, "err", rerr)
	}
}

// readable reports whether the policy would let an agent read the file abs
// (without asking anyone): search results and listings leave out what a
// read would refuse.
func (w *Workspace) readable(c Caller, abs string) bool {
	d := w.svc.core().Check(policy.Call{
		Tool: "read", Args: map[string]any{"filePath": abs}, Cwd: w.root, Workspace: w.root,
		Session: c.Session, Source: c.Source,
	})
	return d.Action == policy.Allow
}

// Refuse records a call refused before the policy saw it (an environment
// that would run code, typed text that cannot be judged, a door's own
// settings) as a tool.call and its final deny, and returns err: every
// refusal is in the log, like the policy's.
func (w *Workspace) Refuse(ctx context.Context, c Caller, cwd, tool string, args map[string]any, rule string, err error) error {
	if cwd == "" {
		cwd = w.root
	}
	req := core.GateRequest{
		Call: policy.Call{
			Tool: tool, Args: args, Cwd: cwd, Workspace: w.root,
			Session: c.Session, Source: c.Source,
		},
		CallID: c.CallID,
		Source: c.Source,
		Extra:  maps.Clone(c.Extra),
	}
	if c.Before != nil {
		req.Before = c.Before()
	}
	w.svc.core().Refuse(ctx, req, rule, err.Error())
	return err
}
