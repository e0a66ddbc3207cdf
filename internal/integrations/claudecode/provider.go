package claudecode

import (
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/agent"
)

// DefaultIdleAfter is how long a busy agent may stay silent before the
// provider assumes it stopped (the spec's inactivity fallback: a Stop hook
// that never arrived).
const DefaultIdleAfter = 10 * time.Minute

// EnvSessionID is the variable Environment sets to the root session's id.
const EnvSessionID = "WARDEN_CLAUDE_SESSION_ID"

// ProviderOptions configures a Provider.
type ProviderOptions struct {
	// Workspace is the absolute workspace path; events of other workspaces
	// are ignored.
	Workspace string
	// Logger receives the provider's records (nil: discarded).
	Logger *slog.Logger
	// Env is the base of Environment (WARDEN_* variables of warden's
	// doors); it is copied.
	Env map[string]string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// IdleAfter is the inactivity fallback (<= 0: DefaultIdleAfter).
	IdleAfter time.Duration
}

// Provider is agent.Provider for Claude Code in one workspace. Claude Code
// runs no server warden connects to: its hooks reach warden's hook door,
// which records them as events, and the supervisor passes every event of
// the door (Source event.SourceClaudeCodeHooks) in this workspace to Observe. The status is
// derived from them:
//
//   - session.start of a session without data.parent: it becomes the root
//     session (replacing any earlier one) and the status is idle; a
//     session.start with data.parent (a subagent; see the hook door's child session id)
//     registers a child session of the root. A session.start of the root
//     with data.startSource "compact" (Claude compacted mid-turn) changes
//     nothing.
//   - message.user, tool.call and tool.result of the root or a child: busy.
//   - session.status with data.status "idle" (Stop hook) or session.error
//     of the root: idle (children's busy marks are dropped too; a child
//     still working turns busy again with its next tool event).
//   - approval.requested of the root or a child: waiting, until every
//     requested approval is resolved (approval.resolved) or its session
//     ends; then the status is what it was.
//   - Claude's own permission prompt (event.AgentPermissionRequest, or an
//     event.AgentNotification with data.notificationType
//     "permission_prompt") in the root or a child: waiting, until that
//     session's next activity (the tool's result, a new call or prompt, a
//     Stop, an error, its end) shows the person answered.
//   - a notification "idle_prompt" (Claude waits for the user's input) of
//     the root: idle.
//   - session.end of the root: none (everything about the session is
//     forgotten); of a child: the child is forgotten.
//   - subagent.spawn / subagent.complete and everything else only count as
//     activity; Claude's other notifications are ignored.
//
// Every event of the root or a child restarts the inactivity clock; Tick
// turns busy into idle after IdleAfter without one (waiting never times
// out: warden's approval deadline ends it). Events of a session that is
// neither root nor child are ignored, except that while no root is known
// the first activity (message, tool, status or approval event) adopts its
// session as root, for a provider started mid-session.
//
// All methods are safe for concurrent use. Status callbacks run on the
// goroutine that caused the change, outside the provider's lock, one at a
// time and in order; a callback may call any method of the provider.
type Provider struct {
	workspace string
	logger    *slog.Logger
	env       map[string]string
	now       func() time.Time
	idleAfter time.Duration

	mu        sync.Mutex
	marked    bool                // MarkActive was called
	root      string              // the root session, "" when none
	lastEnded string              // the root that ended last: its stragglers are ignored
	children  map[string]struct{} // the root's subagent sessions
	busy      map[string]bool     // busy marks of the root and children
	pending   map[string]string   // approval id → session
	prompting map[string]bool     // sessions showing Claude's own permission prompt
	last      time.Time           // the last event of the root or a child
	status    agent.Status

	subs       []subscription
	nextSub    uint64
	queue      []delivery
	delivering bool
	disposed   bool
}

type subscription struct {
	id uint64
	fn func(agent.Status)
}

type delivery struct {
	id uint64
	s  agent.Status
}

var _ agent.Provider = (*Provider)(nil)

// NewProvider returns the provider of one workspace, with status none.
func NewProvider(opts ProviderOptions) *Provider {
	p := &Provider{
		workspace: opts.Workspace,
		logger:    opts.Logger,
		env:       maps.Clone(opts.Env),
		now:       opts.Now,
		idleAfter: opts.IdleAfter,
		children:  map[string]struct{}{},
		busy:      map[string]bool{},
		pending:   map[string]string{},
		prompting: map[string]bool{},
		status:    agent.StatusNone,
	}
	if p.workspace != "" {
		p.workspace = filepath.Clean(p.workspace)
	}
	if p.logger == nil {
		p.logger = slog.New(slog.DiscardHandler)
	}
	p.logger = p.logger.With("agent", string(agent.ClaudeCode), "workspace", p.workspace)
	if p.now == nil {
		p.now = time.Now
	}
	if p.idleAfter <= 0 {
		p.idleAfter = DefaultIdleAfter
	}
	return p
}

// Connect does nothing: Claude Code has no server to connect to (its hooks
// come to warden). The port is ignored.
func (*Provider) Connect(context.Context, int) error { return nil }

// Disconnect does nothing (see Connect); what is known is kept.
func (*Provider) Disconnect() {}

// Reconnect does nothing (see Connect).
func (*Provider) Reconnect(context.Context) error { return nil }

// eventData holds the fields of event data the provider reads.
type eventData struct {
	Parent      string `json:"parent"`
	Status      string `json:"status"`
	ApprovalID  string `json:"approvalId"`
	StartSource string `json:"startSource"`
	// NotificationType is Claude's notification_type of a notification
	// ("permission_prompt", "idle_prompt", ...).
	NotificationType string `json:"notificationType"`
}

// Claude Code's notification types the status follows.
const (
	notifyPermissionPrompt = "permission_prompt"
	notifyIdlePrompt       = "idle_prompt"
)

// Observe applies one event of the hook door. Events of another workspace
// or source, without a session, or arriving after Dispose are ignored.
func (p *Provider) Observe(e event.Event) {
	if e.Source != event.SourceClaudeCodeHooks || e.Workspace == "" || filepath.Clean(e.Workspace) != p.workspace || e.Session == "" {
		return
	}
	var d eventData
	if len(e.Data) > 0 {
		if err := json.Unmarshal(e.Data, &d); err != nil {
			p.logger.Debug("event data unreadable; using the type alone", "type", e.Type, "session", e.Session, "err", err)
		}
	}
	p.mu.Lock()
	if p.disposed {
		p.mu.Unlock()
		return
	}
	p.apply(e, d)
	p.updateLocked()
	p.mu.Unlock()
	p.flush()
}

// apply changes the state for one event. p.mu is held.
func (p *Provider) apply(e event.Event, d eventData) {
	sess := e.Session
	switch e.Type {
	case event.AgentNotification:
		if d.NotificationType != notifyPermissionPrompt && d.NotificationType != notifyIdlePrompt {
			return // Claude's other notices say nothing about its status
		}
	case event.SessionStart:
		p.start(sess, d)
		return
	}
	if !p.tracked(sess) && !p.adopt(sess, e.Type) {
		p.logger.Debug("event of an untracked session ignored", "type", e.Type, "session", sess, "root", p.root)
		return
	}
	p.last = p.now()
	isRoot := sess == p.root
	switch e.Type {
	case event.MessageUser, event.ToolCall, event.ToolResult:
		p.busy[sess] = true
		delete(p.prompting, sess) // the prompt was answered
	case event.AgentPermissionRequest:
		p.prompting[sess] = true
	case event.AgentNotification:
		switch {
		case d.NotificationType == notifyPermissionPrompt:
			p.prompting[sess] = true
		case isRoot: // idle_prompt: Claude waits for the user's next prompt
			clear(p.busy)
			clear(p.prompting)
		}
	case event.SessionStatus:
		delete(p.prompting, sess)
		switch {
		case !isRoot:
		case d.Status == string(agent.StatusIdle):
			clear(p.busy)
			clear(p.prompting)
		case d.Status == string(agent.StatusBusy):
			p.busy[sess] = true
		}
	case event.SessionError:
		delete(p.prompting, sess)
		if isRoot {
			clear(p.busy)
			clear(p.prompting)
		}
	case event.ApprovalRequested:
		if d.ApprovalID != "" {
			p.pending[d.ApprovalID] = sess
		}
	case event.ApprovalResolved:
		delete(p.pending, d.ApprovalID)
	case event.SessionEnd:
		if isRoot {
			p.logger.Info("claude session ended", "session", sess)
			p.lastEnded, p.root, p.marked = sess, "", false
			clear(p.children)
			clear(p.busy)
			clear(p.pending)
			clear(p.prompting)
			return
		}
		p.forgetChild(sess)
	}
}

// start handles session.start. p.mu is held.
func (p *Provider) start(sess string, d eventData) {
	if d.Parent != "" { // a subagent
		if p.root == "" && d.Parent != p.lastEnded {
			p.setRoot(d.Parent)
		}
		if d.Parent != p.root && !p.isChild(d.Parent) {
			p.logger.Debug("subagent of an untracked session ignored", "session", sess, "parent", d.Parent, "root", p.root)
			return
		}
		p.children[sess] = struct{}{}
		p.last = p.now()
		return
	}
	p.last = p.now()
	if sess == p.root {
		if d.StartSource == "compact" {
			return // compaction mid-turn: Claude goes on as it was
		}
		clear(p.busy)
		return
	}
	if p.root != "" {
		p.logger.Info("a new claude session replaces the root session", "session", sess, "previous", p.root)
	}
	p.setRoot(sess)
}

// setRoot makes sess the root session, forgetting the previous one's state.
// p.mu is held.
func (p *Provider) setRoot(sess string) {
	p.root = sess
	clear(p.children)
	clear(p.busy)
	clear(p.pending)
	clear(p.prompting)
}

// tracked reports whether sess is the root or a child of it, registering a
// child whose session.start was missed (its id is the hook door's child session id of the
// root). p.mu is held.
func (p *Provider) tracked(sess string) bool {
	if p.root == "" {
		return false
	}
	if sess == p.root || p.isChild(sess) {
		return true
	}
	if strings.HasPrefix(sess, p.root+"/") {
		p.children[sess] = struct{}{}
		return true
	}
	return false
}

// adopt makes sess (or, for a child id, its parent) the root when none is
// known and t is activity. p.mu is held.
func (p *Provider) adopt(sess string, t event.Type) bool {
	if p.root != "" {
		return false
	}
	switch t {
	case event.MessageUser, event.ToolCall, event.ToolResult, event.SessionStatus, event.ApprovalRequested, event.AgentPermissionRequest:
	default:
		return false
	}
	root, _, isChild := strings.Cut(sess, "/")
	if root == p.lastEnded {
		return false
	}
	p.logger.Info("adopting a running claude session", "session", root)
	p.setRoot(root)
	if isChild {
		p.children[sess] = struct{}{}
	}
	return true
}

func (p *Provider) isChild(sess string) bool {
	_, ok := p.children[sess]
	return ok
}

// forgetChild drops a child session and what waits in it. p.mu is held.
func (p *Provider) forgetChild(sess string) {
	delete(p.children, sess)
	delete(p.busy, sess)
	delete(p.prompting, sess)
	for id, s := range p.pending {
		if s == sess {
			delete(p.pending, id)
		}
	}
}

// Tick applies the inactivity fallback: a busy agent with no event for
// IdleAfter becomes idle. The supervisor calls it periodically.
func (p *Provider) Tick() {
	p.mu.Lock()
	if p.disposed {
		p.mu.Unlock()
		return
	}
	if p.status == agent.StatusBusy {
		if silent := p.now().Sub(p.last); silent >= p.idleAfter {
			p.logger.Info("no hook event for a while; assuming claude is idle", "silent", silent.Round(time.Second), "session", p.root)
			clear(p.busy)
		}
	}
	p.updateLocked()
	p.mu.Unlock()
	p.flush()
}

// MarkActive notes that Claude reached warden: with no status yet the
// status becomes idle. Calls while marked change nothing (the MCP door
// calls it on every request).
func (p *Provider) MarkActive() {
	p.mu.Lock()
	if p.disposed || p.marked {
		p.mu.Unlock()
		return
	}
	p.marked = true
	p.updateLocked()
	p.mu.Unlock()
	p.flush()
}

// compute derives the status from the state. p.mu is held.
func (p *Provider) compute() agent.Status {
	switch {
	case p.root == "" && !p.marked:
		return agent.StatusNone
	case len(p.pending) > 0 || len(p.prompting) > 0:
		return agent.StatusWaiting
	}
	for _, b := range p.busy {
		if b {
			return agent.StatusBusy
		}
	}
	return agent.StatusIdle
}

// updateLocked recomputes the status and queues a delivery to every
// subscriber when it changed. p.mu is held.
func (p *Provider) updateLocked() {
	s := p.compute()
	if s == p.status {
		return
	}
	p.logger.Debug("status changed", "from", p.status, "to", s, "session", p.root)
	p.status = s
	for _, sub := range p.subs {
		p.queue = append(p.queue, delivery{sub.id, s})
	}
}

// flush delivers queued statuses, unless another call (on this or another
// goroutine) is already delivering: that one delivers them, in order.
func (p *Provider) flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.delivering {
		return
	}
	p.delivering = true
	defer func() { p.delivering = false }()
	for len(p.queue) > 0 {
		d := p.queue[0]
		p.queue = p.queue[1:]
		fn := p.subscriber(d.id)
		if fn == nil {
			continue // unsubscribed meanwhile
		}
		p.mu.Unlock()
		p.call(fn, d.s)
		p.mu.Lock()
	}
	p.queue = nil
}

// call runs one callback; a panicking callback is logged, not spread into
// the goroutine that reported the event.
func (p *Provider) call(fn func(agent.Status), s agent.Status) {
	defer func() {
		if r := recover(); r != nil {
			p.logger.Error("status callback panicked", "status", s, "panic", r)
		}
	}()
	fn(s)
}

func (p *Provider) subscriber(id uint64) func(agent.Status) {
	for _, sub := range p.subs {
		if sub.id == id {
			return sub.fn
		}
	}
	return nil
}

// Status returns the current status.
func (p *Provider) Status() agent.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// OnStatusChange registers fn: it is called with the current status, then
// with every change, in order. The first call happens before
// OnStatusChange returns unless another goroutine is delivering statuses
// at that moment (then that goroutine makes it, still before any later
// change). After Dispose it registers nothing.
func (p *Provider) OnStatusChange(fn func(agent.Status)) (unsubscribe func()) {
	p.mu.Lock()
	if p.disposed || fn == nil {
		p.mu.Unlock()
		return func() {}
	}
	p.nextSub++
	id := p.nextSub
	p.subs = append(p.subs, subscription{id, fn})
	p.queue = append(p.queue, delivery{id, p.status})
	p.mu.Unlock()
	p.flush()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			for i, sub := range p.subs {
				if sub.id == id {
					p.subs = append(p.subs[:i:i], p.subs[i+1:]...)
					return
				}
			}
		})
	}
}

// Session returns the root session, once one is known. Claude Code has no
// port to attach to; Port is 0.
func (p *Provider) Session() (agent.SessionInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.root == "" {
		return agent.SessionInfo{}, false
	}
	return agent.SessionInfo{SessionID: p.root}, true
}

// Environment returns a copy of ProviderOptions.Env, with EnvSessionID set
// to the root session once one is known.
func (p *Provider) Environment() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	env := maps.Clone(p.env)
	if env == nil {
		env = map[string]string{}
	}
	if p.root != "" {
		env[EnvSessionID] = p.root
	}
	return env
}

// Dispose drops every subscriber (and any status not yet delivered); later
// events, ticks and MarkActive calls are ignored.
func (p *Provider) Dispose() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.disposed = true
	p.subs = nil
	p.queue = nil
}
