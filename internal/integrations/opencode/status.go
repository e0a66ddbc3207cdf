package opencode

import (
	"encoding/json"
	"slices"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// Changes tells the permission bridge what a State transition did to the
// permission requests it was told about.
type Changes struct {
	// Asked: requests seen for the first time.
	Asked []agent.Permission
	// Replied: requests answered (by warden or in OpenCode's own UI).
	Replied []string
	// Lost: requests reported as asked that OpenCode no longer knows (it
	// restarted, or their session was deleted); they must never be answered.
	Lost []string
}

// Empty reports whether c holds nothing.
func (c Changes) Empty() bool {
	return len(c.Asked) == 0 && len(c.Replied) == 0 && len(c.Lost) == 0
}

type sessionEntry struct {
	parent  string
	updated int64  // Unix ms of the last update OpenCode reported
	seq     uint64 // order in which warden learnt of the update
}

// State derives a workspace's agent.Status from OpenCode's events. It is a
// pure state machine: no I/O, no clock, not safe for concurrent use (the
// provider guards it).
//
// It tracks each session's status (idle, busy, retry — retry counts as
// busy), each session's parent (child sessions are sub-agents and count like
// their root), and the pending permission requests. A session waiting on a
// permission request, in itself or in a sub-agent session below it, counts
// as waiting, not busy (the spec's permission state override). The status
// is none when no session is known, busy when a session works and does not
// wait, waiting when a request is pending and nothing works, else idle.
type State struct {
	sessions  map[string]sessionEntry
	statuses  map[string]string
	pending   map[string]agent.Permission
	announced map[string]struct{}
	seq       uint64
}

// NewState returns an empty State (status none).
func NewState() *State {
	return &State{
		sessions:  map[string]sessionEntry{},
		statuses:  map[string]string{},
		pending:   map[string]agent.Permission{},
		announced: map[string]struct{}{},
	}
}

// event property shapes (only the fields used).
type (
	sessionInfoProps struct {
		SessionID string  `json:"sessionID"`
		Info      Session `json:"info"`
	}
	sessionStatusProps struct {
		SessionID string        `json:"sessionID"`
		Status    SessionStatus `json:"status"`
	}
	sessionIDProps struct {
		SessionID string `json:"sessionID"`
	}
	// permission.asked (v1.x), permission.updated (older) and
	// permission.v2.asked in one.
	permissionAskedProps struct {
		ID         string          `json:"id"`
		SessionID  string          `json:"sessionID"`
		Permission string          `json:"permission"`
		Type       string          `json:"type"`
		Action     string          `json:"action"`
		Patterns   []string        `json:"patterns"`
		Pattern    json.RawMessage `json:"pattern"`
		Resources  []string        `json:"resources"`
		Metadata   map[string]any  `json:"metadata"`
		CallID     string          `json:"callID"`
		Tool       *PermissionTool `json:"tool"`
		Source     *PermissionTool `json:"source"`
	}
	// permission.replied, new {requestID, reply} and old {permissionID,
	// response}.
	permissionRepliedProps struct {
		SessionID    string `json:"sessionID"`
		RequestID    string `json:"requestID"`
		PermissionID string `json:"permissionID"`
	}
)

// Apply feeds one event and returns what happened to permission requests.
// Unknown event types and malformed properties change nothing.
func (s *State) Apply(ev Event) Changes {
	switch ev.Type {
	case "session.created", "session.updated":
		var p sessionInfoProps
		if json.Unmarshal(ev.Properties, &p) != nil {
			return Changes{}
		}
		if p.Info.ID == "" {
			p.Info.ID = p.SessionID
		}
		s.upsertSession(p.Info)
	case "session.deleted":
		var p sessionInfoProps
		if json.Unmarshal(ev.Properties, &p) != nil {
			return Changes{}
		}
		id := p.Info.ID
		if id == "" {
			id = p.SessionID
		}
		return s.deleteSession(id)
	case "session.status":
		var p sessionStatusProps
		if json.Unmarshal(ev.Properties, &p) != nil || p.SessionID == "" {
			return Changes{}
		}
		switch p.Status.Type {
		case SessionIdle, SessionBusy, SessionRetry:
			s.statuses[p.SessionID] = p.Status.Type
		}
	case "session.idle", "session.error":
		// session.error ends the session's run (OpenCode follows it with
		// idle; an error without a session concerns no session).
		var p sessionIDProps
		if json.Unmarshal(ev.Properties, &p) != nil || p.SessionID == "" {
			return Changes{}
		}
		s.statuses[p.SessionID] = SessionIdle
	case "permission.asked", "permission.updated", "permission.v2.asked":
		var p permissionAskedProps
		if json.Unmarshal(ev.Properties, &p) != nil || p.ID == "" {
			return Changes{}
		}
		return s.ask(p.permission())
	case "permission.replied", "permission.v2.replied":
		var p permissionRepliedProps
		if json.Unmarshal(ev.Properties, &p) != nil {
			return Changes{}
		}
		id := p.RequestID
		if id == "" {
			id = p.PermissionID
		}
		return s.reply(id)
	}
	return Changes{}
}

func (p permissionAskedProps) permission() agent.Permission {
	out := agent.Permission{ID: p.ID, Session: p.SessionID, Metadata: p.Metadata, CallID: p.CallID}
	out.Permission = firstOf(p.Permission, p.Type, p.Action)
	switch {
	case len(p.Patterns) > 0:
		out.Patterns = p.Patterns
	case len(p.Resources) > 0:
		out.Patterns = p.Resources
	case len(p.Pattern) > 0:
		var one string
		var many []string
		if json.Unmarshal(p.Pattern, &one) == nil && one != "" {
			out.Patterns = []string{one}
		} else if json.Unmarshal(p.Pattern, &many) == nil {
			out.Patterns = many
		}
	}
	for _, t := range []*PermissionTool{p.Tool, p.Source} {
		if out.CallID == "" && t != nil {
			out.CallID = t.CallID
		}
	}
	return out
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func (s *State) upsertSession(info Session) {
	if info.ID == "" {
		return
	}
	s.seq++
	updated := max(info.Time.Updated, info.Time.Created)
	if old, ok := s.sessions[info.ID]; ok && old.updated > updated {
		updated = old.updated
	}
	s.sessions[info.ID] = sessionEntry{parent: info.ParentID, updated: updated, seq: s.seq}
}

func (s *State) deleteSession(id string) Changes {
	if id == "" {
		return Changes{}
	}
	delete(s.sessions, id)
	delete(s.statuses, id)
	var c Changes
	for _, pid := range sortedKeys(s.pending) {
		if s.pending[pid].Session != id {
			continue
		}
		delete(s.pending, pid)
		if _, ok := s.announced[pid]; ok {
			delete(s.announced, pid)
			c.Lost = append(c.Lost, pid)
		}
	}
	return c
}

func (s *State) ask(p agent.Permission) Changes {
	s.pending[p.ID] = p
	if _, ok := s.statuses[p.Session]; !ok && p.Session != "" {
		s.statuses[p.Session] = SessionIdle // the session exists
	}
	if _, ok := s.announced[p.ID]; ok {
		return Changes{}
	}
	s.announced[p.ID] = struct{}{}
	return Changes{Asked: []agent.Permission{p}}
}

func (s *State) reply(id string) Changes {
	if id == "" {
		return Changes{}
	}
	delete(s.pending, id)
	if _, ok := s.announced[id]; !ok {
		return Changes{}
	}
	delete(s.announced, id)
	return Changes{Replied: []string{id}}
}

// Reset forgets what a lost connection makes stale: the pending permission
// requests (the spec's reconnection safety) and the session statuses. The
// sessions (for the main session) and the set of requests reported as asked
// (to report them lost after the next Load) are kept.
func (s *State) Reset() {
	clear(s.pending)
	clear(s.statuses)
}

// Load re-seeds the state from OpenCode's REST answers after a (re)connect:
// sessions from GET /session, statuses from GET /session/status (sessions it
// leaves out are idle) and the pending requests from GET /permission. It
// reports the requests not seen before as asked and those reported as asked
// that are absent now as lost.
func (s *State) Load(sessions []Session, statuses map[string]SessionStatus, perms []PermissionRequest) Changes {
	clear(s.sessions)
	clear(s.statuses)
	clear(s.pending)
	// GET /session lists the most recently updated first: learn them in
	// reverse so that arrival order agrees with it.
	for i := len(sessions) - 1; i >= 0; i-- {
		s.upsertSession(sessions[i])
		if sessions[i].ID != "" {
			s.statuses[sessions[i].ID] = SessionIdle
		}
	}
	for _, id := range sortedKeys(statuses) {
		switch t := statuses[id].Type; t {
		case SessionIdle, SessionBusy, SessionRetry:
			s.statuses[id] = t
		}
	}
	var c Changes
	for _, r := range perms {
		if r.ID == "" {
			continue
		}
		c.Asked = append(c.Asked, s.ask(r.Agent()).Asked...)
	}
	for _, id := range sortedKeys(s.announced) {
		if _, ok := s.pending[id]; !ok {
			delete(s.announced, id)
			c.Lost = append(c.Lost, id)
		}
	}
	return c
}

// Status computes the workspace's status.
func (s *State) Status() agent.Status {
	if len(s.sessions) == 0 && len(s.statuses) == 0 && len(s.pending) == 0 {
		return agent.StatusNone
	}
	// A session waits when it, or a sub-agent session below it, has a
	// pending request: mark every pending request's session and ancestors.
	waiting := map[string]bool{}
	for _, p := range s.pending {
		id := p.Session
		for range len(s.sessions) + 1 {
			if id == "" || waiting[id] {
				break
			}
			waiting[id] = true
			id = s.sessions[id].parent
		}
	}
	for id, st := range s.statuses {
		if (st == SessionBusy || st == SessionRetry) && !waiting[id] {
			return agent.StatusBusy
		}
	}
	if len(s.pending) > 0 {
		return agent.StatusWaiting
	}
	return agent.StatusIdle
}

// MainSession returns the session a terminal attaches to: the most recently
// created or updated root session (one without a parent).
func (s *State) MainSession() (string, bool) {
	best, found := "", false
	var bestEntry sessionEntry
	for id, e := range s.sessions {
		if e.parent != "" {
			continue
		}
		if !found || e.updated > bestEntry.updated || (e.updated == bestEntry.updated && e.seq > bestEntry.seq) {
			best, bestEntry, found = id, e, true
		}
	}
	return best, found
}

// Pending returns the pending permission requests, ordered by id.
func (s *State) Pending() []agent.Permission {
	out := make([]agent.Permission, 0, len(s.pending))
	for _, id := range sortedKeys(s.pending) {
		out = append(out, s.pending[id])
	}
	return out
}

// SessionStatus returns the status type of session id ("" when unknown).
func (s *State) SessionStatus(id string) string {
	return s.statuses[id]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
