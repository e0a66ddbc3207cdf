// Package agent is warden's own agent: a loop that streams a model's
// answer through a provider (internal/provider), runs the tool calls it
// asks for as warden's operations (internal/ops, so every call passes the
// policy's gate and is recorded), and keeps the whole life of a session in
// warden's event log. The log is the transcript: the model's view is
// computed from it at every step, so a session survives a restart, forks
// at any event, and is compacted by a marker event, never a rewrite.
//
// One turn runs at a time per session (a second one is ErrBusy, never
// queued). Abort reaches the provider's stream, approvals still waiting,
// the tool goroutines, shell process groups and subagents; every tool call
// gets exactly one tool.result.
package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/store"
)

// Source is the source of every event warden's agent records.
const Source = "warden/agent"

// Errors the engine answers with; the Agent API door maps them to its
// codes.
var (
	// ErrSessionNotFound: no session of warden's agent has the id.
	ErrSessionNotFound = errors.New("session not found")
	// ErrBusy: the session is running a turn; nothing is queued.
	ErrBusy = errors.New("agent busy: the session is running a turn (abort it, or wait for agent.turn_complete)")
	// ErrContextOverflow: the next request does not fit the model's
	// window and compaction cannot save anything.
	ErrContextOverflow = errors.New("context overflow")
	// ErrInvalid: a caller's argument is not valid (an empty message, an
	// event that is not the session's).
	ErrInvalid = errors.New("invalid argument")
	// ErrAborted: agent.abort stopped the operation (a forced compaction)
	// before it was done; nothing was recorded.
	ErrAborted = errors.New("aborted")
)

// Defaults of Options.
const (
	DefaultMaxSteps      = 50
	DefaultMaxDepth      = 2
	DefaultMaxSubagents  = 4
	DefaultContextWindow = 128000
	DefaultMaxOutput     = 4096
)

// Options configure an Engine.
type Options struct {
	// Core records every event; Ops runs the tools (through the gate);
	// Models resolves "provider/model". All three are required.
	Core   *core.Core
	Ops    *ops.Service
	Models *provider.Registry
	// Logger receives operational logs (discarded when nil).
	Logger *slog.Logger
	// MaxSteps bounds the steps of one turn (DefaultMaxSteps).
	MaxSteps int
	// MaxDepth bounds subagent nesting (DefaultMaxDepth).
	MaxDepth int
	// MaxSubagents bounds the subagents running at once
	// (DefaultMaxSubagents).
	MaxSubagents int
	// MaxOutput is the output reserved in the window for each request
	// (DefaultMaxOutput, or less when the model says its limit).
	MaxOutput int
	// ContextWindow, when set, gives a model's window in tokens
	// (0: ask the provider; DefaultContextWindow when it does not know).
	ContextWindow func(model string) int
	// KeepTurns is how many of the last user turns compaction keeps word
	// for word (1 when 0).
	KeepTurns int
	// System is the system prompt (a built-in one when empty).
	System string
}

// Notice is a notification for the clients following a session: the
// Agent API's streaming notifications (agent.text_delta,
// agent.tool_start, agent.tool_end, agent.turn_complete, session.status,
// subagent.spawn, subagent.complete). Each is sent once what it announces
// is durable, except agent.text_delta (and thinking deltas), which are
// notifications only: an answer's deltas are sent once what it answers
// (the user's message, the previous step's results) is durable.
type Notice struct {
	// Session is the session the notice belongs to (a subagent notice
	// belongs to the parent).
	Session string
	Method  string
	Params  map[string]any
}

// Engine runs warden's agent sessions. Its methods are safe for
// concurrent use.
type Engine struct {
	opts Options
	core *core.Core
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	sem    chan struct{}

	// tools are the tool sets without and with task (toolSet) and defs
	// their definitions (toolDefs), built once: read only
	tools [2]map[string]tool
	defs  [2][]provider.Tool

	// roots maps a session id to its workspace root, which never changes:
	// the door checks it on every call without reading the session. A
	// deleted session leaves it.
	roots sync.Map

	// hist holds the sessions' histories as their last turn began, so the
	// next turn reads only the events after them (refresh), not the whole
	// session again (see current).
	hmu  sync.Mutex
	hist map[string]*history

	mu      sync.Mutex
	closed  bool
	runs    map[string]*run
	subs    map[int]func(Notice)
	nextSub int
}

// run is one turn in progress.
type run struct {
	ctx     context.Context
	cancel  context.CancelCauseFunc
	done    chan struct{}
	started time.Time
	result  TurnResult
	err     error
}

// New returns an engine. Call Start before serving it.
func New(opts Options) (*Engine, error) {
	if opts.Core == nil || opts.Ops == nil || opts.Models == nil {
		return nil, errors.New("agent: Options.Core, Ops and Models are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxSubagents <= 0 {
		opts.MaxSubagents = DefaultMaxSubagents
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.KeepTurns <= 0 {
		opts.KeepTurns = 1
	}
	if opts.System == "" {
		opts.System = defaultSystem
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Engine{
		opts: opts, core: opts.Core, log: opts.Logger, ctx: ctx, cancel: cancel,
		sem:  make(chan struct{}, opts.MaxSubagents),
		runs: map[string]*run{}, subs: map[int]func(Notice){}, hist: map[string]*history{},
	}
	e.tools = [2]map[string]tool{e.buildTools(false), e.buildTools(true)}
	e.defs = [2][]provider.Tool{defs(e.tools[0]), defs(e.tools[1])}
	return e, nil
}

const defaultSystem = `You are warden's coding agent, working in the workspace given below. Use the tools to read, search and change files and to run commands; every call is checked by warden's policy, and a refused call comes back with warden's reason: do not retry it in another form. Be concise.`

// Close aborts every turn still running and waits for their teardown.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	return nil
}

// Subscribe registers f for every notice and returns the function that
// removes it. f is called from the engine's goroutines and must not block.
func (e *Engine) Subscribe(f func(Notice)) (remove func()) {
	e.mu.Lock()
	id := e.nextSub
	e.nextSub++
	e.subs[id] = f
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		delete(e.subs, id)
		e.mu.Unlock()
	}
}

func (e *Engine) notify(session, method string, params map[string]any) {
	e.mu.Lock()
	fs := make([]func(Notice), 0, len(e.subs))
	for _, f := range e.subs {
		fs = append(fs, f)
	}
	e.mu.Unlock()
	n := Notice{Session: session, Method: method, Params: params}
	for _, f := range fs {
		f(n)
	}
}

// record makes events durable (with a context that outlives an abort: a
// result is recorded even when the caller is gone).
func (e *Engine) record(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return e.core.Record(rctx, evs...)
}

func ev(session, workspace string, t event.Type, v any) event.Event {
	return event.Event{Session: session, Type: t, Source: Source, Workspace: workspace, Data: mustJSON(v)}
}

func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "ag_" + hex.EncodeToString(b[:])
}

// Start finishes what a previous run of warden left open: every tool call
// of warden's agent that has no result gets one ("interrupted"), and a
// session whose turn was cut short is marked idle with stop reason
// "interrupted", so every history is valid for the provider again.
func (e *Engine) Start(ctx context.Context) error {
	evs, err := e.core.Events(ctx, store.Filter{Types: []event.Type{event.SessionStart, event.SessionFork}})
	if err != nil {
		return fmt.Errorf("agent: list sessions: %w", err)
	}
	seen := map[string]bool{}
	for _, s := range evs {
		if s.Source != Source || seen[s.Session] {
			continue
		}
		seen[s.Session] = true
		h, err := e.readHistory(ctx, s.Session)
		if errors.Is(err, ErrSessionNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if len(h.open) == 0 && !h.busy {
			continue
		}
		var out []event.Event
		for _, c := range h.open {
			out = append(out, ev(h.id, h.workspace, event.ToolResult, ResultData{
				CallID: c.ID, ToolID: c.ID, Tool: c.Name, IsError: true, Outcome: "interrupted",
				Content: "interrupted: warden stopped while this call was running; side effects may have happened",
			}))
		}
		out = append(out, ev(h.id, h.workspace, event.SessionStatus, StatusData{Status: "idle", StopReason: "interrupted", Turn: h.turns}))
		if _, err := e.record(ctx, out...); err != nil {
			return fmt.Errorf("agent: close the calls session %s left open: %w", h.id, err)
		}
		e.log.Info("closed a turn a previous run left open", "session", h.id, "calls", len(h.open))
	}
	return nil
}

// Create starts a session in the registered workspace that dir names,
// with model ("provider/model").
func (e *Engine) Create(ctx context.Context, dir, model string) (string, error) {
	root, err := e.opts.Ops.Resolve(dir)
	if err != nil {
		return "", err
	}
	p, _, err := e.opts.Models.Resolve(model)
	if err != nil {
		return "", err
	}
	id := newSessionID()
	stored, err := e.record(ctx, ev(id, root, event.SessionStart, StartData{WorkingDirectory: root, Model: model, Provider: p.Name()}))
	if err != nil {
		return "", err
	}
	e.roots.Store(id, root)
	// the new session's history is its one event: the first turn reads
	// only what came after it, not the whole session
	if h, err := foldHistory(id, stored); err == nil {
		e.keep(h)
	}
	return id, nil
}

// Session is a session of warden's agent as the Agent API lists it.
type Session struct {
	ID               string         `json:"id"`
	WorkingDirectory string         `json:"workingDirectory"`
	Model            string         `json:"model"`
	Status           string         `json:"status"`
	ParentSessionID  string         `json:"parentSessionId,omitempty"`
	ForkedFrom       *ForkData      `json:"forkedFrom,omitempty"`
	CreatedAt        time.Time      `json:"createdAt"`
	UpdatedAt        time.Time      `json:"updatedAt"`
	LastSequence     int64          `json:"lastSequence"`
	Turns            int            `json:"turns"`
	TokenUsage       provider.Usage `json:"tokenUsage"`
	PendingApprovals []string       `json:"pendingApprovals"`
	ToolCalls        int            `json:"toolCalls"`
	Denied           int            `json:"denied"`
}

// Get describes session id.
func (e *Engine) Get(ctx context.Context, id string) (Session, error) {
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return Session{}, err
	}
	return e.describe(ctx, h), nil
}

func (e *Engine) describe(ctx context.Context, h *history) Session {
	s := Session{
		ID: h.id, WorkingDirectory: h.workspace, Model: h.model, ParentSessionID: h.parent, ForkedFrom: h.forkedOf,
		LastSequence: h.lastSeq(), Turns: h.turns, TokenUsage: h.usage, PendingApprovals: []string{}, Status: "idle",
	}
	if len(h.events) > 0 {
		s.CreatedAt, s.UpdatedAt = h.events[0].Time, h.events[len(h.events)-1].Time
	}
	if ts, ok, err := e.core.Sessions().Get(ctx, h.id); err == nil && ok {
		s.Status = string(ts.Status)
		s.PendingApprovals = append(s.PendingApprovals, ts.PendingApprovals...)
		s.ToolCalls, s.Denied = ts.ToolCalls, ts.Denied
	}
	if e.running(h.id) && s.Status != "waiting" {
		s.Status = "busy"
	}
	return s
}

// List returns the sessions of warden's agent, newest activity first, in
// the workspace dir names when dir is set, at most limit (all when 0).
func (e *Engine) List(ctx context.Context, dir string, limit int) ([]Session, error) {
	var root string
	if dir != "" {
		r, err := e.opts.Ops.Resolve(dir)
		if err != nil {
			return nil, err
		}
		root = r
	}
	all, err := e.core.Sessions().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].LastTime.After(all[j].LastTime) })
	out := []Session{}
	for _, ts := range all {
		if ts.Source != "warden" || ts.Status == "none" || (root != "" && ts.Workspace != root) {
			continue
		}
		h, err := e.readHistory(ctx, ts.ID)
		if errors.Is(err, ErrSessionNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, e.describe(ctx, h))
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// Delete ends session id (session.end, reason "deleted"): the log keeps
// its events; the Agent API no longer serves it. A running turn is
// aborted first.
func (e *Engine) Delete(ctx context.Context, id string) error {
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return err
	}
	e.Abort(ctx, id)
	_, err = e.record(ctx, ev(id, h.workspace, event.SessionEnd, EndData{Reason: "deleted", Summary: endSummary(h)}))
	e.roots.Delete(id)
	return err
}

// endSummary is session.end's summary (a key field of the spec's
// session.end): how many turns the session had and the start of its last
// answer.
func endSummary(h *history) string {
	s := fmt.Sprintf("%d turn(s)", h.turns)
	for i := len(h.events) - 1; i >= 0; i-- {
		if h.events[i].Type != event.MessageAssistant {
			continue
		}
		if last := strings.TrimSpace(dataAt[AssistantData](h, i).Content); last != "" {
			if r := []rune(last); len(r) > 200 {
				last = string(r[:200]) + "..."
			}
			return s + "; last answer: " + last
		}
	}
	return s
}

// SwitchModel makes model the session's model from its next step on.
func (e *Engine) SwitchModel(ctx context.Context, id, model string) error {
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return err
	}
	p, _, err := e.opts.Models.Resolve(model)
	if err != nil {
		return err
	}
	status := "idle"
	if e.running(id) {
		status = "busy"
	}
	_, err = e.record(ctx, ev(id, h.workspace, event.SessionStatus, StatusData{Status: status, Model: model, Provider: p.Name()}))
	return err
}

// Events returns the session's events with seq > after, at most limit
// (all when 0).
func (e *Engine) Events(ctx context.Context, id string, after int64, limit int) ([]event.Event, error) {
	if _, err := e.readHistory(ctx, id); err != nil {
		return nil, err
	}
	evs, err := e.core.Events(ctx, store.Filter{Session: id, AfterSeq: after, Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	if evs == nil {
		evs = []event.Event{}
	}
	return evs, nil
}

// Models lists what every configured provider reports; providers that
// could not answer are in the second result.
func (e *Engine) Models(ctx context.Context) ([]provider.ModelInfo, []provider.ListError) {
	return e.opts.Models.List(ctx)
}

// Workspace returns the workspace root of session id.
func (e *Engine) Workspace(ctx context.Context, id string) (string, error) {
	if r, ok := e.roots.Load(id); ok {
		return r.(string), nil
	}
	h, err := e.readHistory(ctx, id)
	if err != nil {
		return "", err
	}
	e.roots.Store(id, h.workspace)
	return h.workspace, nil
}

func (e *Engine) running(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	_, ok := e.runs[id]
	return ok
}

// ResolveWorkspace returns the registered workspace root dir names.
func (e *Engine) ResolveWorkspace(dir string) (string, error) { return e.opts.Ops.Resolve(dir) }
