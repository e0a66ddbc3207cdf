package confine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

type recorder struct {
	evs []event.Event
	err error
}

func (r *recorder) Record(_ context.Context, evs ...event.Event) ([]event.Event, error) {
	if r.err != nil {
		return nil, r.err
	}
	r.evs = append(r.evs, evs...)
	return evs, nil
}

func line(exe, ws string, extra []string, cmd string) string {
	return exe + " sandbox -w " + ws + " " + strings.Join(extra, " ") + " -- /bin/bash -c " + cmd
}

func bashReq(ws, cmd string) core.GateRequest {
	return core.GateRequest{
		Call:   policy.Call{Tool: "bash", Args: map[string]any{"command": cmd}, Workspace: ws, Session: "s1"},
		CallID: "c1", Source: "opencode/monitor",
	}
}

func TestEnabled(t *testing.T) {
	settings := map[string]string{"/on": On, "/off": Off, "/junk": "maybe"}
	for _, tc := range []struct {
		def, supported bool
		ws             string
		want           bool
	}{
		{true, true, "/none", true},
		{false, true, "/none", false},
		{false, true, "/on", true},
		{true, true, "/off", false},
		{true, true, "/junk", true},
		{false, true, "/junk", false},
		{true, false, "/on", false}, // no Landlock: nothing to confine with
	} {
		r := &Rule{Exe: "/bin/warden", Default: tc.def, Supported: tc.supported, Line: line, Setting: func(ws string) string { return settings[ws] }}
		if got := r.Enabled(tc.ws); got != tc.want {
			t.Errorf("default %v supported %v %s: %v, want %v", tc.def, tc.supported, tc.ws, got, tc.want)
		}
	}
	var nilRule *Rule
	if nilRule.Enabled("/x") {
		t.Fatal("a nil rule confines")
	}
}

func TestConfineRecordsThenRewrites(t *testing.T) {
	rec := &recorder{}
	r := &Rule{Recorder: rec, Exe: "/bin/warden", ExtraArgs: []string{"--data-dir", "/d"}, Default: true, Supported: true, Line: line}
	allow := core.Verdict{Allowed: true}
	got, ok, err := r.Confine(context.Background(), bashReq("/ws", "go test ./..."), allow)
	if err != nil || !ok || got != "/bin/warden sandbox -w /ws --data-dir /d -- /bin/bash -c go test ./..." {
		t.Fatalf("confine: %q %v %v", got, ok, err)
	}
	if len(rec.evs) != 1 {
		t.Fatalf("events: %v", rec.evs)
	}
	e := rec.evs[0]
	d, err := event.DataOf[event.ToolConfinedData](e)
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != event.ToolConfined || e.Session != "s1" || e.Source != "opencode/monitor" || e.Workspace != "/ws" || d.Command != "go test ./..." || d.Line != got || d.CallID != "c1" || d.Tool != "bash" {
		t.Fatalf("tool.confined: %+v %s", e, e.Data)
	}

	// Not rewritten: denied, truncated, other tools, empty commands,
	// relative workspaces.
	trunc := bashReq("/ws", "ls")
	trunc.Truncated = true
	write := bashReq("/ws", "x")
	write.Call.Tool = "write"
	for name, c := range map[string]struct {
		req core.GateRequest
		v   core.Verdict
	}{
		"denied":     {bashReq("/ws", "ls"), core.Verdict{}},
		"truncated":  {trunc, allow},
		"write":      {write, allow},
		"empty":      {bashReq("/ws", "  "), allow},
		"relative":   {bashReq("ws", "ls"), allow},
		"no command": {core.GateRequest{Call: policy.Call{Tool: "bash", Workspace: "/ws"}}, allow},
	} {
		if got, ok, err := r.Confine(context.Background(), c.req, c.v); ok || err != nil || got != "" {
			t.Errorf("%s: %q %v %v", name, got, ok, err)
		}
	}
	if len(rec.evs) != 1 {
		t.Fatalf("events recorded for calls not rewritten: %v", rec.evs)
	}

	// The log refuses the record: no rewrite is handed out, and the door
	// gets an error to block with.
	rec.err = errors.New("disk full")
	if got, ok, err := r.Confine(context.Background(), bashReq("/ws", "ls"), allow); err == nil || ok || got != "" || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("record failure: %q %v %v", got, ok, err)
	}
	r.Recorder = nil
	if _, ok, err := r.Confine(context.Background(), bashReq("/ws", "ls"), allow); err == nil || ok {
		t.Fatalf("no recorder: %v %v", ok, err)
	}
}
