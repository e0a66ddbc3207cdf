package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
	"github.com/warden-dev/warden/internal/fakemodel/openai"
)

// The kernel sandbox around external agents' shell calls, end to end with
// the real OpenCode and Claude Code: a command the policy allows but which
// reaches for ~/.bashrc through an interpreter fails inside the sandbox;
// everyday work (go build and test, git commit, writing /tmp) succeeds; with
// the workspace's warden.sandbox off the same command does reach ~/.bashrc,
// so it was the sandbox that stopped it.

// sandboxBase is a test directory outside /tmp: the sandbox does not grant
// the temp dir when a home or data dir with secrets lies inside it, and the
// tests' homes and data dirs must not keep /tmp from being granted.
func sandboxBase(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "warden-confine-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// bashrcCommand runs a script already in the workspace (everyday work the
// policy allows; writeTidy puts it there) that appends to ~/.bashrc with
// the path built at run time: what the policy does not read, the kernel
// stops. (The same code inline, python3 -c, is asked by the policy.)
const bashrcCommand = `/usr/bin/python3 tidy.py`

// writeTidy writes the script bashrcCommand runs into the workspace dir.
func writeTidy(t *testing.T, dir, home string) {
	t.Helper()
	// The file to append to comes from a data file read at run time:
	// the policy reads the script (and would deny a home path it can
	// see) but not what the program reads, which is the kernel's part.
	code := "import json\nconf = json.load(open('tidy.json'))\nwith open(conf['rc'], 'a') as f:\n    f.write(conf['line'])\n"
	conf, err := json.Marshal(map[string]string{"rc": filepath.Join(home, ".bashrc"), "line": "pwned"})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"tidy.py": []byte(code), "tidy.json": conf} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// everydayCommand builds and tests a Go program, commits, and writes /tmp.
func everydayCommand(tmpFile string) string {
	return "go build -o app . && ./app > built.txt && go test ./... && git add -A && " +
		"git -c user.name=t -c user.email=t@example.com commit -qm work && echo ok > " + tmpFile
}

// goProject writes a tiny Go module into dir.
func goProject(t *testing.T, dir string) {
	t.Helper()
	for name, content := range map[string]string{
		"go.mod":       "module example.com/app\n\ngo 1.26\n",
		"main.go":      "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func commits(t *testing.T, dir string) int {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-list in %s: %v", dir, err)
	}
	var n int
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(out))), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// confinedEvents returns the tool.confined events' data.
func confinedEvents(t *testing.T, evs []ev) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.Type == "tool.confined" {
			var m map[string]any
			if err := json.Unmarshal(e.Data, &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

func writeBashrc(t *testing.T, home string) string {
	t.Helper()
	p := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(p, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenCodeShellRunsInTheSandbox(t *testing.T) {
	base := sandboxBase(t)
	data := filepath.Join(base, "data")
	d := startDaemon(t, data)

	// 1. Allowed by the policy, stopped by the kernel.
	r := newOpenCodeRun(t, filepath.Join(base, "a"), openai.ToolOnce("bash", map[string]any{"command": bashrcCommand, "description": "tweak the shell"}))
	r.use(d)
	writeTidy(t, r.proj, r.home)
	bashrc := writeBashrc(t, r.home)
	out := r.run(t, "tweak the shell")
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Fatalf("~/.bashrc changed inside the sandbox: %q\n%s", b, out)
	}
	evs := logOf(t, data)
	if dec := findDecision(t, evs, true); dec["decision"] != "allow" {
		t.Fatalf("the policy did not allow the command (the test needs it allowed): %v", dec)
	}
	cs := confinedEvents(t, evs)
	if len(cs) != 1 || cs[0]["command"] != bashrcCommand || !strings.Contains(cs[0]["line"].(string), " sandbox -w "+r.proj+" ") {
		t.Fatalf("tool.confined: %v", cs)
	}
	if !toolResultsMention(r.model, "Permission denied") {
		t.Fatalf("the model did not see the sandbox's refusal: %v", r.model.Requests())
	}

	// 2. Everyday work runs in the sandbox.
	tmpFile := filepath.Join("/tmp", filepath.Base(base)+"-opencode.txt")
	t.Cleanup(func() { os.Remove(tmpFile) })
	r = newOpenCodeRun(t, filepath.Join(base, "b"), openai.ToolOnce("bash", map[string]any{"command": everydayCommand(tmpFile), "description": "build, test, commit"}))
	r.use(d)
	goProject(t, r.proj)
	out = r.run(t, "build, test and commit")
	if b, err := os.ReadFile(filepath.Join(r.proj, "built.txt")); err != nil || strings.TrimSpace(string(b)) != "built" {
		t.Fatalf("go build did not run in the sandbox: %q %v\n%s\ntool results: %v", b, err, out, r.model.Requests())
	}
	if n := commits(t, r.proj); n != 2 {
		t.Fatalf("commits: %d, want 2\n%s", n, out)
	}
	if b, err := os.ReadFile(tmpFile); err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Fatalf("/tmp not writable in the sandbox: %v\n%s", err, out)
	}
	if cs := confinedEvents(t, logOf(t, data)); len(cs) != 2 {
		t.Fatalf("tool.confined events: %v", cs)
	}

	// 3. The workspace switched off: the same command reaches ~/.bashrc.
	r = newOpenCodeRun(t, filepath.Join(base, "c"), openai.ToolOnce("bash", map[string]any{"command": bashrcCommand, "description": "tweak the shell"}))
	r.use(d)
	writeTidy(t, r.proj, r.home)
	bashrc = writeBashrc(t, r.home)
	for _, args := range [][]string{{"workspace", "add", r.proj}, {"workspace", "meta", "-w", r.proj, "warden.sandbox", "off"}} {
		if out, errOut, code := warden(t, data, "", args...); code != 0 {
			t.Fatalf("warden %v: %d %s %s", args, code, out, errOut)
		}
	}
	out = r.run(t, "tweak the shell")
	if b, _ := os.ReadFile(bashrc); !strings.Contains(string(b), "pwned") {
		t.Fatalf("with the sandbox off the command did not run as it is (so the test above proves nothing): %q\n%s", b, out)
	}
	if cs := confinedEvents(t, logOf(t, data)); len(cs) != 2 {
		t.Fatalf("a call was confined in a workspace with warden.sandbox off: %v", cs)
	}
	d.stop()
}

func TestClaudeBashRunsInTheSandbox(t *testing.T) {
	t.Parallel()
	base := sandboxBase(t)

	// 1. Allowed by the policy, stopped by the kernel.
	r := newClaudeRigIn(t, filepath.Join(base, "a"), func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": bashrcCommand, "description": "tweak the shell"})
	})
	d := r.start()
	writeTidy(t, r.ws, r.home)
	bashrc := writeBashrc(t, r.home)
	out, errOut, _ := r.claude("tweak the shell")
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Fatalf("~/.bashrc changed inside the sandbox: %q\n%s\n%s", b, out, errOut)
	}
	evs := r.events()
	if ds := decisions(t, evs); len(ds) != 1 || ds[0]["decision"] != "allow" {
		t.Fatalf("the policy did not allow the command (the test needs it allowed): %v", ds)
	}
	cs := confinedEvents(t, evs)
	if len(cs) != 1 || cs[0]["command"] != bashrcCommand {
		t.Fatalf("tool.confined: %v", cs)
	}
	if !strings.Contains(toolResultText(r.fake), "Permission denied") {
		t.Fatalf("the model did not see the sandbox's refusal:\n%s", toolResultText(r.fake))
	}
	d.stop()

	// 2. Everyday work runs in the sandbox.
	tmpFile := filepath.Join("/tmp", filepath.Base(base)+"-claude.txt")
	t.Cleanup(func() { os.Remove(tmpFile) })
	r = newClaudeRigIn(t, filepath.Join(base, "b"), func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": everydayCommand(tmpFile), "description": "build, test, commit", "timeout": 600000})
	})
	d = r.start()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = r.ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	goProject(t, r.ws)
	out, errOut, _ = r.claude("build, test and commit")
	if b, err := os.ReadFile(filepath.Join(r.ws, "built.txt")); err != nil || strings.TrimSpace(string(b)) != "built" {
		t.Fatalf("go build did not run in the sandbox: %q %v\n%s\n%s\ntool results:\n%s", b, err, out, errOut, toolResultText(r.fake))
	}
	if n := commits(t, r.ws); n != 2 {
		t.Fatalf("commits: %d, want 2\n%s", n, toolResultText(r.fake))
	}
	if b, err := os.ReadFile(tmpFile); err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Fatalf("/tmp not writable in the sandbox: %v\n%s", err, toolResultText(r.fake))
	}
	if cs := confinedEvents(t, r.events()); len(cs) != 1 || !strings.Contains(cs[0]["line"].(string), " sandbox -w "+r.ws+" ") {
		t.Fatalf("tool.confined: %v", cs)
	}
	d.stop()
}

// What the rewrite changes for the agent (docs/protocols.md): a `cd` in one
// call does not carry over to the next, because it happens in the
// sandbox's own bash. Claude Code otherwise keeps its working directory
// between Bash calls (shown with the workspace's sandbox off).
func TestClaudeCdDoesNotPersistInTheSandbox(t *testing.T) {
	t.Parallel()
	base := sandboxBase(t)
	twoCalls := func(*claudeRig) anthropic.Script {
		return func(r anthropic.Request) anthropic.Reply {
			if !r.HasTool("Bash") {
				return anthropic.Reply{Text: "ok"}
			}
			switch len(r.ToolResults()) {
			case 0:
				return anthropic.Reply{Tool: "Bash", Input: map[string]any{"command": "mkdir -p sub && cd sub", "description": "go down"}}
			case 1:
				return anthropic.Reply{Tool: "Bash", Input: map[string]any{"command": "echo WHERE=$(pwd)", "description": "where"}}
			}
			return anthropic.Reply{Text: "Done."}
		}
	}
	for _, tc := range []struct {
		name, sandbox, want string
	}{
		{"confined", "", ""},
		{"sandbox off", "off", "/sub"},
	} {
		r := newClaudeRigIn(t, filepath.Join(base, tc.name), twoCalls)
		d := r.start()
		if tc.sandbox != "" {
			for _, args := range [][]string{{"workspace", "add", r.ws}, {"workspace", "meta", "-w", r.ws, "warden.sandbox", tc.sandbox}} {
				if out, errOut, code := warden(t, r.data, "", args...); code != 0 {
					t.Fatalf("warden %v: %d %s %s", args, code, out, errOut)
				}
			}
		}
		out, errOut, _ := r.claude("go down, then look")
		got := ""
		for _, b := range r.fake.ToolResults() {
			if text := b.ContentText(); strings.Contains(text, "WHERE=") {
				got = text
			}
		}
		if want := "WHERE=" + r.ws + tc.want; !strings.Contains(got, want) || (tc.want == "" && strings.Contains(got, "/sub")) {
			t.Fatalf("%s: the second call printed %q, want %q\n%s\n%s", tc.name, got, want, out, errOut)
		}
		d.stop()
	}
}

// OpenCode starts a new shell for every call, confined or not: the same
// holds there.
func TestOpenCodeCdDoesNotPersistInTheSandbox(t *testing.T) {
	base := sandboxBase(t)
	data := filepath.Join(base, "data")
	d := startDaemon(t, data)
	r := newOpenCodeRun(t, filepath.Join(base, "a"), func(req openai.Request) openai.Reply {
		if len(req.Tools) == 0 {
			return openai.Reply{Text: "Test session"}
		}
		switch len(req.ToolResults()) {
		case 0:
			return openai.Reply{Tool: "bash", Args: map[string]any{"command": "mkdir -p sub && cd sub", "description": "go down"}}
		case 1:
			return openai.Reply{Tool: "bash", Args: map[string]any{"command": "echo WHERE=$(pwd)", "description": "where"}}
		}
		return openai.Reply{Text: "Done."}
	})
	r.use(d)
	out := r.run(t, "go down, then look")
	if !toolResultsMention(r.model, "WHERE="+r.proj+"\n") && !toolResultsMention(r.model, "WHERE="+r.proj+"\\n") {
		t.Fatalf("the second call did not run in the workspace root: %v\n%s", r.model.Requests(), out)
	}
	if cs := confinedEvents(t, logOf(t, data)); len(cs) != 2 {
		t.Fatalf("tool.confined: %v", cs)
	}
	d.stop()
}
