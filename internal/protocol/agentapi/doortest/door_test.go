package doortest

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/fakemodel"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/protocol/agentapi"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/testtools"
)

func queue(rs ...openaifake.Reply) openaifake.Script { return openaifake.NewQueue(rs...).Next }

// TestSafeCallRunsDangerousIsDenied: a write runs and its file appears; an
// rm aimed at the home directory is denied by the policy before it touches
// the disk, and the model is told warden's reason.
func TestSafeCallRunsDangerousIsDenied(t *testing.T) {
	var h *harness
	victim := ""
	h = newHarness(t, queue(
		openaifake.Reply{Text: "Writing it.", Tool: "write", Args: map[string]any{"path": "hello.txt", "content": "hi\n"}},
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "rm -rf ../home/victim"}},
		openaifake.Reply{Text: "All done."},
	), harnessOptions{})
	victim = filepath.Join(h.home, "victim")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	res := c.message(id, "write hello.txt, then clean up")
	if res.StopReason != agent.StopEnd || res.Steps != 3 || res.Text != "All done." {
		t.Fatalf("turn = %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(h.root, "hello.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("hello.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the denied rm touched the disk: %v", err)
	}
	reqs := h.fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := reqs[2].ToolResults()
	if len(got) != 2 || !strings.Contains(got[0], "wrote 3 bytes") || !strings.Contains(got[1], "denied by warden") || !strings.Contains(got[1], "outside the workspace") {
		t.Fatalf("the model was told %q", got)
	}
	// the log: one decision and one result per call
	decisions := h.events(id, event.ToolDecision)
	results := h.events(id, event.ToolResult)
	if len(decisions) != 2 || len(results) != 2 {
		t.Fatalf("%d decisions, %d results", len(decisions), len(results))
	}
	d0, _ := event.DataOf[event.ToolDecisionData](decisions[0])
	d1, _ := event.DataOf[event.ToolDecisionData](decisions[1])
	r1, _ := event.DataOf[agent.ResultData](results[1])
	if d0.Decision != "allow" || d1.Decision != "deny" || r1.Outcome != "denied" || !r1.IsError {
		t.Fatalf("decisions %s/%s, second result %+v", d0.Decision, d1.Decision, r1)
	}
	// the notifications: deltas, each tool's start and end, the turn
	if got := c.text(id); got != "Writing it.All done." {
		t.Fatalf("deltas %q", got)
	}
	_, i := c.waitNote(0, "agent.tool_start", func(p map[string]any) bool { return p["toolName"] == "write" })
	end, _ := c.waitNote(i, "agent.tool_end", nil)
	if end.Params["toolId"] == "" || end.Params["sessionId"] != id {
		t.Fatalf("tool_end %v", end.Params)
	}
	tc, _ := c.waitNote(0, "agent.turn_complete", nil)
	if u, ok := tc.Params["tokenUsage"].(map[string]any); !ok || u["inputTokens"].(float64) != 30 {
		t.Fatalf("turn_complete %v", tc.Params)
	}
}

// TestAskApprovedRuns: a call the policy asks about waits as a pending
// approval of the session; approved, it runs.
func TestAskApprovedRuns(t *testing.T) {
	h := newHarness(t, queue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "git clean -fdx"}},
		openaifake.Reply{Text: "Cleaned."},
	), harnessOptions{})
	git := exec.Command("git", "init", "-q", h.root)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	junk := filepath.Join(h.root, "junk.txt")
	if err := os.WriteFile(junk, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "clean the tree"})
	req := coretest.WaitApproval(t, h.core, func(r approval.Request) bool { return r.Session == id })
	var got struct {
		Session agent.Session `json:"session"`
	}
	c.call("session.get", map[string]any{"sessionId": id}, &got)
	if got.Session.Status != "waiting" || len(got.Session.PendingApprovals) != 1 || got.Session.PendingApprovals[0] != req.ID {
		t.Fatalf("session while asked: %+v", got.Session)
	}
	if _, err := h.core.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, By: "test"}); err != nil {
		t.Fatal(err)
	}
	r := wait(t, turn, "agent.message")
	if r.Error != nil {
		t.Fatalf("turn: %+v", r.Error)
	}
	if _, err := os.Stat(junk); !os.IsNotExist(err) {
		t.Fatalf("junk.txt is still there (%v): the approved call did not run", err)
	}
}

// TestBusyAndAbortMidStream: a second message during a turn is -32001;
// agent.abort stops the stream the fake is holding, answers aborted once
// the turn is torn down, and the session takes new turns again.
func TestBusyAndAbortMidStream(t *testing.T) {
	gate := fakemodel.NewGate()
	h := newHarness(t, queue(
		openaifake.Reply{Text: "a long answer that never ends", Hold: gate},
		openaifake.Reply{Text: "fresh"},
	), harnessOptions{})
	defer gate.Release()
	c := h.dial()
	id := c.create(h)
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "go"})
	<-gate.Reached()
	if code := c.callErr("agent.message", map[string]any{"sessionId": id, "content": "again"}); code != agentapi.CodeAgentBusy {
		t.Fatalf("second message: %d, want -32001", code)
	}
	var ab struct {
		Aborted bool `json:"aborted"`
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, &ab)
	if !ab.Aborted {
		t.Fatal("abort answered false during a turn")
	}
	r := wait(t, turn, "agent.message")
	var res agent.TurnResult
	if r.Error != nil {
		t.Fatalf("aborted turn: %+v", r.Error)
	}
	if err := jsonUnmarshal(r.Result, &res); err != nil || res.StopReason != agent.StopAborted {
		t.Fatalf("aborted turn = %s", r.Result)
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, &ab)
	if ab.Aborted {
		t.Fatal("abort answered true with no turn running")
	}
	if res := c.message(id, "again"); res.Text != "fresh" {
		t.Fatalf("next turn %+v", res)
	}
	if code := c.callErr("agent.message", map[string]any{"sessionId": "ag_none", "content": "x"}); code != agentapi.CodeSessionNotFound {
		t.Fatalf("unknown session: %d", code)
	}
	if code := c.callErr("agent.nothing", map[string]any{}); code != -32601 {
		t.Fatalf("unknown method: %d", code)
	}
	if code := c.callErr("session.create", map[string]any{"workingDirectory": h.root}); code != -32602 {
		t.Fatalf("missing model: %d", code)
	}
}

// TestAbortMidTool: a `sleep 60` shell call (and what it started) is gone
// within 3 s of agent.abort, and its call gets the aborted result.
func TestAbortMidTool(t *testing.T) {
	h := newHarness(t, queue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "sleep 60 & echo $$ $! > pids; wait"}},
	), harnessOptions{})
	fifo := filepath.Join(h.root, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "wait a minute"})
	f, err := os.Open(fifo) // until the shell writes its pids
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, nil)
	for _, s := range strings.Fields(line) {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		testtools.WaitExit(t, pid, 3*time.Second)
	}
	wait(t, turn, "agent.message")
	results := h.events(id, event.ToolResult)
	if len(results) != 1 {
		t.Fatalf("%d results", len(results))
	}
	d, _ := event.DataOf[agent.ResultData](results[0])
	if d.Outcome != "aborted" || !strings.HasPrefix(d.Content, "aborted after ") || !strings.HasSuffix(d.Content, "s; side effects may have happened") {
		t.Fatalf("result %+v", d)
	}
}

// TestForkAndContinueBoth: fork at a middle event; both sessions take
// their own next turn, and each sends the model its own history.
func TestForkAndContinueBoth(t *testing.T) {
	h := newHarness(t, queue(
		openaifake.Reply{Text: "one"},
		openaifake.Reply{Text: "two"},
		openaifake.Reply{Text: "three (source)"},
		openaifake.Reply{Text: "three (fork)"},
	), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	c.message(id, "first")
	c.message(id, "second")
	// fork right after the first answer
	mid := h.events(id, event.MessageAssistant)[0]
	var f struct {
		NewSessionID string `json:"newSessionId"`
	}
	c.call("session.fork", map[string]any{"sessionId": id, "eventId": mid.ID}, &f)
	if res := c.message(id, "third"); res.Text != "three (source)" {
		t.Fatalf("source turn %+v", res)
	}
	if res := c.message(f.NewSessionID, "other third"); res.Text != "three (fork)" {
		t.Fatalf("fork turn %+v", res)
	}
	reqs := h.fake.Requests()
	src, fork := userTexts(reqs[2]), userTexts(reqs[3])
	if strings.Join(src, "|") != "first|second|third" || strings.Join(fork, "|") != "first|other third" {
		t.Fatalf("source saw %q, fork saw %q", src, fork)
	}
	fe := h.events(f.NewSessionID, "")
	if fe[0].Type != event.SessionFork || fe[0].Seq != 1 {
		t.Fatalf("fork's first event %s", fe[0].Type)
	}
	var got struct {
		Session agent.Session `json:"session"`
	}
	c.call("session.get", map[string]any{"sessionId": f.NewSessionID}, &got)
	if got.Session.ForkedFrom == nil || got.Session.ForkedFrom.SourceEventID != mid.ID || got.Session.Turns != 2 {
		t.Fatalf("fork %+v", got.Session)
	}
}

func userTexts(r openaifake.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, m.Text())
		}
	}
	return out
}

// TestSyncAfterDisconnect: events.sync from the last seq a client saw
// returns exactly the events it missed while away.
func TestSyncAfterDisconnect(t *testing.T) {
	h := newHarness(t, queue(openaifake.Reply{Text: "one"}, openaifake.Reply{Tool: "list", Args: map[string]any{}}, openaifake.Reply{Text: "two"}), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	c.message(id, "first")
	var seen struct {
		Events []event.Event `json:"events"`
	}
	c.call("events.list", map[string]any{"sessionId": id}, &seen)
	last := seen.Events[len(seen.Events)-1].Seq
	c.close()

	other := h.dial()
	other.message(id, "second (while the first client is away)")

	back := h.dial()
	var missed struct {
		Events []event.Event `json:"events"`
	}
	back.call("events.sync", map[string]any{"sessionId": id, "lastSequence": last}, &missed)
	all := h.events(id, "")
	want := all[len(seen.Events):]
	if len(missed.Events) != len(want) || len(want) == 0 {
		t.Fatalf("sync gave %d events, want %d", len(missed.Events), len(want))
	}
	for i := range want {
		if missed.Events[i].ID != want[i].ID || missed.Events[i].Seq != last+int64(i)+1 {
			t.Fatalf("event %d: got id %d seq %d, want id %d", i, missed.Events[i].ID, missed.Events[i].Seq, want[i].ID)
		}
	}
	var page struct {
		Events []event.Event `json:"events"`
	}
	back.call("events.list", map[string]any{"sessionId": id, "after": last, "limit": 2}, &page)
	if len(page.Events) != 2 || page.Events[0].Seq != last+1 {
		t.Fatalf("events.list page %+v", page.Events)
	}
}

// TestCompactionKeepsTaskAndLastTurn: context.compact summarises the
// middle with the model; the view keeps the original task and the last
// turn word for word, and the log keeps every event.
func TestCompactionKeepsTaskAndLastTurn(t *testing.T) {
	summary := "## Goal\nship it\n## Constraints\n## Done\nstep one\n## Pending\n## Files\n## Decisions"
	h := newHarness(t, func(r openaifake.Request) openaifake.Reply {
		if len(r.Tools) == 0 {
			return openaifake.Reply{Text: summary}
		}
		return openaifake.Reply{Text: strings.Repeat("long answer ", 50)}
	}, harnessOptions{})
	c := h.dial()
	id := c.create(h)
	c.message(id, "THE TASK: ship it")
	c.message(id, "middle turn")
	c.message(id, "LAST TURN")
	before := len(h.events(id, ""))
	var comp struct {
		Compacted  bool                 `json:"compacted"`
		Compaction agent.CompactionData `json:"compaction"`
	}
	c.call("context.compact", map[string]any{"sessionId": id}, &comp)
	if !comp.Compacted || comp.Compaction.TokensSaved <= 0 || comp.Compaction.TurnsBefore != 3 {
		t.Fatalf("compaction %+v", comp)
	}
	var got struct {
		Context agent.ContextSnapshot `json:"context"`
	}
	c.call("context.get", map[string]any{"sessionId": id}, &got)
	m := got.Context.Messages
	if len(m) != 4 || m[0].Text() != "THE TASK: ship it" || !strings.Contains(m[1].Text(), summary) || m[2].Text() != "LAST TURN" {
		t.Fatalf("view after compaction: %+v", m)
	}
	if after := h.events(id, ""); len(after) != before+1 || after[len(after)-1].Type != event.ContextCompaction {
		t.Fatalf("the log was rewritten: %d events before, %d after", before, len(after))
	}
	// the summariser saw the full middle, not the view
	reqs := h.fake.Requests()
	sumReq := reqs[len(reqs)-1]
	if len(sumReq.Tools) != 0 || !strings.Contains(sumReq.Messages[len(sumReq.Messages)-1].Text(), "middle turn") {
		t.Fatalf("summary request %+v", sumReq.Messages)
	}
	// a session of one turn has nothing to save
	one := c.create(h)
	c.message(one, "only")
	if code := c.callErr("context.compact", map[string]any{"sessionId": one}); code != agentapi.CodeContextOverflow {
		t.Fatalf("compact of one turn: %d, want -32002", code)
	}
}

// TestSubagentInBothSessions: a task call runs a child session; spawn and
// complete are in both logs, the child's tokens count for the parent.
func TestSubagentInBothSessions(t *testing.T) {
	h := newHarness(t, func(r openaifake.Request) openaifake.Reply {
		users := userTexts(r)
		switch {
		case users[0] == "count the files":
			return openaifake.Reply{Text: "child: 0 files"}
		case !r.HasToolResult():
			return openaifake.Reply{Tool: "task", Args: map[string]any{"prompt": "count the files"}}
		default:
			return openaifake.Reply{Text: "parent done"}
		}
	}, harnessOptions{})
	c := h.dial()
	id := c.create(h)
	res := c.message(id, "delegate")
	if res.Text != "parent done" || res.TokenUsage.InputTokens != 30 {
		t.Fatalf("parent turn %+v (3 requests of 10 input tokens: the child's count)", res)
	}
	spawn, _ := c.waitNote(0, "subagent.spawn", nil)
	child := spawn.Params["subagentSessionId"].(string)
	if spawn.Params["parentSessionId"] != id || spawn.Params["task"] != "count the files" {
		t.Fatalf("spawn %v", spawn.Params)
	}
	done, _ := c.waitNote(0, "subagent.complete", nil)
	if done.Params["subagentSessionId"] != child || done.Params["result"] != "child: 0 files" {
		t.Fatalf("complete %v", done.Params)
	}
	for _, s := range []string{id, child} {
		for _, typ := range []event.Type{event.SubagentSpawn, event.SubagentProgress, event.SubagentComplete} {
			if n := len(h.events(s, typ)); n != 1 {
				t.Errorf("session %s has %d %s", s, n, typ)
			}
		}
	}
	var got struct {
		Session agent.Session `json:"session"`
	}
	c.call("session.get", map[string]any{"sessionId": child}, &got)
	if got.Session.ParentSessionID != id {
		t.Fatalf("child %+v", got.Session)
	}
}

// TestUpgradeChecks: no credential, a wrong one, the admin credential, a
// foreign Host or Origin are refused before the upgrade.
func TestUpgradeChecks(t *testing.T) {
	h := newHarness(t, queue(), harnessOptions{})
	for name, mod := range map[string]func(*http.Request){
		"no token":     func(r *http.Request) {},
		"wrong token":  func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") },
		"admin token":  func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+h.admin) },
		"foreign host": func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+h.token); r.Host = "evil.example" },
		"foreign origin": func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+h.token)
			r.Header.Set("Origin", "https://evil.example")
		},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, h.http.URL, nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: status %d", name, resp.StatusCode)
		}
		if name == "admin token" && resp.StatusCode != http.StatusForbidden {
			t.Errorf("the admin credential: status %d, want 403", resp.StatusCode)
		}
	}
	_ = websocket.StatusNormalClosure
}

// TestAbortWhileAsking: an abort resolves the approval the call waits on
// (canceled), and the call's one result says it was aborted.
func TestAbortWhileAsking(t *testing.T) {
	h := newHarness(t, queue(openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "git reset --hard"}}), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "reset"})
	req := coretest.WaitApproval(t, h.core, func(r approval.Request) bool { return r.Session == id })
	var ab struct {
		Aborted bool `json:"aborted"`
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, &ab)
	wait(t, turn, "agent.message")
	if !ab.Aborted || len(h.core.Approvals()) != 0 {
		t.Fatalf("aborted %v, approvals still pending %v", ab.Aborted, h.core.Approvals())
	}
	resolved := h.events(id, event.ApprovalResolved)
	if len(resolved) != 1 {
		t.Fatalf("%d approval.resolved", len(resolved))
	}
	d, _ := event.DataOf[event.ApprovalData](resolved[0])
	if d.ApprovalID != req.ID || d.Outcome != string(approval.Canceled) {
		t.Fatalf("resolution %+v", d)
	}
	results := h.events(id, event.ToolResult)
	r, _ := event.DataOf[agent.ResultData](results[0])
	if len(results) != 1 || r.Outcome != "aborted" {
		t.Fatalf("results %+v", r)
	}
}

// TestOverflow: a first message that cannot fit the model's window is
// -32002 (there is nothing compaction could save), and the session stays
// usable.
func TestOverflow(t *testing.T) {
	h := newHarness(t, queue(openaifake.Reply{Text: "short"}), harnessOptions{engine: func(o *agent.Options) {
		o.ContextWindow = func(string) int { return 2000 }
		o.MaxOutput = 100
	}})
	c := h.dial()
	id := c.create(h)
	if code := c.callErr("agent.message", map[string]any{"sessionId": id, "content": strings.Repeat("too long ", 2000)}); code != agentapi.CodeContextOverflow {
		t.Fatalf("overflow: %d, want -32002", code)
	}
	if res := c.message(id, "short one"); res.Text != "short" {
		t.Fatalf("after overflow %+v", res)
	}
}

// TestAbortMidStreamKeepsPartial: an abort while the model is still
// writing records what it had streamed as a partial message.assistant, and
// the model's view of the next turn shows what it had said, marked as cut
// short.
func TestAbortMidStreamKeepsPartial(t *testing.T) {
	gate := fakemodel.NewGate()
	said := "I will read the file first, and then" // three chunks of 12
	h := newHarness(t, queue(
		openaifake.Reply{Text: said + " never finish this.", ChunkSize: 12, CutAfter: 3, Hold: gate},
		openaifake.Reply{Text: "picking up again"},
	), harnessOptions{})
	defer gate.Release()
	c := h.dial()
	id := c.create(h)
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "go"})
	<-gate.Reached()
	// the three chunks have reached the client: they are what it was shown
	c.waitText(id, said)
	c.call("agent.abort", map[string]any{"sessionId": id}, nil)
	r := wait(t, turn, "agent.message")
	var res agent.TurnResult
	if r.Error != nil || jsonUnmarshal(r.Result, &res) != nil || res.StopReason != agent.StopAborted {
		t.Fatalf("aborted turn = %s %+v", r.Result, r.Error)
	}
	// the turn's answer says what the log holds: the text shown, step 1
	if res.Text != said || res.Steps != 1 {
		t.Fatalf("aborted turn's result: text %q, steps %d; want %q, 1", res.Text, res.Steps, said)
	}
	answers := h.events(id, event.MessageAssistant)
	if len(answers) != 1 {
		t.Fatalf("%d message.assistant events", len(answers))
	}
	d, _ := event.DataOf[agent.AssistantData](answers[0])
	if !d.Partial || d.StopReason != agent.StopAborted || d.Content != said || len(d.Parts) != 1 || d.Parts[0].Text != said {
		t.Fatalf("partial answer %+v", d)
	}
	if res := c.message(id, "go on"); res.Text != "picking up again" {
		t.Fatalf("next turn %+v", res)
	}
	reqs := h.fake.Requests()
	msgs := reqs[1].Messages
	var prev openaifake.Message
	for i, m := range msgs {
		if m.Role == "user" && m.Text() == "go on" && i > 0 {
			prev = msgs[i-1]
		}
	}
	if prev.Role != "assistant" || !strings.HasPrefix(prev.Text(), said) || !strings.Contains(prev.Text(), "aborted") {
		t.Fatalf("the model's view before its next turn: %+v", msgs)
	}
}

// TestStreamCutMidCallClosesIt: a stream that fails after the model began
// a tool call records the partial answer with that call, and the call gets
// exactly one result (not run), so the history stays valid for the
// provider; the call never runs.
func TestStreamCutMidCallClosesIt(t *testing.T) {
	h := newHarness(t, queue(
		openaifake.Reply{Text: "Creating it.", ChunkSize: 64, Tool: "write", Args: map[string]any{"path": "never.txt", "content": "x"},
			CutAfter: 2, StreamError: &openaifake.Error{Type: "server_error", Message: "upstream went away"}},
		openaifake.Reply{Text: "again"},
	), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	res := c.message(id, "write never.txt")
	if res.StopReason != agent.StopError || !strings.Contains(res.Error, "upstream went away") {
		t.Fatalf("turn %+v", res)
	}
	answers := h.events(id, event.MessageAssistant)
	results := h.events(id, event.ToolResult)
	if len(answers) != 1 || len(results) != 1 {
		t.Fatalf("%d answers, %d results", len(answers), len(results))
	}
	d, _ := event.DataOf[agent.AssistantData](answers[0])
	calls := provider.Message{Parts: d.Parts}.ToolCalls()
	if !d.Partial || d.Content != "Creating it." || len(calls) != 1 || calls[0].Name != "write" {
		t.Fatalf("partial answer %+v", d)
	}
	rd, _ := event.DataOf[agent.ResultData](results[0])
	if rd.CallID != calls[0].ID || rd.Outcome != "not_executed" || !rd.IsError {
		t.Fatalf("result %+v for call %+v", rd, calls[0])
	}
	if n := len(h.events(id, event.ToolCall)); n != 0 {
		t.Fatalf("%d tool.call events: the cut call reached the gate", n)
	}
	if _, err := os.Stat(filepath.Join(h.root, "never.txt")); !os.IsNotExist(err) {
		t.Fatalf("never.txt: %v", err)
	}
	if res := c.message(id, "try again"); res.Text != "again" {
		t.Fatalf("next turn %+v", res)
	}
	next := h.fake.Requests()[1]
	if got := next.ToolResults(); len(got) != 1 || !strings.Contains(got[0], "not run: the model's answer failed") {
		t.Fatalf("the model was told %q", got)
	}
}

// spawnScript leaves two processes behind, named by marker: a background
// job in the shell's group and one that left the group and the session
// (setsid); it prints their pids once both run.
const spawnScript = `#!/bin/bash
m() { until tr '\0' ' ' < /proc/$1/cmdline 2>/dev/null | grep -q "$2"; do :; done; }
(exec -a "$1-job" sleep 300) & p1=$!
setsid bash -c 'exec -a "$0" sleep 300' "$1-setsid" & p2=$!
m $p1 "$1-job"; m $p2 "$1-setsid"
echo running $p1 $p2
`

// TestShellLeavesNoProcess: a shell call's background jobs, a setsid'd
// grandchild included, are gone once the call ends, and once it is
// aborted.
func TestShellLeavesNoProcess(t *testing.T) {
	marker := fmt.Sprintf("warden-doortest-%d-%d", os.Getpid(), time.Now().UnixNano())
	h := newHarness(t, queue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "./spawn.sh " + marker + "-end"}},
		openaifake.Reply{Text: "started them"},
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "./spawn.sh " + marker + "-abort > ready; sleep 60"}},
	), harnessOptions{})
	if err := os.WriteFile(filepath.Join(h.root, "spawn.sh"), []byte(spawnScript), 0o755); err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	if res := c.message(id, "start them"); res.Text != "started them" {
		t.Fatalf("turn %+v", res)
	}
	r, _ := event.DataOf[agent.ResultData](h.events(id, event.ToolResult)[0])
	if r.Outcome != "ok" || !strings.HasPrefix(r.Content, "running ") {
		t.Fatalf("result %+v", r)
	}
	if left := testtools.WithMarker(t, marker); len(left) > 0 {
		t.Fatalf("the call ended, and left running: %q", left)
	}

	fifo := filepath.Join(h.root, "ready")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	turn := c.start("agent.message", map[string]any{"sessionId": id, "content": "again"})
	f, err := os.Open(fifo) // until the script has both running
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	f.Close()
	if err != nil || !strings.HasPrefix(line, "running ") {
		t.Fatalf("%q %v", line, err)
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, nil)
	wait(t, turn, "agent.message")
	if left := testtools.WithMarker(t, marker); len(left) > 0 {
		t.Fatalf("the call was aborted, and left running: %q", left)
	}
}

// TestAnswerCommitsWithItsCall: a step's message.assistant is recorded in
// the same transaction as its (lone) call's tool.call and decision, not in
// one of its own: a turn with one tool call takes four commits (the
// message, the answer with the gated call, the result, the last answer
// with the turn's end; the first and the third commit while the model is
// asked, see TestCommitsOverlapTheModel). Events of one transaction share
// their time.
func TestAnswerCommitsWithItsCall(t *testing.T) {
	h := newHarness(t, oneToolCall, harnessOptions{})
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	if res := c.message(id, "what does a.txt say?"); res.Text != "It says hello." {
		t.Fatalf("turn %+v", res)
	}
	evs := h.events(id, "")
	var answer, call event.Event
	commits := map[time.Time]bool{}
	for _, x := range evs {
		if x.Type == event.SessionStart {
			continue
		}
		commits[x.Time] = true
		switch {
		case x.Type == event.MessageAssistant && answer.ID == 0:
			answer = x
		case x.Type == event.ToolCall:
			call = x
		}
	}
	if answer.ID == 0 || call.ID == 0 || call.Seq != answer.Seq+1 || !call.Time.Equal(answer.Time) {
		t.Fatalf("the answer (seq %d, %v) and its call (seq %d, %v) were not recorded together", answer.Seq, answer.Time, call.Seq, call.Time)
	}
	if len(commits) != 4 {
		for _, x := range evs {
			t.Logf("%d %s %v", x.Seq, x.Type, x.Time)
		}
		t.Fatalf("%d commits for a turn with one tool call, want 4", len(commits))
	}
}
