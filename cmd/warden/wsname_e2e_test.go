package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceNamesWorkWhereAPathDoes(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data)
	ws := filepath.Join(dir, "src", "fix-login")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := wardenAt(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("add: %s %s", out, errOut)
	}
	if _, errOut, code := wardenAt(t, data, "", "workspace", "meta", "-w", "fix-login", "base", "main"); code != 0 {
		t.Fatalf("meta set by name: %s", errOut)
	}
	if out, errOut, code := wardenAt(t, data, "", "workspace", "meta", "-w", ws, "base"); code != 0 || strings.TrimSpace(out) != "main" {
		t.Fatalf("meta get by path: %q %s", out, errOut)
	}
	if out, errOut, code := wardenAt(t, data, "", "agents", "-w", "fix-login", "--json"); code != 0 || !strings.Contains(out, ws) {
		t.Fatalf("agents -w NAME: %q %s", out, errOut)
	}
	_, errOut, code := wardenAt(t, data, "", "workspace", "remove", "fix-logn")
	if code == 0 || !strings.Contains(errOut, `no workspace named "fix-logn"`) || !strings.Contains(errOut, "fix-login") {
		t.Fatalf("remove a typo: %d %s", code, errOut)
	}
	out, errOut, code := wardenAt(t, data, "", "workspace", "remove", "fix-login")
	if code != 0 || !strings.Contains(out, "removed workspace "+ws) {
		t.Fatalf("remove by name: %d %q %s", code, out, errOut)
	}
	if out, _, _ := wardenAt(t, data, "", "workspace", "list", "--json"); strings.Contains(out, ws) {
		t.Fatalf("still listed: %s", out)
	}
	d.stop()
}
