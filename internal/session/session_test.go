package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

type log struct{ evs []event.Event }

func (l *log) add(session string, t event.Type, data string) {
	if data == "" {
		data = "{}"
	}
	l.evs = append(l.evs, event.Event{
		ID: int64(len(l.evs) + 1), Session: session, Seq: int64(len(l.evs) + 1), Type: t,
		Time:   time.Unix(1700000000, 0).Add(time.Duration(len(l.evs)) * time.Second),
		Source: "opencode/monitor", Workspace: "/w", Data: json.RawMessage(data),
	})
}

func (l *log) read(_ context.Context, after int64, limit int) ([]event.Event, error) {
	var out []event.Event
	for _, e := range l.evs {
		if e.ID > after && len(out) < limit {
			out = append(out, e)
		}
	}
	return out, nil
}

func TestStatusTransitions(t *testing.T) {
	l := &log{}
	tr := NewTracker(l.read)
	step := func(typ event.Type, data string, want Status) {
		t.Helper()
		l.add("s", typ, data)
		s, ok, err := tr.Get(context.Background(), "s")
		if err != nil || !ok {
			t.Fatalf("get: %v %v", ok, err)
		}
		if s.Status != want {
			t.Fatalf("after %s %s: status %s, want %s", typ, data, s.Status, want)
		}
	}
	if _, ok, _ := tr.Get(context.Background(), "s"); ok {
		t.Fatal("unknown session found")
	}
	step(event.SessionStart, "", Idle)
	step(event.MessageUser, "", Busy)
	step(event.ToolCall, `{"tool":"bash"}`, Busy)
	step(event.ToolDecision, `{"decision":"ask"}`, Busy)
	step(event.ApprovalRequested, `{"approvalId":"a1"}`, Waiting)
	step(event.ApprovalRequested, `{"approvalId":"a2"}`, Waiting)
	step(event.ApprovalResolved, `{"approvalId":"a1"}`, Waiting)
	step(event.ApprovalResolved, `{"approvalId":"a2"}`, Busy)
	step(event.ToolDecision, `{"decision":"deny","final":true}`, Busy)
	step(event.ToolResult, `{"tool":"bash"}`, Busy)
	step(event.SessionStatus, `{"status":"idle"}`, Idle)
	step(event.SessionError, `{"error":"ProviderAuthError"}`, Idle)
	step(event.ToolCall, `{"tool":"read"}`, Busy)
	step(event.ApprovalRequested, `{"approvalId":"a3"}`, Waiting)
	step(event.SessionEnd, "", None)  // ending clears pending approvals
	step(event.MessageUser, "", Busy) // a resumed session is alive again

	s, _, _ := tr.Get(context.Background(), "s")
	if s.ToolCalls != 2 || s.UniqueToolCount != 2 || s.Denied != 1 || s.Asked != 1 || s.LastError != "ProviderAuthError" {
		t.Fatalf("stats %+v", s)
	}
	if s.Source != "opencode" || s.Workspace != "/w" || s.Events != len(l.evs) || s.LastSeq != int64(len(l.evs)) {
		t.Fatalf("identity %+v", s)
	}
	if s.DurationMS != int64(len(l.evs)-1)*1000 {
		t.Fatalf("duration %d", s.DurationMS)
	}
}

func TestListOrdersByLastEventAndIsIncremental(t *testing.T) {
	l := &log{}
	tr := NewTracker(l.read)
	l.add("a", event.SessionStart, "")
	l.add("b", event.SessionStart, "")
	list, _ := tr.List(context.Background())
	if len(list) != 2 || list[0].ID != "b" {
		t.Fatalf("%+v", list)
	}
	l.add("a", event.ToolCall, `{"tool":"bash"}`)
	list, _ = tr.List(context.Background())
	if list[0].ID != "a" || list[0].ToolCalls != 1 || list[0].Events != 2 {
		t.Fatalf("%+v", list)
	}
}

func TestBadPayloadStillCounts(t *testing.T) {
	l := &log{}
	tr := NewTracker(l.read)
	l.add("s", event.ToolCall, `"not an object"`)
	s, _, _ := tr.Get(context.Background(), "s")
	if s.ToolCalls != 1 || s.Events != 1 {
		t.Fatalf("%+v", s)
	}
}

// A session that reports no turns of its own (an MCP client calling
// tools) is busy only while one of its calls runs: after the last result
// it is idle, not busy until it ends. The state survives a checkpoint.
func TestClientSessionIdleBetweenCalls(t *testing.T) {
	l := &log{}
	tr := NewTracker(l.read)
	step := func(typ event.Type, data string, want Status) {
		t.Helper()
		l.add("m", typ, data)
		s, ok, err := tr.Get(context.Background(), "m")
		if err != nil || !ok {
			t.Fatalf("get: %v %v", ok, err)
		}
		if s.Status != want {
			t.Fatalf("after %s %s: status %s, want %s", typ, data, s.Status, want)
		}
	}
	step(event.SessionStart, "", Idle)
	step(event.ToolCall, `{"tool":"read","callId":"c1"}`, Busy)
	step(event.ToolCall, `{"tool":"grep","callId":"c2"}`, Busy)
	step(event.ToolResult, `{"tool":"read","callId":"c1"}`, Busy) // c2 still runs
	cp, err := tr.Checkpoint(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	again := NewTracker(l.read)
	if err := again.LoadCheckpoint(cp); err != nil {
		t.Fatal(err)
	}
	tr = again
	step(event.ToolResult, `{"tool":"grep","callId":"c2"}`, Idle)
	step(event.ToolCall, `{"tool":"bash","callId":"c3"}`, Busy)
	step(event.ToolResult, `{"tool":"bash","callId":"c3"}`, Idle)
	// once it reports a turn, it is busy between its calls until it says idle
	step(event.MessageUser, "", Busy)
	step(event.ToolCall, `{"tool":"bash","callId":"c4"}`, Busy)
	step(event.ToolResult, `{"tool":"bash","callId":"c4"}`, Busy)
	step(event.SessionStatus, `{"status":"idle"}`, Idle)
}
