package event

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/payloads.golden")

// payloadSamples are one full and one minimal value of every payload type:
// the golden file pins their wire JSON, which is what the log holds and
// every reader (warden events --json, exports, other versions) reads.
func payloadSamples() []struct {
	name string
	v    any
} {
	deadline := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return []struct {
		name string
		v    any
	}{
		{"tool.call", ToolCallData{CallID: "c1", Tool: "bash", Args: map[string]any{"command": "ls -la", "timeout": 5.0}, Cwd: "/w", Truncated: true, Extra: map[string]any{"sessionStats": map[string]any{"toolCallCount": 1.0}}}},
		{"tool.call minimal", ToolCallData{Tool: "read"}},
		{"tool.decision", ToolDecisionData{CallID: "c1", Tool: "bash", Decision: "ask", Final: false, Reason: "why", Rule: "r1", Argv: []string{"rm", "-rf", "x"}, Span: "rm -rf x", Audit: []AuditHit{{Rule: "a1", Decision: "allow", Reason: "noted"}}, ApprovalID: "ap_1"}},
		{"tool.decision minimal", ToolDecisionData{Tool: "bash", Decision: "allow", Final: true}},
		{"approval.requested", ApprovalData{ApprovalID: "ap_1", CallID: "c1", Tool: "bash", Args: map[string]any{"command": "rm x"}, Cwd: "/w", Reason: "why", Rule: "r1", Deadline: &deadline}},
		{"approval.resolved", ApprovalData{ApprovalID: "ap_1", CallID: "c1", Tool: "bash", Outcome: "approved", Reason: "ok", By: "cli", Always: true}},
		{"approval minimal", ApprovalData{}},
		{"tool.confined", ToolConfinedData{CallID: "c1", Tool: "bash", Command: "go test", Line: "/bin/warden sandbox -- go test"}},
		{"credential", CredentialData{ID: "cr_1", Workspace: "/w", Agent: "opencode"}},
		{"policy.rule_revoked", RuleRevokedData{Rule: "always-ap_1", Effect: "allow", Description: "d"}},
		{"policy.rule_revoked minimal", RuleRevokedData{}},
		{"session", SessionData{Parent: "p", Status: "idle", Error: "boom"}},
		{"agent.server started", AgentServerData{Agent: "opencode", Action: "started", Port: 4096, PID: 42, FailedAttempts: 3}},
		{"agent.server restart-failed", AgentServerData{Agent: "opencode", Action: "restart-failed", Attempts: 1, RetryIn: "1s", Error: "port taken"}},
		{"agent.server stopped", AgentServerData{Agent: "claude-code", Action: "stopped"}},
		{"agent.status", AgentStatusData{Agent: "opencode", From: "idle", To: "busy", SessionID: "ses_1"}},
		{"agent.status minimal", AgentStatusData{From: "none", To: "idle"}},
		{"workspace.added", WorkspaceAddedData{Name: "fix", Project: "/p", Branch: "fix", Created: true}},
		{"workspace.added minimal", WorkspaceAddedData{Name: "proj"}},
		{"workspace.removed", WorkspaceRemovedData{Name: "proj"}},
		{"workspace.metadata", WorkspaceMetadataData{Key: "k", Value: new("v")}},
		{"workspace.metadata deleted", WorkspaceMetadataData{Key: "k", Deleted: true}},
		{"tool.result operation", ToolResultData{CallID: "c1", Tool: "write", Success: new(false), Error: "denied", Extra: map[string]any{"method": "fs.writeFile"}}},
		{"tool.result monitor", ToolResultData{CallID: "c1", Tool: "bash", Title: "ls", OutputLength: new(int64(12)), HasMetadata: new(false), Extra: map[string]any{"wireType": "tool.post_execute", "directory": "/w"}}},
		{"tool.result hook", ToolResultData{CallID: "c1", Tool: "bash", ToolName: "Bash", IsError: true, Error: "exit 1", DurationMs: new(5.0), Extra: map[string]any{"claudeSession": "s1", "hookEventName": "PostToolUseFailure"}}},
		{"tool.result minimal", ToolResultData{}},
		{"debug event", DebugEventData{DebugSession: "d1", Kind: "stopped", Reason: "breakpoint", File: "/w/main.go", Line: 7, Function: "main.main"}},
	}
}

func TestPayloadWireJSON(t *testing.T) {
	var buf bytes.Buffer
	for _, s := range payloadSamples() {
		b, err := Encode(s.v)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString(s.name + "\t" + string(b) + "\n")
		// read back through the same type: nothing lost
		back := reflect.New(reflect.TypeOf(s.v))
		if err := json.Unmarshal(b, back.Interface()); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		again, _ := json.Marshal(back.Elem().Interface())
		if !bytes.Equal(again, b) {
			t.Errorf("%s: round trip changed it:\n%s\n%s", s.name, b, again)
		}
	}
	golden := filepath.Join("testdata", "payloads.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Fatalf("the wire JSON of event payloads changed (readers of existing logs depend on it):\ngot:\n%s\nwant:\n%s", buf.Bytes(), want)
	}
}

// The three writers of tool.result (the operations layer, the monitor door,
// the hook door) are read through ToolResultData.
func TestToolResultFromEveryWriter(t *testing.T) {
	for _, tc := range []struct {
		data   string
		failed bool
	}{
		{`{"callId":"c1","tool":"write","success":true,"method":"fs.writeFile"}`, false},
		{`{"callId":"c1","tool":"write","success":false,"error":"denied"}`, true},
		{`{"callId":"c1","tool":"bash","title":"ls","outputLength":12,"hasMetadata":false,"wireType":"tool.post_execute"}`, false},
		{`{"callId":"c1","tool":"bash","toolName":"Bash","isError":true,"error":"exit 1","durationMs":5}`, true},
	} {
		r, err := DataOf[ToolResultData](Event{Type: ToolResult, Data: []byte(tc.data)})
		if err != nil || r.CallID != "c1" || r.Tool == "" || r.Failed() != tc.failed {
			t.Errorf("%s: %+v %v, want failed=%v", tc.data, r, err, tc.failed)
		}
	}
}

// A door's extra field never overrides a typed one, and unknown keys come
// back in Extra.
func TestToolResultExtra(t *testing.T) {
	b, err := Encode(ToolResultData{CallID: "c1", Tool: "read", Extra: map[string]any{"tool": "bash", "callId": "c2", "mcpTool": "fs.readFile"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"callId":"c1","mcpTool":"fs.readFile","tool":"read"}` {
		t.Fatalf("wire = %s", b)
	}
	r, err := DataOf[ToolResultData](Event{Type: ToolResult, Data: b})
	if err != nil || r.Tool != "read" || r.CallID != "c1" || len(r.Extra) != 1 || r.Extra["mcpTool"] != "fs.readFile" {
		t.Fatalf("read back %+v %v", r, err)
	}
	if _, err := Encode(ToolResultData{Extra: map[string]any{"bad": func() {}}}); err == nil {
		t.Fatal("an extra that cannot be encoded must fail, not vanish")
	}
}

func TestDataOf(t *testing.T) {
	e := Event{Type: ToolDecision, Data: []byte(`{"tool":"bash","decision":"deny","final":true}`)}
	d, err := DataOf[ToolDecisionData](e)
	if err != nil || d.Decision != "deny" || !d.Final || d.Tool != "bash" {
		t.Fatalf("DataOf = %+v %v", d, err)
	}
	if _, err := DataOf[ToolDecisionData](Event{Type: ToolDecision, Data: []byte(`{"final":"yes"}`)}); err == nil {
		t.Fatal("a payload of the wrong shape decoded without an error")
	}
	if d, err := DataOf[ApprovalData](Event{Type: ApprovalResolved}); err != nil || d.ApprovalID != "" {
		t.Fatalf("no payload: %+v %v", d, err)
	}
}
