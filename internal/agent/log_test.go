package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type logFixture struct {
	core *core.Core
	eng  *Engine
	root string
}

// newLogFixture is an engine over a real core and operations layer, with
// no provider: for what the engine does from the log alone.
func newLogFixture(t *testing.T, dir string) *logFixture {
	t.Helper()
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	c := coretest.New(t, coretest.Options{Dir: dir})
	reg, err := workspace.Open(filepath.Join(dir, "workspaces.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil && !strings.Contains(err.Error(), "already") {
		t.Fatal(err)
	}
	svc, err := ops.New(ops.Options{Core: c, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e, err := New(Options{Core: c, Ops: svc, Models: provider.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return &logFixture{core: c, eng: e, root: root}
}

func call(id, name, args string) provider.Part {
	return provider.Part{Type: provider.PartToolCall, ToolCall: &provider.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}}
}

// seed writes a session as the engine would have left it when warden was
// killed mid-step: one call answered, one still running.
func (f *logFixture) seed(t *testing.T, id string) []event.Event {
	t.Helper()
	evs, err := f.core.Record(t.Context(),
		ev(id, f.root, event.SessionStart, StartData{WorkingDirectory: f.root, Model: "openai/m", Provider: "openai"}),
		ev(id, f.root, event.MessageUser, UserData{Content: "the task", Turn: 1}),
		ev(id, f.root, event.SessionStatus, StatusData{Status: "busy", Turn: 1}),
		ev(id, f.root, event.MessageAssistant, AssistantData{Parts: []provider.Part{call("c1", "read", `{"path":"a"}`), call("c2", "shell", `{"command":"sleep 60"}`)}, Model: "openai/m", Turn: 1, Step: 1}),
		ev(id, f.root, event.ToolResult, ResultData{CallID: "c1", ToolID: "c1", Tool: "read", Content: "A", Outcome: "ok"}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestStartClosesCallsLeftOpen(t *testing.T) {
	dir := t.TempDir()
	f := newLogFixture(t, dir)
	f.seed(t, "ag_s1")
	if err := f.eng.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	evs, err := f.core.Events(t.Context(), store.Filter{Session: "ag_s1"})
	if err != nil {
		t.Fatal(err)
	}
	var results []ResultData
	for _, x := range evs {
		if x.Type == event.ToolResult {
			d, _ := event.DataOf[ResultData](x)
			results = append(results, d)
		}
	}
	if len(results) != 2 || results[1].CallID != "c2" || results[1].Outcome != "interrupted" || !results[1].IsError {
		t.Fatalf("results = %+v, want c2 closed as interrupted", results)
	}
	last, _ := event.DataOf[StatusData](evs[len(evs)-1])
	if evs[len(evs)-1].Type != event.SessionStatus || last.Status != "idle" || last.StopReason != "interrupted" {
		t.Fatalf("last event %s %s, want session.status idle/interrupted", evs[len(evs)-1].Type, evs[len(evs)-1].Data)
	}
	// a second start (another restart) finds nothing open
	if err := f.eng.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	again, _ := f.core.Events(t.Context(), store.Filter{Session: "ag_s1"})
	if len(again) != len(evs) {
		t.Fatalf("second Start wrote %d events", len(again)-len(evs))
	}
	// the view answers every call, in call order
	h, err := f.eng.readHistory(t.Context(), "ag_s1")
	if err != nil {
		t.Fatal(err)
	}
	v := f.eng.buildView(h, nil)
	if n := len(v.Messages); n != 4 || v.Messages[2].Parts[0].ToolResult.CallID != "c1" || v.Messages[3].Parts[0].ToolResult.CallID != "c2" {
		t.Fatalf("view = %+v", v.Messages)
	}
}

func TestForkInsideAnOpenCall(t *testing.T) {
	f := newLogFixture(t, t.TempDir())
	evs := f.seed(t, "ag_src")
	// fork at the assistant's step: both calls are open there
	at := evs[3]
	nid, err := f.eng.Fork(t.Context(), "ag_src", at.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.core.Events(t.Context(), store.Filter{Session: nid})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Type != event.SessionFork {
		t.Fatalf("first event %s, want session.fork", got[0].Type)
	}
	fd, _ := event.DataOf[ForkData](got[0])
	if fd.SourceSessionID != "ag_src" || fd.SourceEventID != at.ID || fd.Model != "openai/m" {
		t.Fatalf("fork data %+v", fd)
	}
	for i, x := range got {
		if x.Seq != int64(i+1) {
			t.Fatalf("seq %d at %d: not gapless", x.Seq, i)
		}
		if i > 0 && x.ID != got[i-1].ID+1 {
			t.Fatalf("ids %d, %d: the fork was not one transaction", got[i-1].ID, x.ID)
		}
	}
	// session.fork, 4 copies, 2 "not executed" results, idle
	var notRun []string
	for _, x := range got {
		if x.Type == event.ToolResult {
			d, _ := event.DataOf[ResultData](x)
			if d.Content != "not executed (fork point)" {
				t.Fatalf("result %+v", d)
			}
			notRun = append(notRun, d.CallID)
		}
	}
	if strings.Join(notRun, ",") != "c1,c2" || len(got) != 8 {
		t.Fatalf("not executed %v in %d events", notRun, len(got))
	}
	// the source is untouched, and the fork stands alone
	s, err := f.eng.Get(t.Context(), nid)
	if err != nil || s.ForkedFrom == nil || s.Turns != 1 {
		t.Fatalf("Get(fork) = %+v, %v", s, err)
	}
	if _, err := f.eng.Fork(t.Context(), "ag_src", 999999); !errIs(err, ErrInvalid) {
		t.Fatalf("fork at a foreign event: %v", err)
	}
	if _, err := f.eng.Fork(t.Context(), "nope", 0); !errIs(err, ErrSessionNotFound) {
		t.Fatalf("fork of no session: %v", err)
	}
}

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, p string
		want   bool
	}{
		{"*.go", "a/b/c.go", true}, {"*.go", "c.txt", false}, {"**/*.go", "c.go", true},
		{"**/*.go", "a/b/c.go", true}, {"a/*.go", "a/b/c.go", false}, {"a/**", "a/b/c.go", true},
	} {
		if got := globMatch(tc.pat, tc.p); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.pat, tc.p, got)
		}
	}
}

// FuzzToolArguments: whatever a model writes as a call's arguments or a
// glob, warden answers with a result, never a panic or a hang.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{`{"path":"a"}`, `null`, `[1]`, `{"path":1}`, `"x"`, `{`, ``} {
		f.Add([]byte(s), "**/*.go", "a/b/c.go")
	}
	f.Add([]byte(`{}`), strings.Repeat("**/", 40)+"x", strings.Repeat("a/", 60)+"y")
	f.Fuzz(func(t *testing.T, raw []byte, pattern, p string) {
		m, err := argsMap(raw)
		if err == nil {
			if m == nil {
				t.Fatal("nil map without an error")
			}
			for _, k := range []string{"path", "content", "command"} {
				_, _ = str(m, k, true)
				_ = boolArg(m, k)
				_ = intArg(m, k)
			}
		}
		_ = globMatch(pattern, p)
	})
}

// TestFoldInPieces: a history extended event by event from any point (as
// refresh does, step after step) is the history folded whole: the same
// state and the same view, the open calls included.
func TestFoldInPieces(t *testing.T) {
	f := newLogFixture(t, t.TempDir())
	id, root := "ag_pieces", f.root
	usage := provider.Usage{InputTokens: 7, OutputTokens: 3}
	evs := []event.Event{
		ev(id, root, event.SessionStart, StartData{WorkingDirectory: root, Model: "openai/m", Provider: "openai"}),
		ev(id, root, event.MessageUser, UserData{Content: "the task", Turn: 1}),
		ev(id, root, event.SessionStatus, StatusData{Status: "busy", Turn: 1}),
		ev(id, root, event.MessageAssistant, AssistantData{Parts: []provider.Part{{Type: provider.PartText, Text: "looking"}, call("c1", "read", `{"path":"a"}`), call("c2", "read", `{"path":"b"}`)}, TokenUsage: usage, Turn: 1, Step: 1}),
		ev(id, root, event.ToolResult, ResultData{CallID: "c2", ToolID: "c2", Tool: "read", Content: "B", Outcome: "ok"}),
		ev(id, root, event.ToolResult, ResultData{CallID: "c1", ToolID: "c1", Tool: "read", Content: "A", Outcome: "ok"}),
		ev(id, root, event.SessionStatus, StatusData{Status: "busy", Model: "openai/other"}),
		ev(id, root, event.SubagentComplete, SubagentData{SessionID: "ag_child", ParentSessionID: id, TokenUsage: &usage}),
		ev(id, root, event.MessageAssistant, AssistantData{Parts: []provider.Part{{Type: provider.PartText, Text: "partly"}, call("c3", "shell", `{"command":"true"}`)}, Partial: true, StopReason: StopAborted, Turn: 1, Step: 2}),
		ev(id, root, event.SessionStatus, StatusData{Status: "idle", StopReason: StopAborted, Turn: 1}),
		ev(id, root, event.ContextCompaction, CompactionData{FromSeq: 2, ToSeq: 4, Mode: "trim"}),
		ev(id, root, event.MessageUser, UserData{Content: "go on", Turn: 2}),
	}
	for i := range evs {
		evs[i].Seq = int64(i + 1)
	}
	whole, err := foldHistory(id, evs)
	if err != nil {
		t.Fatal(err)
	}
	if whole.turns != 2 || !whole.busy || whole.model != "openai/other" || len(whole.open) != 1 || whole.open[0].ID != "c3" ||
		whole.usage != usage.Add(usage) || whole.compaction == nil {
		t.Fatalf("folded whole: %+v", whole)
	}
	wantView, _ := json.Marshal(f.eng.buildView(whole, nil))
	for cut := 1; cut < len(evs); cut++ {
		h, err := foldHistory(id, evs[:cut])
		if err != nil {
			t.Fatal(err)
		}
		for i := cut; i < len(evs); i++ {
			if h, err = h.extend(evs[i : i+1]); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := json.Marshal(f.eng.buildView(h, nil))
		if h.turns != whole.turns || h.busy != whole.busy || h.model != whole.model || h.usage != whole.usage ||
			h.lastInput != whole.lastInput || len(h.open) != 1 || h.open[0].ID != "c3" || string(got) != string(wantView) {
			t.Fatalf("extended from event %d: %+v\nview %s\nwant %s", cut, h, got, wantView)
		}
	}
}

// TestAheadView: a record still committing is in the step's view once,
// whether or not the log the history was read from already had it (the
// commit may land between the read and the view).
func TestAheadView(t *testing.T) {
	id, root := "ag_ahead", "/ws"
	start := ev(id, root, event.SessionStart, StartData{WorkingDirectory: root, Model: "openai/m"})
	start.Source, start.Seq = Source, 1
	answer := ev(id, root, event.MessageAssistant, AssistantData{Parts: []provider.Part{call("c1", "read", `{"path":"a"}`)}, Turn: 1, Step: 1})
	answer.Seq = 2
	result := ev(id, root, event.ToolResult, ResultData{CallID: "c1", ToolID: "c1", Tool: "read", Content: "A", Outcome: "ok"})
	committing := &ahead{fs: []*inflight{{evs: []event.Event{result}, done: make(chan struct{})}}}

	before, err := foldHistory(id, []event.Event{start, answer})
	if err != nil {
		t.Fatal(err)
	}
	v := committing.view(before)
	if len(v.events) != 3 || v.events[2].Type != event.ToolResult || len(v.open) != 0 || len(before.events) != 2 || len(before.open) != 1 {
		t.Fatalf("read before the commit landed: view %+v, history %+v", v, before)
	}
	landed := result
	landed.Seq, landed.ID = 3, 3
	after, err := foldHistory(id, []event.Event{start, answer, landed})
	if err != nil {
		t.Fatal(err)
	}
	if v := committing.view(after); v != after {
		t.Fatalf("read after the commit landed: the result is in the view twice: %+v", v.events)
	}
	var none *ahead
	if none.view(before) != before || none.wait() != nil {
		t.Fatal("a nil ahead is not a no-op")
	}
}
