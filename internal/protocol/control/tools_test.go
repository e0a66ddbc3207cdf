package control_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/testtools"
)

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func TestGitAndSearch(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_AUTHOR_NAME", "Agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Agent")
	t.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
	e := newEnv(t, config.Control{}, coretest.Options{})
	git(t, e.root, "init", "-q", "-b", "main")
	write(t, e.root, "a.go", "package a\n\nfunc Hello() string { return \"hello\" }\n")
	write(t, e.root, "b.txt", "Hello world\nhello again\n")
	write(t, e.root, ".gitignore", "ignored/\n")
	write(t, e.root, "ignored/x.txt", "Hello hidden\n")
	c := e.authed()
	st := c.call("git.status", nil)
	if st["branch"] != "main" || len(st["changes"].([]any)) != 3 {
		t.Fatalf("status %v", st)
	}
	c.call("git.stage", map[string]any{"paths": []string{"a.go", "b.txt", ".gitignore"}})
	if d := c.call("git.diff", map[string]any{"staged": true, "path": "a.go"})["diff"].(string); !strings.Contains(d, "+func Hello()") {
		t.Fatalf("staged diff %q", d)
	}
	c.call("git.commit", map[string]any{"message": "first commit\n\n-with a dash line"})
	log := c.call("git.log", map[string]any{"maxEntries": 5})["entries"].([]any)
	if len(log) != 1 || !strings.HasPrefix(log[0].(map[string]any)["message"].(string), "first commit") || log[0].(map[string]any)["author"] != "Agent" {
		t.Fatalf("log %v", log)
	}
	c.call("git.checkout", map[string]any{"branch": "feature/x", "create": true})
	bs := c.call("git.branches", nil)["branches"].([]any)
	current := ""
	for _, b := range bs {
		if m := b.(map[string]any); m["current"] == true {
			current = m["name"].(string)
		}
	}
	if len(bs) != 2 || current != "feature/x" {
		t.Fatalf("branches %v", bs)
	}
	c.fails(-32602, "git.checkout", map[string]any{"branch": "-D"})
	c.fails(-32010, "git.stage", map[string]any{"paths": []string{"../outside"}})
	// a force push is not a method, but destructive git through the terminal is still the policy's
	write(t, e.root, "b.txt", "Hello world\nchanged\n")
	if d := c.call("git.diff", map[string]any{"path": "b.txt"})["diff"].(string); !strings.Contains(d, "+changed") {
		t.Fatalf("diff %q", d)
	}
	c.call("git.unstage", map[string]any{"paths": []string{"b.txt"}})

	// search: .gitignore honoured, options applied, replacements gated writes
	res := c.call("search.findInFiles", map[string]any{"query": "hello"})["results"].([]any)
	paths := []string{}
	for _, r := range res {
		paths = append(paths, r.(map[string]any)["path"].(string))
	}
	if len(paths) != 2 || strings.Contains(strings.Join(paths, " "), "ignored") {
		t.Fatalf("results %v", paths)
	}
	res = c.call("search.findInFiles", map[string]any{"query": "Hello", "options": map[string]any{"caseSensitive": true, "include": "*.txt"}})["results"].([]any)
	if len(res) != 1 || len(res[0].(map[string]any)["matches"].([]any)) != 1 {
		t.Fatalf("case-sensitive include %v", res)
	}
	c.fails(-32602, "search.findInFiles", map[string]any{"query": "(", "options": map[string]any{"useRegex": true}})
	n := c.call("search.findAndReplace", map[string]any{"query": `H(e)llo`, "replacement": "J${1}llo", "options": map[string]any{"useRegex": true, "caseSensitive": true}})
	if n["count"] != 2.0 {
		t.Fatalf("replace %v", n)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.go")); !strings.Contains(string(b), "func Jello()") {
		t.Fatalf("a.go after replace %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "ignored/x.txt")); string(b) != "Hello hidden\n" {
		t.Fatalf("ignored file changed %q", b)
	}
}

func TestLanguageServers(t *testing.T) {
	gopls := testtools.Find(t, "gopls")
	pyright := testtools.Find(t, "pyright-langserver")
	t.Setenv("PATH", filepath.Dir(gopls)+":"+filepath.Dir(pyright)+":"+os.Getenv("PATH"))
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	e := newEnv(t, config.Control{}, coretest.Options{})
	write(t, e.root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	write(t, e.root, "lib.go", "package m\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int { return a + b }\n")
	write(t, e.root, "main.go", "package m\n\nfunc use() int {\n\tx := Add(1, 2)\n\tvar s string = 5\n\t_ = s\n\treturn x\n}\n")
	write(t, e.root, "ugly.go", "package m\nfunc   ugly( ) int {return 1}\n")
	write(t, e.root, "app.py", "def greet(name: str) -> str:\n    return 'hi ' + name\n\nprint(greet('x'))\nprint(undefined_name)\n")
	c := e.authed()
	pos := map[string]int{"line": 3, "character": 7} // on Add in main.go
	defs := c.call("state.goToDefinition", map[string]any{"path": "main.go", "position": pos})["locations"].([]any)
	if len(defs) != 1 || !strings.HasSuffix(defs[0].(map[string]any)["uri"].(string), "/lib.go") {
		t.Fatalf("definition %v", defs)
	}
	if l := defs[0].(map[string]any)["range"].(map[string]any)["start"].(map[string]any)["line"]; l != 3.0 {
		t.Fatalf("definition line %v", l)
	}
	refs := c.call("state.findReferences", map[string]any{"path": "lib.go", "position": map[string]int{"line": 3, "character": 6}})["locations"].([]any)
	if len(refs) < 2 {
		t.Fatalf("references %v", refs)
	}
	if h := c.call("state.getHover", map[string]any{"path": "main.go", "position": pos})["content"].(string); !strings.Contains(h, "func Add(a int, b int) int") && !strings.Contains(h, "func Add(a, b int) int") {
		t.Fatalf("hover %q", h)
	}
	// a position past the end is the caller's mistake, with a live server too
	c.fails(-32602, "state.getHover", map[string]any{"path": "main.go", "position": map[string]int{"line": 99, "character": 0}})
	c.fails(-32602, "state.findReferences", map[string]any{"path": "main.go", "position": map[string]int{"line": 3, "character": 99}})
	syms := c.call("state.getSymbols", map[string]any{"path": "lib.go"})["symbols"].([]any)
	if len(syms) != 1 || syms[0].(map[string]any)["name"] != "Add" {
		t.Fatalf("symbols %v", syms)
	}
	diags := c.call("state.getDiagnostics", map[string]any{"path": "main.go"})["diagnostics"].([]any)
	found := false
	for _, d := range diags {
		m := d.(map[string]any)
		if m["severity"] == "error" && strings.Contains(fmt.Sprint(m["message"]), "cannot use 5") {
			found = true
		}
	}
	if !found {
		t.Fatalf("diagnostics %v", diags)
	}
	c.call("state.getCodeActions", map[string]any{"path": "main.go", "range": map[string]any{"start": map[string]int{"line": 4, "character": 1}, "end": map[string]int{"line": 4, "character": 17}}})
	// completions see the unsaved buffer
	c.call("editor.openFile", map[string]string{"path": "main.go"})
	c.call("editor.insertText", map[string]any{"path": "main.go", "position": map[string]int{"line": 6, "character": 0}, "text": "\t_ = Ad\n"})
	items := c.call("editor.getCompletions", map[string]any{"path": "main.go", "position": map[string]int{"line": 6, "character": 7}})["items"].([]any)
	hasAdd := false
	for _, it := range items {
		if it.(map[string]any)["label"] == "Add" {
			hasAdd = true
		}
	}
	if !hasAdd {
		t.Fatalf("completions %v", items)
	}
	c.call("editor.openFile", map[string]string{"path": "ugly.go"})
	c.call("editor.formatDocument", nil)
	c.call("editor.save", nil)
	if b, _ := os.ReadFile(filepath.Join(e.root, "ugly.go")); string(b) != "package m\n\nfunc ugly() int { return 1 }\n" {
		t.Fatalf("formatted %q", b)
	}
	// the second language: Python through pyright
	if h := c.call("state.getHover", map[string]any{"path": "app.py", "position": map[string]int{"line": 3, "character": 7}})["content"].(string); !strings.Contains(h, "greet") || !strings.Contains(h, "str") {
		t.Fatalf("python hover %q", h)
	}
	pdefs := c.call("state.goToDefinition", map[string]any{"path": "app.py", "position": map[string]int{"line": 3, "character": 7}})["locations"].([]any)
	if len(pdefs) != 1 || pdefs[0].(map[string]any)["range"].(map[string]any)["start"].(map[string]any)["line"] != 0.0 {
		t.Fatalf("python definition %v", pdefs)
	}
	pd := c.call("state.getDiagnostics", map[string]any{"path": "app.py"})["diagnostics"].([]any)
	if len(pd) == 0 || !strings.Contains(fmt.Sprint(pd), "undefined_name") {
		t.Fatalf("python diagnostics %v", pd)
	}
}

func TestDebugger(t *testing.T) {
	dlv := testtools.Find(t, "dlv")
	t.Setenv("PATH", filepath.Dir(dlv)+":"+os.Getenv("PATH"))
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	if err := exec.Command("/usr/bin/python3", "-c", "import debugpy").Run(); err != nil {
		t.Fatal("debugpy is missing for /usr/bin/python3: run scripts/install-tools.sh")
	}
	e := newEnv(t, config.Control{}, coretest.Options{})
	write(t, e.root, "prog/go.mod", "module example.com/prog\n\ngo 1.22\n")
	write(t, e.root, "prog/main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := 40\n\tx += 2\n\tfmt.Println(x)\n}\n")
	write(t, e.root, "app.py", "x = 40\nx += 2\nprint(x)\n")
	c := e.authed()
	bps := c.call("debug.setBreakpoints", map[string]any{"path": "prog/main.go", "breakpoints": []map[string]any{{"line": 7}}})["breakpoints"].([]any)
	if len(bps) != 1 || bps[0].(map[string]any)["line"] != 7.0 {
		t.Fatalf("breakpoints %v", bps)
	}
	c.call("debug.setBreakpoints", map[string]any{"path": "app.py", "breakpoints": []map[string]any{{"line": 2}}})
	if all := c.call("debug.getBreakpoints", nil)["breakpoints"].([]any); len(all) != 2 {
		t.Fatalf("all breakpoints %v", all)
	}
	for _, tc := range []struct {
		typ, program, file string
		line               float64
	}{
		{"go", "prog", "main.go", 7},
		{"python", "app.py", "app.py", 2},
	} {
		id := c.call("debug.startSession", map[string]any{"type": tc.typ, "request": "launch", "name": tc.typ, "program": tc.program})["sessionId"].(string)
		c.note(func(n map[string]any) bool {
			p, _ := n["params"].(map[string]any)
			return n["method"] == "debug.event" && p["sessionId"] == id && p["kind"] == "stopped" &&
				strings.HasSuffix(fmt.Sprint(p["file"]), tc.file) && p["line"] == tc.line
		})
		if s := c.call("debug.listSessions", nil)["sessions"].([]any); len(s) != 1 || s[0].(map[string]any)["id"] != id {
			t.Fatalf("sessions %v", s)
		}
		c.call("debug.stopSession", map[string]any{"sessionId": id})
		if s := c.call("debug.listSessions", nil)["sessions"].([]any); len(s) != 0 {
			t.Fatalf("sessions after stop %v", s)
		}
	}
	if r := c.call("debug.removeBreakpoints", map[string]any{"path": "app.py", "lines": []int{2}}); r["removed"] != 1.0 {
		t.Fatalf("removed %v", r)
	}
	c.fails(-32602, "debug.startSession", map[string]any{"type": "cobol", "request": "launch", "program": "app.py"})
	c.fails(-32602, "debug.stopSession", map[string]any{"sessionId": "nope"})
}
