package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/testtools"
)

// agentClient is a WebSocket JSON-RPC client of the daemon's Agent API door.
type agentClient struct {
	t       *testing.T
	ws      *websocket.Conn
	mu      sync.Mutex
	next    int
	waiting map[string]chan agentResp
	done    chan struct{}
}

type agentResp struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func dialAgent(t *testing.T, data, wd string) *agentClient {
	t.Helper()
	return dialAgentWith(t, data, agentCredential(t, data, wd))
}

// agentCredential is the Agent API credential of workspace wd, as `warden
// chat` gets it from the admin socket.
func agentCredential(t *testing.T, data, wd string) string {
	t.Helper()
	ac, err := admin.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ac.MintCredential(t.Context(), wd, credential.AgentAPIClient)
	if err != nil {
		t.Fatalf("mint the Agent API credential of %s: %v", wd, err)
	}
	return m.Token
}

// agentAddr is the Agent API door's address.
func agentAddr(t *testing.T, data string) string {
	t.Helper()
	var rt struct {
		Listeners map[string]string `json:"listeners"`
	}
	b, err := os.ReadFile(filepath.Join(data, "daemon.json"))
	if err != nil || json.Unmarshal(b, &rt) != nil || rt.Listeners["agent"] == "" {
		t.Fatalf("daemon.json: %v %s", err, b)
	}
	return rt.Listeners["agent"]
}

func dialAgentWith(t *testing.T, data, token string) *agentClient {
	t.Helper()
	ws, _, err := websocket.Dial(t.Context(), "ws://"+agentAddr(t, data), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatalf("dial the agent door: %v", err)
	}
	ws.SetReadLimit(64 << 20)
	c := &agentClient{t: t, ws: ws, waiting: map[string]chan agentResp{}, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				c.mu.Lock()
				for _, ch := range c.waiting {
					close(ch)
				}
				c.waiting = map[string]chan agentResp{}
				c.mu.Unlock()
				return
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(b, &m)
			var r agentResp
			_ = json.Unmarshal(b, &r)
			c.mu.Lock()
			if ch, ok := c.waiting[string(m.ID)]; ok {
				ch <- r
				delete(c.waiting, string(m.ID))
			}
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, ""); <-c.done })
	return c
}

func (c *agentClient) start(method string, params any) <-chan agentResp {
	c.mu.Lock()
	c.next++
	id := fmt.Sprint(c.next)
	ch := make(chan agentResp, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err := c.ws.Write(c.t.Context(), websocket.MessageText, b); err != nil {
		c.t.Fatalf("send %s: %v", method, err)
	}
	return ch
}

func (c *agentClient) wait(ch <-chan agentResp, method string, out any) {
	c.t.Helper()
	select {
	case r, ok := <-ch:
		if !ok {
			c.t.Fatalf("%s: connection closed", method)
		}
		if r.Error != nil {
			c.t.Fatalf("%s: %d %s", method, r.Error.Code, r.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(r.Result, out); err != nil {
				c.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-time.After(60 * time.Second):
		c.t.Fatalf("%s: no answer", method)
	}
}

func (c *agentClient) call(method string, params, out any) {
	c.t.Helper()
	c.wait(c.start(method, params), method, out)
}

// callErr sends a request that must fail and returns its error code.
func (c *agentClient) callErr(method string, params any) int {
	c.t.Helper()
	select {
	case r, ok := <-c.start(method, params):
		if !ok {
			c.t.Fatalf("%s: connection closed", method)
		}
		if r.Error == nil {
			c.t.Fatalf("%s: succeeded (%s), want an error", method, r.Result)
		}
		return r.Error.Code
	case <-time.After(60 * time.Second):
		c.t.Fatalf("%s: no answer", method)
	}
	return 0
}

// TestAgentKill9MidTurnResumes: warden is killed (-9) while its agent's
// shell call runs; after a restart the call has its "interrupted" result,
// the session is idle, and a new message continues it with a history the
// model accepts.
func TestAgentKill9MidTurnResumes(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	fifo := filepath.Join(wd, "in")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// the shell call leaves processes behind: the killed daemon's guard
	// ends them (internal/reaper)
	marker := fmt.Sprintf("warden-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(wd, "spawn.sh"), []byte(spawnScript), 0o755); err != nil {
		t.Fatal(err)
	}
	fake := openaifake.New(func(r openaifake.Request) openaifake.Reply {
		switch n := len(r.ToolResults()); {
		case lastUser(r) == "go on":
			return openaifake.Reply{Text: "resumed"}
		case n == 0:
			return openaifake.Reply{Tool: "write", Args: map[string]any{"path": "a.txt", "content": "A"}}
		default:
			return openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "./spawn.sh " + marker + " > pids; cat in"}}
		}
	})
	defer fake.Close()
	env := []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"}
	d := startDaemonIn(t, data, wd, env)
	c := dialAgent(t, data, wd)
	var cr struct {
		SessionID string `json:"sessionId"`
	}
	c.call("session.create", map[string]any{"workingDirectory": wd, "model": "openai/fake-model"}, &cr)
	id := cr.SessionID
	c.start("agent.message", map[string]any{"sessionId": id, "content": "start"})
	// the shell call runs once cat has the fifo open
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	d.kill9()
	w.Close()
	b, err := os.ReadFile(filepath.Join(wd, "pids"))
	if err != nil || !strings.HasPrefix(string(b), "running ") {
		t.Fatalf("pids %q %v", b, err)
	}
	for _, f := range strings.Fields(strings.TrimPrefix(string(b), "running ")) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		testtools.WaitExit(t, pid, 10*time.Second)
	}
	// The guard itself (and the sandbox's re-exec) carry the marker in
	// their command lines: with the daemon gone nobody waits for them, so
	// each gets the time to sweep and exit; one still there after that
	// fails the test in WaitExit.
	for _, l := range testtools.WithMarker(t, marker) {
		pid, err := strconv.Atoi(l[:strings.IndexByte(l, ':')])
		if err != nil {
			t.Fatal(err)
		}
		testtools.WaitExit(t, pid, 10*time.Second)
	}
	if left := testtools.WithMarker(t, marker); len(left) > 0 {
		t.Fatalf("the daemon was killed, and its shell call left running: %q", left)
	}

	startDaemonIn(t, data, wd, env)
	c2 := dialAgent(t, data, wd)
	var got struct {
		Session struct {
			Status string `json:"status"`
			Turns  int    `json:"turns"`
		} `json:"session"`
	}
	c2.call("session.get", map[string]any{"sessionId": id}, &got)
	if got.Session.Status != "idle" || got.Session.Turns != 1 {
		t.Fatalf("after restart: %+v", got.Session)
	}
	var res struct {
		Text       string `json:"text"`
		StopReason string `json:"stopReason"`
	}
	c2.call("agent.message", map[string]any{"sessionId": id, "content": "go on"}, &res)
	if res.Text != "resumed" || res.StopReason != "end" {
		t.Fatalf("resumed turn %+v", res)
	}
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	var roles []string
	for _, m := range last.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,assistant,tool,user" {
		t.Fatalf("history after restart: %v", roles)
	}
	if tr := last.ToolResults(); len(tr) != 2 || !strings.Contains(tr[1], "interrupted: warden stopped") {
		t.Fatalf("tool results after restart %q", tr)
	}
	if b, err := os.ReadFile(filepath.Join(wd, "a.txt")); err != nil || string(b) != "A" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
}

// TestAgentAskApprovedFromTheCLI: a call the policy asks about waits in
// warden's approval queue; `warden approve` lets it run.
func TestAgentAskApprovedFromTheCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	if out, err := exec.Command("git", "init", "-q", wd).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	junk := filepath.Join(wd, "junk.txt")
	if err := os.WriteFile(junk, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := openaifake.New(openaifake.NewQueue(
		openaifake.Reply{Tool: "shell", Args: map[string]any{"command": "git clean -fdx"}},
		openaifake.Reply{Text: "clean"},
	).Next)
	defer fake.Close()
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"}, "--approval-timeout", "1m")
	c := dialAgent(t, data, wd)
	var cr struct {
		SessionID string `json:"sessionId"`
	}
	c.call("session.create", map[string]any{"workingDirectory": wd, "model": "openai/fake-model"}, &cr)
	turn := c.start("agent.message", map[string]any{"sessionId": cr.SessionID, "content": "clean up"})
	asked := waitEvent(t, data, 0, 30*time.Second, "the agent's approval", approvalAsked(func(e event.Event) bool { return e.Session == cr.SessionID }))
	if out, errOut, code := warden(t, data, "", "approve", approvalOf(t, asked)); code != 0 {
		t.Fatalf("approve: %s %s", out, errOut)
	}
	var res struct {
		Text string `json:"text"`
	}
	c.wait(turn, "agent.message", &res)
	if res.Text != "clean" {
		t.Fatalf("turn %+v", res)
	}
	if _, err := os.Stat(junk); !os.IsNotExist(err) {
		t.Fatalf("junk.txt still there: %v", err)
	}
	// the session is listed beside the other agents'
	if out, _, _ := warden(t, data, "", "sessions"); !strings.Contains(out, cr.SessionID) {
		t.Fatalf("warden sessions does not list %s:\n%s", cr.SessionID, out)
	}
}

// TestChat: `warden chat` streams the answer and shows the tool call and
// its outcome.
func TestChat(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := mkdirReal(t, filepath.Join(dir, "proj"))
	fake := openaifake.New(openaifake.NewQueue(
		openaifake.Reply{Tool: "write", Args: map[string]any{"path": "note.md", "content": "hi"}},
		openaifake.Reply{Text: "Wrote note.md for you."},
		openaifake.Reply{Text: "Still here."},
	).Next)
	defer fake.Close()
	startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"})
	out, errOut, code := warden(t, data, "write a note\n", "chat", "-w", wd, "--model", "openai/fake-model")
	if code != 0 {
		t.Fatalf("chat: %d %s %s", code, out, errOut)
	}
	for _, want := range []string{"session ag_", "→ write", "✓ write ok", "Wrote note.md for you.", "[end;"} {
		if !strings.Contains(out, want) {
			t.Fatalf("chat output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(wd, "note.md")); err != nil || string(b) != "hi" {
		t.Fatalf("note.md = %q, %v", b, err)
	}
	// --session continues it, with the credential of the session's
	// workspace (chat learns it over the admin socket), from elsewhere
	id := regexp.MustCompile(`session (ag_[0-9a-f]+)`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no session id in:\n%s", out)
	}
	out, errOut, code = warden(t, data, "are you there?\n", "chat", "--session", id[1])
	if code != 0 || !strings.Contains(out, "1 turn(s) so far") || !strings.Contains(out, "Still here.") {
		t.Fatalf("chat --session: %d %s %s", code, out, errOut)
	}
}

// spawnScript leaves two processes behind, named by marker: a background
// job in the shell's group and one that left the group and the session
// (setsid); it prints their pids once both run.
const spawnScript = `#!/bin/bash
m() { until tr '\0' ' ' < /proc/$1/cmdline 2>/dev/null | grep -q "$2"; do :; done; }
(exec -a "$1-job" sleep 300) & p1=$!
setsid bash -c 'exec -a "$0" sleep 300' "$1-setsid" & p2=$!
m $p1 "$1-job"; m $p2 "$1-setsid"
echo running $p1 $p2
`

// TestAgentAPICredential: the Agent API door takes the workspace's scoped
// credential (what warden chat mints over the admin socket) and refuses
// the admin token; that credential reaches only its workspace there, and
// the admin socket and the control door refuse it: it resolves no
// approval and opens no admin method, which the admin token still does.
func TestAgentAPICredential(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	wd := gitWorkspace(t, filepath.Join(dir, "proj"))
	other := gitWorkspace(t, filepath.Join(dir, "other"))
	fake := openaifake.New(openaifake.NewQueue().Next)
	defer fake.Close()
	d := startDaemonIn(t, data, wd, []string{"OPENAI_BASE_URL=" + fake.URL + "/v1", "OPENAI_API_KEY=sk-test"})
	if _, errOut, code := warden(t, data, "", "workspace", "add", other); code != 0 {
		t.Fatalf("workspace add: %s", errOut)
	}
	tok, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	adminToken := strings.TrimSpace(string(tok))
	chat := agentCredential(t, data, wd)
	if !strings.HasPrefix(chat, credential.AgentPrefix) {
		t.Fatalf("credential %q", chat)
	}

	// the Agent API door: the admin token is 403, the scoped one works in
	// its own workspace only
	_, resp, err := websocket.Dial(t.Context(), "ws://"+agentAddr(t, data), &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + adminToken}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("the agent door and the admin token: %v %+v", err, resp)
	}
	c := dialAgentWith(t, data, chat)
	var cr struct {
		SessionID string `json:"sessionId"`
	}
	c.call("session.create", map[string]any{"workingDirectory": wd, "model": "openai/fake-model"}, &cr)
	if !strings.HasPrefix(cr.SessionID, "ag_") {
		t.Fatalf("session.create: %+v", cr)
	}
	if code := c.callErr("session.create", map[string]any{"workingDirectory": other, "model": "openai/fake-model"}); code != -32602 {
		t.Fatalf("session.create in another workspace: %d", code)
	}

	// the admin socket: 403 for every method, approvals included; the
	// admin token is accepted
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/approvals", ""},
		{"POST", "/v1/approvals/apr_x", `{"decision":"approve","always":true}`},
		{"GET", "/v1/status", ""},
		{"POST", "/v1/credentials", `{"workspace":"` + other + `","agent":"warden-chat"}`},
		{"GET", "/v1/policy/rules", ""},
	} {
		if code, body := adminRequest(t, data, r.method, r.path, chat, r.body); code != http.StatusForbidden || !strings.Contains(body, "only the admin credential") {
			t.Fatalf("%s %s with the Agent API credential: %d %s", r.method, r.path, code, body)
		}
	}
	if code, body := adminRequest(t, data, "GET", "/v1/approvals", adminToken, ""); code != http.StatusOK {
		t.Fatalf("GET /v1/approvals with the admin token: %d %s", code, body)
	}

	// the control door: refused; the admin token authenticates
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cc := dialControl(t, ctx, d.control, wd)
	if ok, msg := cc.authenticate(chat); ok || !strings.Contains(msg, "opens only the MCP door and the Agent API door") {
		t.Fatalf("the control door and the Agent API credential: %v %q", ok, msg)
	}
	if ok, msg := cc.authenticate(adminToken); !ok {
		t.Fatalf("the control door refused the admin token: %s", msg)
	}
}
