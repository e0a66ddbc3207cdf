package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// withSelf pretends this program lives at path.
func withSelf(t *testing.T, path string) {
	t.Helper()
	old := selfPath
	selfPath = func() (string, error) { return path, nil }
	t.Cleanup(func() { selfPath = old })
}

func TestInstallRefusesTemporaryBuild(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("WARDEN_DATA_DIR", t.TempDir())
	withSelf(t, filepath.Join(os.TempDir(), "go-build1234", "b001", "exe", "warden"))
	proj := t.TempDir()
	for _, args := range [][]string{
		{"install", "claude", "--project", proj},
		{"install", "opencode", "--project", proj},
	} {
		_, errOut, code := runCLI(t, args...)
		if code == 0 || !strings.Contains(errOut, "go install ./cmd/warden") || !strings.Contains(errOut, "--allow-temp-binary") {
			t.Fatalf("%v: exit %d %q", args, code, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".claude")); err == nil {
		t.Fatal("settings were written for a temporary build")
	}
	if _, err := os.Stat(filepath.Join(proj, ".opencode")); err == nil {
		t.Fatal("the plugin was installed from a temporary build")
	}
	// --binary names a real program instead; a temporary one is refused too.
	real := filepath.Join(t.TempDir(), "warden")
	if err := os.WriteFile(real, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "install", "claude", "--project", proj, "--binary", real)
	if code != 0 || !strings.Contains(out, claudecode.Command(real)) {
		t.Fatalf("--binary: exit %d %q %q", code, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if !strings.Contains(string(b), "exit 2") {
		t.Fatalf("the PreToolUse hook is not guarded:\n%s", b)
	}
	tmpBin := filepath.Join(t.TempDir(), "go-build99", "warden")
	os.MkdirAll(filepath.Dir(tmpBin), 0o755)
	os.WriteFile(tmpBin, []byte("#!/bin/sh\n"), 0o755)
	if _, errOut, code := runCLI(t, "install", "claude", "--project", proj, "--binary", tmpBin); code == 0 || !strings.Contains(errOut, "temporary") {
		t.Fatalf("--binary in go-build: exit %d %q", code, errOut)
	}
	// The override.
	if _, errOut, code := runCLI(t, "install", "opencode", "--project", proj, "--allow-temp-binary"); code != 0 {
		t.Fatalf("--allow-temp-binary: %d %q", code, errOut)
	}
	// Uninstalling is always possible.
	if _, errOut, code := runCLI(t, "install", "claude", "--project", proj, "--uninstall"); code != 0 {
		t.Fatalf("uninstall: %d %q", code, errOut)
	}
}

func TestInstallOpenCodeFindsTheDaemon(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	withSelf(t, "/usr/local/bin/warden")
	data := t.TempDir()
	t.Setenv("WARDEN_DATA_DIR", data)
	proj := t.TempDir()
	// Not running.
	out, errOut, code := runCLI(t, "install", "opencode", "--project", proj)
	if code != 0 || !strings.Contains(out, "not running") || !strings.Contains(out, data) {
		t.Fatalf("not running: %d %q %q", code, out, errOut)
	}
	plugin, _ := os.ReadFile(filepath.Join(proj, ".opencode", "plugin", "warden-monitor.js"))
	q, _ := json.Marshal(data)
	if !strings.Contains(string(plugin), "const INSTALLED_DATA_DIR = "+string(q)) {
		t.Fatal("the plugin does not record the data dir")
	}
	// Running on another port: the URL is printed.
	rt, _ := json.Marshal(daemon.Runtime{Listeners: map[string]string{"monitor": "127.0.0.1:41999"}})
	if err := os.WriteFile(filepath.Join(data, daemon.RuntimeName), rt, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = runCLI(t, "install", "opencode", "--project", proj)
	if code != 0 || !strings.Contains(out, "http://127.0.0.1:41999/agent-monitor (not the default") {
		t.Fatalf("other port: %d %q", code, out)
	}
}

// install opencode --global and install claude --user mean the same (the
// user's own config): each takes the other's word too.
func TestInstallUserAndGlobalAreOneFlag(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("WARDEN_DATA_DIR", t.TempDir())
	bin := filepath.Join(t.TempDir(), "warden")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	withSelf(t, bin)
	if _, errOut, code := runCLI(t, "install", "claude", "--global"); code != 0 {
		t.Fatalf("install claude --global: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); err != nil {
		t.Fatalf("install claude --global did not write the user's settings: %v", err)
	}
	if _, errOut, code := runCLI(t, "install", "opencode", "--user"); code != 0 {
		t.Fatalf("install opencode --user: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "opencode", "plugin", "warden-monitor.js")); err != nil {
		t.Fatalf("install opencode --user did not install the user's plugin: %v", err)
	}
}
