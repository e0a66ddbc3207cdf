package supervisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
)

// BridgeSource is the source of approvals bridged from OpenCode's own
// permission system.
const BridgeSource = "opencode/server"

// bridge turns an agent's own permission requests into warden approvals
// and sends the person's answer back. It implements agent.PermissionSink.
//
// A request is gated like any call: a policy deny answers "reject" at once;
// anything else waits for a person (the agent asked for one) until the
// approval deadline, which rejects. A request the agent answered itself, or
// forgot because it restarted, closes the approval and is never answered.
type bridge struct {
	s *Supervisor

	mu      sync.Mutex
	pending map[string]*bridged // by workspace + "\x00" + request id
	// forgot is closed (and replaced) whenever a request leaves pending
	forgot chan struct{}
}

type bridged struct {
	ws     string
	p      agent.Permission
	cancel context.CancelFunc
	// closed is set when the agent answered or forgot the request; the
	// verdict is then not sent.
	closed bool
}

var _ agent.PermissionSink = (*bridge)(nil)

func key(ws, id string) string { return ws + "\x00" + id }

// forgotten returns a channel closed when the next request leaves pending,
// for a reader of PendingPermissions to wait on a change.
func (b *bridge) forgotten() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.forgot == nil {
		b.forgot = make(chan struct{})
	}
	return b.forgot
}

// Asked implements agent.PermissionSink.
func (b *bridge) Asked(ws string, p agent.Permission) {
	k := key(ws, p.ID)
	ctx, cancel := context.WithCancel(context.Background())
	b.mu.Lock()
	if _, dup := b.pending[k]; dup {
		b.mu.Unlock()
		cancel()
		return
	}
	br := &bridged{ws: ws, p: p, cancel: cancel}
	b.pending[k] = br
	b.mu.Unlock()
	go b.gate(ctx, br)
}

func (b *bridge) gate(ctx context.Context, br *bridged) {
	defer br.cancel()
	call := callOf(br.ws, br.p)
	extra := map[string]any{"permission": br.p.Permission, "patterns": br.p.Patterns, "toolCallId": br.p.CallID}
	if orig, line, ok := b.confined(ctx, br.p, call); ok {
		// OpenCode asks about the line warden itself made of an allowed
		// call (its sandbox wrapper, which runs warden's own program from
		// the protected data dir): what is judged, and what a person
		// approves, is the command the agent asked for.
		call.Args["command"] = orig
		extra["confinedLine"] = line
	}
	v := b.s.core.Gate(ctx, core.GateRequest{
		Call:   call,
		CallID: br.p.ID,
		Source: BridgeSource,
		Extra:  extra,
		RequireApproval: fmt.Sprintf("OpenCode asks permission for %s %s",
			br.p.Permission, strings.Join(br.p.Patterns, " ")),
	})
	b.mu.Lock()
	closed := br.closed
	delete(b.pending, key(br.ws, br.p.ID))
	if b.forgot != nil {
		close(b.forgot)
		b.forgot = nil
	}
	b.mu.Unlock()
	if closed {
		return
	}
	reply := agent.ReplyReject
	switch {
	case v.Allowed && v.Always:
		reply = agent.ReplyAlways
	case v.Allowed:
		reply = agent.ReplyOnce
	}
	tr, ok := b.s.tracked(br.ws)
	if !ok {
		b.s.log.Warn("permission answered in warden, but the workspace's agent is gone", "workspace", br.ws, "request", br.p.ID)
		return
	}
	r, ok := tr.p.(agent.Replier)
	if !ok {
		return
	}
	rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Reply(rctx, br.p.ID, reply); err != nil {
		b.s.log.Warn("could not pass warden's answer to the agent", "workspace", br.ws, "request", br.p.ID, "reply", reply, "err", err)
		return
	}
	b.s.log.Info("answered the agent's permission request", "workspace", br.ws, "request", br.p.ID, "reply", reply, "reason", v.Reason)
}

// confined finds, for a bash permission, the call warden confined in the
// same session whose sandbox line is exactly the command asked about
// (tool.confined in the log: only warden writes it), and returns the
// command the agent asked for and the line.
func (b *bridge) confined(ctx context.Context, p agent.Permission, call policy.Call) (orig, line string, ok bool) {
	cmd, _ := call.Args["command"].(string)
	if p.Permission != "bash" || p.Session == "" || cmd == "" {
		return "", "", false
	}
	evs, err := b.s.core.Events(ctx, store.Filter{Session: p.Session, Types: []event.Type{event.ToolConfined}})
	if err != nil {
		b.s.log.Warn("could not read the session's sandbox rewrites; judging the command as asked", "session", p.Session, "err", err)
		return "", "", false
	}
	for i := len(evs) - 1; i >= 0; i-- {
		d, err := event.DataOf[event.ToolConfinedData](evs[i])
		if err != nil || d.Line != cmd || d.Command == "" {
			continue
		}
		if p.CallID != "" && d.CallID != "" && d.CallID != p.CallID {
			continue
		}
		return d.Command, d.Line, true
	}
	return "", "", false
}

// Replied implements agent.PermissionSink: the request was answered, by
// warden (then the gate already returned) or in the agent's own UI.
func (b *bridge) Replied(ws, id string) {
	b.close(ws, id, approval.Resolution{Outcome: approval.Canceled, By: "opencode",
		Reason: "answered in OpenCode itself; warden's approval is closed"})
}

// Lost implements agent.PermissionSink.
func (b *bridge) Lost(ws string, ids []string) {
	for _, id := range ids {
		b.close(ws, id, approval.Resolution{Outcome: approval.Lost, By: "warden",
			Reason: "OpenCode restarted and no longer knows this request; it was not answered"})
	}
}

// forget closes every request of the workspace still waiting in warden as
// lost, with reason: its provider is gone (`warden agents stop`, another
// agent type took the workspace), so an answer could reach nobody.
func (b *bridge) forget(ws, reason string) {
	b.mu.Lock()
	var ids []string
	for _, br := range b.pending {
		if br.ws == ws && !br.closed {
			ids = append(ids, br.p.ID)
		}
	}
	b.mu.Unlock()
	for _, id := range ids {
		b.close(ws, id, approval.Resolution{Outcome: approval.Lost, By: "warden", Reason: reason})
	}
}

func (b *bridge) close(ws, id string, res approval.Resolution) {
	b.mu.Lock()
	br, ok := b.pending[key(ws, id)]
	if ok {
		br.closed = true
	}
	b.mu.Unlock()
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.s.core.Withdraw(ctx, BridgeSource, id, res); err != nil {
		// Not waiting yet (or already answered): stop the gate instead.
		br.cancel()
	}
}

func (b *bridge) pendingByWorkspace() map[string][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string][]string{}
	for _, br := range b.pending {
		out[br.ws] = append(out[br.ws], br.p.ID)
	}
	return out
}

// callOf maps an OpenCode permission onto the call the policy judges.
func callOf(ws string, p agent.Permission) policy.Call {
	meta := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := p.Metadata[k].(string); ok && v != "" {
				return v
			}
		}
		if len(p.Patterns) > 0 {
			return p.Patterns[0]
		}
		return ""
	}
	call := policy.Call{Workspace: ws, Cwd: ws, Session: p.Session, Source: "opencode"}
	switch p.Permission {
	case "bash":
		call.Tool, call.Args = "bash", map[string]any{"command": meta("command")}
	case "edit", "write", "patch":
		call.Tool, call.Args = "edit", map[string]any{"filePath": meta("filepath", "filePath", "path")}
	case "read", "external_directory", "list", "glob", "grep":
		call.Tool, call.Args = "read", map[string]any{"filePath": meta("filepath", "filePath", "path")}
	case "webfetch":
		call.Tool, call.Args = "webfetch", map[string]any{"url": meta("url")}
	default:
		call.Tool, call.Args = p.Permission, map[string]any{"patterns": p.Patterns}
	}
	return call
}
