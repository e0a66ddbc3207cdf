package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/protocol/hooks"
)

const ws = "/work/ws"

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func ev(t event.Type, session string, data map[string]any) event.Event {
	b, _ := json.Marshal(data)
	return event.Event{Type: t, Session: session, Source: event.SourceClaudeCodeHooks, Workspace: ws, Data: b}
}

func start(s string) event.Event {
	return ev(event.SessionStart, s, map[string]any{"startSource": "startup"})
}
func child(s, parent string) event.Event {
	return ev(event.SessionStart, s, map[string]any{"parent": parent})
}
func prompt(s string) event.Event { return ev(event.MessageUser, s, map[string]any{"text": "do it"}) }
func call(s string) event.Event   { return ev(event.ToolCall, s, map[string]any{"tool": "bash"}) }
func result(s string) event.Event { return ev(event.ToolResult, s, map[string]any{"tool": "bash"}) }
func stop(s string) event.Event   { return ev(event.SessionStatus, s, map[string]any{"status": "idle"}) }
func end(s string) event.Event    { return ev(event.SessionEnd, s, map[string]any{"reason": "exit"}) }
func failed(s string) event.Event { return ev(event.SessionError, s, map[string]any{"error": "boom"}) }
func spawn(s, c string) event.Event {
	return ev(event.SubagentSpawn, s, map[string]any{"childSession": c})
}
func done(s, c string) event.Event {
	return ev(event.SubagentComplete, s, map[string]any{"childSession": c})
}
func asked(s, id string) event.Event {
	return ev(event.ApprovalRequested, s, map[string]any{"approvalId": id})
}
func resolved(s, id string) event.Event {
	return ev(event.ApprovalResolved, s, map[string]any{"approvalId": id, "outcome": "approved"})
}
func notice(s string) event.Event {
	return ev(event.AgentNotification, s, map[string]any{"message": "Claude is waiting for your input"})
}
func permRequest(s string) event.Event {
	return ev(event.AgentPermissionRequest, s, map[string]any{"tool": "bash", "toolName": "Bash"})
}
func permNotice(s string) event.Event {
	return ev(event.AgentNotification, s, map[string]any{"message": "Claude needs your permission to use Bash", "notificationType": "permission_prompt"})
}
func idleNotice(s string) event.Event {
	return ev(event.AgentNotification, s, map[string]any{"message": "Claude is waiting for your input", "notificationType": "idle_prompt"})
}

// step is one thing done to the provider and the status expected after it.
type step struct {
	ev      *event.Event
	advance time.Duration // then Tick
	mark    bool          // MarkActive
	want    agent.Status
}

func e(x event.Event, want agent.Status) step { return step{ev: &x, want: want} }
func tick(d time.Duration, want agent.Status) step {
	return step{advance: d, want: want}
}

const (
	none    = agent.StatusNone
	idle    = agent.StatusIdle
	busy    = agent.StatusBusy
	waiting = agent.StatusWaiting
)

func TestProviderTransitions(t *testing.T) {
	const S, C, D = "s1", "s1/a1", "s1/a2"
	other := func(x event.Event) event.Event { x.Workspace = "/work/other"; return x }
	otherSource := func(x event.Event) event.Event { x.Source = "opencode/monitor"; return x }
	compact := ev(event.SessionStart, S, map[string]any{"startSource": "compact"})
	busyStatus := ev(event.SessionStatus, S, map[string]any{"status": "busy"})
	badData := event.Event{Type: event.MessageUser, Session: S, Source: event.SourceClaudeCodeHooks, Workspace: ws, Data: []byte("{")}
	trailing := prompt(S)
	trailing.Workspace = ws + "/"

	tests := []struct {
		name        string
		steps       []step
		wantSession string
	}{
		{"fresh provider", nil, ""},
		{"session start is idle", []step{e(start(S), idle)}, S},
		{"prompt is busy, stop is idle", []step{e(start(S), idle), e(prompt(S), busy), e(stop(S), idle)}, S},
		{"repeated busy stays busy", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(result(S), busy), e(call(S), busy), e(result(S), busy), e(stop(S), idle)}, S},
		{"idle without busy", []step{e(start(S), idle), e(stop(S), idle), e(stop(S), idle)}, S},
		{"session.status busy", []step{e(start(S), idle), e(busyStatus, busy)}, S},
		{"session error is idle", []step{e(start(S), idle), e(prompt(S), busy), e(failed(S), idle)}, S},
		{"session end is none", []step{e(start(S), idle), e(prompt(S), busy), e(end(S), none)}, ""},
		{"stragglers of an ended session ignored", []step{e(start(S), idle), e(end(S), none), e(result(S), none), e(resolved(S, "x"), none), e(call(C), none)}, ""},
		{"ended session started again", []step{e(start(S), idle), e(end(S), none), e(start(S), idle), e(prompt(S), busy)}, S},
		{"new root replaces the old", []step{e(start(S), idle), e(prompt(S), busy), e(start("s2"), idle), e(call(S), idle), e(prompt("s2"), busy)}, "s2"},
		{"compaction mid-turn keeps busy", []step{e(start(S), idle), e(prompt(S), busy), e(compact, busy), e(stop(S), idle)}, S},
		{"resume of the root is idle", []step{e(start(S), idle), e(prompt(S), busy), e(start(S), idle)}, S},
		{"sub-agent keeps root busy", []step{
			e(start(S), idle), e(prompt(S), busy), e(call(S), busy),
			e(spawn(S, C), busy), e(child(C, S), busy), e(call(C), busy), e(result(C), busy),
			e(done(S, C), busy), e(end(C), busy), e(result(S), busy), e(stop(S), idle),
		}, S},
		{"sub-agent activity while root idle is busy", []step{
			e(start(S), idle), e(child(C, S), idle), e(call(C), busy), e(done(S, C), busy), e(end(C), idle),
		}, S},
		{"spawn and complete do not flip idle root", []step{e(start(S), idle), e(spawn(S, C), idle), e(done(S, C), idle)}, S},
		{"child end does not end the root", []step{e(start(S), idle), e(prompt(S), busy), e(child(C, S), busy), e(end(C), busy)}, S},
		{"stop clears children's busy marks", []step{e(start(S), idle), e(child(C, S), idle), e(call(C), busy), e(stop(S), idle), e(call(C), busy)}, S},
		{"child stop status does not idle the root", []step{e(start(S), idle), e(prompt(S), busy), e(child(C, S), busy), e(stop(C), busy), e(failed(C), busy)}, S},
		{"child of an unknown parent ignored", []step{e(start(S), idle), e(child("x/a", "x"), idle), e(call("x/a"), idle)}, S},
		{"child id without start is tracked", []step{e(start(S), idle), e(call(D), busy), e(end(D), idle)}, S},
		{"approval waits", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(asked(S, "ap1"), waiting), e(resolved(S, "ap1"), busy), e(result(S), busy), e(stop(S), idle)}, S},
		{"two approvals wait for both", []step{e(start(S), idle), e(prompt(S), busy), e(asked(S, "ap1"), waiting), e(child(C, S), waiting), e(asked(C, "ap2"), waiting), e(resolved(S, "ap1"), waiting), e(resolved(C, "ap2"), busy)}, S},
		{"approval of another id does not release", []step{e(start(S), idle), e(asked(S, "ap1"), waiting), e(resolved(S, "zz"), waiting), e(resolved(S, "ap1"), idle)}, S},
		{"approval without id ignored", []step{e(start(S), idle), e(asked(S, ""), idle)}, S},
		{"child end drops its approvals", []step{e(start(S), idle), e(prompt(S), busy), e(child(C, S), busy), e(asked(C, "ap"), waiting), e(end(C), busy)}, S},
		{"root end drops approvals", []step{e(start(S), idle), e(asked(S, "ap"), waiting), e(end(S), none), e(start(S), idle)}, S},
		{"stop while waiting still waits", []step{e(start(S), idle), e(prompt(S), busy), e(asked(S, "ap"), waiting), e(stop(S), waiting), e(resolved(S, "ap"), idle)}, S},
		{"inactivity fallback", []step{e(start(S), idle), e(prompt(S), busy), tick(9*time.Minute, busy), tick(59*time.Second, busy), tick(time.Second, idle)}, S},
		{"activity restarts the inactivity clock", []step{e(start(S), idle), e(prompt(S), busy), tick(9*time.Minute, busy), e(call(C), busy), tick(9*time.Minute, busy), tick(time.Minute, idle)}, S},
		{"spawn restarts the inactivity clock", []step{e(start(S), idle), e(prompt(S), busy), tick(9*time.Minute, busy), e(spawn(S, C), busy), tick(9*time.Minute, busy), tick(time.Minute, idle)}, S},
		{"waiting never times out", []step{e(start(S), idle), e(prompt(S), busy), e(asked(S, "ap"), waiting), tick(time.Hour, waiting), e(resolved(S, "ap"), busy)}, S},
		{"tick when idle changes nothing", []step{e(start(S), idle), tick(time.Hour, idle)}, S},
		{"notifications ignored", []step{e(start(S), idle), e(prompt(S), busy), tick(9*time.Minute, busy), e(notice(S), busy), tick(time.Minute, idle)}, S},
		{"notification does not adopt", []step{e(notice(S), none)}, ""},
		{"own permission prompt waits until the tool runs", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(permRequest(S), waiting), e(permNotice(S), waiting), tick(time.Hour, waiting), e(result(S), busy), e(stop(S), idle)}, S},
		{"permission notice alone waits", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(permNotice(S), waiting), e(call(S), busy)}, S},
		{"rejected prompt waits until the next prompt", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(permRequest(S), waiting), e(prompt(S), busy)}, S},
		{"idle notice after a rejected prompt is idle", []step{e(start(S), idle), e(prompt(S), busy), e(call(S), busy), e(permRequest(S), waiting), e(idleNotice(S), idle)}, S},
		{"stop ends a prompt", []step{e(start(S), idle), e(prompt(S), busy), e(permRequest(S), waiting), e(stop(S), idle)}, S},
		{"child's prompt waits, its result works again", []step{e(start(S), idle), e(prompt(S), busy), e(child(C, S), busy), e(call(C), busy), e(permRequest(C), waiting), e(result(C), busy)}, S},
		{"child end drops its prompt", []step{e(start(S), idle), e(prompt(S), busy), e(child(C, S), busy), e(permRequest(C), waiting), e(end(C), busy)}, S},
		{"prompt and approval: both must end", []step{e(start(S), idle), e(prompt(S), busy), e(asked(S, "ap"), waiting), e(resolved(S, "ap"), busy), e(permRequest(S), waiting), e(result(S), busy)}, S},
		{"permission request adopts the session", []step{e(permRequest(S), waiting), e(result(S), busy)}, S},
		{"root end drops the prompt", []step{e(start(S), idle), e(permRequest(S), waiting), e(end(S), none)}, ""},
		{"other workspace ignored", []step{e(other(start(S)), none), e(start(S), idle), e(other(prompt(S)), idle), e(other(end(S)), idle)}, S},
		{"workspace compared cleaned", []step{e(start(S), idle), e(trailing, busy)}, S},
		{"other source ignored", []step{e(start(S), idle), e(otherSource(prompt(S)), idle)}, S},
		{"event without session ignored", []step{e(start(S), idle), e(prompt(""), idle)}, S},
		{"unreadable data uses the type", []step{e(start(S), idle), e(badData, busy)}, S},
		{"mid-session provider adopts the session", []step{e(call(S), busy), e(stop(S), idle)}, S},
		{"mid-session child adopts its root", []step{e(call(C), busy), e(end(C), idle)}, S},
		{"end of unknown session does not adopt", []step{e(end(S), none), e(resolved(S, "x"), none), e(done(S, C), none)}, ""},
		{"mark active is idle", []step{{mark: true, want: idle}, e(start(S), idle), e(prompt(S), busy), {mark: true, want: busy}}, S},
		{"mark active then session end is none", []step{{mark: true, want: idle}, e(start(S), idle), e(end(S), none)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			p := NewProvider(ProviderOptions{Workspace: ws, Now: c.Now})
			var seen []agent.Status
			p.OnStatusChange(func(s agent.Status) { seen = append(seen, s) })
			want := []agent.Status{none}
			for i, st := range tc.steps {
				switch {
				case st.ev != nil:
					p.Observe(*st.ev)
				case st.mark:
					p.MarkActive()
				default:
					c.Advance(st.advance)
					p.Tick()
				}
				if got := p.Status(); got != st.want {
					t.Fatalf("step %d: status %q, want %q", i, got, st.want)
				}
				if st.want != want[len(want)-1] {
					want = append(want, st.want)
				}
			}
			if !reflect.DeepEqual(seen, want) {
				t.Errorf("callback saw %v, want %v", seen, want)
			}
			si, ok := p.Session()
			if ok != (tc.wantSession != "") || si.SessionID != tc.wantSession || si.Port != 0 {
				t.Errorf("Session() = %+v, %v; want %q", si, ok, tc.wantSession)
			}
		})
	}
}

// TestProviderFromHookPayloads feeds events made by the hook door's own
// mapping from Claude Code's hook bodies, so the data fields read here are
// the ones the door writes.
func TestProviderFromHookPayloads(t *testing.T) {
	p := NewProvider(ProviderOptions{Workspace: ws, Now: newClock().Now})
	feed := func(body string, want agent.Status) {
		t.Helper()
		pl, err := hooks.Decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range pl.Events(ws, "", time.Time{}) {
			p.Observe(x)
		}
		if got := p.Status(); got != want {
			t.Fatalf("after %s: status %q, want %q", body, got, want)
		}
	}
	gate := func(session string) {
		t.Helper()
		// PreToolUse goes through the gate, which records tool.call with
		// the request's session and source.
		pl, err := hooks.Decode([]byte(`{"session_id":"abc","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"agent_id":"` + session + `"}`))
		if err != nil {
			t.Fatal(err)
		}
		req := pl.GateRequest(ws)
		p.Observe(event.Event{Type: event.ToolCall, Session: req.Call.Session, Source: req.Source, Workspace: ws, Data: []byte(`{}`)})
	}
	feed(`{"session_id":"abc","hook_event_name":"SessionStart","source":"startup"}`, idle)
	feed(`{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"SubagentStart","agent_id":"ag1","agent_type":"general"}`, busy)
	gate("ag1")
	feed(`{"session_id":"abc","hook_event_name":"PostToolUse","tool_name":"Bash","agent_id":"ag1","tool_use_id":"t1"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"Notification","message":"Claude is waiting for your input"}`, busy)
	gate("")
	feed(`{"session_id":"abc","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`, waiting)
	feed(`{"session_id":"abc","hook_event_name":"Notification","message":"Claude needs your permission to use Bash","notification_type":"permission_prompt"}`, waiting)
	feed(`{"session_id":"abc","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t2"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"SubagentStop","agent_id":"ag1","agent_type":"general"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"SessionStart","source":"compact"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"Stop","stop_hook_active":false}`, idle)
	if env := p.Environment(); env[EnvSessionID] != "abc" {
		t.Fatalf("Environment = %v", env)
	}
	feed(`{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"again"}`, busy)
	feed(`{"session_id":"abc","hook_event_name":"StopFailure","error":"rate limited"}`, idle)
	feed(`{"session_id":"abc","hook_event_name":"SessionEnd","reason":"exit"}`, none)
}

func TestProviderSubscribers(t *testing.T) {
	p := NewProvider(ProviderOptions{Workspace: ws, Now: newClock().Now})
	p.Observe(start("s"))
	var a, b []agent.Status
	unA := p.OnStatusChange(func(s agent.Status) { a = append(a, s) })
	if !reflect.DeepEqual(a, []agent.Status{idle}) {
		t.Fatalf("immediate value: %v", a)
	}
	p.OnStatusChange(func(s agent.Status) { b = append(b, s) })
	p.Observe(prompt("s"))
	p.Observe(call("s")) // no change, no call
	unA()
	unA() // twice is fine
	p.Observe(stop("s"))
	if !reflect.DeepEqual(a, []agent.Status{idle, busy}) || !reflect.DeepEqual(b, []agent.Status{idle, busy, idle}) {
		t.Fatalf("a %v b %v", a, b)
	}
	p.Dispose()
	p.Observe(prompt("s"))
	p.MarkActive()
	p.Tick()
	if !reflect.DeepEqual(b, []agent.Status{idle, busy, idle}) || p.Status() != idle {
		t.Fatalf("after Dispose: b %v status %q", b, p.Status())
	}
	called := false
	p.OnStatusChange(func(agent.Status) { called = true })()
	if called {
		t.Fatal("a subscriber registered after Dispose was called")
	}
}

// TestProviderReentrantCallbacks: a callback may call back into the
// provider; deliveries stay in order.
func TestProviderReentrantCallbacks(t *testing.T) {
	p := NewProvider(ProviderOptions{Workspace: ws, Now: newClock().Now})
	var seen, inner []agent.Status
	p.OnStatusChange(func(s agent.Status) {
		seen = append(seen, s)
		_ = p.Status()
		_, _ = p.Session()
		if s == idle && len(seen) == 2 {
			p.Observe(prompt("s")) // a change from inside a callback
			p.OnStatusChange(func(s agent.Status) { inner = append(inner, s) })
		}
	})
	p.Observe(start("s"))
	if want := []agent.Status{none, idle, busy}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("seen %v, want %v", seen, want)
	}
	if want := []agent.Status{busy}; !reflect.DeepEqual(inner, want) {
		t.Fatalf("inner %v, want %v", inner, want)
	}
	// An unsubscribe from inside a callback stops later deliveries.
	var un func()
	var got []agent.Status
	un = p.OnStatusChange(func(s agent.Status) {
		got = append(got, s)
		if un != nil {
			un()
		}
	})
	p.Observe(stop("s"))
	p.Observe(prompt("s"))
	if want := []agent.Status{busy, idle}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestProviderCallbackPanicIsLogged(t *testing.T) {
	var logs bytes.Buffer
	p := NewProvider(ProviderOptions{Workspace: ws, Now: newClock().Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	var after []agent.Status
	p.OnStatusChange(func(s agent.Status) {
		if s == busy {
			panic("subscriber bug")
		}
	})
	p.OnStatusChange(func(s agent.Status) { after = append(after, s) })
	p.Observe(start("s"))
	p.Observe(prompt("s"))
	p.Observe(stop("s"))
	if want := []agent.Status{none, idle, busy, idle}; !reflect.DeepEqual(after, want) {
		t.Fatalf("after %v, want %v", after, want)
	}
	if !bytes.Contains(logs.Bytes(), []byte("subscriber bug")) {
		t.Fatalf("panic not logged: %s", logs.String())
	}
}

// TestProviderConcurrent: every subscriber sees each change in the order
// the status went through, with events from many goroutines (run with
// -race).
func TestProviderConcurrent(t *testing.T) {
	c := newClock()
	p := NewProvider(ProviderOptions{Workspace: ws, Now: c.Now, IdleAfter: time.Minute})
	var mu sync.Mutex
	var seen [3][]agent.Status
	for i := range seen {
		p.OnStatusChange(func(s agent.Status) {
			mu.Lock()
			seen[i] = append(seen[i], s)
			mu.Unlock()
		})
	}
	p.Observe(start("s"))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				switch (g + i) % 5 {
				case 0:
					p.Observe(prompt("s"))
				case 1:
					p.Observe(stop("s"))
				case 2:
					c.Advance(time.Minute)
					p.Tick()
				case 3:
					_ = p.Environment()
					p.MarkActive()
				case 4:
					p.Observe(call("s/a"))
				}
			}
		})
	}
	wg.Wait()
	p.Observe(stop("s"))
	for i := range seen {
		s := seen[i]
		if len(s) < 2 || s[0] != none || s[len(s)-1] != idle {
			t.Fatalf("subscriber %d saw %v", i, s)
		}
		for j := 1; j < len(s); j++ {
			if s[j] == s[j-1] {
				t.Fatalf("subscriber %d saw %v twice in a row", i, s[j])
			}
		}
		if !reflect.DeepEqual(s, seen[0]) {
			t.Fatalf("subscribers disagree: %v vs %v", s, seen[0])
		}
	}
}

func TestProviderEnvironmentAndConnect(t *testing.T) {
	base := map[string]string{"WARDEN_MCP_PORT": "1234"}
	p := NewProvider(ProviderOptions{Workspace: ws, Env: base})
	base["WARDEN_MCP_PORT"] = "changed" // the provider copied it
	if env := p.Environment(); !reflect.DeepEqual(env, map[string]string{"WARDEN_MCP_PORT": "1234"}) {
		t.Fatalf("Environment = %v", env)
	}
	p.Environment()["X"] = "y" // a copy each time
	ctx := context.Background()
	if err := p.Connect(ctx, 9999); err != nil {
		t.Fatal(err)
	}
	if err := p.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	p.Disconnect()
	p.Observe(start("sess-1"))
	want := map[string]string{"WARDEN_MCP_PORT": "1234", EnvSessionID: "sess-1"}
	if env := p.Environment(); !reflect.DeepEqual(env, want) {
		t.Fatalf("Environment = %v, want %v", env, want)
	}
	p.Disconnect() // keeps the session
	if si, ok := p.Session(); !ok || si.SessionID != "sess-1" {
		t.Fatalf("Session = %+v %v", si, ok)
	}
	if env := NewProvider(ProviderOptions{Workspace: ws}).Environment(); env == nil || len(env) != 0 {
		t.Fatalf("empty Environment = %#v", env)
	}
}

func TestProviderDefaultIdleAfter(t *testing.T) {
	c := newClock()
	p := NewProvider(ProviderOptions{Workspace: ws, Now: c.Now})
	p.Observe(start("s"))
	p.Observe(prompt("s"))
	c.Advance(DefaultIdleAfter - time.Nanosecond)
	p.Tick()
	if p.Status() != busy {
		t.Fatalf("status %q before the default timeout", p.Status())
	}
	c.Advance(time.Nanosecond)
	p.Tick()
	if p.Status() != idle {
		t.Fatalf("status %q after the default timeout", p.Status())
	}
}
