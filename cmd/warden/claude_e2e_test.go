package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
)

// These tests drive the real Claude Code binary (pinned 2.1.197, installed by
// scripts/install-agents.sh) against a fake Anthropic API, with warden's hooks
// installed by `warden install claude` and run by the real warden binary.

// claudeBinary returns the pinned Claude Code binary; a missing one fails
// the test (never a silent skip).
func claudeBinary(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	bin := filepath.Join(root, ".cache", "agents", "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("Claude Code is not installed at %s: run scripts/install-agents.sh first (%v)", bin, err)
	}
	return bin
}

// claudeRig is one isolated Claude Code + warden setup.
type claudeRig struct {
	t        *testing.T
	dir      string
	home     string
	data     string
	ws       string
	settings string
	fake     *anthropic.Server
}

// newClaudeRig builds the rig; script makes the fake model's script once
// the rig's paths are known.
func newClaudeRig(t *testing.T, script func(r *claudeRig) anthropic.Script) *claudeRig {
	t.Helper()
	return newClaudeRigIn(t, t.TempDir(), script)
}

// newClaudeRigIn builds the rig in dir.
func newClaudeRigIn(t *testing.T, dir string, script func(r *claudeRig) anthropic.Script) *claudeRig {
	t.Helper()
	r := &claudeRig{t: t, dir: dir, home: filepath.Join(dir, "home"), data: filepath.Join(dir, "data"), ws: filepath.Join(dir, "proj")}
	for _, d := range []string{r.home, r.ws, filepath.Join(dir, "tmp"), filepath.Join(dir, "hookcfg")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The settings come from the installer itself, kept outside the project
	// and handed to Claude with --settings.
	out, errOut, code := warden(t, r.data, "", "install", "claude", "--project", filepath.Join(dir, "hookcfg"))
	if code != 0 {
		t.Fatalf("install claude: %d %s %s", code, out, errOut)
	}
	r.settings = filepath.Join(dir, "hookcfg", ".claude", "settings.json")
	r.fake = anthropic.New(script(r))
	t.Cleanup(r.fake.Close)
	return r
}

func (r *claudeRig) start(extra ...string) *daemon {
	return startDaemon(r.t, r.data, extra...)
}

// claude runs one prompt in the workspace and returns stdout, stderr and
// the exit code.
func (r *claudeRig) claude(prompt string) (string, string, int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claudeBinary(r.t), "-p", prompt, "--output-format", "stream-json", "--verbose",
		"--dangerously-skip-permissions", "--settings", r.settings)
	cmd.Dir = r.ws
	cmd.Env = append(isolatedEnv(r.t, r.home),
		"ANTHROPIC_API_KEY=sk-ant-fake", "ANTHROPIC_BASE_URL="+r.fake.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_TMPDIR="+filepath.Join(r.dir, "tmp"), "IS_SANDBOX=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("run claude: %v", err)
	}
	if ctx.Err() != nil {
		r.t.Fatalf("claude did not finish:\n%s\n%s", out.String(), errb.String())
	}
	return out.String(), errb.String(), code
}

func (r *claudeRig) events() []ev {
	r.t.Helper()
	out, errOut, code := warden(r.t, r.data, "", "events", "--json")
	if code != 0 {
		r.t.Fatalf("events: %d %s", code, errOut)
	}
	return parseEvents(r.t, out)
}

func dataOf(t *testing.T, e ev) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("event %d data: %v", e.ID, err)
	}
	return m
}

// decisions returns the tool.decision events' data.
func decisions(t *testing.T, evs []ev) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.Type == "tool.decision" {
			out = append(out, dataOf(t, e))
		}
	}
	return out
}

func countType(evs []ev, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// toolResultText returns the text of every tool_result the fake model was
// sent.
func toolResultText(s *anthropic.Server) string {
	var b strings.Builder
	for _, r := range s.ToolResults() {
		b.WriteString(r.ContentText())
		b.WriteString("\n")
	}
	return b.String()
}

func TestClaudeSafeCommandRuns(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "echo hello > made.txt", "description": "make a file"})
	})
	d := r.start()
	out, errOut, code := r.claude("make a file")
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "made.txt")); err != nil || strings.TrimSpace(string(b)) != "hello" {
		t.Fatalf("made.txt: %q %v\nclaude: %s\n%s\nwarden: %s", b, err, out, errOut, d.stderr)
	}
	evs := r.events()
	var call, result map[string]any
	for _, e := range evs {
		if e.Source != "claude-code/hooks" || e.Workspace != r.ws {
			t.Fatalf("event %+v: want source claude-code/hooks, workspace %s", e, r.ws)
		}
		switch e.Type {
		case "tool.call":
			call = dataOf(t, e)
		case "tool.result":
			result = dataOf(t, e)
		}
	}
	if call == nil || call["tool"] != "bash" || call["args"].(map[string]any)["command"] != "echo hello > made.txt" || call["callId"] == "" {
		t.Fatalf("tool.call: %v", call)
	}
	ds := decisions(t, evs)
	if len(ds) != 1 || ds[0]["decision"] != "allow" || ds[0]["final"] != true || ds[0]["callId"] != call["callId"] {
		t.Fatalf("decisions: %v", ds)
	}
	if result == nil || result["callId"] != call["callId"] || result["tool"] != "bash" {
		t.Fatalf("tool.result: %v", result)
	}
	for _, typ := range []string{"session.start", "message.user", "session.status", "session.end"} {
		if countType(evs, typ) != 1 {
			t.Fatalf("want one %s:\n%v", typ, evs)
		}
	}
	// The session: claude-code, ended.
	sOut, _, _ := warden(t, r.data, "", "sessions", "--json")
	var ss []map[string]any
	if err := json.Unmarshal([]byte(sOut), &ss); err != nil || len(ss) != 1 {
		t.Fatalf("sessions: %v %s", err, sOut)
	}
	if ss[0]["source"] != "claude-code" || ss[0]["status"] != "none" || ss[0]["workspace"] != r.ws || ss[0]["toolCallCount"] != float64(1) {
		t.Fatalf("session: %v", ss[0])
	}
	d.stop()
}

func TestClaudeDangerousCommandBlocked(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(r *claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "rm -rf " + filepath.Join(r.home, "important"), "description": "clean up"})
	})
	victim := filepath.Join(r.home, "important")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := r.start()
	out, errOut, code := r.claude("clean up")
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Fatalf("the dangerous command ran: %v", err)
	}
	got := toolResultText(r.fake)
	if !strings.Contains(got, "warden") || !strings.Contains(got, "delete-outside-workspace") {
		t.Fatalf("the model did not receive warden's reason; tool results:\n%s", got)
	}
	ds := decisions(t, r.events())
	if len(ds) != 1 || ds[0]["decision"] != "deny" || ds[0]["final"] != true || ds[0]["rule"] != "delete-outside-workspace" {
		t.Fatalf("decisions: %v", ds)
	}
	d.stop()
}

func TestClaudeFileToolOutsideWorkspaceBlocked(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(r *claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Write", map[string]any{"file_path": filepath.Join(r.home, ".bashrc"), "content": "pwned\n"})
	})
	target := filepath.Join(r.home, ".bashrc")
	d := r.start()
	out, errOut, code := r.claude("write it")
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("Write outside the workspace was not blocked: %s exists", target)
	}
	got := toolResultText(r.fake)
	if !strings.Contains(got, "write-outside-workspace") {
		t.Fatalf("the model did not receive warden's reason; tool results:\n%s", got)
	}
	evs := r.events()
	ds := decisions(t, evs)
	if len(ds) != 1 || ds[0]["decision"] != "deny" || ds[0]["rule"] != "write-outside-workspace" || ds[0]["tool"] != "write" {
		t.Fatalf("decisions: %v", ds)
	}
	for _, e := range evs {
		if e.Type == "tool.call" {
			if args := dataOf(t, e)["args"].(map[string]any); args["filePath"] != target {
				t.Fatalf("tool.call args: %v", args)
			}
		}
	}
	d.stop()
}

// gitRepo makes the workspace a git repository with one commit and an
// uncommitted change.
func gitRepo(t *testing.T, dir, home string) {
	t.Helper()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(isolatedEnv(t, home), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.txt")
	run("commit", "-q", "-m", "one")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitApproval waits for the first approval asked in the log and returns
// its id; done closing first (Claude finished) fails the test.
func waitApproval(t *testing.T, data string, done <-chan struct{}) string {
	t.Helper()
	return approvalOf(t, waitEventUnless(t, data, 0, 60*time.Second, done, "an approval asked for Claude's call", approvalAsked(nil)))
}

func TestClaudeAskApprovedRuns(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "git reset --hard && echo reset > after.txt", "description": "reset"})
	})
	gitRepo(t, r.ws, r.home)
	d := r.start()
	done := make(chan struct{})
	var out, errOut string
	var code int
	go func() {
		defer close(done)
		out, errOut, code = r.claude("reset it")
	}()
	id := waitApproval(t, r.data, done)
	// While the approval waits, the session is waiting for a person.
	sOut, _, _ := warden(t, r.data, "", "sessions", "--json")
	if !strings.Contains(sOut, `"status": "waiting"`) {
		t.Fatalf("session while an approval is pending:\n%s", sOut)
	}
	if o, e, c := warden(t, r.data, "", "approve", id); c != 0 {
		t.Fatalf("approve %s: %d %s %s", id, c, o, e)
	}
	<-done
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "after.txt")); err != nil {
		t.Fatalf("the approved call did not run: %v\n%s", err, d.stderr)
	}
	ds := decisions(t, r.events())
	if len(ds) != 2 || ds[0]["decision"] != "ask" || ds[1]["decision"] != "allow" || ds[1]["final"] != true || ds[1]["approvalId"] != id {
		t.Fatalf("decisions: %v", ds)
	}
	d.stop()
}

func TestClaudeAskPastDeadlineBlocked(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "git reset --hard && echo reset > after.txt", "description": "reset"})
	})
	gitRepo(t, r.ws, r.home)
	d := r.start("--approval-timeout", "2s")
	out, errOut, code := r.claude("reset it")
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "after.txt")); err == nil {
		t.Fatal("a call nobody approved ran")
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "a.txt")); string(b) != "changed\n" {
		t.Fatalf("git reset --hard ran: a.txt is %q", b)
	}
	got := toolResultText(r.fake)
	if !strings.Contains(got, "nobody approved") {
		t.Fatalf("the model did not receive the deadline's reason:\n%s", got)
	}
	evs := r.events()
	ds := decisions(t, evs)
	if len(ds) != 2 || ds[0]["decision"] != "ask" || ds[1]["decision"] != "deny" || ds[1]["final"] != true {
		t.Fatalf("decisions: %v", ds)
	}
	for _, e := range evs {
		if e.Type == "approval.resolved" && dataOf(t, e)["outcome"] != "expired" {
			t.Fatalf("approval.resolved: %s", e.Data)
		}
	}
	d.stop()
}

func TestClaudeWardenDownFailsClosedAndSpools(t *testing.T) {
	t.Parallel()
	r := newClaudeRig(t, func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "echo hello > made.txt", "description": "make a file"})
	})
	// No daemon: the gate must block, the other events must be spooled.
	out, errOut, code := r.claude("make a file")
	if code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(r.ws, "made.txt")); err == nil {
		t.Fatal("with warden down the call ran (fail-open)")
	}
	got := toolResultText(r.fake)
	if !strings.Contains(got, "fail-closed") || !strings.Contains(got, "warden is not running") {
		t.Fatalf("the model did not receive the block's reason:\n%s", got)
	}
	spool := filepath.Join(r.data, "spool")
	files, _ := filepath.Glob(filepath.Join(spool, "*.json"))
	if len(files) < 4 {
		t.Fatalf("want the non-gating events spooled, got %v", files)
	}
	// Warden back: the spool is ingested at start, in order, once.
	d := r.start()
	evs := r.events()
	var session string
	var types []string
	ids := map[string]bool{}
	for _, e := range evs {
		if session == "" {
			session = e.Session
		}
		if e.Session != session || e.Source != "claude-code/hooks" || e.Workspace != r.ws {
			t.Fatalf("spooled event %+v", e)
		}
		id, _ := dataOf(t, e)["spoolId"].(string)
		if id == "" || ids[id] {
			t.Fatalf("spooled event without a unique spoolId: %s", e.Data)
		}
		ids[id] = true
		types = append(types, e.Type)
	}
	want := []string{"session.start", "message.user"}
	if len(types) < len(files) || strings.Join(types[:2], ",") != strings.Join(want, ",") || types[len(types)-1] != "session.end" {
		t.Fatalf("ingested %d of %d spooled files: %v", len(types), len(files), types)
	}
	if countType(evs, "tool.call") != 0 {
		t.Fatalf("a blocked call must not appear as a tool.call: %v", types)
	}
	if left, _ := filepath.Glob(filepath.Join(spool, "*.json")); len(left) != 0 {
		t.Fatalf("spool not emptied: %v", left)
	}
	// A restart ingests nothing again.
	d.stop()
	d = r.start()
	if again := r.events(); len(again) != len(evs) {
		t.Fatalf("restart duplicated spooled events: %d then %d", len(evs), len(again))
	}
	d.stop()
}
