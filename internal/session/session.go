// Package session derives sessions (status, stats, source, workspace) from the
// event log. It keeps no state of its own that the log does not hold: a
// Tracker is a projection folded from the log by event ID, so it can always
// be rebuilt and is never ahead of what is durable.
package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

// Status is what a session is doing now.
type Status string

// Session statuses. Waiting means an approval is pending: a person must act.
const (
	None    Status = "none"
	Idle    Status = "idle"
	Busy    Status = "busy"
	Waiting Status = "waiting"
)

// Session is the derived view of one session.
type Session struct {
	ID        string    `json:"id"`
	Status    Status    `json:"status"`
	Source    string    `json:"source"`
	Workspace string    `json:"workspace"`
	Parent    string    `json:"parent,omitempty"`
	FirstTime time.Time `json:"firstEventTime"`
	LastTime  time.Time `json:"lastEventTime"`
	// DurationMS is the time between the first and last event, in milliseconds.
	DurationMS int64 `json:"durationMs"`
	// Events is the number of events; LastSeq the highest sequence number.
	Events  int   `json:"events"`
	LastSeq int64 `json:"lastSeq"`
	// ToolCalls counts tool.call events; UniqueTools names the distinct tools.
	ToolCalls       int      `json:"toolCallCount"`
	UniqueToolCount int      `json:"uniqueToolCount"`
	UniqueTools     []string `json:"uniqueTools"`
	// Denied and Asked count final deny decisions and ask decisions.
	Denied int `json:"denied"`
	Asked  int `json:"asked"`
	// PendingApprovals lists approval ids still waiting for a person.
	PendingApprovals []string `json:"pendingApprovals,omitempty"`
	// LastError is the last session.error message, if any.
	LastError string `json:"lastError,omitempty"`
}

// ReadFunc reads events with ID > afterID in ascending order, at most limit.
type ReadFunc func(ctx context.Context, afterID int64, limit int) ([]event.Event, error)

// Tracker folds the log into sessions. It is safe for concurrent use.
type Tracker struct {
	read ReadFunc

	mu       sync.Mutex
	cursor   int64
	sessions map[string]*state
}

// maxOpenCalls bounds the calls without a result a session keeps track of.
const maxOpenCalls = 1024

type state struct {
	s       Session
	tools   map[string]struct{}
	pending map[string]struct{}
	ended   bool
	active  Status // idle or busy, before pending approvals and end
	// turns is set once the session reports its own turns (a user
	// message, a status): between its tool calls it is busy thinking.
	// A session that reports none (an MCP or control client) is busy
	// only while a call of its runs: open holds those calls' ids.
	turns bool
	open  map[string]struct{}
}

// NewTracker returns a tracker reading the log through read.
func NewTracker(read ReadFunc) *Tracker {
	return &Tracker{read: read, sessions: make(map[string]*state)}
}

// Sync folds every event appended since the last Sync.
func (t *Tracker) Sync(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		evs, err := t.read(ctx, t.cursor, 1000)
		if err != nil {
			return fmt.Errorf("read log after %d: %w", t.cursor, err)
		}
		for _, e := range evs {
			t.apply(e)
		}
		if len(evs) < 1000 {
			return nil
		}
	}
}

// List syncs with the log and returns every session, most recent first.
func (t *Tracker) List(ctx context.Context) ([]Session, error) {
	if err := t.Sync(ctx); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Session, 0, len(t.sessions))
	for _, st := range t.sessions {
		out = append(out, st.snapshot())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].LastTime.Equal(out[j].LastTime) {
			return out[i].LastTime.After(out[j].LastTime)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Get syncs with the log and returns one session; ok is false if unknown.
func (t *Tracker) Get(ctx context.Context, id string) (Session, bool, error) {
	if err := t.Sync(ctx); err != nil {
		return Session{}, false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.sessions[id]
	if !ok {
		return Session{}, false, nil
	}
	return st.snapshot(), true, nil
}

func (st *state) snapshot() Session {
	s := st.s
	s.UniqueTools = make([]string, 0, len(st.tools))
	for name := range st.tools {
		s.UniqueTools = append(s.UniqueTools, name)
	}
	slices.Sort(s.UniqueTools)
	s.UniqueToolCount = len(s.UniqueTools)
	s.PendingApprovals = nil
	for id := range st.pending {
		s.PendingApprovals = append(s.PendingApprovals, id)
	}
	slices.Sort(s.PendingApprovals)
	switch {
	case st.ended:
		s.Status = None
	case len(st.pending) > 0:
		s.Status = Waiting
	default:
		s.Status = st.active
	}
	if !s.FirstTime.IsZero() {
		s.DurationMS = s.LastTime.Sub(s.FirstTime).Milliseconds()
	}
	return s
}

func (t *Tracker) apply(e event.Event) {
	if e.ID > t.cursor {
		t.cursor = e.ID
	}
	if e.Session == event.SystemSession {
		return // warden's own records are not an agent session
	}
	st, ok := t.sessions[e.Session]
	if !ok {
		st = &state{
			s:       Session{ID: e.Session, FirstTime: e.Time},
			tools:   make(map[string]struct{}),
			pending: make(map[string]struct{}),
			active:  Idle,
		}
		t.sessions[e.Session] = st
	}
	s := &st.s
	s.Events++
	if e.Seq > s.LastSeq {
		s.LastSeq = e.Seq
	}
	if e.Time.Before(s.FirstTime) {
		s.FirstTime = e.Time
	}
	if e.Time.After(s.LastTime) {
		s.LastTime = e.Time
	}
	if s.Source == "" && e.Source != "" {
		s.Source = agentOf(e.Source)
	}
	if s.Workspace == "" && e.Workspace != "" {
		s.Workspace = e.Workspace
	}
	// a payload that cannot be read still counts as an event
	switch e.Type {
	case event.SessionStart:
		p, _ := event.DataOf[event.SessionData](e)
		st.ended = false
		st.active = Idle
		if p.Parent != "" {
			s.Parent = p.Parent
		}
	case event.SessionEnd:
		st.ended = true
		clear(st.pending)
	case event.SessionStatus:
		p, _ := event.DataOf[event.SessionData](e)
		st.turns = true
		switch Status(p.Status) {
		case Idle, Busy:
			st.active = Status(p.Status)
		case None:
			st.ended = true
		}
	case event.SessionError:
		p, _ := event.DataOf[event.SessionData](e)
		s.LastError = p.Error
		st.active = Idle
	case event.MessageUser:
		st.ended = false
		st.turns = true
		st.active = Busy
	case event.ToolCall:
		p, _ := event.DataOf[event.ToolCallData](e)
		s.ToolCalls++
		if p.Tool != "" {
			st.tools[p.Tool] = struct{}{}
		}
		if p.CallID != "" && len(st.open) < maxOpenCalls {
			if st.open == nil {
				st.open = map[string]struct{}{}
			}
			st.open[p.CallID] = struct{}{}
		}
		st.active = Busy
	case event.ToolDecision:
		p, _ := event.DataOf[event.ToolDecisionData](e)
		switch {
		case p.Decision == "ask":
			s.Asked++
		case p.Decision == "deny" && p.Final:
			s.Denied++
		}
	case event.ToolResult:
		p, _ := event.DataOf[event.ToolResultData](e)
		delete(st.open, p.CallID)
		st.active = Busy
		if !st.turns && len(st.open) == 0 {
			st.active = Idle // a client's call is over and nothing else runs
		}
	case event.ApprovalRequested:
		p, _ := event.DataOf[event.ApprovalData](e)
		if p.ApprovalID != "" {
			st.pending[p.ApprovalID] = struct{}{}
		}
	case event.ApprovalResolved:
		p, _ := event.DataOf[event.ApprovalData](e)
		delete(st.pending, p.ApprovalID)
	case event.SubagentSpawn:
		// The child session records its parent in its own session.start.
	}
}

// agentOf returns the agent part of a source "agent/door".
func agentOf(source string) string {
	agent, _, _ := strings.Cut(source, "/")
	return agent
}

// Client reports whether the session is a control-door client's (an editor,
// a script: source event.SourceControl), not an agent's. Listings leave
// them out unless asked.
func (s Session) Client() bool { return s.Source == event.SourceControl }

// saved is one session in a checkpoint.
type saved struct {
	Session Session  `json:"session"`
	Tools   []string `json:"tools,omitempty"`
	Pending []string `json:"pending,omitempty"`
	Ended   bool     `json:"ended,omitempty"`
	Active  Status   `json:"active"`
	Turns   bool     `json:"turns,omitempty"`
	Open    []string `json:"open,omitempty"`
}

// checkpoint is a Tracker's whole state: what it folded through Cursor.
type checkpoint struct {
	Cursor   int64   `json:"cursor"`
	Sessions []saved `json:"sessions"`
}

// Checkpoint folds what the log holds (through read) and returns the
// tracker's state, to be kept in place of the events a prune removes
// (store.Maintainer.Prune); LoadCheckpoint brings it back.
func (t *Tracker) Checkpoint(ctx context.Context) ([]byte, error) {
	if err := t.Sync(ctx); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	cp := checkpoint{Cursor: t.cursor, Sessions: make([]saved, 0, len(t.sessions))}
	for _, st := range t.sessions {
		sv := saved{Session: st.s, Ended: st.ended, Active: st.active, Turns: st.turns}
		for k := range st.open {
			sv.Open = append(sv.Open, k)
		}
		slices.Sort(sv.Open)
		sv.Session.UniqueTools, sv.Session.PendingApprovals = nil, nil
		for k := range st.tools {
			sv.Tools = append(sv.Tools, k)
		}
		for k := range st.pending {
			sv.Pending = append(sv.Pending, k)
		}
		slices.Sort(sv.Tools)
		slices.Sort(sv.Pending)
		cp.Sessions = append(cp.Sessions, sv)
	}
	sort.Slice(cp.Sessions, func(i, j int) bool { return cp.Sessions[i].Session.ID < cp.Sessions[j].Session.ID })
	b, err := json.Marshal(cp)
	if err != nil {
		return nil, fmt.Errorf("encode session checkpoint: %w", err)
	}
	return b, nil
}

// LoadCheckpoint replaces the tracker's state with a checkpoint made by
// Checkpoint; it folds on from the checkpoint's cursor. Call it before the
// tracker reads the log (at start, when the log was pruned).
func (t *Tracker) LoadCheckpoint(b []byte) error {
	var cp checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return fmt.Errorf("read session checkpoint: %w", err)
	}
	sessions := make(map[string]*state, len(cp.Sessions))
	for _, sv := range cp.Sessions {
		if sv.Session.ID == "" {
			return fmt.Errorf("read session checkpoint: a session without an id")
		}
		st := &state{s: sv.Session, tools: map[string]struct{}{}, pending: map[string]struct{}{}, ended: sv.Ended, active: sv.Active}
		for _, k := range sv.Tools {
			st.tools[k] = struct{}{}
		}
		for _, k := range sv.Pending {
			st.pending[k] = struct{}{}
		}
		st.turns = sv.Turns
		for _, k := range sv.Open {
			if st.open == nil {
				st.open = map[string]struct{}{}
			}
			st.open[k] = struct{}{}
		}
		if st.active != Busy {
			st.active = Idle
		}
		sessions[sv.Session.ID] = st
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cursor, t.sessions = cp.Cursor, sessions
	return nil
}
