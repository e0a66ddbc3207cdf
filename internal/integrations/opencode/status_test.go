package opencode

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// Event builders in OpenCode 1.18.33's shapes (and the older ones).

func mkEvent(typ string, props any) Event {
	b, err := json.Marshal(props)
	if err != nil {
		panic(err)
	}
	return Event{ID: "evt_test", Type: typ, Properties: b}
}

func mkInfo(id, parent string, updated int64) map[string]any {
	m := map[string]any{"id": id, "title": "t", "directory": "/w", "time": map[string]any{"created": updated, "updated": updated}}
	if parent != "" {
		m["parentID"] = parent
	}
	return m
}

func created(id, parent string, updated int64) Event {
	return mkEvent("session.created", map[string]any{"sessionID": id, "info": mkInfo(id, parent, updated)})
}

func updatedEv(id, parent string, updated int64) Event {
	return mkEvent("session.updated", map[string]any{"sessionID": id, "info": mkInfo(id, parent, updated)})
}

func deletedEv(id string) Event {
	return mkEvent("session.deleted", map[string]any{"sessionID": id, "info": mkInfo(id, "", 1)})
}

func statusEv(id, typ string) Event {
	st := map[string]any{"type": typ}
	if typ == "retry" {
		st["attempt"], st["message"], st["next"] = 1, "Cannot connect to API", 1795462291795
	}
	return mkEvent("session.status", map[string]any{"sessionID": id, "status": st})
}

func idleEv(id string) Event { return mkEvent("session.idle", map[string]any{"sessionID": id}) }

func errorEv(id string) Event {
	return mkEvent("session.error", map[string]any{"sessionID": id, "error": map[string]any{"name": "UnknownError", "data": map[string]any{"message": "boom"}}})
}

func askedEv(id, session string) Event {
	return mkEvent("permission.asked", map[string]any{
		"id": id, "sessionID": session, "permission": "bash", "patterns": []string{"touch x"},
		"metadata": map[string]any{"command": "touch x"}, "always": []string{"touch *"},
		"tool": map[string]any{"messageID": "msg_1", "callID": "call_" + id},
	})
}

func mkPerm(id, session string) agent.Permission {
	return agent.Permission{ID: id, Session: session, Permission: "bash", Patterns: []string{"touch x"},
		Metadata: map[string]any{"command": "touch x"}, CallID: "call_" + id}
}

func askedOldEv(id, session string, pattern any) Event {
	return mkEvent("permission.updated", map[string]any{
		"id": id, "sessionID": session, "type": "bash", "pattern": pattern, "title": "touch x",
		"metadata": map[string]any{"command": "touch x"}, "messageID": "msg_1", "callID": "call_" + id,
		"time": map[string]any{"created": 1},
	})
}

func repliedEv(id, session string) Event {
	return mkEvent("permission.replied", map[string]any{"sessionID": session, "requestID": id, "reply": "once"})
}

func repliedOldEv(id, session string) Event {
	return mkEvent("permission.replied", map[string]any{"sessionID": session, "permissionID": id, "response": "once"})
}

// stateStep is one input to a State and what must follow.
type stateStep struct {
	do      func(*State) Changes
	status  agent.Status
	changes Changes
}

func applyEv(ev Event) func(*State) Changes {
	return func(s *State) Changes { return s.Apply(ev) }
}

func resetState(s *State) Changes { s.Reset(); return Changes{} }

func loadState(sessions []Session, statuses map[string]SessionStatus, perms ...PermissionRequest) func(*State) Changes {
	return func(s *State) Changes { return s.Load(sessions, statuses, perms) }
}

func mkRequest(id, session string) PermissionRequest {
	return PermissionRequest{ID: id, SessionID: session, Permission: "bash", Patterns: []string{"touch x"},
		Metadata: map[string]any{"command": "touch x"}, Always: []string{"touch *"},
		Tool: &PermissionTool{MessageID: "msg_1", CallID: "call_" + id}}
}

const (
	stNone    = agent.StatusNone
	stIdle    = agent.StatusIdle
	stBusy    = agent.StatusBusy
	stWaiting = agent.StatusWaiting
)

func TestStateTransitions(t *testing.T) {
	asked := func(ps ...agent.Permission) Changes { return Changes{Asked: ps} }
	replied := func(ids ...string) Changes { return Changes{Replied: ids} }
	lost := func(ids ...string) Changes { return Changes{Lost: ids} }
	cases := []struct {
		name  string
		steps []stateStep
		main  string // "" means no main session
	}{
		{"nothing known is none", []stateStep{
			{do: applyEv(mkEvent("server.connected", map[string]any{})), status: stNone},
			{do: applyEv(mkEvent("plugin.added", map[string]any{"id": "x"})), status: stNone},
			{do: applyEv(mkEvent("message.updated", map[string]any{"sessionID": "ses_a"})), status: stNone},
		}, ""},
		{"created root is idle, busy, repeated busy, idle", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_a", "idle")), status: stIdle},
			{do: applyEv(idleEv("ses_a")), status: stIdle},
		}, "ses_a"},
		{"idle without busy", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "idle")), status: stIdle},
		}, "ses_a"},
		{"session.idle without prior status or session", []stateStep{
			{do: applyEv(idleEv("ses_a")), status: stIdle},
		}, ""},
		{"status of a session never created counts", []stateStep{
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(idleEv("ses_a")), status: stIdle},
		}, ""},
		{"retry counts as busy", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_a", "retry")), status: stBusy},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(idleEv("ses_a")), status: stIdle},
		}, "ses_a"},
		{"unknown status type and malformed events change nothing", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_a", "compacting")), status: stBusy},
			{do: applyEv(Event{Type: "session.idle", Properties: json.RawMessage(`[1]`)}), status: stBusy},
			{do: applyEv(Event{Type: "permission.asked", Properties: json.RawMessage(`{"sessionID":"ses_a"}`)}), status: stBusy},
			{do: applyEv(Event{Type: "session.status", Properties: json.RawMessage(`{"status":{"type":"idle"}}`)}), status: stBusy},
		}, "ses_a"},
		{"session.error ends the run", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(errorEv("ses_a")), status: stIdle},
			{do: applyEv(mkEvent("session.error", map[string]any{"error": map[string]any{"name": "UnknownError"}})), status: stIdle},
		}, "ses_a"},
		{"permission (new shape) makes a busy session waiting, reply makes it busy again", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(statusEv("ses_a", "busy")), status: stWaiting},
			{do: applyEv(repliedEv("per_1", "ses_a")), status: stBusy, changes: replied("per_1")},
			{do: applyEv(idleEv("ses_a")), status: stIdle},
		}, "ses_a"},
		{"permission on an idle session is waiting", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
		}, "ses_a"},
		{"permission asked twice is reported once", []stateStep{
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting},
			{do: applyEv(askedOldEv("per_1", "ses_a", "touch x")), status: stWaiting},
		}, ""},
		{"old shapes: permission.updated with a pattern string, replied with permissionID", []stateStep{
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedOldEv("per_1", "ses_a", "touch x")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(repliedOldEv("per_1", "ses_a")), status: stBusy, changes: replied("per_1")},
		}, ""},
		{"old shapes: pattern list", []stateStep{
			{do: applyEv(askedOldEv("per_1", "ses_a", []string{"touch x"})), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(repliedOldEv("per_1", "ses_a")), status: stIdle, changes: replied("per_1")},
		}, ""},
		{"v2 shapes: action, resources, source", []stateStep{
			{do: applyEv(mkEvent("permission.v2.asked", map[string]any{"id": "per_1", "sessionID": "ses_a", "action": "bash",
				"resources": []string{"touch x"}, "metadata": map[string]any{"command": "touch x"},
				"source": map[string]any{"type": "tool", "messageID": "msg_1", "callID": "call_per_1"}})),
				status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(mkEvent("permission.v2.replied", map[string]any{"sessionID": "ses_a", "requestID": "per_1", "reply": "reject"})),
				status: stIdle, changes: replied("per_1")},
		}, ""},
		{"reply for an id never seen is a no-op", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(repliedEv("per_x", "ses_a")), status: stIdle},
			{do: applyEv(repliedOldEv("per_y", "ses_a")), status: stIdle},
			{do: applyEv(mkEvent("permission.replied", map[string]any{"sessionID": "ses_a"})), status: stIdle},
		}, "ses_a"},
		{"two permissions in one session: waiting until both are answered", []stateStep{
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(askedEv("per_2", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_2", "ses_a"))},
			{do: applyEv(repliedEv("per_1", "ses_a")), status: stWaiting, changes: replied("per_1")},
			{do: applyEv(repliedEv("per_2", "ses_a")), status: stBusy, changes: replied("per_2")},
		}, ""},
		{"sub-agent busy while the root is idle is busy", []stateStep{
			{do: applyEv(created("ses_root", "", 1)), status: stIdle},
			{do: applyEv(created("ses_child", "ses_root", 2)), status: stIdle},
			{do: applyEv(statusEv("ses_child", "busy")), status: stBusy},
			{do: applyEv(idleEv("ses_child")), status: stIdle},
		}, "ses_root"},
		{"permission in a sub-agent session makes the busy root waiting", []stateStep{
			{do: applyEv(created("ses_root", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_root", "busy")), status: stBusy},
			{do: applyEv(created("ses_child", "ses_root", 2)), status: stBusy},
			{do: applyEv(statusEv("ses_child", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_child")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_child"))},
			{do: applyEv(created("ses_sibling", "ses_root", 3)), status: stWaiting},
			{do: applyEv(statusEv("ses_sibling", "busy")), status: stBusy},
			{do: applyEv(idleEv("ses_sibling")), status: stWaiting},
			{do: applyEv(repliedEv("per_1", "ses_child")), status: stBusy, changes: replied("per_1")},
			{do: applyEv(idleEv("ses_child")), status: stBusy},
			{do: applyEv(idleEv("ses_root")), status: stIdle},
		}, "ses_root"},
		{"permission in a grandchild session blocks every ancestor", []stateStep{
			{do: applyEv(created("ses_root", "", 1)), status: stIdle},
			{do: applyEv(created("ses_child", "ses_root", 2)), status: stIdle},
			{do: applyEv(created("ses_grand", "ses_child", 3)), status: stIdle},
			{do: applyEv(statusEv("ses_root", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_child", "busy")), status: stBusy},
			{do: applyEv(statusEv("ses_grand", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_grand")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_grand"))},
		}, "ses_root"},
		{"a parent cycle does not hang", []stateStep{
			{do: applyEv(created("ses_a", "ses_b", 1)), status: stIdle},
			{do: applyEv(created("ses_b", "ses_a", 2)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_b")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_b"))},
		}, ""},
		{"session.deleted while busy", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(created("ses_b", "", 2)), status: stIdle},
			{do: applyEv(statusEv("ses_b", "busy")), status: stBusy},
			{do: applyEv(deletedEv("ses_b")), status: stIdle},
			{do: applyEv(deletedEv("ses_a")), status: stNone},
		}, ""},
		{"session.deleted while waiting reports its permissions lost", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(created("ses_b", "", 2)), status: stIdle},
			{do: applyEv(statusEv("ses_b", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_2", "ses_b")), status: stWaiting, changes: asked(mkPerm("per_2", "ses_b"))},
			{do: applyEv(askedEv("per_1", "ses_b")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_b"))},
			{do: applyEv(askedEv("per_3", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_3", "ses_a"))},
			{do: applyEv(deletedEv("ses_b")), status: stWaiting, changes: lost("per_1", "per_2")},
			{do: applyEv(repliedEv("per_1", "ses_b")), status: stWaiting},
		}, "ses_a"},
		{"reset clears permissions and statuses, keeps sessions", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: resetState, status: stIdle},
		}, "ses_a"},
		{"reconnect: permission gone from the fresh list is lost, a late reply is a no-op", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: resetState, status: stIdle},
			{do: loadState([]Session{{ID: "ses_a", Time: SessionTime{Created: 1, Updated: 1}}}, nil), status: stIdle, changes: lost("per_1")},
			{do: applyEv(repliedEv("per_1", "ses_a")), status: stIdle},
		}, "ses_a"},
		{"reconnect: permission still pending is not reported again, a new one is asked", []stateStep{
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_a"))},
			{do: applyEv(askedEv("per_2", "ses_a")), status: stWaiting, changes: asked(mkPerm("per_2", "ses_a"))},
			{do: resetState, status: stNone},
			{do: loadState([]Session{{ID: "ses_a"}}, map[string]SessionStatus{"ses_a": {Type: "busy"}}, mkRequest("per_1", "ses_a"), mkRequest("per_3", "ses_a")),
				status: stWaiting, changes: Changes{Asked: []agent.Permission{mkPerm("per_3", "ses_a")}, Lost: []string{"per_2"}}},
			{do: applyEv(askedEv("per_1", "ses_a")), status: stWaiting},
			{do: applyEv(repliedEv("per_1", "ses_a")), status: stWaiting, changes: replied("per_1")},
			{do: applyEv(repliedEv("per_3", "ses_a")), status: stBusy, changes: replied("per_3")},
		}, "ses_a"},
		{"load seeds sessions, statuses (retry is busy) and parents", []stateStep{
			{do: loadState([]Session{
				{ID: "ses_new", Time: SessionTime{Created: 5, Updated: 9}},
				{ID: "ses_child", ParentID: "ses_new", Time: SessionTime{Created: 6, Updated: 8}},
				{ID: "ses_old", Time: SessionTime{Created: 1, Updated: 2}},
			}, map[string]SessionStatus{"ses_child": {Type: "retry", Attempt: 1}}), status: stBusy},
			{do: applyEv(askedEv("per_1", "ses_child")), status: stWaiting, changes: asked(mkPerm("per_1", "ses_child"))},
		}, "ses_new"},
		{"load of nothing is none and replaces what was known", []stateStep{
			{do: applyEv(created("ses_a", "", 1)), status: stIdle},
			{do: applyEv(statusEv("ses_a", "busy")), status: stBusy},
			{do: loadState(nil, nil), status: stNone},
		}, ""},
		{"load drops ids and empty entries", []stateStep{
			{do: loadState([]Session{{ID: ""}, {ID: "ses_a"}}, map[string]SessionStatus{"ses_b": {Type: "weird"}}, PermissionRequest{}), status: stIdle},
		}, "ses_a"},
		{"main session: most recently updated root, children never", []stateStep{
			{do: applyEv(created("ses_a", "", 10)), status: stIdle},
			{do: applyEv(created("ses_b", "", 20)), status: stIdle},
			{do: applyEv(created("ses_c", "ses_a", 30)), status: stIdle},
			{do: applyEv(updatedEv("ses_a", "", 40)), status: stIdle},
		}, "ses_a"},
		{"main session: equal times go to the latest news", []stateStep{
			{do: applyEv(created("ses_a", "", 10)), status: stIdle},
			{do: applyEv(created("ses_b", "", 10)), status: stIdle},
		}, "ses_b"},
		{"main session: a stale update does not move time back", []stateStep{
			{do: applyEv(created("ses_a", "", 50)), status: stIdle},
			{do: applyEv(created("ses_b", "", 40)), status: stIdle},
			{do: applyEv(updatedEv("ses_a", "", 45)), status: stIdle},
		}, "ses_a"},
		{"main session after deleting it", []stateStep{
			{do: applyEv(created("ses_a", "", 10)), status: stIdle},
			{do: applyEv(created("ses_b", "", 20)), status: stIdle},
			{do: applyEv(deletedEv("ses_b")), status: stIdle},
		}, "ses_a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewState()
			if got := s.Status(); got != stNone {
				t.Fatalf("new state: %s", got)
			}
			for i, st := range tc.steps {
				ch := st.do(s)
				if got := s.Status(); got != st.status {
					t.Fatalf("stateStep %d: status %s, want %s", i, got, st.status)
				}
				if !reflect.DeepEqual(normChanges(ch), normChanges(st.changes)) {
					t.Fatalf("stateStep %d: changes\n%+v\nwant\n%+v", i, ch, st.changes)
				}
			}
			main, ok := s.MainSession()
			if main != tc.main || ok != (tc.main != "") {
				t.Fatalf("main session %q %v, want %q", main, ok, tc.main)
			}
		})
	}
}

// norm makes nil and empty slices equal.
func normChanges(c Changes) string {
	if c.Empty() {
		return "{}"
	}
	return fmt.Sprintf("%#v", c)
}

func TestStatePendingAndSessionStatus(t *testing.T) {
	s := NewState()
	s.Apply(statusEv("ses_a", "retry"))
	s.Apply(askedEv("per_2", "ses_a"))
	s.Apply(askedOldEv("per_1", "ses_a", "touch x"))
	got := s.Pending()
	if len(got) != 2 || got[0].ID != "per_1" || got[1].ID != "per_2" {
		t.Fatalf("pending %+v", got)
	}
	if s.SessionStatus("ses_a") != SessionRetry || s.SessionStatus("ses_x") != "" {
		t.Fatalf("session status %q", s.SessionStatus("ses_a"))
	}
}

func TestPermissionRequestAgent(t *testing.T) {
	if got := mkRequest("per_1", "ses_a").Agent(); !reflect.DeepEqual(got, mkPerm("per_1", "ses_a")) {
		t.Fatalf("%+v", got)
	}
	if got := (PermissionRequest{ID: "per_1"}).Agent(); got.CallID != "" || got.ID != "per_1" {
		t.Fatalf("%+v", got)
	}
}
