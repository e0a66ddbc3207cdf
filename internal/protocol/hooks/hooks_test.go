package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/session"
	"github.com/warden-dev/warden/internal/store"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

const (
	ws  = "/home/dev/proj"
	sid = "42da0799-f60a-477d-ac2b-e015b0feac76"
)

// Payloads as Claude Code 2.1.197 sent them (recorded on this machine).
var (
	sessionStart = `{"session_id":"` + sid + `","transcript_path":"/home/dev/.claude/projects/-home-dev-proj/` + sid + `.jsonl","cwd":"/home/dev/proj","hook_event_name":"SessionStart","source":"startup"}`
	promptSubmit = `{"session_id":"` + sid + `","transcript_path":"/t.jsonl","cwd":"/home/dev/proj","prompt_id":"239f4c91","permission_mode":"bypassPermissions","hook_event_name":"UserPromptSubmit","prompt":"do it"}`
	preToolUse   = `{"session_id":"` + sid + `","transcript_path":"/t.jsonl","cwd":"/home/dev/proj","prompt_id":"239f4c91","permission_mode":"bypassPermissions","effort":{"level":"high"},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"CMD","description":"run it"},"tool_use_id":"toolu_1"}`
	postToolUse  = `{"session_id":"` + sid + `","transcript_path":"/t.jsonl","cwd":"/home/dev/proj","permission_mode":"bypassPermissions","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls","description":"run it"},"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},"tool_use_id":"toolu_1","duration_ms":1079}`
	stop         = `{"session_id":"` + sid + `","transcript_path":"/t.jsonl","cwd":"/home/dev/proj","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done.","background_tasks":[],"session_crons":[]}`
	sessionEnd   = `{"session_id":"` + sid + `","transcript_path":"/t.jsonl","cwd":"/home/dev/proj","hook_event_name":"SessionEnd","reason":"other"}`
)

func newDoor(t *testing.T, o coretest.Options) (*core.Core, *httptest.Server) {
	t.Helper()
	c := coretest.New(t, o)
	srv := httptest.NewServer(NewHandler(c, proof.NewRequestVerifier(testKey), nil))
	t.Cleanup(srv.Close)
	return c, srv
}

// sign signs req as `warden hook claude` does, with key.
func sign(t *testing.T, req *http.Request, key []byte, body string) {
	t.Helper()
	if _, err := proof.SignRequest(req, key, req.Header.Get(WorkspaceHeader), []byte(body), time.Now()); err != nil {
		t.Fatal(err)
	}
}

var client = &http.Client{Timeout: 30 * time.Second}

func post(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+Path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(WorkspaceHeader, ws)
	sign(t, req, testKey, body)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func bash(cmd string) string { return strings.Replace(preToolUse, "CMD", cmd, 1) }

func TestRequestChecks(t *testing.T) {
	_, srv := newDoor(t, coretest.Options{})
	cases := []struct {
		name string
		hdr  map[string]string
		body string
		code int
	}{
		{"ok", nil, sessionStart, 200},
		{"unsigned", map[string]string{proof.AuthHeader: ""}, sessionStart, 401},
		{"no nonce", map[string]string{proof.NonceHeader: ""}, sessionStart, 401},
		{"no time", map[string]string{proof.TimeHeader: ""}, sessionStart, 401},
		{"other nonce", map[string]string{proof.NonceHeader: "AAAAAAAAAAAAAAAAAAAAAAAA"}, sessionStart, 401},
		{"bad nonce", map[string]string{proof.NonceHeader: "not a nonce!"}, sessionStart, 401},
		{"other time", map[string]string{proof.TimeHeader: "1"}, sessionStart, 401},
		{"not hex", map[string]string{proof.AuthHeader: "zz"}, sessionStart, 401},
		{"bearer token instead", map[string]string{proof.AuthHeader: "", "Authorization": "Bearer " + string(testKey)}, sessionStart, 401},
		{"other workspace signed", map[string]string{"sign-workspace": "/elsewhere"}, sessionStart, 401},
		{"other key", map[string]string{"sign-key": "fedcba9876543210fedcba9876543210"}, sessionStart, 401},
		{"no workspace", map[string]string{WorkspaceHeader: ""}, sessionStart, 400},
		{"relative workspace", map[string]string{WorkspaceHeader: "proj"}, sessionStart, 400},
		{"foreign host", map[string]string{"Host": "evil.example"}, sessionStart, 403},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, sessionStart, 403},
		{"not JSON", nil, "{", 400},
		{"array", nil, "[]", 400},
		{"no session", nil, `{"hook_event_name":"Stop"}`, 400},
		{"no event", nil, `{"session_id":"s"}`, 400},
		{"number session", nil, `{"session_id":1,"hook_event_name":"Stop"}`, 400},
		{"pre without tool", nil, `{"session_id":"s","hook_event_name":"PreToolUse"}`, 400},
		{"tool_input not object", nil, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"rm"}`, 400},
		{"two values", nil, sessionStart + sessionStart, 400},
		{"pre without tool_input", nil, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash"}`, 400},
		{"tool_input null", nil, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":null}`, 400},
		{"command not a string", nil, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":7}}`, 400},
		{"nested too deep", nil, `{"session_id":"s","hook_event_name":"Notification","message":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`, 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(tc.body))
			req.Header.Set(WorkspaceHeader, ws)
			key, signWS := testKey, ws
			if k := tc.hdr["sign-key"]; k != "" {
				key = []byte(k)
			}
			if w := tc.hdr["sign-workspace"]; w != "" {
				signWS = w
			}
			if _, err := proof.SignRequest(req, key, signWS, []byte(tc.body), time.Now()); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.hdr {
				if k == "sign-key" || k == "sign-workspace" {
					continue
				}
				if k == "Host" {
					req.Host = v
					continue
				}
				if v == "" {
					req.Header.Del(k)
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.code, b)
			}
			if tc.code != 200 {
				var e Error
				if json.Unmarshal(b, &e) != nil || e.Error == "" {
					t.Fatalf("error body %q", b)
				}
			}
		})
	}
	// Wrong path and method.
	resp, err := client.Get(srv.URL + Path)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	if code, _ := post(t, srv.URL+"/x", sessionStart, nil); code != 404 {
		t.Fatalf("other path: %d", code)
	}
	// Too big.
	big := `{"session_id":"s","hook_event_name":"Stop","x":"` + strings.Repeat("a", MaxBody) + `"}`
	if code, _ := post(t, srv.URL, big, nil); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("big body: %d", code)
	}
}

func TestNoKeyRefusesAll(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	srv := httptest.NewServer(NewHandler(c, nil, nil))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(sessionStart))
	req.Header.Set(WorkspaceHeader, ws)
	sign(t, req, testKey, sessionStart)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("no key configured: %d", resp.StatusCode)
	}
}

// A request captured on its way (say by a listener that took the port of a
// stopped daemon) is refused when it is sent again.
func TestReplayRefused(t *testing.T) {
	_, srv := newDoor(t, coretest.Options{})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(sessionStart))
	req.Header.Set(WorkspaceHeader, ws)
	sign(t, req, testKey, sessionStart)
	hdr := req.Header.Clone()
	for i, want := range []int{200, 401} {
		r, _ := http.NewRequest(http.MethodPost, srv.URL+Path, strings.NewReader(sessionStart))
		r.Header = hdr.Clone()
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("send %d: status %d, want %d: %s", i+1, resp.StatusCode, want, b)
		}
		if want == 401 && !strings.Contains(string(b), "already used") {
			t.Fatalf("replay answer %s", b)
		}
	}
}

func TestGate(t *testing.T) {
	c, srv := newDoor(t, coretest.Options{})
	cases := []struct {
		body           string
		allow          bool
		rule, wantTool string
	}{
		{bash("ls -la"), true, "", "bash"},
		{bash("rm -rf /home/dev/other"), false, "delete-outside-workspace", "bash"},
		{strings.Replace(preToolUse, `"tool_name":"Bash","tool_input":{"command":"CMD","description":"run it"}`, `"tool_name":"Write","tool_input":{"file_path":"/home/dev/.bashrc","content":"x"}`, 1), false, "write-outside-workspace", "write"},
		{strings.Replace(preToolUse, `"tool_name":"Bash","tool_input":{"command":"CMD","description":"run it"}`, `"tool_name":"Edit","tool_input":{"file_path":"/etc/hosts","old_string":"a","new_string":"b"}`, 1), false, "write-outside-workspace", "edit"},
		{strings.Replace(preToolUse, `"tool_name":"Bash","tool_input":{"command":"CMD","description":"run it"}`, `"tool_name":"Write","tool_input":{"file_path":"/home/dev/proj/a.go","content":"x"}`, 1), true, "", "write"},
	}
	for _, tc := range cases {
		code, body := post(t, srv.URL, tc.body, nil)
		var v Verdict
		if code != 200 || json.Unmarshal([]byte(body), &v) != nil {
			t.Fatalf("%s: %d %s", tc.body, code, body)
		}
		if v.Allow != tc.allow || (v.Decision == "allow") != tc.allow || (tc.rule != "" && v.Rule != tc.rule) || v.Reason == "" && !tc.allow {
			t.Fatalf("%s: %+v", tc.body, v)
		}
	}
	evs, err := c.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolCall}})
	if err != nil || len(evs) != len(cases) {
		t.Fatalf("tool.call events: %d %v", len(evs), err)
	}
	for i, e := range evs {
		var d struct {
			CallID string         `json:"callId"`
			Tool   string         `json:"tool"`
			Args   map[string]any `json:"args"`
			Cwd    string         `json:"cwd"`
			Extra  map[string]any `json:"extra"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if e.Session != sid || e.Source != Source || e.Workspace != ws || d.CallID != "toolu_1" || d.Tool != cases[i].wantTool || d.Cwd != "/home/dev/proj" || d.Extra["hookEventName"] != "PreToolUse" {
			t.Fatalf("tool.call %d: %+v %s", i, e, e.Data)
		}
		if d.Tool != "bash" && d.Args["filePath"] != d.Args["file_path"] {
			t.Fatalf("file tool args: %v", d.Args)
		}
	}
}

func TestAskWaitsThenAnswers(t *testing.T) {
	c, srv := newDoor(t, coretest.Options{ApprovalTimeout: time.Minute})
	type result struct {
		code int
		body string
	}
	done := make(chan result, 1)
	go func() {
		code, body := post(t, srv.URL, bash("git reset --hard"), nil)
		done <- result{code, body}
	}()
	// Waiting shows in the session status.
	id := coretest.WaitApproval(t, c, nil).ID
	select {
	case r := <-done:
		t.Fatalf("answered before approval: %+v", r)
	default:
	}
	s, ok, err := c.Sessions().Get(t.Context(), sid)
	if err != nil || !ok || s.Status != session.Waiting {
		t.Fatalf("session while asked: %+v %v", s, err)
	}
	if _, err := c.Resolve(t.Context(), id, approvalApproved()); err != nil {
		t.Fatal(err)
	}
	r := <-done
	var v Verdict
	if r.code != 200 || json.Unmarshal([]byte(r.body), &v) != nil || !v.Allow || v.ApprovalID != id || v.Rule != "git-reset-hard" {
		t.Fatalf("approved: %+v", r)
	}
}

func TestEventsAndStatus(t *testing.T) {
	c, srv := newDoor(t, coretest.Options{})
	status := func() session.Status {
		t.Helper()
		s, ok, err := c.Sessions().Get(t.Context(), sid)
		if err != nil || !ok {
			t.Fatalf("session: %v %v", ok, err)
		}
		return s.Status
	}
	send := func(body string) {
		t.Helper()
		if code, b := post(t, srv.URL, body, nil); code != 200 || strings.TrimSpace(b) != `{"ok":true}` {
			t.Fatalf("%s: %d %s", body, code, b)
		}
	}
	send(sessionStart)
	if s := status(); s != session.Idle {
		t.Fatalf("after start: %s", s)
	}
	send(promptSubmit)
	if s := status(); s != session.Busy {
		t.Fatalf("after prompt: %s", s)
	}
	send(postToolUse)
	send(stop)
	if s := status(); s != session.Idle {
		t.Fatalf("after stop: %s", s)
	}
	send(sessionEnd)
	if s := status(); s != session.None {
		t.Fatalf("after end: %s", s)
	}
	evs, _ := c.Events(t.Context(), store.Filter{Session: sid})
	want := []event.Type{event.SessionStart, event.MessageUser, event.ToolResult, event.SessionStatus, event.SessionEnd}
	if len(evs) != len(want) {
		t.Fatalf("events: %v", evs)
	}
	for i, e := range evs {
		if e.Type != want[i] || e.Source != Source || e.Workspace != ws {
			t.Fatalf("event %d: %+v", i, e)
		}
	}
	var res map[string]any
	_ = json.Unmarshal(evs[2].Data, &res)
	if res["callId"] != "toolu_1" || res["tool"] != "bash" || res["durationMs"] != float64(1079) || res["payload"].(map[string]any)["tool_response"] == nil {
		t.Fatalf("tool.result data: %v", res)
	}
	s, _, _ := c.Sessions().Get(t.Context(), sid)
	if s.Source != "claude-code" {
		t.Fatalf("session source %q", s.Source)
	}
}

func TestSubagentsAreChildSessions(t *testing.T) {
	c, srv := newDoor(t, coretest.Options{})
	mk := func(ev string, extra string) string {
		return `{"session_id":"` + sid + `","cwd":"/home/dev/proj","hook_event_name":"` + ev + `","agent_id":"a1","agent_type":"Explore"` + extra + `}`
	}
	for _, body := range []string{sessionStart, mk("SubagentStart", "")} {
		if code, b := post(t, srv.URL, body, nil); code != 200 {
			t.Fatalf("%d %s", code, b)
		}
	}
	child := ChildSession(sid, "a1")
	code, b := post(t, srv.URL, mk("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_2"`), nil)
	if code != 200 || !strings.Contains(b, `"allow":true`) {
		t.Fatalf("subagent call: %d %s", code, b)
	}
	s, ok, _ := c.Sessions().Get(t.Context(), child)
	if !ok || s.Parent != sid || s.ToolCalls != 1 || s.Status != session.Busy {
		t.Fatalf("child session: %+v", s)
	}
	if code, b := post(t, srv.URL, mk("SubagentStop", `,"last_assistant_message":"found it"`), nil); code != 200 {
		t.Fatalf("%d %s", code, b)
	}
	s, _, _ = c.Sessions().Get(t.Context(), child)
	if s.Status != session.None {
		t.Fatalf("child after stop: %+v", s)
	}
	parentEvs, _ := c.Events(t.Context(), store.Filter{Session: sid})
	var types []string
	for _, e := range parentEvs {
		types = append(types, string(e.Type))
	}
	if strings.Join(types, ",") != "session.start,subagent.spawn,subagent.complete" {
		t.Fatalf("parent events: %v", types)
	}
}

func TestOtherEventTypes(t *testing.T) {
	cases := map[string]event.Type{
		"PostToolUseFailure": event.ToolResult,
		"StopFailure":        event.SessionError,
		"PreCompact":         event.ContextCompaction,
		"Notification":       TypeNotification,
		"PermissionRequest":  TypePermissionRequest,
		"SomethingNew":       TypeHook,
	}
	for name, want := range cases {
		p, err := Decode([]byte(`{"session_id":"s","hook_event_name":"` + name + `","tool_name":"Bash","error":"boom","trigger":"auto","message":"hi","new_field":[1,2]}`))
		if err != nil {
			t.Fatal(err)
		}
		evs := p.Events(ws, "", time.Time{})
		if len(evs) != 1 || evs[0].Type != want {
			t.Fatalf("%s: %+v", name, evs)
		}
		var d map[string]any
		_ = json.Unmarshal(evs[0].Data, &d)
		if d["hookEventName"] != name || d["payload"].(map[string]any)["new_field"] == nil {
			t.Fatalf("%s: data %v", name, d)
		}
		if name == "PostToolUseFailure" && (d["isError"] != true || d["error"] != "boom") {
			t.Fatalf("failure: %v", d)
		}
		if name == "StopFailure" && d["error"] != "boom" {
			t.Fatalf("stop failure: %v", d)
		}
	}
}

func TestSpoolIngestOnceInOrder(t *testing.T) {
	dir := t.TempDir()
	c := coretest.New(t, coretest.Options{})
	h := NewHandler(c, proof.NewRequestVerifier(testKey), nil)
	spool := filepath.Join(dir, SpoolDirName)
	var ids []string
	for _, body := range []string{sessionStart, promptSubmit, stop, sessionEnd} {
		path, err := WriteSpool(spool, SpoolEntry{Workspace: ws, Payload: json.RawMessage(body)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, strings.TrimSuffix(filepath.Base(path), ".json"))
	}
	// A bad file is moved aside, not retried, and does not block the rest.
	if err := os.WriteFile(filepath.Join(spool, "00000000000000000000-bad.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Simulate a crash after recording the first entry but before deleting it.
	first, err := os.ReadFile(filepath.Join(spool, ids[0]+".json"))
	if err != nil {
		t.Fatal(err)
	}
	e, p, w, err := DecodeSpoolEntry(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Record(t.Context(), p.Events(w, e.ID, e.Time)...); err != nil {
		t.Fatal(err)
	}
	in := NewIngester(h, spool)
	n, err := in.Ingest(t.Context())
	if err != nil || n != 3 {
		t.Fatalf("ingest: %d %v", n, err)
	}
	evs, _ := c.Events(t.Context(), store.Filter{Session: sid})
	if len(evs) != 4 {
		t.Fatalf("want 4 events, got %d", len(evs))
	}
	for i, ev := range evs {
		var d map[string]any
		_ = json.Unmarshal(ev.Data, &d)
		if d["spoolId"] != ids[i] {
			t.Fatalf("event %d: spoolId %v, want %s (order)", i, d["spoolId"], ids[i])
		}
	}
	left, _ := filepath.Glob(filepath.Join(spool, "*.json"))
	if len(left) != 0 {
		t.Fatalf("left in spool: %v", left)
	}
	if _, err := os.Stat(filepath.Join(spool, rejectedDirName, "00000000000000000000-bad.json")); err != nil {
		t.Fatalf("bad file not moved aside: %v", err)
	}
	if n, err := in.Ingest(t.Context()); err != nil || n != 0 {
		t.Fatalf("second ingest: %d %v", n, err)
	}
}

func TestSpoolRejectsPreToolUse(t *testing.T) {
	b, _ := json.Marshal(SpoolEntry{ID: "x", Workspace: ws, Payload: json.RawMessage(bash("ls"))})
	if _, _, _, err := DecodeSpoolEntry(b); err == nil {
		t.Fatal("a spooled PreToolUse must be refused")
	}
}

// failingCore records nothing: every Record fails.
type failingCore struct{ *core.Core }

func (failingCore) Record(context.Context, ...event.Event) ([]event.Event, error) {
	return nil, io.ErrUnexpectedEOF
}

func TestRecordFailureIs503(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	srv := httptest.NewServer(NewHandler(failingCore{c}, proof.NewRequestVerifier(testKey), nil))
	defer srv.Close()
	if code, _ := post(t, srv.URL, stop, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("record failure: %d", code)
	}
}

func approvalApproved() approval.Resolution {
	return approval.Resolution{Outcome: approval.Approved, By: "test"}
}

type fakeConfiner struct{ err error }

func (f fakeConfiner) Confine(_ context.Context, req core.GateRequest, v core.Verdict) (string, bool, error) {
	if f.err != nil {
		return "", false, f.err
	}
	cmd, _ := req.Call.Args["command"].(string)
	if !v.Allowed || req.Call.Tool != "bash" {
		return "", false, nil
	}
	return "confined: " + cmd, true, nil
}

// An allowed Bash call's verdict carries Claude's whole tool input with the
// command rewritten; other tools and denies carry none; a failing confiner
// blocks.
func TestAllowCarriesUpdatedInput(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	h := NewHandler(c, proof.NewRequestVerifier(testKey), nil)
	h.Confiner = fakeConfiner{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, body := post(t, srv.URL, bash("ls -la"), nil)
	var v Verdict
	if code != 200 || json.Unmarshal([]byte(body), &v) != nil || !v.Allow || v.UpdatedInput["command"] != "confined: ls -la" || v.UpdatedInput["description"] != "run it" {
		t.Fatalf("allowed Bash: %d %s", code, body)
	}
	for _, b := range []string{
		bash("rm -rf /home/dev/other"),
		strings.Replace(preToolUse, `"tool_name":"Bash","tool_input":{"command":"CMD","description":"run it"}`, `"tool_name":"Write","tool_input":{"file_path":"/home/dev/proj/a.go","content":"x"}`, 1),
	} {
		if code, body := post(t, srv.URL, b, nil); code != 200 || strings.Contains(body, "updatedInput") {
			t.Fatalf("%s: %d %s", b, code, body)
		}
	}
	h.Confiner = fakeConfiner{err: errors.New("the log is gone")}
	code, body = post(t, srv.URL, bash("ls -la"), nil)
	if code != 200 || json.Unmarshal([]byte(body), &v) != nil || v.Allow || v.Decision != "deny" || !strings.Contains(v.Reason, "the log is gone") {
		t.Fatalf("failing confiner: %d %s", code, body)
	}
}

// sometimesCore fails every Record while full is set (a log that cannot
// write), and records normally otherwise.
type sometimesCore struct {
	*core.Core
	full *atomic.Bool
}

func (s sometimesCore) Record(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	if s.full.Load() {
		return nil, errors.New("database or disk is full")
	}
	return s.Core.Record(ctx, evs...)
}

// When only the log cannot write (the spool dir can), a non-gating event is
// spooled, answered 202, and recorded by the next ingest.
func TestRecordFailureIsSpooled(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	var full atomic.Bool
	h := NewHandler(sometimesCore{c, &full}, proof.NewRequestVerifier(testKey), nil)
	in := NewIngester(h, filepath.Join(t.TempDir(), SpoolDirName))
	srv := httptest.NewServer(h)
	defer srv.Close()
	full.Store(true)
	code, body := post(t, srv.URL, stop, nil)
	var a HeldAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil || code != http.StatusAccepted || !a.OK || a.Held != HeldSpool {
		t.Fatalf("record failure: %d %s", code, body)
	}
	full.Store(false)
	if n, err := in.Ingest(t.Context()); err != nil || n != 1 {
		t.Fatalf("ingest: %d %v", n, err)
	}
	evs, _ := c.Events(t.Context(), store.Filter{Session: sid, Types: []event.Type{event.SessionStatus}})
	if len(evs) != 1 {
		t.Fatalf("the spooled Stop was not recorded: %d events", len(evs))
	}
	if h, d := in.Pending(); h != 0 || d != 0 {
		t.Fatalf("pending: %d held, %d dropped", h, d)
	}
}

func TestSpoolIsBounded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), SpoolDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "00-big.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSpoolBytes); err != nil { // sparse: no real disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := WriteSpool(dir, SpoolEntry{Workspace: ws, Payload: json.RawMessage(stop)}); !errors.Is(err, ErrSpoolFull) {
		t.Fatalf("WriteSpool past the bound: %v, want ErrSpoolFull", err)
	}
}

// When the daemon stops while the log still cannot write, the events held in
// memory go to the spool (once it has room), and the next start records them.
func TestHeldEventsSpilledToSpoolOnStop(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	var full atomic.Bool
	h := NewHandler(sometimesCore{c, &full}, proof.NewRequestVerifier(testKey), nil)
	dir := filepath.Join(t.TempDir(), SpoolDirName)
	in := NewIngester(h, dir)
	srv := httptest.NewServer(h)
	defer srv.Close()
	// A spool at its bound (a sparse file) cannot take the events either.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "00-big.tmp")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSpoolBytes); err != nil {
		t.Fatal(err)
	}
	f.Close()
	full.Store(true)
	for _, body := range []string{promptSubmit, stop} {
		code, answer := post(t, srv.URL, body, nil)
		var a HeldAnswer
		if err := json.Unmarshal([]byte(answer), &a); err != nil || code != http.StatusAccepted || a.Held != HeldMemory {
			t.Fatalf("held: %d %s", code, answer)
		}
	}
	if err := os.Remove(big); err != nil {
		t.Fatal(err)
	}
	ctx, stopRun := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); in.Run(ctx, time.Hour) }()
	stopRun()
	<-done
	if held, _ := in.Pending(); held != 0 {
		t.Fatalf("%d events still only in memory after stop", held)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != 2 {
		t.Fatalf("spool after stop: %v", files)
	}
	// The next start (a new ingester) records them, in order.
	full.Store(false)
	next := NewIngester(NewHandler(c, proof.NewRequestVerifier(testKey), nil), dir)
	if n, err := next.Ingest(t.Context()); err != nil || n != 2 {
		t.Fatalf("ingest at the next start: %d %v", n, err)
	}
	evs, _ := c.Events(t.Context(), store.Filter{Session: sid})
	if len(evs) != 2 || evs[0].Type != event.MessageUser || evs[1].Type != event.SessionStatus {
		t.Fatalf("recorded after the restart: %+v", evs)
	}
}
