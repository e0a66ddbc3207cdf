package doortest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/event"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/store"
)

// watchedLog is the core's log as a test sees it: it keeps what is
// durable (the events of every Append that returned them), and hold may
// make an Append wait for a channel and then fail.
type watchedLog struct {
	store.Log
	t    testing.TB
	hold func(evs []event.Event) (wait <-chan struct{}, fail error)

	mu      sync.Mutex
	durable []event.Event
}

func (l *watchedLog) Append(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	if l.hold != nil {
		wait, fail := l.hold(evs)
		if wait != nil {
			select {
			case <-wait:
			case <-l.t.Context().Done():
				return nil, errors.New("held until the test ended")
			}
		}
		if fail != nil {
			return nil, fail
		}
	}
	out, err := l.Log.Append(ctx, evs...)
	if err == nil {
		l.mu.Lock()
		l.durable = append(l.durable, out...)
		l.mu.Unlock()
	}
	return out, err
}

// has reports whether a durable event of type typ has field key = value in
// its data (any such event when key is "").
func (l *watchedLog) has(typ event.Type, key string, value any) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.durable {
		if x.Type != typ {
			continue
		}
		if key == "" {
			return true
		}
		if d, err := event.DataOf[map[string]any](x); err == nil && d[key] == value {
			return true
		}
	}
	return false
}

// closer closes its channel once, however often it is called.
type closer struct {
	ch   chan struct{}
	once sync.Once
}

func newCloser() *closer { return &closer{ch: make(chan struct{})} }
func (c *closer) close() { c.once.Do(func() { close(c.ch) }) }

// announcements records the engine's notices, and each one that is sent
// before what it announces is durable in l.
func announcements(t *testing.T, h *harness, l *watchedLog) (seen func() map[string]int, early func() []string) {
	var mu sync.Mutex
	count := map[string]int{}
	var bad []string
	remove := h.eng.Subscribe(func(n agent.Notice) {
		var ok bool
		switch n.Method {
		case "session.status":
			ok = l.has(event.SessionStatus, "status", n.Params["status"])
		case "agent.tool_end":
			ok = l.has(event.ToolResult, "callId", n.Params["toolId"])
		case "agent.text_delta":
			// the answer follows the user's message and the results of
			// the step before it (this test's turns make one call)
			ok = l.has(event.MessageUser, "", nil) && (!l.has(event.ToolCall, "", nil) || l.has(event.ToolResult, "", nil))
		case "agent.turn_complete":
			ok = l.has(event.SessionStatus, "status", "idle")
		default:
			ok = true
		}
		mu.Lock()
		defer mu.Unlock()
		count[n.Method]++
		if !ok {
			bad = append(bad, fmt.Sprintf("%s %v", n.Method, n.Params))
		}
	})
	t.Cleanup(remove)
	return func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			return maps.Clone(count)
		}, func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(bad)
		}
}

func types(evs []event.Event) []event.Type {
	var out []event.Type
	for _, x := range evs {
		out = append(out, x.Type)
	}
	return out
}

// TestCommitsOverlapTheModel: the user's message and a step's tool result
// commit while the model is asked (the log holds each append until the
// fake has the request that follows it, so the turn would never end if
// the engine waited), and still every notice is sent only once what it
// announces is durable, and the log has the whole turn in its order.
func TestCommitsOverlapTheModel(t *testing.T) {
	asked1, asked2 := newCloser(), newCloser()
	script := func(r openaifake.Request) openaifake.Reply {
		if r.HasToolResult() {
			asked2.close()
			return openaifake.Reply{Text: "It says hello."}
		}
		asked1.close()
		return openaifake.Reply{Tool: "read", Args: map[string]any{"path": "a.txt"}}
	}
	wl := &watchedLog{t: t, hold: func(evs []event.Event) (<-chan struct{}, error) {
		switch evs[0].Type {
		case event.MessageUser:
			return asked1.ch, nil
		case event.ToolResult:
			return asked2.ch, nil
		}
		return nil, nil
	}}
	h := newHarness(t, script, harnessOptions{log: func(l store.Log) store.Log { wl.Log = l; return wl }})
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen, early := announcements(t, h, wl)
	c := h.dial()
	id := c.create(h)
	if res := c.message(id, "what does a.txt say?"); res.Text != "It says hello." || res.StopReason != agent.StopEnd {
		t.Fatalf("turn %+v", res)
	}
	if bad := early(); len(bad) > 0 {
		t.Fatalf("announced before durable: %q", bad)
	}
	got := seen()
	for _, m := range []string{"session.status", "agent.tool_end", "agent.text_delta", "agent.turn_complete"} {
		if got[m] == 0 {
			t.Fatalf("no %s notice: %v", m, got)
		}
	}
	want := []event.Type{event.SessionStart, event.MessageUser, event.SessionStatus, event.MessageAssistant, event.ToolCall,
		event.ToolDecision, event.ToolResult, event.MessageAssistant, event.SessionStatus}
	if evs := h.events(id, ""); !slices.Equal(types(evs), want) {
		t.Fatalf("the log has %v, want %v", types(evs), want)
	}
}

// TestResultThatCannotCommitStopsTheTurn: the model was already asked with
// a result whose commit then fails. Its answer is neither announced nor
// recorded, the turn ends with the error, and the call, left without a
// result, is closed "interrupted" at the next start like any call cut
// short.
func TestResultThatCannotCommitStopsTheTurn(t *testing.T) {
	asked := newCloser()
	script := func(r openaifake.Request) openaifake.Reply {
		if r.HasToolResult() {
			asked.close()
			return openaifake.Reply{Text: "It says hello."}
		}
		return openaifake.Reply{Tool: "read", Args: map[string]any{"path": "a.txt"}}
	}
	var failResults atomic.Bool
	failResults.Store(true)
	wl := &watchedLog{t: t, hold: func(evs []event.Event) (<-chan struct{}, error) {
		if evs[0].Type != event.ToolResult || !failResults.Load() {
			return nil, nil
		}
		return asked.ch, errors.New("disk full")
	}}
	h := newHarness(t, script, harnessOptions{log: func(l store.Log) store.Log { wl.Log = l; return wl }})
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	seen, early := announcements(t, h, wl)
	c := h.dial()
	id := c.create(h)
	res := c.message(id, "what does a.txt say?")
	if res.StopReason != agent.StopError {
		t.Fatalf("turn %+v, want it stopped by the error", res)
	}
	if bad := early(); len(bad) > 0 {
		t.Fatalf("announced before durable: %q", bad)
	}
	if got := seen(); got["agent.text_delta"] > 0 || got["agent.tool_end"] > 0 {
		t.Fatalf("the answer to a result that is not in the log was announced: %v", got)
	}
	if n := len(h.events(id, event.MessageAssistant)); n != 1 {
		t.Fatalf("%d answers recorded, want only the first (the one that made the call)", n)
	}
	if n := len(h.events(id, event.ToolResult)); n != 0 {
		t.Fatalf("%d results recorded, want none", n)
	}
	failResults.Store(false)
	if err := h.eng.Start(t.Context()); err != nil { // what a restart does
		t.Fatal(err)
	}
	rs := h.events(id, event.ToolResult)
	if len(rs) != 1 {
		t.Fatalf("after a start, %d results, want 1", len(rs))
	}
	if d, err := event.DataOf[agent.ResultData](rs[0]); err != nil || d.Outcome != "interrupted" {
		t.Fatalf("the call was closed with %+v (%v), want interrupted", d, err)
	}
}

// TestMessageThatCannotCommit: the user's message fails to commit while
// the model is already answering: agent.message fails, nothing of the
// turn is announced, and the log holds nothing of it.
func TestMessageThatCannotCommit(t *testing.T) {
	asked := newCloser()
	script := func(openaifake.Request) openaifake.Reply {
		asked.close()
		return openaifake.Reply{Text: "hello there"}
	}
	wl := &watchedLog{t: t, hold: func(evs []event.Event) (<-chan struct{}, error) {
		if evs[0].Type == event.MessageUser {
			return asked.ch, errors.New("disk full")
		}
		return nil, nil
	}}
	h := newHarness(t, script, harnessOptions{log: func(l store.Log) store.Log { wl.Log = l; return wl }})
	seen, _ := announcements(t, h, wl)
	c := h.dial()
	id := c.create(h)
	r := wait(t, c.start("agent.message", map[string]any{"sessionId": id, "content": "hi"}), "agent.message")
	if r.Error == nil {
		t.Fatalf("agent.message succeeded (%s) without its message in the log", r.Result)
	}
	if got := seen(); len(got) > 0 {
		t.Fatalf("notices of a turn that is not in the log: %v", got)
	}
	if evs := h.events(id, ""); len(evs) != 1 {
		t.Fatalf("the log has %v, want only the session's start", types(evs))
	}
}
