package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGHUP reads the policy file again and the config (applying the approval
// deadline, saying what needs a restart) instead of killing the daemon and
// leaving daemon.json and the socket behind.
func TestSIGHUPReloadsThePolicy(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	pol := filepath.Join(dir, "policy.yaml")
	cfgFile := filepath.Join(dir, "config.yaml")
	write := func(path, content string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(pol, "version: 1\ndefault: allow\nrules: []\n")
	write(cfgFile, "approvals: {timeout: 30s}\n")
	d := startDaemon(t, data, "--policy", pol, "--config", cfgFile)
	exited := d.exited
	hup := func(n int, want string) {
		t.Helper()
		if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		if !d.stderr.waitCount(want, n, exited, 20*time.Second) {
			t.Fatalf("after SIGHUP: no %q in the log:\n%s", want, d.stderr)
		}
	}
	if _, body := d.post(t, preExecute("ses_1", "c1", "touch a.txt", ws)); strings.TrimSpace(body) != `{"block":false}` {
		t.Fatalf("touch before the reload: %s", body)
	}

	// A new rule in the same file, a changed approval deadline in the config.
	write(pol, "version: 1\ndefault: allow\nrules:\n  - id: no-touch\n    effect: deny\n    match: {argv: ['^touch( |$)']}\n    reason: no touching\n")
	write(cfgFile, "approvals: {timeout: 60s}\nlog: {format: json}\n")
	hup(1, "SIGHUP: policy reloaded")
	if !d.stderr.waitCount("approvals.timeout changed", 1, exited, 20*time.Second) || !d.stderr.waitCount("needRestart=[log.format]", 1, exited, 20*time.Second) {
		t.Fatalf("the log does not say the deadline changed and the log format needs a restart:\n%s", d.stderr)
	}
	if _, body := d.post(t, preExecute("ses_1", "c2", "touch b.txt", ws)); !strings.Contains(body, `"block":true`) || !strings.Contains(body, "no touching") {
		t.Fatalf("touch after the reload: %s", body)
	}

	// A broken policy changes nothing: the running one stays.
	write(pol, "version: 1\nrules: [\n")
	hup(1, "the policy does not load; the running policy stays")
	if _, body := d.post(t, preExecute("ses_1", "c3", "touch c.txt", ws)); !strings.Contains(body, "no touching") {
		t.Fatalf("touch after a broken reload: %s", body)
	}
	// A broken config file changes nothing either.
	write(cfgFile, "nonsense: [\n")
	hup(1, "the configuration does not load; nothing reloaded")

	select {
	case <-exited:
		t.Fatalf("the daemon exited on SIGHUP:\n%s", d.stderr)
	default:
	}
	if _, err := os.Stat(filepath.Join(data, "daemon.json")); err != nil {
		t.Fatalf("daemon.json after SIGHUP: %v", err)
	}
	d.stop()
	for _, f := range []string{"daemon.json", "warden.sock"} {
		if _, err := os.Stat(filepath.Join(data, f)); !os.IsNotExist(err) {
			t.Errorf("%s left behind after SIGTERM: %v", f, err)
		}
	}
}
