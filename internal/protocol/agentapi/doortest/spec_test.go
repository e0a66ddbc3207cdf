package doortest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/fakemodel"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/store"
)

// TestEventsCarryTheSpecsToolCallFields: the spec's tool.call has name,
// arguments and toolId; events.list and events.sync give them at the top
// of the data (the model's tool, its arguments as an object, its call id)
// beside warden's own fields, which stay as stored.
func TestEventsCarryTheSpecsToolCallFields(t *testing.T) {
	h := newHarness(t, queue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "echo hi"}},
		openaifake.Reply{Text: "Done."},
	), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	c.message(id, "say hi")
	type call struct {
		Type string `json:"type"`
		Data struct {
			Name      string         `json:"name"`
			ToolID    string         `json:"toolId"`
			Arguments map[string]any `json:"arguments"`
			Tool      string         `json:"tool"`
			CallID    string         `json:"callId"`
		} `json:"data"`
	}
	var list, sync struct {
		Events []call `json:"events"`
	}
	c.call("events.list", map[string]any{"sessionId": id}, &list)
	c.call("events.sync", map[string]any{"sessionId": id, "lastSequence": 0}, &sync)
	for what, evs := range map[string][]call{"events.list": list.Events, "events.sync": sync.Events} {
		n := 0
		for _, x := range evs {
			if x.Type != string(event.ToolCall) {
				continue
			}
			n++
			d := x.Data
			if d.Name != "shell" || d.ToolID == "" || d.ToolID != d.CallID || d.Arguments["command"] != "echo hi" || d.Tool != "bash" {
				t.Fatalf("%s: tool.call data %+v", what, d)
			}
		}
		if n != 1 {
			t.Fatalf("%s: %d tool.call events", what, n)
		}
	}
}

// TestSessionListFiltersByWorkspace: session.list {workspaceId} of another
// workspace (one the credential does not reach, or none warden knows)
// lists nothing, never the credential's own sessions; its own lists them.
func TestSessionListFiltersByWorkspace(t *testing.T) {
	h := newHarness(t, queue(), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	type list struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	for _, ws := range []string{h.dir, "/", filepath.Join(h.dir, "elsewhere")} {
		var l list
		c.call("session.list", map[string]any{"workspaceId": ws}, &l)
		if len(l.Sessions) != 0 {
			t.Fatalf("session.list {workspaceId: %s} = %+v, want none", ws, l.Sessions)
		}
	}
	for _, p := range []map[string]any{{"workspaceId": h.root}, {}} {
		var l list
		c.call("session.list", p, &l)
		if len(l.Sessions) != 1 || l.Sessions[0].ID != id {
			t.Fatalf("session.list %v = %+v, want %s", p, l.Sessions, id)
		}
	}
}

// TestAttachmentsAreChecked: an attachment that names nothing, or a path
// outside the workspace, is invalid params and records nothing; a
// workspace path and inline text are named to the model.
func TestAttachmentsAreChecked(t *testing.T) {
	h := newHarness(t, queue(openaifake.Reply{Text: "Read them."}), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	for _, bad := range []any{
		[]map[string]any{{}},
		[]map[string]any{{"name": "label only"}},
		[]map[string]any{{"path": "/etc/passwd"}},
		[]map[string]any{{"path": "../home/x"}},
		[]map[string]any{{"path": "a.go"}, {"path": filepath.Join(h.dir, "home")}},
	} {
		if code := c.callErr("agent.message", map[string]any{"sessionId": id, "content": "look", "attachments": bad}); code != jsonrpc.CodeInvalidParams {
			b, _ := json.Marshal(bad)
			t.Fatalf("attachments %s: code %d, want %d", b, code, jsonrpc.CodeInvalidParams)
		}
	}
	if n := len(h.events(id, event.MessageUser)); n != 0 {
		t.Fatalf("%d message.user events after refused messages", n)
	}
	good := []map[string]any{{"path": "a.go"}, {"path": filepath.Join(h.root, "sub", "b.go")}, {"name": "note", "content": "inline"}}
	var res agent.TurnResult
	c.call("agent.message", map[string]any{"sessionId": id, "content": "look", "attachments": good}, &res)
	if res.Text != "Read them." {
		t.Fatalf("turn %+v", res)
	}
	reqs := h.fake.Requests()
	msgs := reqs[len(reqs)-1].Messages
	last := msgs[len(msgs)-1].Text()
	for _, want := range []string{"a.go", filepath.Join(h.root, "sub", "b.go"), "inline"} {
		if !strings.Contains(last, want) {
			t.Fatalf("the model's message %q lacks %q", last, want)
		}
	}
}

// TestAbortedCompaction: agent.abort reaches a forced compaction while the
// model summarises; context.compact then answers {compacted: false} (not an
// internal error), nothing is recorded, and the session takes turns again.
func TestAbortedCompaction(t *testing.T) {
	gate := fakemodel.NewGate()
	h := newHarness(t, queue(
		openaifake.Reply{Text: "one"},
		openaifake.Reply{Text: "two"},
		openaifake.Reply{Text: "## Goal\nnever finished", Hold: gate},
		openaifake.Reply{Text: "three"},
	), harnessOptions{})
	defer gate.Release()
	c := h.dial()
	id := c.create(h)
	c.message(id, "first")
	c.message(id, "second")
	compact := c.start("context.compact", map[string]any{"sessionId": id})
	<-gate.Reached()
	var ab struct {
		Aborted bool `json:"aborted"`
	}
	c.call("agent.abort", map[string]any{"sessionId": id}, &ab)
	if !ab.Aborted {
		t.Fatal("agent.abort found no compaction to abort")
	}
	r := wait(t, compact, "context.compact")
	var res struct {
		Compacted *bool  `json:"compacted"`
		Reason    string `json:"reason"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Compacted == nil || *res.Compacted || res.Reason != "aborted" {
		t.Fatalf("aborted context.compact = %s %+v", r.Result, r.Error)
	}
	if n := len(h.events(id, event.ContextCompaction)); n != 0 {
		t.Fatalf("%d context.compaction events after an aborted compaction", n)
	}
	if res := c.message(id, "third"); res.Text != "three" {
		t.Fatalf("next turn %+v", res)
	}
}

// TestDeleteEndsWithSummary: session.delete records the spec's session.end
// with its key fields, reason and summary (the turns and the last answer).
func TestDeleteEndsWithSummary(t *testing.T) {
	h := newHarness(t, queue(openaifake.Reply{Text: "All done here."}), harnessOptions{})
	c := h.dial()
	id := c.create(h)
	c.message(id, "do it")
	var r struct {
		Success bool `json:"success"`
	}
	c.call("session.delete", map[string]any{"sessionId": id}, &r)
	if !r.Success {
		t.Fatal("session.delete did not succeed")
	}
	evs, err := h.core.Events(t.Context(), store.Filter{Session: id})
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	d, err := event.DataOf[agent.EndData](last)
	if last.Type != event.SessionEnd || err != nil || d.Reason != "deleted" || d.Summary != "1 turn(s); last answer: All done here." {
		t.Fatalf("last event %s %s", last.Type, last.Data)
	}
}
