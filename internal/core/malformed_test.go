package core_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
)

// The core is the last line behind the doors: a shell call whose command
// is missing, null or not a string is denied as malformed, never judged as
// an empty command the default allows.
func TestGateRefusesMalformedShellCalls(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	for _, args := range []map[string]any{
		nil,
		{"command": nil},
		{"command": 7.0},
		{"command": map[string]any{"a": "b"}},
		{"description": "no command at all"},
	} {
		v := c.Gate(t.Context(), core.GateRequest{
			Call: policy.Call{Tool: "bash", Args: args, Workspace: t.TempDir(), Session: "s"}, CallID: "c", Source: "test",
		})
		if v.Allowed || v.Rule != "warden.malformed-call" || !strings.Contains(v.Reason, "malformed bash call") {
			t.Errorf("bash %v: %+v, want a malformed-call deny", args, v)
		}
	}
	// a command line, or an argv array, is judged as usual
	for _, args := range []map[string]any{{"command": "ls"}, {"command": []any{"ls", "-la"}}} {
		v := c.Gate(t.Context(), core.GateRequest{
			Call: policy.Call{Tool: "bash", Args: args, Workspace: t.TempDir(), Session: "s"}, CallID: "c", Source: "test",
		})
		if !v.Allowed {
			t.Errorf("bash %v: %+v, want allowed", args, v)
		}
	}
}

// A payload nested deeper than event.MaxDepth is never stored: every reader
// of the log would fail on it.
func TestRecordRefusesDeepPayloads(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	deep := strings.Repeat("[", event.MaxDepth+1) + strings.Repeat("]", event.MaxDepth+1)
	_, err := c.Record(t.Context(), event.Event{Session: "s", Type: event.SessionError, Source: "test", Data: []byte(`{"error":` + deep + `}`)})
	if !errors.Is(err, event.ErrTooDeep) {
		t.Fatalf("Record of a deep payload = %v, want ErrTooDeep", err)
	}
	evs, err := c.Events(t.Context(), store.Filter{})
	if err != nil || len(evs) != 0 {
		t.Fatalf("events after the refusal: %d %v", len(evs), err)
	}
}
