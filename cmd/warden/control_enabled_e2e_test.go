package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// control: {enabled: false} in the config file is honoured: the daemon
// serves every other door, not the control door, and says why in its log.
func TestControlEnabledFalse(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	cfg := filepath.Join(dir, "warden.yaml")
	if err := os.WriteFile(cfg, []byte(`listeners:
  monitor: 127.0.0.1:0
  hooks: 127.0.0.1:0
  health: 127.0.0.1:0
  mcp: 127.0.0.1:0
  agent: 127.0.0.1:0
control:
  enabled: false
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--data-dir", dataDir, "--config", cfg)
	cmd.Env = isolatedEnv(t, home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	// the log, line by line, until the daemon says it serves
	var log []string
	sc := bufio.NewScanner(stderr)
	switchedOff := false
	for sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if strings.Contains(line, "listener switched off") && strings.Contains(line, "door=control") && strings.Contains(line, "control.enabled is false") {
			switchedOff = true
		}
		if strings.Contains(line, "warden is serving") {
			break
		}
	}
	if !switchedOff {
		t.Fatalf("the log does not say the control door is off because of control.enabled:\n%s", strings.Join(log, "\n"))
	}
	go func() { // keep the daemon's stderr drained
		for sc.Scan() {
		}
	}()
	var rt struct {
		Listeners map[string]string `json:"listeners"`
	}
	b, err := os.ReadFile(filepath.Join(dataDir, "daemon.json"))
	if err != nil || json.Unmarshal(b, &rt) != nil {
		t.Fatalf("daemon.json: %v %s", err, b)
	}
	if _, ok := rt.Listeners["control"]; ok || rt.Listeners["monitor"] == "" {
		t.Fatalf("listeners %v: want every door but control", rt.Listeners)
	}
}
