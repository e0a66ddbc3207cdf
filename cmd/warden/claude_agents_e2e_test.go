package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
)

// These tests follow the real Claude Code binary per workspace (its hooks,
// installed with `warden install claude`, reach the daemon, whose provider
// derives the workspace's status) and drive `warden run claude` (resuming
// the directory's last conversation). The only fake is the Anthropic API.

// claudeEnv is the environment Claude Code needs to run offline against
// the fake API, with HOME isolated.
func claudeEnv(t *testing.T, dir, home string, fake *anthropic.Server) []string {
	t.Helper()
	tmp := filepath.Join(dir, "claude-tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return append(isolatedEnv(t, home),
		"ANTHROPIC_API_KEY=sk-ant-fake", "ANTHROPIC_BASE_URL="+fake.URL,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_TMPDIR="+tmp, "IS_SANDBOX=1")
}

// mkdirReal makes dir and returns its path with symlinks resolved (what
// Claude reports as its cwd).
func mkdirReal(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

// runCmd runs argv in dir with env and returns stdout, stderr and the
// exit code; err is set when it could not run or did not finish.
func runCmd(dir string, env []string, argv ...string) (string, string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return out.String(), errb.String(), -1, fmt.Errorf("%v did not finish", argv)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	return out.String(), errb.String(), 0, err
}

// runIn is runCmd failing the test when the command could not run.
func runIn(t *testing.T, dir string, env []string, argv ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, err := runCmd(dir, env, argv...)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, out, errOut)
	}
	return out, errOut, code
}

// claudeResult is the end of `claude -p --output-format json`.
type claudeResult struct {
	Type      string `json:"type"`
	IsError   bool   `json:"is_error"`
	Result    string `json:"result"`
	SessionID string `json:"session_id"`
}

func parseClaudeResult(t *testing.T, out string) claudeResult {
	t.Helper()
	var r claudeResult
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &r); err != nil || r.Type != "result" || r.IsError || r.SessionID == "" {
		t.Fatalf("claude's result: %v\n%s", err, out)
	}
	return r
}

// statusMoves returns the agent.status events recorded for ws.
func statusMoves(t *testing.T, data, ws string) []map[string]any {
	t.Helper()
	out, errOut, code := warden(t, data, "", "events", "--json")
	if code != 0 {
		t.Fatalf("events: %d %s", code, errOut)
	}
	var moves []map[string]any
	for _, e := range parseEvents(t, out) {
		if e.Type == "agent.status" && e.Workspace == ws {
			moves = append(moves, dataOf(t, e))
		}
	}
	return moves
}

// TestClaudeAgentStatusFromHooks: Claude Code in a registered workspace,
// followed through the hooks `warden install claude --user` installs. While
// it works the workspace is busy under Claude's session; when the -p run
// ends (Stop, then SessionEnd) it went idle and then none (no session); a
// run in an unregistered directory adds no row.
func TestClaudeAgentStatusFromHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, home := filepath.Join(dir, "data"), filepath.Join(dir, "home")
	ws := mkdirReal(t, filepath.Join(dir, "ws"))
	other := mkdirReal(t, filepath.Join(dir, "other"))

	// The model calls Bash once; its answer to the tool result waits until
	// the test has looked at the workspace mid-turn.
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	tool := anthropic.ToolOnce("Bash", map[string]any{"command": "echo hi > hi.txt", "description": "say hi"})
	fake := anthropic.New(func(r anthropic.Request) anthropic.Reply {
		if r.HasTool("Bash") && r.HasToolResult() {
			once.Do(func() { close(reached) })
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
		}
		return tool(r)
	})
	t.Cleanup(fake.Close)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	// The daemon registers the directory it starts in: one of its own,
	// holding neither ws nor other.
	serveDir := mkdirReal(t, filepath.Join(dir, "serve"))
	d := startDaemonIn(t, data, serveDir, nil)
	if out, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %s %s", code, out, errOut)
	}
	// The user-wide hooks: Claude reports from every directory. With
	// --auto-approve a call warden allows needs no permission prompt.
	if out, errOut, code := warden(t, data, "", "install", "claude", "--user", "--auto-approve"); code != 0 {
		t.Fatalf("install claude --user: %d %s %s", code, out, errOut)
	}
	if row, ok := agentsJSON(t, data)[ws]; !ok || row.Status != "none" || row.Agent != "" || row.Session != "" {
		t.Fatalf("before Claude: %+v (present %v)", row, ok)
	}

	env := claudeEnv(t, dir, home, fake)
	claude := claudeBinary(t)
	type result struct {
		out, errOut string
		code        int
		err         error
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code, err := runCmd(ws, env, claude, "-p", "say hi", "--output-format", "json")
		done <- result{out, errOut, code, err}
	}()
	select {
	case <-reached:
	case r := <-done:
		t.Fatalf("claude ended before the tool result reached the model: %d\n%s\n%s\nwarden:\n%s", r.code, r.out, r.errOut, d.stderr)
	case <-time.After(60 * time.Second):
		t.Fatalf("the tool result never reached the model\nwarden:\n%s", d.stderr)
	}
	// Mid-turn: busy, under Claude's session.
	waitEvent(t, data, 0, 10*time.Second, "the workspace busy with a session", func(e event.Event) bool {
		d, err := event.DataOf[event.AgentStatusData](e)
		return statusTo(ws, "busy")(e) && err == nil && d.SessionID != ""
	})
	mid := agentsJSON(t, data)[ws]
	if mid.Status != "busy" || mid.Session == "" || mid.Agent != "claude-code" || mid.Running || mid.Port != 0 {
		t.Fatalf("mid-turn row: %+v", mid)
	}
	close(release)
	r := <-done
	if r.err != nil || r.code != 0 {
		t.Fatalf("claude: %d %v\n%s\n%s", r.code, r.err, r.out, r.errOut)
	}
	res := parseClaudeResult(t, r.out)
	if mid.Session != res.SessionID {
		t.Fatalf("the workspace's session %q is not Claude's %q", mid.Session, res.SessionID)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hi.txt")); err != nil || strings.TrimSpace(string(b)) != "hi" {
		t.Fatalf("the Bash call did not run: %q %v", b, err)
	}

	// The -p run ended: Stop made it idle, SessionEnd ended the session, so
	// the workspace has Claude as its agent and no session (none).
	// Claude ran its SessionEnd hook on the way out; the move to none is
	// the last.
	waitEvent(t, data, 0, 10*time.Second, "the workspace's move to none", statusTo(ws, "none"))
	moves := statusMoves(t, data, ws)
	var to []string
	for _, m := range moves {
		to = append(to, m["to"].(string))
	}
	if got := strings.Join(to, " "); got != "idle busy idle none" {
		t.Fatalf("status moves %q, want idle busy idle none", got)
	}
	for i, m := range moves {
		if m["agent"] != "claude-code" {
			t.Fatalf("move %d: %v", i, m)
		}
		if want := map[bool]any{true: res.SessionID, false: nil}[i < 3]; m["sessionId"] != want {
			t.Fatalf("move %d to %v: sessionId %v, want %v", i, m["to"], m["sessionId"], want)
		}
	}
	end := agentsJSON(t, data)[ws]
	if end.Agent != "claude-code" || end.Status != "none" || end.Session != "" || end.Running {
		t.Fatalf("after the run: %+v", end)
	}
	// Every hook event of the workspace carries Claude's session.
	out, _, _ := warden(t, data, "", "events", "--json")
	var hookTypes []string
	for _, e := range parseEvents(t, out) {
		if e.Source == "claude-code/hooks" && e.Workspace == ws {
			if e.Session != res.SessionID {
				t.Fatalf("hook event of another session: %+v", e)
			}
			hookTypes = append(hookTypes, e.Type)
		}
	}
	if got := strings.Join(hookTypes, " "); !strings.HasPrefix(got, "session.start message.user tool.call") || !strings.HasSuffix(got, "session.status session.end") {
		t.Fatalf("hook events of the workspace: %s", got)
	}

	// Claude in a directory that is no workspace: its hooks are recorded,
	// but it gets no row and no status.
	o2, e2, c2 := runIn(t, other, env, claude, "-p", "say hi", "--output-format", "json")
	if c2 != 0 {
		t.Fatalf("claude in %s: %d\n%s\n%s", other, c2, o2, e2)
	}
	parseClaudeResult(t, o2)
	out, _, _ = warden(t, data, "", "events", "--json")
	seen := false
	for _, e := range parseEvents(t, out) {
		if e.Workspace == other {
			seen = seen || e.Source == "claude-code/hooks"
			if e.Type == "agent.status" {
				t.Fatalf("a status for an unregistered directory: %+v", e)
			}
		}
	}
	if !seen {
		t.Fatalf("no hook event from %s reached warden", other)
	}
	rows := agentsJSON(t, data)
	if _, ok := rows[other]; ok || len(rows) != 2 || rows[serveDir].Agent != "" || rows[serveDir].Status != "none" {
		t.Fatalf("rows after a run outside every workspace: %+v", rows)
	}
	if rows[ws] != end {
		t.Fatalf("the workspace's row moved: %+v, was %+v", rows[ws], end)
	}
	d.stop()
}

// claudeShim is a WARDEN_CLAUDE_BIN that logs its arguments (one line per
// run) and execs the real Claude Code.
func claudeShim(t *testing.T, dir string) (bin, log string) {
	t.Helper()
	bin, log = filepath.Join(dir, "claude-shim"), filepath.Join(dir, "claude-argv.log")
	script := "#!/bin/sh\nprintf 'ARGS:%s\\n' \"$*\" >> '" + log + "'\nexec '" + claudeBinary(t) + "' \"$@\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func argvLines(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "ARGS:"))
	}
	return lines
}

// echoScript answers every prompt with text naming it.
func echoScript(r anthropic.Request) anthropic.Reply {
	if m, ok := r.LastUser(); ok {
		for _, b := range m.Blocks() {
			if b.Type == "text" && strings.HasPrefix(b.Text, "PROMPT-") {
				return anthropic.Reply{Text: "REPLY-TO-" + b.Text}
			}
		}
	}
	return anthropic.Reply{Text: "Done."}
}

// conversationOf returns the text of every message of the (last) request
// whose last user message is prompt; ok is false when none came.
func conversationOf(fake *anthropic.Server, prompt string) (string, bool) {
	var conv string
	found := false
	for _, r := range fake.Requests() {
		m, ok := r.LastUser()
		if !ok || !strings.Contains(string(m.Content), prompt) {
			continue
		}
		var b strings.Builder
		for _, msg := range r.Messages {
			b.WriteString(msg.Role + ": " + string(msg.Content) + "\n")
		}
		conv, found = b.String(), true
	}
	return conv, found
}

// TestWardenRunClaudeContinues: `warden run claude` continues the
// directory's last conversation (Claude receives the earlier messages), a
// --resume of the user's own gets no --continue, and in a directory with
// no conversation print mode simply starts one.
func TestWardenRunClaudeContinues(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	ws := mkdirReal(t, filepath.Join(dir, "ws"))
	fake := anthropic.New(echoScript)
	t.Cleanup(fake.Close)
	shim, argvLog := claudeShim(t, dir)
	env := append(claudeEnv(t, dir, home, fake), "WARDEN_CLAUDE_BIN="+shim)
	run := func(in string, args ...string) claudeResult {
		t.Helper()
		argv := append([]string{binary, "run", "claude"}, args...)
		argv = append(argv, "--output-format", "json")
		out, errOut, code := runIn(t, in, env, argv...)
		if code != 0 {
			t.Fatalf("warden %v: %d\n%s\n%s", args, code, out, errOut)
		}
		if strings.Contains(errOut, "starting a new one") {
			t.Fatalf("warden %v retried in print mode:\n%s", args, errOut)
		}
		return parseClaudeResult(t, out)
	}

	first := run(ws, "-p", "PROMPT-first")
	if first.Result != "REPLY-TO-PROMPT-first" {
		t.Fatalf("first: %+v", first)
	}
	second := run(ws, "-p", "PROMPT-second")
	if second.Result != "REPLY-TO-PROMPT-second" {
		t.Fatalf("second: %+v", second)
	}
	conv, ok := conversationOf(fake, "PROMPT-second")
	if !ok || !strings.Contains(conv, "PROMPT-first") || !strings.Contains(conv, "REPLY-TO-PROMPT-first") {
		t.Fatalf("the second run did not continue the first conversation; Claude sent:\n%s", conv)
	}
	third := run(ws, "--resume", first.SessionID, "-p", "PROMPT-third")
	if third.Result != "REPLY-TO-PROMPT-third" {
		t.Fatalf("third: %+v", third)
	}
	if conv, ok := conversationOf(fake, "PROMPT-third"); !ok || !strings.Contains(conv, "PROMPT-first") {
		t.Fatalf("--resume %s did not resume the first conversation; Claude sent:\n%s", first.SessionID, conv)
	}

	// A directory without any conversation: `claude --continue -p` starts
	// a new one by itself (exit 0), so warden runs Claude once.
	fresh := mkdirReal(t, filepath.Join(dir, "fresh"))
	x := run(fresh, "-p", "PROMPT-fresh")
	if x.Result != "REPLY-TO-PROMPT-fresh" || x.SessionID == first.SessionID || x.SessionID == second.SessionID {
		t.Fatalf("fresh: %+v", x)
	}
	if conv, ok := conversationOf(fake, "PROMPT-fresh"); !ok || strings.Contains(conv, "PROMPT-first") {
		t.Fatalf("the fresh directory's conversation: %s", conv)
	}

	want := []string{
		"--continue -p PROMPT-first --output-format json",
		"--continue -p PROMPT-second --output-format json",
		"--resume " + first.SessionID + " -p PROMPT-third --output-format json",
		"--continue -p PROMPT-fresh --output-format json",
	}
	if got := argvLines(t, argvLog); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Claude ran with:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// trustedClaudeHome writes what an interactive Claude Code would otherwise
// ask first: onboarding done, the API key approved, dir trusted.
func trustedClaudeHome(t *testing.T, home string, dirs ...string) {
	t.Helper()
	projects := map[string]any{}
	for _, d := range dirs {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true}
	}
	b, _ := json.Marshal(map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{"sk-ant-fake"}, "rejected": []string{}},
		"projects":               projects,
	})
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// ptyRun is a command running in a pseudo-terminal.
type ptyRun struct {
	cmd    *exec.Cmd
	tty    *os.File
	out    logBuffer
	done   chan struct{} // the terminal closed
	exited chan struct{} // the command ended, with waitErr
	// waitErr is cmd.Wait's error, set before exited closes.
	waitErr error
}

func startPTY(t *testing.T, dir string, env []string, argv ...string) *ptyRun {
	t.Helper()
	p := &ptyRun{cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{}), exited: make(chan struct{})}
	p.cmd.Dir, p.cmd.Env = dir, append(env, "TERM=xterm-256color")
	tty, err := pty.StartWithSize(p.cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	p.tty = tty
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			p.out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
		tty.Close()
	})
	return p
}

// waitOutput waits until the terminal shows every part (in order), woken
// by each write to the screen.
func (p *ptyRun) waitOutput(t *testing.T, limit time.Duration, parts ...string) {
	t.Helper()
	if p.out.waitUntil(p.done, limit, func(out string) bool { return showsInOrder(out, parts) }) {
		return
	}
	select {
	case <-p.done:
		t.Fatalf("the terminal closed before showing %q:\n%q", parts, p.out.String())
	default:
		t.Fatalf("the terminal did not show %q within %v:\n%q", parts, limit, p.out.String())
	}
}

// showsInOrder says whether out holds every part, in order.
func showsInOrder(out string, parts []string) bool {
	for _, part := range parts {
		i := strings.Index(out, part)
		if i < 0 {
			return false
		}
		out = out[i+len(part):]
	}
	return true
}

// typeLine types text into Claude's input box and, once the box shows
// it, Enter.
func (p *ptyRun) typeLine(t *testing.T, text string) {
	t.Helper()
	if _, err := p.tty.WriteString(text); err != nil {
		t.Fatal(err)
	}
	p.waitOutput(t, 10*time.Second, text)
	if _, err := p.tty.WriteString("\r"); err != nil {
		t.Fatal(err)
	}
}

// prompt types text and Enter into Claude's input box and waits for the
// model's reply on the screen.
func (p *ptyRun) prompt(t *testing.T, text string) {
	t.Helper()
	p.typeLine(t, text)
	p.waitOutput(t, 20*time.Second, "REPLY-TO-"+text)
}

// quit ends Claude with its /exit command (typed, then Enter once the
// input box shows it) and returns warden's exit code. (Ctrl-C twice
// depends on Claude's double-press window, which a loaded machine can miss.)
func (p *ptyRun) quit(t *testing.T) int {
	t.Helper()
	p.typeLine(t, "/exit")
	select {
	case <-p.exited:
		if ee, ok := p.waitErr.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if p.waitErr != nil {
			t.Fatal(p.waitErr)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("Claude did not end on /exit:\n%q", p.out.String())
	}
	return -1
}

// TestWardenRunClaudeInteractive: in a terminal, `claude --continue` in a
// directory without a conversation draws "No conversation found to
// continue" on its screen (stdout, not stderr) and exits 1; `warden run
// claude` then starts a new conversation. Run again, it continues that one.
func TestWardenRunClaudeInteractive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	ws := mkdirReal(t, filepath.Join(dir, "ws"))
	trustedClaudeHome(t, home, ws)
	fake := anthropic.New(echoScript)
	t.Cleanup(fake.Close)
	shim, argvLog := claudeShim(t, dir)
	env := append(claudeEnv(t, dir, home, fake), "WARDEN_CLAUDE_BIN="+shim)

	p := startPTY(t, ws, env, binary, "run", "claude")
	p.waitOutput(t, 20*time.Second, noConversationText, "warden: no conversation to continue here; starting a new one", "Welcome", "shortcuts")
	p.prompt(t, "PROMPT-one")
	if code := p.quit(t); code != 0 {
		t.Fatalf("warden run claude exited %d:\n%q", code, p.out.String())
	}
	if got := argvLines(t, argvLog); strings.Join(got, "|") != "--continue|" {
		t.Fatalf("Claude ran with %q, want --continue, then no arguments", got)
	}
	if conv, ok := conversationOf(fake, "PROMPT-one"); !ok {
		t.Fatal("the new conversation's prompt did not reach the model")
	} else if strings.Count(conv, "user: ") != 1 {
		t.Fatalf("the first conversation is not new:\n%s", conv)
	}

	// Now there is a conversation: warden continues it, without a retry.
	p = startPTY(t, ws, env, binary, "run", "claude")
	p.waitOutput(t, 20*time.Second, "PROMPT-one", "shortcuts")
	p.prompt(t, "PROMPT-two")
	if code := p.quit(t); code != 0 {
		t.Fatalf("warden run claude (again) exited %d:\n%q", code, p.out.String())
	}
	if out := p.out.String(); strings.Contains(out, noConversationText) || strings.Contains(out, "starting a new one") {
		t.Fatalf("the second run did not continue:\n%q", out)
	}
	if got := argvLines(t, argvLog); strings.Join(got, "|") != "--continue||--continue" {
		t.Fatalf("Claude ran with %q", got)
	}
	if conv, ok := conversationOf(fake, "PROMPT-two"); !ok || !strings.Contains(conv, "PROMPT-one") || !strings.Contains(conv, "REPLY-TO-PROMPT-one") {
		t.Fatalf("the second run did not send the first conversation:\n%s", conv)
	}
}

// noConversationText is what Claude Code says when --continue finds
// nothing.
const noConversationText = "No conversation found to continue"

// TestClaudePermissionPromptIsWaiting: Claude Code in a terminal, its own
// permission rules in force (warden's hooks without --auto-approve): a Bash
// call warden allows still shows Claude's permission dialog, and while the
// person has not answered it the workspace is waiting (not busy); answered,
// the command runs and the workspace goes back to work, then idle.
func TestClaudePermissionPromptIsWaiting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, home := filepath.Join(dir, "data"), filepath.Join(dir, "home")
	ws := mkdirReal(t, filepath.Join(dir, "ws"))
	trustedClaudeHome(t, home, ws)
	fake := anthropic.New(anthropic.ToolOnce("Bash", map[string]any{"command": "echo hi > hi.txt", "description": "say hi"}))
	t.Cleanup(fake.Close)
	d := startDaemonIn(t, data, mkdirReal(t, filepath.Join(dir, "serve")), nil)
	defer func() {
		if t.Failed() {
			t.Logf("warden:\n%s", d.stderr)
		}
	}()
	if out, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %s %s", code, out, errOut)
	}
	if out, errOut, code := warden(t, data, "", "install", "claude", "--user"); code != 0 {
		t.Fatalf("install claude --user: %d %s %s", code, out, errOut)
	}
	p := startPTY(t, ws, claudeEnv(t, dir, home, fake), claudeBinary(t))
	p.waitOutput(t, 30*time.Second, "shortcuts")
	log := followLog(t, data)
	p.typeLine(t, "PROMPT-perm")
	p.waitOutput(t, 60*time.Second, "approval", "proceed?") // "Do you want to proceed?", drawn word by word
	log.next(20*time.Second, "the workspace waiting on Claude's permission dialog", statusTo(ws, "waiting"))
	if row := agentsJSON(t, data)[ws]; row.Status != "waiting" || row.Agent != "claude-code" || row.Session == "" {
		t.Fatalf("waiting row: %+v", row)
	}
	if _, err := os.Stat(filepath.Join(ws, "hi.txt")); err == nil {
		t.Fatal("the command ran before the person answered Claude's dialog")
	}
	if n := len(pendingApprovals(t, data)); n != 0 {
		t.Fatalf("%d warden approvals: the wait is Claude's own dialog", n)
	}
	// Yes (the dialog's first choice): the command runs, the turn ends.
	if _, err := p.tty.WriteString("\r"); err != nil {
		t.Fatal(err)
	}
	// Claude runs the command itself: its turn's end (the Stop hook: idle),
	// after the command's PostToolUse, is the nearest event warden records.
	log.next(60*time.Second, "the workspace idle after the command", statusTo(ws, "idle"))
	if _, err := os.Stat(filepath.Join(ws, "hi.txt")); err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	if got := agentsJSON(t, data)[ws].Status; got != "idle" {
		t.Fatalf("the workspace after the turn: %s", got)
	}
	moves := strings.Join(statusChanges(t, data, ws), " ")
	if !strings.Contains(moves, "busy waiting busy") || !strings.HasSuffix(moves, "idle") {
		t.Fatalf("status moves %q, want busy, waiting on the dialog, busy again, then idle", moves)
	}
	if code := p.quit(t); code != 0 && code != 130 {
		t.Logf("claude exited %d", code)
	}
}
