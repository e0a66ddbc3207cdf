package session

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

func noEvents(context.Context, int64, int) ([]event.Event, error) { return nil, nil }

func TestCheckpointRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evs := []event.Event{
		{ID: 1, Session: "s", Seq: 1, Time: at, Type: event.SessionStart, Source: "claude-code/hooks", Workspace: "/w", Data: []byte(`{"parent":"p"}`)},
		{ID: 2, Session: "s", Seq: 2, Time: at.Add(time.Second), Type: event.ToolCall, Data: []byte(`{"tool":"bash"}`)},
		{ID: 3, Session: "s", Seq: 3, Time: at.Add(2 * time.Second), Type: event.ApprovalRequested, Data: []byte(`{"approvalId":"ap_1"}`)},
		{ID: 4, Session: "c", Seq: 1, Time: at, Type: event.ToolCall, Source: "control", Data: []byte(`{"tool":"read"}`)},
	}
	full := NewTracker(func(_ context.Context, after int64, limit int) ([]event.Event, error) {
		var out []event.Event
		for _, e := range evs {
			if e.ID > after && len(out) < limit {
				out = append(out, e)
			}
		}
		return out, nil
	})
	cp, err := full.Checkpoint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.List(t.Context())
	loaded := NewTracker(noEvents)
	if err := loaded.LoadCheckpoint(cp); err != nil {
		t.Fatal(err)
	}
	got, _ := loaded.List(t.Context())
	if len(got) != 2 || got[0].Status != Waiting || got[0].Parent != "p" || !got[1].Client() {
		t.Fatalf("loaded sessions %+v", got)
	}
	for i := range want {
		if a, b := mustJSON(t, got[i]), mustJSON(t, want[i]); a != b {
			t.Fatalf("session %d after a checkpoint:\n%s\nwant\n%s", i, a, b)
		}
	}
	if err := loaded.LoadCheckpoint([]byte(`{"sessions":[{"session":{}}]}`)); err == nil {
		t.Fatal("a checkpoint with a session without an id was accepted")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzLoadCheckpoint: any bytes are refused or loaded; what loads checkpoints
// again to what reloads the same.
func FuzzLoadCheckpoint(f *testing.F) {
	f.Add([]byte(`{"cursor":7,"sessions":[{"session":{"id":"s","events":3,"lastSeq":3},"tools":["bash"],"pending":["ap_1"],"active":"busy"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := NewTracker(noEvents)
		if err := tr.LoadCheckpoint(b); err != nil {
			return
		}
		cp, err := tr.Checkpoint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		again := NewTracker(noEvents)
		if err := again.LoadCheckpoint(cp); err != nil {
			t.Fatalf("a checkpoint of a loaded checkpoint is refused: %v\n%s", err, cp)
		}
		cp2, err := again.Checkpoint(t.Context())
		if err != nil || !bytes.Equal(cp, cp2) {
			t.Fatalf("checkpoint does not round-trip:\n%s\n%s", cp, cp2)
		}
	})
}
