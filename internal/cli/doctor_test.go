package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
	"github.com/warden-dev/warden/internal/sandbox"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// runDoctor runs `warden doctor --json` with HOME at home and returns its
// checks by name and its exit status.
func runDoctor(t *testing.T, home, dataDir string) (map[string]check, int) {
	t.Helper()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("WARDEN_DATA_DIR", "")
	// the doors on ports nothing else can hold, so a warden on this
	// machine's defaults does not fail the ports checks
	cfgFile := filepath.Join(home, ".config", "warden", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfgFile), 0o700); err != nil {
		t.Fatal(err)
	}
	anyPort := "listeners: {monitor: 127.0.0.1:0, hooks: 127.0.0.1:0, health: 127.0.0.1:0, control: 127.0.0.1:0, mcp: 127.0.0.1:0, agent: 127.0.0.1:0}\n"
	if err := os.WriteFile(cfgFile, []byte(anyPort), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := Main([]string{"doctor", "--json", "--data-dir", dataDir}, strings.NewReader(""), &out, &errOut)
	var list []check
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("doctor --json: %v\n%s\n%s", err, out.String(), errOut.String())
	}
	m := map[string]check{}
	for _, c := range list {
		if c.Status != statusOK && c.Status != statusWarn && c.Status != statusFail {
			t.Errorf("check %s has status %q", c.Name, c.Status)
		}
		if c.Status != statusOK && c.Fix == "" {
			t.Errorf("check %s (%s) says nothing to do", c.Name, c.Status)
		}
		m[c.Name] = c
	}
	return m, code
}

func TestDoctor(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "token"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// a token alone may be a person's provisioning: serve starts a new
	// log there, and doctor says the same
	checks, _ := runDoctor(t, home, data)
	if c := checks["event log"]; c.Status == statusFail {
		t.Fatalf("a data dir with only a token: %+v (warden serve starts a new log there)", c)
	}
	// a token and the workspace registry say warden served here: without
	// its log, the log check fails, as serve refuses to start
	if err := os.WriteFile(filepath.Join(data, "workspaces.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checks, code := runDoctor(t, home, data)
	if c := checks["event log"]; code != 1 || c.Status != statusFail || !strings.Contains(c.Detail, "missing") || !strings.Contains(c.Fix, "--new-log") {
		t.Fatalf("a data dir with a token, a registry and no log: exit %d, %+v", code, c)
	}
	st, err := sqlite.Open(filepath.Join(data, "events.db"), sqlite.WithGeneration(filepath.Join(data, sqlite.GenerationName)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(t.Context(), event.Event{Session: "s1", Type: event.SessionStart}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	checks, code = runDoctor(t, home, data)
	if c := checks["event log"]; c.Status != statusOK || !strings.Contains(c.Detail, "1 events in 1 sessions") {
		t.Errorf("event log %+v", c)
	}
	if code != 0 {
		t.Fatalf("a clean machine fails: %+v", checks)
	}
	// the kernel sandbox is reported as the kernel is
	want := statusOK
	switch s := sandbox.Detect(); {
	case !s.Enforced():
		want = statusFail
	case !s.Complete():
		want = statusWarn
	}
	if c := checks["kernel sandbox"]; c.Status != want || !strings.Contains(c.Detail, "Landlock") {
		t.Errorf("kernel sandbox %+v, want %s", c, want)
	}
	if c := checks["daemon"]; c.Status != statusWarn || !strings.Contains(c.Fix, "warden serve") {
		t.Errorf("daemon %+v", c)
	}

	// a hook that runs a binary that is gone fails: Claude would block
	// every tool call (the guard exits 2)
	gone := filepath.Join(home, "bin", "warden")
	settings, _ := claudecode.Merge(map[string]any{}, claudecode.Command(gone))
	b, err := claudecode.Encode(settings)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	// and a data dir others can read fails
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	checks, code = runDoctor(t, home, data)
	if code != 1 {
		t.Fatalf("doctor exit %d with a broken hook and an open data dir, want 1", code)
	}
	hook := checks["claude hooks "+filepath.Join(home, ".claude", "settings.json")]
	if hook.Status != statusFail || !strings.Contains(hook.Detail, gone) || !strings.Contains(hook.Fix, "warden install claude") {
		t.Errorf("hook check %+v", hook)
	}
	if c := checks["data dir"]; c.Status != statusFail || !strings.Contains(c.Fix, "chmod 700") {
		t.Errorf("data dir %+v", c)
	}
	// once the binary is there, the hook is fine
	if err := os.MkdirAll(filepath.Dir(gone), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gone, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(data, 0o700)
	checks, _ = runDoctor(t, home, data)
	if hook := checks["claude hooks "+filepath.Join(home, ".claude", "settings.json")]; hook.Status != statusOK {
		t.Errorf("hook with its binary: %+v", hook)
	}
	// an emptied log fails, saying what to do
	if err := os.Truncate(filepath.Join(data, "events.db"), 0); err != nil {
		t.Fatal(err)
	}
	checks, code = runDoctor(t, home, data)
	if c := checks["event log"]; code != 1 || c.Status != statusFail || !strings.Contains(c.Detail, "empty") || !strings.Contains(c.Fix, "warden events import") {
		t.Errorf("emptied log: exit %d, %+v", code, c)
	}
}

func TestDoctorPorts(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	// held by something else: serve could not start
	c := portCheck("monitor", addr, "", 0)
	if c.Status != statusFail || !strings.Contains(c.Detail, "held by another process") || !strings.Contains(c.Fix, "--monitor-addr") || !strings.Contains(c.Fix, "sport = :"+port(addr)) {
		t.Errorf("held port: %+v", c)
	}
	// held by this data dir's warden: fine
	if c := portCheck("monitor", addr, addr, 42); c.Status != statusOK || !strings.Contains(c.Detail, "held by this warden (pid 42)") {
		t.Errorf("warden's own port: %+v", c)
	}
	if c := portCheck("monitor", "localhost:"+port(addr), addr, 42); c.Status != statusOK || !strings.Contains(c.Detail, "this warden") {
		t.Errorf("localhost spelling: %+v", c)
	}
	// free, and off
	held.Close()
	if c := portCheck("hooks", addr, "", 0); c.Status != statusOK || !strings.Contains(c.Detail, "free") {
		t.Errorf("free port: %+v", c)
	}
	if c := portCheck("health", "", "", 0); c.Status != statusOK || !strings.Contains(c.Detail, "off") {
		t.Errorf("off: %+v", c)
	}
}
