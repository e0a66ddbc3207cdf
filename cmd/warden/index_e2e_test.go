package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexFollowsTheWorkspace: with the daemon running, `warden index
// search` asks it, and the index follows every change: a new file, an
// edit, a rename, a delete, a git checkout of another branch. Without the
// daemon the CLI opens the index itself.
func TestIndexFollowsTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package p\n\n// Start begins the engine.\nfunc Start() {}\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".env"), []byte("TOKEN=zorblax-secret\n"), 0o644)
	os.WriteFile(filepath.Join(ws, ".gitignore"), []byte(".env\n"), 0o644)
	git("init", "-q")
	git("add", "main.go", ".gitignore")
	git("commit", "-q", "-m", "one")
	git("switch", "-q", "-c", "other")
	os.WriteFile(filepath.Join(ws, "other.go"), []byte("package p\n\nfunc wombatOther() {}\n"), 0o644)
	git("add", "other.go")
	git("commit", "-q", "-m", "two")
	git("switch", "-q", "main")

	d := startDaemon(t, filepath.Join(dir, "data"))
	defer d.stop()
	if out, errOut, code := warden(t, d.dataDir, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %q %q", code, out, errOut)
	}
	type hit struct {
		Path    string  `json:"path"`
		Line    int     `json:"line"`
		EndLine int     `json:"endLine"`
		Symbol  string  `json:"symbol"`
		Kind    string  `json:"kind"`
		Score   float64 `json:"score"`
	}
	search := func(mode, q string) []hit {
		t.Helper()
		out, errOut, code := warden(t, d.dataDir, "", "index", "search", "-w", ws, "--json", "--mode", mode, q)
		if code != 0 {
			t.Fatalf("index search %s %q: %d %s", mode, q, code, errOut)
		}
		var hs []hit
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if l == "" {
				continue
			}
			var h hit
			if err := json.Unmarshal([]byte(l), &h); err != nil {
				t.Fatalf("not one JSON object per line: %q", out)
			}
			hs = append(hs, h)
		}
		return hs
	}
	control := func(method, params string) {
		t.Helper()
		if out, errOut, code := warden(t, d.dataDir, "", "control", "call", method, params, "--workspace", ws); code != 0 {
			t.Fatalf("%s: %d %q %q", method, code, out, errOut)
		}
	}
	if hs := search("symbol", "Start"); len(hs) != 1 || hs[0].Path != "main.go" || hs[0].Kind != "function" || hs[0].Line != 3 || hs[0].EndLine != 4 {
		t.Fatalf("symbol Start: %+v", hs)
	}
	if hs := search("ranked", "begins the engine"); len(hs) == 0 || hs[0].Symbol != "Start" || hs[0].Score <= 0 {
		t.Errorf("ranked: %+v", hs)
	}
	if hs := search("literal", "zorblax"); len(hs) != 0 {
		t.Errorf(".env returned: %+v", hs)
	}

	// Created.
	control("fs.writeFile", `{"path":"pkg/new.go","content":"package pkg\n\nfunc quasarFlux() {}\n"}`)
	if hs := search("literal", "quasarFlux"); len(hs) != 1 || hs[0].Path != "pkg/new.go" || hs[0].Line != 3 || hs[0].Symbol != "quasarFlux" {
		t.Errorf("created: %+v", hs)
	}
	// Edited.
	control("fs.writeFile", `{"path":"pkg/new.go","content":"package pkg\n\nfunc nebulaDrift() {}\n"}`)
	if hs := search("literal", "quasarFlux"); len(hs) != 0 {
		t.Errorf("edited away: %+v", hs)
	}
	if hs := search("symbol", "nebulaDrift"); len(hs) != 1 {
		t.Errorf("edited in: %+v", hs)
	}
	// Renamed.
	control("fs.rename", `{"oldPath":"pkg/new.go","newPath":"pkg/moved.go"}`)
	if hs := search("regex", `func nebula\w+`); len(hs) != 1 || hs[0].Path != "pkg/moved.go" {
		t.Errorf("renamed: %+v", hs)
	}
	// Deleted.
	control("fs.deleteFile", `{"path":"pkg/moved.go"}`)
	if hs := search("literal", "nebulaDrift"); len(hs) != 0 {
		t.Errorf("deleted: %+v", hs)
	}
	// Another branch checked out, and back.
	control("git.checkout", `{"branch":"other"}`)
	if hs := search("symbol", "wombatOther"); len(hs) != 1 || hs[0].Path != "other.go" {
		t.Errorf("checkout other: %+v", hs)
	}
	control("git.checkout", `{"branch":"main"}`)
	if hs := search("symbol", "wombatOther"); len(hs) != 0 {
		t.Errorf("checkout main: %+v", hs)
	}

	out, errOut, code := warden(t, d.dataDir, "", "index", "status", "-w", ws, "--json")
	var st struct {
		Generation string `json:"generation"`
		Files      int    `json:"files"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Generation == "" || st.Files != 2 {
		t.Errorf("status: %d %q %q", code, out, errOut)
	}
	out, errOut, code = warden(t, d.dataDir, "", "index", "build", "-w", ws)
	// stderr is not a terminal here: no progress bar is drawn into it
	if code != 0 || strings.Contains(errOut, "\r") || !strings.Contains(out, "generation  gen-000002") {
		t.Errorf("build: %d %q %q", code, out, errOut)
	}
	// The query is gated and recorded like a read.
	out, _, _ = warden(t, d.dataDir, "", "events", "--json")
	if !strings.Contains(out, `"grep"`) || !strings.Contains(out, "wombatOther") {
		t.Errorf("index queries not recorded:\n%.2000s", out)
	}

	// Without the daemon, the CLI opens the index itself.
	d.stop()
	out, errOut, code = warden(t, d.dataDir, "", "index", "search", "-w", ws, "--mode", "symbol", "Start")
	if code != 0 || !strings.Contains(out, "main.go:3-4  function Start") {
		t.Errorf("without the daemon: %d %q %q", code, out, errOut)
	}
}

// TestIndexSearchCaseAsRipgrep: literal and regex searches print the lines
// ripgrep prints for the same pattern: case-sensitive unless -i (or
// case:no in the query), from the daemon and from the index opened by the
// CLI alike; a bad regex is said plainly, and no hits says so on stderr.
func TestIndexSearchCaseAsRipgrep(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "case.txt"), []byte("Zetaword upper\nzetaword lower\n"), 0o644)
	d := startDaemon(t, filepath.Join(dir, "data"))
	defer d.stop()
	if out, errOut, code := warden(t, d.dataDir, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %q %q", code, out, errOut)
	}
	check := func(who string) {
		t.Helper()
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"--mode", "literal", "Zetaword"}, "case.txt:1:1:Zetaword upper\n"},
			{[]string{"--mode", "regex", `Zeta\w+`}, "case.txt:1:1:Zetaword upper\n"},
			{[]string{"--mode", "literal", "-i", "Zetaword"}, "case.txt:1:1:Zetaword upper\ncase.txt:2:1:zetaword lower\n"},
			{[]string{"--mode", "regex", "case:no zeta"}, "case.txt:1:1:Zetaword upper\ncase.txt:2:1:zetaword lower\n"},
		} {
			out, errOut, code := warden(t, d.dataDir, "", append([]string{"index", "search", "-w", ws}, c.args...)...)
			if code != 0 || out != c.want {
				t.Fatalf("%s: index search %q: %d\n%s\nwant\n%s%s", who, c.args, code, out, c.want, errOut)
			}
		}
		out, errOut, code := warden(t, d.dataDir, "", "index", "search", "-w", ws, "--mode", "regex", "(")
		if code == 0 || out != "" || !strings.Contains(errOut, `invalid regex "("`) || strings.Contains(errOut, "errorType") {
			t.Fatalf("%s: bad regex: %d %q %q", who, code, out, errOut)
		}
		out, errOut, code = warden(t, d.dataDir, "", "index", "search", "-w", ws, "nothingmatchesthis")
		if code != 0 || out != "" || !strings.Contains(errOut, `no hits for "nothingmatchesthis"`) {
			t.Fatalf("%s: no hits: %d %q %q", who, code, out, errOut)
		}
	}
	check("daemon")
	d.stop()
	check("no daemon")
}
