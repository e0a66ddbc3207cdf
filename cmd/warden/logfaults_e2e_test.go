package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesEmptiedLog: a log file emptied while the data dir shows
// history is refused at start with the path and what to do, and left as it
// is, instead of a fresh log silently replacing it.
func TestServeRefusesEmptiedLog(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	if code, body := d.post(t, preExecute("s1", "c1", "ls", t.TempDir())); code != 200 {
		t.Fatalf("post: %d %s", code, body)
	}
	d.stop()
	logPath := filepath.Join(data, "events.db")
	if err := os.Truncate(logPath, 0); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--data-dir", data, "--monitor-addr", "127.0.0.1:0", "--hooks-addr=", "--health-addr=", "--control-addr=", "--mcp-addr=")
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), logPath) || !strings.Contains(string(out), "empty (0 bytes)") ||
		!strings.Contains(string(out), "warden events import") {
		t.Fatalf("serve on an emptied log: %v\n%s", err, out)
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Size() != 0 {
		t.Fatalf("the refused log was touched: %v", err)
	}
	_, _, code := warden(t, data, "", "doctor")
	if code != 1 {
		t.Fatalf("doctor on an emptied log exits %d, want 1", code)
	}
}
