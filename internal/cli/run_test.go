package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warden's global flags work before `run` (and between `run` and the
// agent), although run passes everything after the agent to it untouched.
func TestRunTakesGlobalFlagsBeforeTheAgent(t *testing.T) {
	dir := t.TempDir()
	// The "agent" prints its arguments: what warden runs is visible.
	shim := filepath.Join(dir, "opencode")
	if err := os.WriteFile(shim, []byte("#!/bin/sh\necho \"ARGS:$*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte("dataDir: "+data+"\nagents:\n  opencode:\n    binary: "+shim+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WARDEN_DATA_DIR", "")
	t.Setenv(EnvOpenCodePort, "")
	t.Setenv(EnvOpenCodeSession, "")
	for _, tc := range []struct {
		name string
		env  string // WARDEN_OPENCODE_BIN
		args []string
	}{
		{"data dir before run", shim, []string{"--data-dir", data, "run", "opencode", "--model", "x"}},
		{"data dir with =", shim, []string{"--data-dir=" + data, "run", "opencode", "--model", "x"}},
		{"config before run", "", []string{"--config", conf, "run", "opencode", "--model", "x"}},
		{"flags between run and the agent", "", []string{"run", "--config=" + conf, "--data-dir", data, "opencode", "--model", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvOpenCodeBin, tc.env)
			var stdout, stderr bytes.Buffer
			code := Main(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
			}
			// No daemon runs in the data dir given: warden says so and runs
			// the agent with exactly the arguments after its name.
			if got := strings.TrimSpace(stdout.String()); got != "ARGS:--model x" {
				t.Fatalf("the agent got %q\nstderr: %s", got, stderr.String())
			}
			if !strings.Contains(stderr.String(), data) {
				t.Fatalf("warden did not look for the daemon in %s:\n%s", data, stderr.String())
			}
		})
	}
}
