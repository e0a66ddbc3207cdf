package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/proof"
)

const hookPre = `{"session_id":"s1","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`
const hookStop = `{"session_id":"s1","cwd":"/w","hook_event_name":"Stop"}`

// fakeDoor writes a daemon.json and the door keys for a hook door that
// checks the request's signature as warden does and answers with answer
// (status code and body), signed with warden's key.
func fakeDoor(t *testing.T, code int, answer string) (string, *[]http.Header) {
	t.Helper()
	dir := t.TempDir()
	keys, err := proof.EnsureKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	verifier := proof.NewRequestVerifier(keys.HookKey)
	var seen []http.Header
	srv := httptest.NewServer(proof.SignAnswers(proof.DoorHooks, keys.Signer, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Clone())
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Check(r.Header.Get(proof.NonceHeader), r.Header.Get(proof.TimeHeader), r.Header.Get(proof.AuthHeader), r.Header.Get("X-Workspace-Path"), body); err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"` + err.Error() + `"}`))
			return
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(answer))
	})))
	t.Cleanup(srv.Close)
	writeRuntimeFile(t, dir, strings.TrimPrefix(srv.URL, "http://"))
	return dir, &seen
}

func writeRuntimeFile(t *testing.T, dir, hooksAddr string) {
	t.Helper()
	rt := daemon.Runtime{Listeners: map[string]string{"hooks": hooksAddr}}
	b, _ := json.Marshal(rt)
	if err := os.WriteFile(filepath.Join(dir, daemon.RuntimeName), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func runHook(t *testing.T, dataDir, stdin string, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("CLAUDE_PROJECT_DIR", "/proj")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := Main(append([]string{"hook", "claude", "--data-dir", dataDir}, args...), strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func TestHookClaudeGate(t *testing.T) {
	cases := []struct {
		name     string
		code     int
		answer   string
		args     []string
		exit     int
		stdout   string
		inStderr string
	}{
		{"allow leaves Claude in charge", 200, `{"allow":true,"decision":"allow","reason":"ok","rule":""}`, nil, 0, "", ""},
		{"allow with auto-approve", 200, `{"allow":true,"decision":"allow","reason":"ok","rule":""}`, []string{"--auto-approve"}, 0, `"permissionDecision":"allow"`, ""},
		{"deny", 200, `{"allow":false,"decision":"deny","reason":"no","rule":"r1"}`, nil, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"warden: no [warden rule r1]"}}`, ""},
		{"allow with a rewrite", 200, `{"allow":true,"decision":"allow","reason":"ok","rule":"","updatedInput":{"command":"warden sandbox -- ls","description":"d"}}`, nil, 0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"warden sandbox -- ls","description":"d"}}}`, ""},
		{"allow with a rewrite, auto-approve", 200, `{"allow":true,"decision":"allow","reason":"ok","rule":"","updatedInput":{"command":"warden sandbox -- ls"}}`, []string{"--auto-approve"}, 0, `"permissionDecision":"allow","permissionDecisionReason":"allowed by warden: ok","updatedInput":{"command":"warden sandbox -- ls"}}`, ""},
		{"non-2xx", 503, `{"error":"down"}`, nil, 2, "", "503: down"},
		{"401", 401, `{"error":"unauthorized"}`, nil, 2, "", "401"},
		{"not JSON", 200, `allow`, nil, 2, "", "not a verdict"},
		{"missing decision", 200, `{"allow":true}`, nil, 2, "", "inconsistent"},
		{"contradiction", 200, `{"allow":true,"decision":"deny","reason":"","rule":""}`, nil, 2, "", "inconsistent"},
		{"unknown field", 200, `{"block":false}`, nil, 2, "", "not a verdict"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir, seen := fakeDoor(t, tc.code, tc.answer)
			out, errOut, exit := runHook(t, dir, hookPre, tc.args...)
			if exit != tc.exit || !strings.Contains(out, tc.stdout) || (tc.stdout == "" && out != "") || !strings.Contains(errOut, tc.inStderr) {
				t.Fatalf("exit %d stdout %q stderr %q", exit, out, errOut)
			}
			if len(*seen) != 1 || (*seen)[0].Get("Authorization") != "" || (*seen)[0].Get("X-Workspace-Path") != "/proj" || (*seen)[0].Get(proof.AuthHeader) == "" {
				t.Fatalf("request headers: %v", *seen)
			}
		})
	}
}

func TestHookClaudeFailsClosedWithoutDaemon(t *testing.T) {
	dir := t.TempDir()
	out, errOut, exit := runHook(t, dir, hookPre)
	if exit != 2 || out != "" || !strings.Contains(errOut, "not running") {
		t.Fatalf("no daemon: %d %q %q", exit, out, errOut)
	}
	// A stale daemon.json (killed daemon): connection refused.
	ln := httptest.NewServer(http.NotFoundHandler())
	addr := strings.TrimPrefix(ln.URL, "http://")
	ln.Close()
	writeRuntimeFile(t, dir, addr)
	if _, err := proof.EnsureKeys(dir); err != nil {
		t.Fatal(err)
	}
	if _, errOut, exit := runHook(t, dir, hookPre); exit != 2 || !strings.Contains(errOut, "cannot reach warden") {
		t.Fatalf("refused: %d %q", exit, errOut)
	}
	// Garbage on stdin: treated as a tool call, blocked.
	if _, _, exit := runHook(t, dir, "nonsense"); exit != 2 {
		t.Fatalf("garbage: %d", exit)
	}
}

// A listener that took the port of a stopped daemon (daemon.json still names
// it) cannot make the hook allow a call, whatever it answers, and never sees
// the hook key.
func TestHookClaudeRefusesImpostor(t *testing.T) {
	dir := t.TempDir()
	if _, err := proof.EnsureKeys(dir); err != nil {
		t.Fatal(err)
	}
	hookKey, err := os.ReadFile(filepath.Join(dir, proof.HookKeyName))
	if err != nil {
		t.Fatal(err)
	}
	allow := `{"allow":true,"decision":"allow","reason":"ok","rule":""}`
	otherKeys, err := proof.EnsureKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	record := func(r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var all []string
		for k, v := range r.Header {
			all = append(all, k+": "+strings.Join(v, ","))
		}
		seen = append(seen, strings.Join(all, "\n")+"\n"+string(body))
	}
	impostors := map[string]http.Handler{
		"no proof": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			record(r)
			_, _ = w.Write([]byte(allow))
		}),
		"proof by another key": proof.SignAnswers(proof.DoorHooks, otherKeys.Signer, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			record(r)
			_, _ = w.Write([]byte(allow))
		})),
		"garbage proof": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			record(r)
			w.Header().Set(proof.ProofHeader, "AAAA")
			_, _ = w.Write([]byte(allow))
		}),
	}
	for name, h := range impostors {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(h)
			defer srv.Close()
			addr := strings.TrimPrefix(srv.URL, "http://")
			writeRuntimeFile(t, dir, addr)
			out, errOut, exit := runHook(t, dir, hookPre, "--auto-approve")
			if exit != 2 || out != "" || !strings.Contains(errOut, "the listener on "+addr+" is not warden") {
				t.Fatalf("impostor: exit %d stdout %q stderr %q", exit, out, errOut)
			}
			// A non-gating event is spooled for the real daemon, not lost.
			if _, errOut, exit := runHook(t, dir, hookStop); exit != 0 || !strings.Contains(errOut, "spooled") {
				t.Fatalf("impostor, Stop: exit %d stderr %q", exit, errOut)
			}
		})
	}
	key := strings.TrimSpace(string(hookKey))
	for _, s := range seen {
		if strings.Contains(s, key) || strings.Contains(strings.ToLower(s), "authorization") {
			t.Fatalf("the impostor received a credential:\n%s", s)
		}
	}
	if len(seen) != 6 {
		t.Fatalf("impostors saw %d requests, want 6", len(seen))
	}
}

func TestHookClaudeSpoolsEvents(t *testing.T) {
	dir := t.TempDir()
	out, errOut, exit := runHook(t, dir, hookStop)
	if exit != 0 || out != "" {
		t.Fatalf("spool: %d %q %q", exit, out, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "spool", "*.json"))
	if len(files) != 1 {
		t.Fatalf("spool files: %v (%s)", files, errOut)
	}
	var e struct {
		ID        string          `json:"spoolId"`
		Workspace string          `json:"workspace"`
		Payload   json.RawMessage `json:"payload"`
	}
	b, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(b, &e); err != nil || e.ID == "" || e.Workspace != "/proj" || string(e.Payload) != hookStop {
		t.Fatalf("spool entry: %s %v", b, err)
	}
	// A refusal (4xx) is not spooled: it would be refused again.
	dir2, _ := fakeDoor(t, 400, `{"error":"bad"}`)
	if _, errOut, exit := runHook(t, dir2, hookStop); exit != 0 || !strings.Contains(errOut, "refused") {
		t.Fatalf("4xx: %d %q", exit, errOut)
	}
	if files, _ := filepath.Glob(filepath.Join(dir2, "spool", "*.json")); len(files) != 0 {
		t.Fatalf("4xx spooled: %v", files)
	}
	// A 5xx is spooled.
	dir3, _ := fakeDoor(t, 503, `{"error":"store down"}`)
	if _, _, exit := runHook(t, dir3, hookStop); exit != 0 {
		t.Fatalf("5xx: %d", exit)
	}
	if files, _ := filepath.Glob(filepath.Join(dir3, "spool", "*.json")); len(files) != 1 {
		t.Fatalf("5xx not spooled: %v", files)
	}
}

// A door the running daemon has off says where it was switched off and
// what to do (control.enabled: false was not mentioned).
func TestDoorSwitchedOffSaysWhere(t *testing.T) {
	dir := t.TempDir()
	rt := `{"pid":1,"listeners":{"monitor":"127.0.0.1:1"}}`
	if err := os.WriteFile(filepath.Join(dir, "daemon.json"), []byte(rt), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := doorOf(dir, "control")
	if err == nil || !strings.Contains(err.Error(), "control.enabled") || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("control door off: %v", err)
	}
	_, _, err = doorOf(dir, "hooks")
	if err == nil || !strings.Contains(err.Error(), "listeners.hooks") {
		t.Fatalf("hooks door off: %v", err)
	}
}
