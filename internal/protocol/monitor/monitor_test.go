package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/store"
)

// The spec's example payloads, verbatim (the JSON comments removed).
const (
	specSessionStarted = `{
  "type": "session.started",
  "timestamp": 1703123456789,
  "project": "my-project",
  "directory": "/Users/john/projects/my-project",
  "worktree": "/Users/john/projects/my-project",
  "sessionID": "session_abc123",
  "startTime": 1703123456789
}`
	specPreExecute = `{
  "type": "tool.pre_execute",
  "timestamp": 1703123456789,
  "project": "my-project",
  "directory": "/Users/john/projects/my-project",
  "worktree": "/Users/john/projects/my-project",
  "tool": "bash",
  "sessionID": "session_abc123",
  "callID": "call_xyz789",
  "args": {
    "command": "rm -rf /important",
    "filePath": "/path/to/file.js",
    "pattern": "TODO"
  },
  "sessionStats": {
    "toolCallCount": 5,
    "uniqueTools": 3,
    "duration": 45000
  }
}`
	specPostExecute = `{
  "type": "tool.post_execute",
  "timestamp": 1703123456789,
  "project": "my-project",
  "directory": "/Users/john/projects/my-project",
  "worktree": "/Users/john/projects/my-project",
  "tool": "bash",
  "sessionID": "session_abc123",
  "callID": "call_xyz789",
  "title": "Running command: ls -la",
  "outputLength": 2048,
  "hasMetadata": true
}`
	specIdle = `{
  "type": "session.idle",
  "timestamp": 1703123456789,
  "project": "my-project",
  "directory": "/Users/john/projects/my-project",
  "worktree": "/Users/john/projects/my-project",
  "sessionID": "session_abc123",
  "finalStats": {
    "duration": 120000,
    "totalToolCalls": 15,
    "uniqueTools": ["bash", "read", "write", "edit"]
  }
}`
	specError = `{
  "type": "session.error",
  "timestamp": 1703123456789,
  "project": "my-project",
  "directory": "/Users/john/projects/my-project",
  "worktree": "/Users/john/projects/my-project",
  "sessionID": "session_abc123",
  "error": "ProviderAuthError"
}`
)

type fixture struct {
	core *core.Core
	srv  *httptest.Server
}

func newFixture(t *testing.T) *fixture {
	c := coretest.New(t, coretest.Options{})
	srv := httptest.NewServer(NewHandler(c, nil))
	t.Cleanup(srv.Close)
	return &fixture{core: c, srv: srv}
}

func (f *fixture) post(t *testing.T, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", f.srv.URL+Path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := f.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, sb.String()
}

func (f *fixture) events(t *testing.T) []event.Event {
	t.Helper()
	evs, err := f.core.Events(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestSpecExamplesGetSpecAnswers(t *testing.T) {
	f := newFixture(t)
	code, body := f.post(t, specSessionStarted)
	if code != 200 {
		t.Fatalf("session.started: %d %s", code, body)
	}
	code, body = f.post(t, specPreExecute)
	var r Response
	if code != 200 || json.Unmarshal([]byte(body), &r) != nil || !r.Block || r.Reason == "" {
		t.Fatalf("rm -rf /important must be blocked with a reason: %d %s", code, body)
	}
	allow := strings.Replace(specPreExecute, "rm -rf /important", "ls -la", 1)
	allow = strings.Replace(allow, "call_xyz789", "call_2", 1)
	code, body = f.post(t, allow)
	if code != 200 || strings.TrimSpace(body) != `{"block":false}` {
		t.Fatalf("ls -la must be allowed with exactly {\"block\":false}: %d %s", code, body)
	}
	for _, b := range []string{specPostExecute, specIdle, specError} {
		if code, body := f.post(t, b); code/100 != 2 {
			t.Fatalf("non-gating event answered %d %s", code, body)
		}
	}
	evs := f.events(t)
	var types []string
	for i, e := range evs {
		types = append(types, string(e.Type))
		if e.Session != "session_abc123" || e.Seq != int64(i+1) {
			t.Fatalf("event %d: session %q seq %d", i, e.Session, e.Seq)
		}
		if e.Workspace != "/Users/john/projects/my-project" || e.Source != Source {
			t.Fatalf("event %d: workspace %q source %q", i, e.Workspace, e.Source)
		}
	}
	want := "session.start tool.call tool.decision tool.call tool.decision tool.result session.status session.error"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	var dec map[string]any
	_ = json.Unmarshal(evs[2].Data, &dec)
	if dec["decision"] != "deny" || dec["rule"] == "" || dec["callId"] != "call_xyz789" {
		t.Fatalf("deny decision record: %s", evs[2].Data)
	}
	var call map[string]any
	_ = json.Unmarshal(evs[1].Data, &call)
	extra, _ := call["extra"].(map[string]any)
	if extra["project"] != "my-project" || extra["sessionStats"] == nil {
		t.Fatalf("tool.call must keep the spec's fields: %s", evs[1].Data)
	}
	s, ok, err := f.core.Sessions().Get(context.Background(), "session_abc123")
	if err != nil || !ok {
		t.Fatalf("session: %v %v", ok, err)
	}
	if s.ToolCalls != 2 || s.UniqueToolCount != 1 || s.Denied != 1 || s.Status != "idle" || s.LastError != "ProviderAuthError" {
		t.Fatalf("session stats: %+v", s)
	}
}

func TestBadInputIsRejectedAndNothingRecorded(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, body string
		code       int
	}{
		{"malformed", `{"type":`, 400},
		{"not an object", `[1,2]`, 400},
		{"missing type", `{"sessionID":"s"}`, 400},
		{"unknown type", `{"type":"tool.nope","sessionID":"s"}`, 400},
		{"wrong field type", `{"type":"tool.pre_execute","tool":"bash","timestamp":"yesterday"}`, 400},
		{"pre_execute without tool", `{"type":"tool.pre_execute","sessionID":"s"}`, 400},
		{"two values", `{"type":"session.started"} {"type":"session.started"}`, 400},
		{"args null", `{"type":"tool.pre_execute","sessionID":"s","tool":"bash","args":null}`, 400},
		{"no args", `{"type":"tool.pre_execute","sessionID":"s","tool":"bash"}`, 400},
		{"command not a string", `{"type":"tool.pre_execute","sessionID":"s","tool":"bash","args":{"command":["rm","-rf","/"]}}`, 400},
		{"command null", `{"type":"tool.pre_execute","sessionID":"s","tool":"bash","args":{"command":null}}`, 400},
		{"nested too deep", `{"type":"session.error","sessionID":"s","error":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`, 400},
		{"too big", `{"type":"session.started","project":"` + strings.Repeat("x", MaxBody) + `"}`, 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.post(t, tc.body)
			if code != tc.code {
				t.Fatalf("got %d %s, want %d", code, body, tc.code)
			}
		})
	}
	if evs := f.events(t); len(evs) != 0 {
		t.Fatalf("bad input recorded %d events", len(evs))
	}
}

func TestOnlyPostToThePathIsServed(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ method, path string }{
		{"GET", Path}, {"PUT", Path}, {"POST", "/"}, {"POST", "/agent-monitor/x"}, {"GET", "/health"},
	} {
		req, _ := http.NewRequest(tc.method, f.srv.URL+tc.path, strings.NewReader(specSessionStarted))
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s %s = %d, want 404", tc.method, tc.path, resp.StatusCode)
		}
	}
}

func TestRebindingAndBrowsersRefused(t *testing.T) {
	f := newFixture(t)
	if code, _ := f.post(t, specSessionStarted, "Host", "evil.example:37123"); code != 403 {
		t.Fatalf("foreign Host answered %d, want 403", code)
	}
	if code, _ := f.post(t, specSessionStarted, "Origin", "https://evil.example"); code != 403 {
		t.Fatalf("foreign Origin answered %d, want 403", code)
	}
	if code, _ := f.post(t, specSessionStarted, "Host", "localhost:37123"); code != 200 {
		t.Fatalf("localhost Host answered %d, want 200", code)
	}
	if evs := f.events(t); len(evs) != 1 {
		t.Fatalf("refused requests were recorded: %d events", len(evs))
	}
}

// failingCore fails every call, as a broken log would.
type failingCore struct{}

func (failingCore) Gate(context.Context, core.GateRequest) core.Verdict {
	panic("store on fire")
}

func (failingCore) Record(context.Context, ...event.Event) ([]event.Event, error) {
	return nil, context.DeadlineExceeded
}

func TestInternalFailureBlocks(t *testing.T) {
	srv := httptest.NewServer(NewHandler(failingCore{}, nil))
	defer srv.Close()
	resp, err := http.Post(srv.URL+Path, "application/json", strings.NewReader(specPreExecute))
	if err != nil {
		t.Fatal(err)
	}
	var r Response
	_ = json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if resp.StatusCode != 200 || !r.Block || r.Reason == "" {
		t.Fatalf("a failing core must answer block with a reason, got %d %+v", resp.StatusCode, r)
	}
	resp, err = http.Post(srv.URL+Path, "application/json", strings.NewReader(specIdle))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		t.Fatalf("an event that could not be recorded was acknowledged (%d)", resp.StatusCode)
	}
}

func TestWorkspaceIgnoresRootWorktree(t *testing.T) {
	m, err := Decode([]byte(`{"type":"tool.pre_execute","tool":"bash","directory":"/home/u/scratch","worktree":"/","sessionID":"s","args":{"command":"rm -rf /home/u/other"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if ws := m.GateRequest().Call.Workspace; ws != "/home/u/scratch" {
		t.Fatalf("workspace = %q: a worktree of / must not make the whole disk the workspace", ws)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{specSessionStarted, specPreExecute, specPostExecute, specIdle, specError, `{}`, `{"type":1}`, `null`, `{"type":"session.error","error":{"name":"X"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := Decode(body)
		if err != nil {
			return
		}
		switch m.Type {
		case TypePreExecute:
			if m.Tool == "" {
				t.Fatal("pre_execute without tool accepted")
			}
			req := m.GateRequest()
			if req.Call.Session == "" {
				t.Fatal("gate request without session")
			}
		default:
			e := m.Event()
			if e.Type == "" || !json.Valid(e.Data) {
				t.Fatalf("bad event from %q: %+v", body, e)
			}
		}
	})
}

func TestFullCommandAndTruncation(t *testing.T) {
	long := "echo " + strings.Repeat("a", 90) + " && rm -rf /etc"
	head := long[:SpecCommandLimit]
	// warden's plugin: the head in args.command, the whole in commandFull.
	m, err := Decode([]byte(`{"type":"tool.pre_execute","tool":"bash","sessionID":"s","directory":"/w","worktree":"/w","args":{"command":"` + head + `"},"commandFull":"` + long + `"}`))
	if err != nil {
		t.Fatal(err)
	}
	req := m.GateRequest()
	if req.Call.Args["command"] != long || req.Truncated {
		t.Fatalf("commandFull must be judged: %+v", req)
	}
	if m.Args["command"] != head {
		t.Fatal("the decoded message must not be changed")
	}
	// A spec-only client: 100 characters and no commandFull.
	m, _ = Decode([]byte(`{"type":"tool.pre_execute","tool":"bash","sessionID":"s","directory":"/w","worktree":"/w","args":{"command":"` + head + `"}}`))
	if !m.GateRequest().Truncated {
		t.Fatal("a 100-character command from a spec-only client must count as truncated")
	}
	m, _ = Decode([]byte(`{"type":"tool.pre_execute","tool":"bash","sessionID":"s","directory":"/w","worktree":"/w","args":{"command":"ls -la"}}`))
	if m.GateRequest().Truncated {
		t.Fatal("a short command is whole")
	}

	// End to end: the hidden tail is caught through commandFull, and a
	// truncated harmless head is asked about, not allowed.
	f := newFixture(t)
	body := func(cmd, full string) string {
		b, _ := json.Marshal(map[string]any{"type": "tool.pre_execute", "tool": "bash", "sessionID": "s", "callID": "c",
			"directory": "/home/dev/proj", "worktree": "/home/dev/proj", "args": map[string]any{"command": cmd}, "commandFull": full})
		return string(b)
	}
	if _, got := f.post(t, body(head, long)); !strings.Contains(got, `"block":true`) {
		t.Fatalf("dangerous tail behind a harmless head: %s", got)
	}
	coretest.ResolveWhenAsked(t, f.core, func(a approval.Request) bool { return a.Decision.Rule == "warden.truncated-command" },
		approval.Resolution{Outcome: approval.Denied, Reason: "no"})
	safeHead := "echo " + strings.Repeat("b", SpecCommandLimit-5)
	if _, got := f.post(t, body(safeHead, "")); !strings.Contains(got, `"block":true`) {
		t.Fatalf("a truncated command must not be allowed unseen: %s", got)
	}
}

// fakeConfiner rewrites every allowed call it is asked about, or fails.
type fakeConfiner struct{ err error }

func (f fakeConfiner) Confine(_ context.Context, req core.GateRequest, v core.Verdict) (string, bool, error) {
	if f.err != nil {
		return "", false, f.err
	}
	cmd, _ := req.Call.Args["command"].(string)
	if !v.Allowed || req.Call.Tool != "bash" || req.Truncated {
		return "", false, nil
	}
	return "confined: " + cmd, true, nil
}

// An allowed shell call's answer carries the rewritten command in "args",
// computed from the whole command; a deny carries none; a confiner that
// fails blocks.
func TestAllowCarriesTheConfinedCommand(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	h := NewHandler(c, nil)
	h.Confiner = fakeConfiner{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	f := &fixture{core: c, srv: srv}
	long := "echo " + strings.Repeat("a", 120)
	body := strings.Replace(specPreExecute, `"rm -rf /important"`, `"`+long[:100]+`"`, 1)
	body = strings.Replace(body, `"tool": "bash",`, `"tool": "bash", "commandFull": "`+long+`",`, 1)
	nonce := []string{proof.NonceHeader, "AAAAAAAAAAAAAAAAAAAAAAAA"}
	code, out := f.post(t, body, nonce...)
	var r Response
	if code != 200 || json.Unmarshal([]byte(out), &r) != nil || r.Block || r.Args["command"] != "confined: "+long {
		t.Fatalf("allowed call: %d %s", code, out)
	}
	// A client of the spec (no nonce) gets the spec's answer, unchanged.
	if code, out := f.post(t, body); code != 200 || strings.TrimSpace(out) != `{"block":false}` {
		t.Fatalf("spec client: %d %s", code, out)
	}
	if code, out := f.post(t, specPreExecute, nonce...); code != 200 || !strings.Contains(out, `"block":true`) || strings.Contains(out, `"args"`) {
		t.Fatalf("denied call: %d %s", code, out)
	}
	h.Confiner = fakeConfiner{err: errors.New("the log is gone")}
	if code, out := f.post(t, body, nonce...); code != 200 || !strings.Contains(out, `"block":true`) || !strings.Contains(out, "the log is gone") {
		t.Fatalf("failing confiner: %d %s", code, out)
	}
}
