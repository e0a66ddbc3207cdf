package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
	"github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/testtools"
)

// agentRow is one row of `warden agents --json`.
type agentRow struct {
	Workspace string `json:"workspace"`
	Agent     string `json:"agent"`
	Status    string `json:"status"`
	Session   string `json:"sessionId"`
	Running   bool   `json:"running"`
	Port      int    `json:"port"`
	PID       int    `json:"pid"`
}

func agentsJSON(t *testing.T, data string) map[string]agentRow {
	t.Helper()
	out, errOut, code := warden(t, data, "", "agents", "--json")
	if code != 0 {
		t.Fatalf("warden agents --json: %d %s", code, errOut)
	}
	var rows []agentRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("agents --json: %v\n%s", err, out)
	}
	m := map[string]agentRow{}
	for _, r := range rows {
		m[r.Workspace] = r
	}
	return m
}

func gitWorkspace(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-qm", "init"}} {
		if args[0] == "add" {
			os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644)
			os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=1\n"), 0o600)
		}
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// lastUser is the text of the conversation's last user message.
func lastUser(r openai.Request) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// toolNamed finds the name of an offered tool containing part.
func toolNamed(r openai.Request, part string) string {
	for _, raw := range r.Tools {
		var tool struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(raw, &tool) == nil && strings.Contains(tool.Function.Name, part) {
			return tool.Function.Name
		}
	}
	return ""
}

// agentScript answers by keyword in the prompt: RUN-BASH makes a bash call
// (which OpenCode's own permission config asks about), MCP-STATUS and
// MCP-DENIED call warden's MCP tools, anything else is plain text.
func agentScript(r openai.Request) openai.Reply {
	if len(r.Tools) == 0 {
		return openai.Reply{Text: "A title"}
	}
	if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "tool" {
		return openai.Reply{Text: "Done."}
	}
	prompt := lastUser(r)
	switch {
	case strings.Contains(prompt, "RUN-BASH"):
		return openai.Reply{Tool: "bash", Args: map[string]any{"command": "echo approved > ran.txt", "description": "write a file"}}
	case strings.Contains(prompt, "SUBAGENT-WORK"):
		return openai.Reply{Text: "The sub-agent's answer."}
	case strings.Contains(prompt, "RUN-TASK"):
		return openai.Reply{Tool: "task", Args: map[string]any{"description": "look around", "prompt": "SUBAGENT-WORK: list the files", "subagent_type": "general"}}
	case strings.Contains(prompt, "MCP-STATUS"):
		if name := toolNamed(r, "getStatus"); name != "" {
			return openai.Reply{Tool: name, Args: map[string]any{}}
		}
		return openai.Reply{Text: "NO-WARDEN-TOOLS"}
	case strings.Contains(prompt, "MCP-DENIED"):
		if name := toolNamed(r, "readFile"); name != "" {
			return openai.Reply{Tool: name, Args: map[string]any{"path": ".env"}}
		}
		return openai.Reply{Text: "NO-WARDEN-TOOLS"}
	}
	return openai.Reply{Text: "Hello."}
}

// openCodeServeEnv is the environment `opencode serve` needs offline, with
// the fake model and OpenCode's own permission system asking about bash.
func openCodeServeEnv(t *testing.T, home string, model *openai.Server) []string {
	conf := map[string]any{
		"autoupdate": false, "share": "disabled", "enabled_providers": []string{"fake"},
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		"permission": map[string]any{"bash": "ask", "edit": "allow", "webfetch": "allow"},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": model.URL + "/v1", "apiKey": "dummy"},
			"models":  map[string]any{"fake-model": map[string]any{"name": "Fake Model", "tool_call": true, "limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
	}
	confJSON, _ := json.Marshal(conf)
	return []string{
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_registry=http://127.0.0.1:9/",
		"OPENCODE_CONFIG_CONTENT=" + string(confJSON),
		"WARDEN_OPENCODE_BIN=" + openCodeBinary(t),
	}
}

// prompt sends text to a new or given OpenCode session through its own API
// and returns the session id.
func prompt(t *testing.T, port int, session, text string) string {
	t.Helper()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if session == "" {
		resp, err := client.Post(base+"/session", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			ID string `json:"id"`
		}
		json.NewDecoder(resp.Body).Decode(&s)
		resp.Body.Close()
		if s.ID == "" {
			t.Fatalf("POST /session: %s", resp.Status)
		}
		session = s.ID
	}
	body, _ := json.Marshal(map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}})
	resp, err := client.Post(base+"/session/"+session+"/prompt_async", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("prompt_async: %s", resp.Status)
	}
	return session
}

// statusChanges returns the agent.status moves recorded for ws.
func statusChanges(t *testing.T, data, ws string) []string {
	t.Helper()
	out, _, _ := warden(t, data, "", "events", "--json")
	var moves []string
	for _, e := range parseEvents(t, out) {
		if e.Type != "agent.status" || e.Workspace != ws {
			continue
		}
		var d struct{ To string }
		json.Unmarshal(e.Data, &d)
		moves = append(moves, d.To)
	}
	return moves
}

func pendingApprovals(t *testing.T, data string) []map[string]any {
	t.Helper()
	out, _, _ := warden(t, data, "", "approvals", "--json")
	var list []map[string]any
	json.Unmarshal([]byte(out), &list)
	return list
}

func TestAgentsSuperviseOpenCode(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	data := filepath.Join(dir, "data")
	wsA := gitWorkspace(t, filepath.Join(dir, "alpha"))
	wsB := gitWorkspace(t, filepath.Join(dir, "beta"))
	model := openai.New(agentScript)
	t.Cleanup(model.Close)
	env := openCodeServeEnv(t, home, model)
	openCodeEnv(t, home)
	d := startDaemonIn(t, data, dir, env)

	for _, ws := range []string{wsA, wsB} {
		if out, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 || !strings.Contains(out, "added workspace") {
			t.Fatalf("workspace add: %d %s %s", code, out, errOut)
		}
	}
	// Both servers start in parallel, each on its own port.
	var wg sync.WaitGroup
	for _, ws := range []string{wsA, wsB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, errOut, code := warden(t, data, "", "agents", "start", "opencode", "--workspace", ws); code != 0 {
				t.Errorf("agents start %s: %d %s %s\n%s", ws, code, out, errOut, d.stderr)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	rows := agentsJSON(t, data)
	a, b := rows[wsA], rows[wsB]
	if !a.Running || !b.Running || a.Agent != "opencode" || a.Port == 0 || a.Port == b.Port || a.PID == 0 {
		t.Fatalf("after start: %+v %+v", a, b)
	}
	// status counts them: alpha and beta (the daemon's own directory holds
	// its data dir and home, too broad to be registered).
	if out, _, _ := warden(t, data, "", "status", "--json"); !strings.Contains(out, `"workspaces": 2`) || !strings.Contains(out, `"agentsRunning": 2`) {
		t.Fatalf("status: %s", out)
	}
	// The server knows where warden is, but never holds warden's token.
	environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", a.PID))
	if err != nil {
		t.Fatal(err)
	}
	token, _ := os.ReadFile(filepath.Join(data, "token"))
	if !bytes.Contains(environ, []byte("WARDEN_WORKSPACE_PATH="+wsA+"\x00")) || !bytes.Contains(environ, []byte("WARDEN_MCP_PORT=")) ||
		bytes.Contains(environ, bytes.TrimSpace(token)) || bytes.Contains(environ, []byte("WARDEN_TOKEN")) {
		t.Fatalf("OpenCode's environment: %q", bytes.ReplaceAll(environ, []byte{0}, []byte{' '}))
	}
	if out, _, _ := warden(t, data, "", "agents", "--json"); strings.Contains(out, string(bytes.TrimSpace(token))) {
		t.Fatal("warden agents --json shows the token")
	}
	// Each server's generated config carries its workspace's scoped agent
	// credential, never the admin token, and no environment holds either.
	if bytes.Contains(environ, []byte("wardenagent_")) || bytes.Contains(environ, []byte("WARDEN_MCP_TOKEN")) {
		t.Fatalf("OpenCode's environment holds its credential: %q", bytes.ReplaceAll(environ, []byte{0}, []byte{' '}))
	}
	cfgs, err := filepath.Glob(filepath.Join(data, "agents", "config", "opencode-*.json"))
	if err != nil || len(cfgs) != 2 {
		t.Fatalf("generated OpenCode configs: %v %v", cfgs, err)
	}
	for _, cfg := range cfgs {
		b, err := os.ReadFile(cfg)
		if err != nil || bytes.Contains(b, bytes.TrimSpace(token)) || !bytes.Contains(b, []byte(`"Bearer wardenagent_`)) {
			t.Fatalf("generated config %s (%v):\n%s", cfg, err, b)
		}
	}
	credsOut, _, _ := warden(t, data, "", "credentials", "--json")
	var creds []struct{ ID, Workspace, Agent string }
	if err := json.Unmarshal([]byte(credsOut), &creds); err != nil || len(creds) != 2 {
		t.Fatalf("credentials --json: %v\n%s", err, credsOut)
	}
	for _, c := range creds {
		if c.Agent != "opencode" || (c.Workspace != wsA && c.Workspace != wsB) {
			t.Fatalf("credential %+v", c)
		}
	}
	// The human table shows them too.
	if out, _, _ := warden(t, data, "", "agents"); !strings.Contains(out, "alpha") || !strings.Contains(out, "beta") || !strings.Contains(out, "opencode") {
		t.Fatalf("agents table:\n%s", out)
	}

	// A prompt moves alpha busy, then idle; beta stays as it was. (Each
	// wait below is on the log: the supervisor records every status move
	// of a workspace as agent.status.)
	log := followLog(t, data)
	session := prompt(t, a.Port, "", "say hello")
	log.next(60*time.Second, "alpha busy", statusTo(wsA, "busy"))
	log.next(60*time.Second, "alpha idle after the prompt", statusTo(wsA, "idle"))
	if moves := strings.Join(statusChanges(t, data, wsA), " "); !strings.Contains(moves, "busy") || !strings.HasSuffix(moves, "idle") {
		t.Fatalf("alpha's status moves: %s", moves)
	}
	if got := agentsJSON(t, data)[wsA]; got.Status != "idle" || got.Session != session {
		t.Fatalf("alpha %+v, want idle in session %q", got, session)
	}
	if moves := statusChanges(t, data, wsB); strings.Contains(strings.Join(moves, " "), "busy") {
		t.Fatalf("beta moved: %v", moves)
	}

	// OpenCode's own "ask" becomes a warden approval; approving it in
	// warden lets the command run.
	beforeAsk := log.at
	prompt(t, a.Port, session, "RUN-BASH please")
	log.next(60*time.Second, "alpha waiting", statusTo(wsA, "waiting"))
	bridged := func(e event.Event) bool { return e.Source == "opencode/server" && e.Workspace == wsA }
	approvalID := approvalOf(t, waitEvent(t, data, beforeAsk, 10*time.Second, "a warden approval for the permission", approvalAsked(bridged)))
	pending := false
	for _, ap := range pendingApprovals(t, data) {
		pending = pending || (ap["id"] == approvalID && ap["source"] == "opencode/server" && ap["workspace"] == wsA)
	}
	if !pending || agentsJSON(t, data)[wsA].Status != "waiting" {
		t.Fatalf("approval %s pending: %v; alpha: %+v", approvalID, pending, agentsJSON(t, data)[wsA])
	}
	if _, err := os.Stat(filepath.Join(wsA, "ran.txt")); err == nil {
		t.Fatal("the command ran before anyone approved it")
	}
	if out, errOut, code := warden(t, data, "", "approve", approvalID); code != 0 {
		t.Fatalf("approve: %d %s %s", code, out, errOut)
	}
	// OpenCode runs the command itself, and warden records nothing of the
	// file it writes: the turn's end (idle, after the tool's result went
	// back to the model) is the nearest event.
	log.next(60*time.Second, "alpha idle after the command", statusTo(wsA, "idle"))
	if b, err := os.ReadFile(filepath.Join(wsA, "ran.txt")); err != nil || strings.TrimSpace(string(b)) != "approved" {
		t.Fatalf("the approved command did not run: %q %v", b, err)
	}
	if got := agentsJSON(t, data)[wsA].Status; got != "idle" {
		t.Fatalf("alpha after the command: %s", got)
	}
	// The user installed warden's plugin (`warden install opencode
	// --global`): the supervised server loads it and, told where the
	// monitor door is (WARDEN_MONITOR_URL), has the call judged by the
	// policy before OpenCode asks.
	gated := false
	out, _, _ := warden(t, data, "", "events", "--json")
	for _, e := range parseEvents(t, out) {
		if e.Type == "tool.call" && e.Source == "opencode/monitor" && strings.Contains(string(e.Data), "echo approved") {
			gated = true
		}
	}
	if !gated {
		t.Fatalf("the bash call never reached the monitor door:\n%s", out)
	}

	// OpenCode reaches warden's MCP door (the config warden generated) and
	// calls its tools; a denied call returns the policy's reason.
	prompt(t, a.Port, session, "MCP-STATUS")
	defer func() {
		if t.Failed() {
			for _, r := range model.Requests() {
				var names []string
				for _, raw := range r.Tools {
					var tool struct {
						Function struct{ Name string } `json:"function"`
					}
					json.Unmarshal(raw, &tool)
					names = append(names, tool.Function.Name)
				}
				t.Logf("request: last user %q tools %v results %q", clip(lastUser(r), 40), names, r.ToolResults())
			}
			t.Logf("daemon:\n%s", d.stderr)
		}
	}()
	// The model's last request of a turn carries the tool's result, and
	// the turn ends (idle) after the model answers it.
	log.next(60*time.Second, "alpha busy with MCP-STATUS", statusTo(wsA, "busy"))
	log.next(60*time.Second, "alpha idle after MCP-STATUS", statusTo(wsA, "idle"))
	if !toolResultsMention(model, wsA) {
		t.Fatal("the MCP status tool's result does not name the workspace")
	}
	prompt(t, a.Port, session, "MCP-DENIED")
	log.next(60*time.Second, "alpha busy with MCP-DENIED", statusTo(wsA, "busy"))
	log.next(60*time.Second, "alpha idle after MCP-DENIED", statusTo(wsA, "idle"))
	if !toolResultsMention(model, "denied by warden") {
		t.Fatal("the denied MCP call's result does not say warden denied it")
	}
	for _, r := range model.Requests() {
		if strings.Contains(lastUser(r), "MCP-") && toolNamed(r, "getStatus") == "" {
			t.Fatalf("OpenCode did not offer warden's MCP tools to the model")
		}
	}

	// A sub-agent runs in a child session: the workspace is busy while it
	// works, idle after, and its session stays the root one.
	prompt(t, a.Port, session, "RUN-TASK")
	log.next(60*time.Second, "alpha busy with RUN-TASK", statusTo(wsA, "busy"))
	log.next(60*time.Second, "alpha idle after the sub-agent", statusTo(wsA, "idle"))
	subTurn, answered := false, false
	for _, r := range model.Requests() {
		subTurn = subTurn || strings.Contains(lastUser(r), "SUBAGENT-WORK")
		if n := len(r.Messages); n > 0 && r.Messages[n-1].Role == "tool" && strings.Contains(r.Messages[n-1].Text(), "sub-agent's answer") {
			answered = true
		}
	}
	if !subTurn || !answered {
		t.Fatalf("the sub-agent's turn reached the model: %v; its answer came back to the root: %v", subTurn, answered)
	}
	if got := agentsJSON(t, data)[wsA]; got.Status != "idle" || got.Session != session {
		t.Fatalf("after the sub-agent: %+v, want idle in the root session %q", got, session)
	}

	// Killing OpenCode is noticed; it comes back on the same port and its
	// status recovers. A permission pending at the crash is marked lost.
	prompt(t, a.Port, session, "RUN-BASH again")
	log.next(60*time.Second, "alpha waiting again", statusTo(wsA, "waiting"))
	beforeKill := log.at
	if err := syscall.Kill(a.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	log.next(90*time.Second, "OpenCode's crash noticed", serverAction(wsA, "crashed"))
	log.next(90*time.Second, "OpenCode started again", serverAction(wsA, "started"))
	log.next(90*time.Second, "alpha idle on the new server", statusTo(wsA, "idle"))
	if r := agentsJSON(t, data)[wsA]; !r.Running || r.PID == 0 || r.PID == a.PID || r.Port != a.Port || r.Status != "idle" {
		t.Fatalf("OpenCode back: %+v, want running idle on port %d with a new pid (was %d)", r, a.Port, a.PID)
	}
	waitEvent(t, data, beforeKill, 30*time.Second, "the pending approval closed as lost", func(e event.Event) bool {
		return e.Type == event.ApprovalResolved && strings.Contains(string(e.Data), `"outcome":"lost"`)
	})
	if n := len(pendingApprovals(t, data)); n != 0 {
		t.Fatalf("%d approvals still pending after the lost one", n)
	}
	out, _, _ = warden(t, data, "", "events", "--json")
	var actions []string
	for _, e := range parseEvents(t, out) {
		if e.Type == "agent.server" && e.Workspace == wsA {
			var d struct{ Action string }
			json.Unmarshal(e.Data, &d)
			actions = append(actions, d.Action)
		}
	}
	if got := strings.Join(actions, " "); !strings.Contains(got, "started crashed started") {
		t.Fatalf("agent.server actions for alpha: %s", got)
	}

	// `warden run opencode` in the workspace attaches to its server.
	run := exec.Command(binary, "run", "opencode", "--help", "--data-dir", data)
	run.Dir = wsA
	run.Env = append(isolatedEnv(t, home), env...)
	runOut, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(runOut), "attach to a running opencode server") {
		t.Fatalf("warden run opencode: %v\n%s", err, runOut)
	}

	// Stop beta, restart alpha on its port, then a daemon restart starts
	// alpha again (it was started with `agents start`) and never beta.
	if _, errOut, code := warden(t, data, "", "agents", "stop", "--workspace", wsB); code != 0 {
		t.Fatalf("agents stop: %s", errOut)
	}
	if agentsJSON(t, data)[wsB].Running {
		t.Fatal("beta still running after stop")
	}
	if err := syscall.Kill(b.PID, 0); err == nil {
		t.Fatal("beta's OpenCode process outlived stop")
	}
	before := agentsJSON(t, data)[wsA]
	if _, errOut, code := warden(t, data, "", "agents", "restart", "--workspace", wsA); code != 0 {
		t.Fatalf("agents restart: %s", errOut)
	}
	after := agentsJSON(t, data)[wsA]
	if after.Port != before.Port || after.PID == before.PID {
		t.Fatalf("restart: before %+v after %+v", before, after)
	}
	// The restart's own start is recorded (off the reply's path): the next
	// start waited for is the new daemon's.
	log.next(30*time.Second, "the restart recorded", serverAction(wsA, "started"))
	d.stop()
	if err := syscall.Kill(after.PID, 0); err == nil {
		t.Fatal("OpenCode outlived the daemon")
	}
	d2 := startDaemonIn(t, data, dir, env)
	log.next(60*time.Second, "alpha started again with the daemon", serverAction(wsA, "started"))
	if rows := agentsJSON(t, data); !rows[wsA].Running || rows[wsB].Running {
		t.Fatalf("after the daemon's restart: alpha %+v, beta %+v", rows[wsA], rows[wsB])
	}
	// A daemon killed outright takes its servers with it.
	orphan := agentsJSON(t, data)[wsA].PID
	d2.kill9()
	testtools.WaitExit(t, orphan, 15*time.Second)
}

func TestWorkspaceCommands(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	proj := gitWorkspace(t, filepath.Join(dir, "proj"))
	startDaemonIn(t, data, proj, nil) // not dir: it holds the data dir, which is never a workspace

	// `agents --watch --json` prints the table again on every change.
	watch := exec.Command(binary, "agents", "--watch", "--json", "--data-dir", data)
	watch.Env = isolatedEnv(t, filepath.Join(dir, "home"))
	var watched logBuffer
	watch.Stdout = &watched
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	watchExited := make(chan struct{})
	var watchErr error
	go func() { watchErr = watch.Wait(); close(watchExited) }()
	t.Cleanup(func() { watch.Process.Kill(); <-watchExited })
	if !watched.waitCount("\n", 1, watchExited, 10*time.Second) {
		t.Fatalf("agents --watch printed no table: %q", watched.String())
	}

	out, errOut, code := warden(t, data, "", "workspace", "create", "feature-x", "--project", proj, "--json")
	if code != 0 {
		t.Fatalf("workspace create: %d %s", code, errOut)
	}
	var created struct {
		Workspace struct {
			Path, Branch, Project string
			Managed               bool
		}
	}
	if err := json.Unmarshal([]byte(out), &created); err != nil || !created.Workspace.Managed || created.Workspace.Branch != "feature-x" {
		t.Fatalf("create: %v %s", err, out)
	}
	wt := created.Workspace.Path
	shown := watched.waitUntil(watchExited, 10*time.Second, func(out string) bool {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var rows []agentRow
		return len(lines) >= 2 && json.Unmarshal([]byte(lines[len(lines)-1]), &rows) == nil && len(rows) == 2 &&
			(rows[0].Workspace == wt || rows[1].Workspace == wt)
	})
	if !shown {
		t.Fatalf("agents --watch did not show the new workspace:\n%s", watched.String())
	}
	watch.Process.Signal(syscall.SIGINT)
	select {
	case <-watchExited:
	case <-time.After(10 * time.Second):
		t.Fatal("agents --watch did not end on Ctrl-C")
	}
	if watchErr != nil {
		t.Fatalf("agents --watch did not end cleanly on Ctrl-C: %v", watchErr)
	}
	if b, err := exec.Command("git", "-C", wt, "branch", "--show-current").Output(); err != nil || strings.TrimSpace(string(b)) != "feature-x" {
		t.Fatalf("worktree branch: %q %v", b, err)
	}
	// Metadata: set, read, list, delete; a bad key changes nothing.
	if _, errOut, code := warden(t, data, "", "workspace", "meta", "base", "main", "-w", wt); code != 0 {
		t.Fatalf("meta set: %s", errOut)
	}
	if out, _, _ := warden(t, data, "", "workspace", "meta", "base", "-w", wt); strings.TrimSpace(out) != "main" {
		t.Fatalf("meta get: %q", out)
	}
	if _, errOut, code := warden(t, data, "", "workspace", "meta", "bad key", "x", "-w", wt); code == 0 || !strings.Contains(errOut, "invalid metadata key") {
		t.Fatalf("bad key: %d %s", code, errOut)
	}
	if _, _, code := warden(t, data, "", "workspace", "meta", "base", "--delete", "-w", wt); code != 0 {
		t.Fatal("meta delete failed")
	}
	if out, _, _ := warden(t, data, "", "workspace", "meta", "-w", wt, "--json"); strings.TrimSpace(out) != "{}" {
		t.Fatalf("meta after delete: %s", out)
	}
	out, _, _ = warden(t, data, "", "workspace", "list")
	if !strings.Contains(out, "feature-x") || !strings.Contains(out, wt) || wt != filepath.Join(proj+".worktrees", "feature-x") {
		t.Fatalf("workspace list:\n%s", out)
	}
	// A dirty worktree is kept unless forced; removal deletes it.
	os.WriteFile(filepath.Join(wt, "wip.txt"), []byte("x"), 0o644)
	if _, errOut, code := warden(t, data, "", "workspace", "remove", wt); code == 0 || !strings.Contains(errOut, "--force") {
		t.Fatalf("remove dirty: %d %s", code, errOut)
	}
	if out, errOut, code := warden(t, data, "", "workspace", "remove", wt, "--force"); code != 0 || !strings.Contains(out, "worktree") {
		t.Fatalf("remove --force: %d %s %s", code, out, errOut)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("worktree still on disk: %v", err)
	}
	// Every change is in the log.
	out, _, _ = warden(t, data, "", "events", "--json")
	var types []string
	for _, e := range parseEvents(t, out) {
		if strings.HasPrefix(e.Type, "workspace.") && e.Workspace == wt {
			types = append(types, e.Type)
		}
	}
	if got := strings.Join(types, " "); got != "workspace.added workspace.metadata workspace.metadata workspace.removed" {
		t.Fatalf("workspace events: %s", got)
	}
	// Agent commands on an unknown workspace say what to do.
	_, errOut, code = warden(t, data, "", "agents", "start", "opencode", "--workspace", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "warden workspace add") {
		t.Fatalf("start on unknown workspace: %d %s", code, errOut)
	}
	_, errOut, code = warden(t, data, "", "agents", "start", "claude", "--workspace", proj)
	if code == 0 || !strings.Contains(errOut, "warden run claude") {
		t.Fatalf("start claude: %d %s", code, errOut)
	}
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// `warden run claude` in a registered workspace gives Claude warden's MCP
// door (a generated --mcp-config): Claude offers warden's tools to the
// model and a call reaches the workspace.
func TestWardenRunClaudeGetsWardenMCP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	data := filepath.Join(dir, "data")
	ws := gitWorkspace(t, filepath.Join(dir, "ws"))
	startDaemonIn(t, data, dir, nil)
	if _, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %s", errOut)
	}
	toolOf := func(r anthropic.Request, part string) string {
		for _, tool := range r.Tools {
			if strings.Contains(tool.Name, "warden") && strings.Contains(tool.Name, part) {
				return tool.Name
			}
		}
		return ""
	}
	fake := anthropic.New(func(r anthropic.Request) anthropic.Reply {
		if name := toolOf(r, "getStatus"); name != "" && !r.HasToolResult() {
			return anthropic.Reply{Tool: name, Input: map[string]any{}}
		}
		return anthropic.Reply{Text: "Done."}
	})
	t.Cleanup(fake.Close)
	env := append(claudeEnv(t, dir, home, fake), "WARDEN_CLAUDE_BIN="+claudeBinary(t), "WARDEN_DATA_DIR="+data)
	out, errOut, code := runIn(t, ws, env, binary, "run", "claude", "-p", "what is the workspace's status?")
	if code != 0 {
		t.Fatalf("warden run claude: %d\n%s\n%s", code, out, errOut)
	}
	offered, answered := false, false
	for _, r := range fake.Requests() {
		if toolOf(r, "readFile") != "" {
			offered = true
		}
		if r.HasToolResult() {
			m, _ := r.LastUser()
			answered = answered || strings.Contains(string(m.Content), ws)
		}
	}
	if !offered || !answered {
		var results []string
		for _, r := range fake.Requests() {
			if r.HasToolResult() {
				m, _ := r.LastUser()
				results = append(results, string(m.Content))
			}
		}
		t.Fatalf("warden's MCP tools offered: %v; the status call answered with the workspace: %v\n%s\nresults: %s", offered, answered, errOut, results)
	}
	cfg, err := filepath.Glob(filepath.Join(data, "agents", "config", "claude-mcp-*.json"))
	if err != nil || len(cfg) != 1 {
		t.Fatalf("generated MCP config: %v %v", cfg, err)
	}
	if fi, err := os.Stat(cfg[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("MCP config mode: %v %v", fi, err)
	}
	// It carries the workspace's scoped Claude Code credential, never the
	// admin token.
	token, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(cfg[0])
	if err != nil || strings.Contains(string(b), strings.TrimSpace(string(token))) || !strings.Contains(string(b), `"Bearer wardenagent_`) {
		t.Fatalf("generated MCP config (%v):\n%s", err, b)
	}
	credsOut, _, _ := warden(t, data, "", "credentials", "--json")
	if !strings.Contains(credsOut, `"agent": "claude-code"`) || !strings.Contains(credsOut, `"workspace": "`+ws+`"`) {
		t.Fatalf("credentials --json:\n%s", credsOut)
	}
}

// An agent stopped and started again leaves `none` once the new OpenCode
// reaches warden over MCP (MarkActive is not once per daemon), and a
// terminal warden opens in the workspace learns where its OpenCode runs
// (the spec's port discovery for new terminals).
func TestAgentsStartAgainAndTerminalDiscovery(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	data := filepath.Join(dir, "data")
	ws := gitWorkspace(t, filepath.Join(dir, "gamma"))
	model := openai.New(agentScript)
	t.Cleanup(model.Close)
	env := openCodeServeEnv(t, home, model)
	openCodeEnv(t, home)
	d := startDaemonIn(t, data, dir, env)
	defer func() {
		if t.Failed() {
			t.Logf("daemon:\n%s", d.stderr)
		}
	}()
	if out, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %s %s", code, out, errOut)
	}
	start := func() agentRow {
		t.Helper()
		idle := followLog(t, data)
		if out, errOut, code := warden(t, data, "", "agents", "start", "opencode", "--workspace", ws); code != 0 {
			t.Fatalf("agents start: %d %s %s", code, out, errOut)
		}
		// No session exists yet: only OpenCode reaching warden's MCP door
		// (the config warden generated) moves the status off none. OpenCode
		// connects its MCP servers on first use: asking for their status,
		// as its TUI does when it attaches, is one.
		row := agentsJSON(t, data)[ws]
		if row.Status != "none" || row.Port == 0 {
			t.Fatalf("a fresh server: %+v", row)
		}
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/mcp", row.Port))
		if err != nil {
			t.Fatal(err)
		}
		mcpStatus, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(mcpStatus), "connected") {
			t.Fatalf("OpenCode's MCP status: %s %s", resp.Status, mcpStatus)
		}
		idle.next(90*time.Second, "OpenCode to reach warden over MCP (status idle)", statusTo(ws, "idle"))
		if row = agentsJSON(t, data)[ws]; !row.Running || row.Status != "idle" {
			t.Fatalf("after OpenCode reached warden: %+v", row)
		}
		if row.Session != "" {
			t.Fatalf("a session before any prompt: %+v", row)
		}
		return row
	}
	first := start()
	if out, errOut, code := warden(t, data, "", "agents", "stop", "--workspace", ws); code != 0 || !strings.Contains(out, "stopped the agent of "+ws) {
		t.Fatalf("agents stop: %d %q %s", code, out, errOut)
	}
	// again: there is nothing left to stop, and it says so
	if out, errOut, code := warden(t, data, "", "agents", "stop", "--workspace", ws); code != 0 || !strings.Contains(out, "nothing to stop") {
		t.Fatalf("agents stop again: %d %q %s", code, out, errOut)
	}
	if row := agentsJSON(t, data)[ws]; row.Running || row.Status != "none" {
		t.Fatalf("after stop: %+v", row)
	}
	second := start()
	if second.PID == first.PID {
		t.Fatalf("the same OpenCode after stop and start: %+v", second)
	}

	// A session, then a terminal opened through the control door: its
	// environment names the server and the session.
	log := followLog(t, data)
	session := prompt(t, second.Port, "", "say hello")
	log.next(60*time.Second, "the session in warden agents", func(e event.Event) bool {
		d, err := event.DataOf[event.AgentStatusData](e)
		return e.Type == event.AgentStatus && e.Workspace == ws && err == nil && d.SessionID == session
	})
	if got := agentsJSON(t, data)[ws].Session; got != session {
		t.Fatalf("warden agents shows session %q, want %q", got, session)
	}
	token, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cc := dialControl(t, ctx, d.control, ws)
	if ok, msg := cc.authenticate(strings.TrimSpace(string(token))); !ok {
		t.Fatalf("authenticate: %s", msg)
	}
	res := cc.call("terminal.create", map[string]any{"env": map[string]any{"FOO": "bar"}})
	id, _ := res["result"].(map[string]any)["terminalId"].(string)
	if id == "" {
		t.Fatalf("terminal.create: %v", res)
	}
	cc.call("terminal.sendText", map[string]any{"terminalId": id, "text": `echo "P=[$WARDEN_OPENCODE_PORT] S=[$WARDEN_OPENCODE_SESSION_ID] W=[$WARDEN_WORKSPACE_PATH] F=[$FOO] T=[${WARDEN_MCP_TOKEN:+set}]"`})
	want := fmt.Sprintf("P=[%d] S=[%s] W=[%s] F=[bar] T=[]", second.Port, session, ws)
	waitOutput(cc, id, want)
}
