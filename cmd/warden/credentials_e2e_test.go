package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

// controlClient is one authenticated-or-not connection to the control door.
type controlClient struct {
	t     *testing.T
	ctx   context.Context
	c     *websocket.Conn
	nonce string
	// fresh is set when a challenge arrived since the last authenticate.
	fresh bool
	next  int
	// notes receives the notifications read while waiting for answers.
	notes []map[string]any
}

func dialControl(t *testing.T, ctx context.Context, addr, ws string) *controlClient {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPHeader: http.Header{"X-Workspace-Path": {ws}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(websocket.StatusNormalClosure, "") })
	cc := &controlClient{t: t, ctx: ctx, c: c}
	if ch := cc.read(); ch["method"] != "auth.challenge" {
		t.Fatalf("first message %v", ch)
	}
	return cc
}

func (cc *controlClient) read() map[string]any {
	cc.t.Helper()
	_, b, err := cc.c.Read(cc.ctx)
	if err != nil {
		cc.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		cc.t.Fatal(err)
	}
	if m["method"] == "auth.challenge" {
		cc.nonce, _ = m["params"].(map[string]any)["nonce"].(string)
		cc.fresh = true
	}
	return m
}

func (cc *controlClient) call(method string, params any) map[string]any {
	cc.t.Helper()
	cc.next++
	id := cc.next
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err := cc.c.Write(cc.ctx, websocket.MessageText, b); err != nil {
		cc.t.Fatal(err)
	}
	for {
		m := cc.read()
		if m["id"] == float64(id) {
			return m
		}
		cc.notes = append(cc.notes, m)
	}
}

// authenticate answers the challenge with token and reports the answer
// (and its error).
func (cc *controlClient) authenticate(token string) (bool, string) {
	cc.t.Helper()
	cc.fresh = false
	r := cc.call("auth.authenticate", map[string]any{"token": token, "nonce": cc.nonce})
	res, _ := r["result"].(map[string]any)
	if res["authenticated"] == true {
		return true, ""
	}
	// a fresh challenge follows a failed attempt
	for !cc.fresh {
		cc.notes = append(cc.notes, cc.read())
	}
	msg, _ := res["error"].(string)
	return false, msg
}

// waitNote reads until a notification named method arrives.
func (cc *controlClient) waitNote(method string) map[string]any {
	cc.t.Helper()
	for _, m := range cc.notes {
		if m["method"] == method {
			return m
		}
	}
	for {
		m := cc.read()
		if m["method"] == method {
			return m
		}
	}
}

// adminRequest sends one request to the admin socket with token.
func adminRequest(t *testing.T, data, method, path, token, body string) (int, string) {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", filepath.Join(data, admin.SocketName))
	}}}
	req, err := http.NewRequest(method, "http://warden"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// mcpPost sends one tools/list to the MCP door.
func mcpPost(t *testing.T, addr, token, ws string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	if ws != "" {
		req.Header.Set("X-Workspace-Path", ws)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The two kinds of credential against the real daemon: a scoped agent
// credential opens the MCP door of its own workspace and nothing else (not
// another workspace, not the control door, not the admin socket, so not an
// approval); revoking it holds at once; mints and revocations are in the
// log; no terminal inherits a token from the daemon's environment.
func TestCredentialsOnTheDaemon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := gitWorkspace(t, filepath.Join(dir, "ws"))
	other := gitWorkspace(t, filepath.Join(dir, "other"))
	// A known admin token, also (wrongly) exported to the daemon: it must
	// not reach any process the daemon starts.
	adminToken := strings.Repeat("ab12", 16)
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "token"), []byte(adminToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemonIn(t, data, dir, []string{"WARDEN_TOKEN=" + adminToken}, "--approval-timeout", "5m")
	for _, w := range []string{ws, other} {
		if _, errOut, code := warden(t, data, "", "workspace", "add", w); code != 0 {
			t.Fatalf("workspace add: %s", errOut)
		}
	}
	// serve started itself again without it: not even its own
	// /proc/PID/environ shows it.
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", d.cmd.Process.Pid)); err != nil || strings.Contains(string(b), adminToken) ||
		strings.Contains(string(b), "WARDEN_TOKEN") || !strings.Contains(string(b), "HOME=") {
		t.Fatalf("the daemon's environment (%v): %q", err, b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ac, err := admin.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	// What `warden run claude` asks for.
	m, err := ac.MintCredential(ctx, ws, "claude")
	if err != nil || !strings.HasPrefix(m.Token, "wardenagent_") || m.Credential.Workspace != ws {
		t.Fatalf("mint: %+v %v", m, err)
	}
	scoped := m.Token

	// Listed, never with a secret.
	out, errOut, code := warden(t, data, "", "credentials", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 || list[0]["id"] != m.Credential.ID || list[0]["agent"] != "claude-code" {
		t.Fatalf("credentials --json: %d %s %s", code, out, errOut)
	}
	if strings.Contains(out, scoped) || strings.Contains(out, "sha256") {
		t.Fatalf("the listing shows a secret: %s", out)
	}
	if out, _, _ := warden(t, data, "", "credentials"); !strings.Contains(out, m.Credential.ID) || !strings.Contains(out, ws) || !strings.Contains(out, "active") {
		t.Fatalf("credentials table:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(data, "credentials.json"))
	if err != nil || strings.Contains(string(b), scoped) || strings.Contains(string(b), adminToken) {
		t.Fatalf("credentials.json holds a secret (%v):\n%s", err, b)
	}

	// The MCP door: its own workspace works...
	mcpCtx, mcpCancel := context.WithTimeout(ctx, 60*time.Second)
	defer mcpCancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil).Connect(mcpCtx, &sdk.StreamableClientTransport{
		Endpoint: "http://" + d.mcp + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{"Authorization": "Bearer " + scoped, "X-Workspace-Path": ws}},
	}, nil)
	if err != nil {
		t.Fatalf("MCP with the scoped credential: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(mcpCtx, &sdk.CallToolParams{Name: "workspace.getStatus"})
	if err != nil || res.IsError || !strings.Contains(mcpText(res), ws) {
		t.Fatalf("getStatus with the scoped credential: %v %+v", err, res)
	}
	// ...another registered workspace is 403; the admin token opens both.
	if code, body := mcpPost(t, d.mcp, scoped, other); code != http.StatusForbidden || !strings.Contains(body, "scoped to workspace "+ws) {
		t.Fatalf("scoped credential on another workspace: %d %s", code, body)
	}
	if code, body := mcpPost(t, d.mcp, adminToken, other); code == http.StatusUnauthorized || code == http.StatusForbidden {
		t.Fatalf("admin on another workspace: %d %s", code, body)
	}

	// The control door takes only the admin credential.
	cc := dialControl(t, ctx, d.control, ws)
	if ok, msg := cc.authenticate(scoped); ok || !strings.Contains(msg, "opens only the MCP door") {
		t.Fatalf("the control door and the scoped credential: %v %q", ok, msg)
	}
	if r := cc.call("fs.readFile", map[string]any{"path": "README.md"}); r["error"] == nil {
		t.Fatalf("control call after a refused authentication: %v", r)
	}
	if ok, msg := cc.authenticate(adminToken); !ok {
		t.Fatalf("the control door refused the admin token: %s", msg)
	}

	// A terminal has no token in its environment, though the daemon was
	// started with one.
	r := cc.call("terminal.create", map[string]any{"name": "env-check"})
	tid, _ := r["result"].(map[string]any)["terminalId"].(string)
	if tid == "" {
		t.Fatalf("terminal.create: %v", r)
	}
	if r := cc.call("terminal.sendText", map[string]any{"terminalId": tid, "text": "env > env.txt; exit"}); r["error"] != nil {
		t.Fatalf("sendText: %v", r)
	}
	cc.waitNote("terminal.closed")
	envOut, err := os.ReadFile(filepath.Join(ws, "env.txt"))
	if err != nil || !strings.Contains(string(envOut), "HOME=") {
		t.Fatalf("the terminal's env: %v %q", err, envOut)
	}
	if strings.Contains(string(envOut), adminToken) || strings.Contains(string(envOut), "WARDEN_TOKEN") || strings.Contains(string(envOut), "wardenagent_") {
		t.Fatalf("a terminal inherited a credential:\n%s", envOut)
	}

	// A call waits for a person; the scoped credential cannot approve it
	// over the admin socket, the admin can.
	got := make(chan string, 1)
	go func() {
		_, body := d.post(t, preExecute("ses_cred", "c-1", "git reset --hard HEAD~2", ws))
		got <- body
	}()
	var approvalID string
	evCtx, evCancel := context.WithCancel(ctx)
	err = ac.Events(evCtx, admin.EventsQuery{Session: "ses_cred", Follow: true}, func(e event.Event) error {
		if e.Type == event.ApprovalRequested {
			var d struct {
				ApprovalID string `json:"approvalId"`
			}
			json.Unmarshal(e.Data, &d)
			approvalID = d.ApprovalID
			evCancel()
		}
		return nil
	})
	evCancel()
	if err != nil || approvalID == "" {
		t.Fatalf("waiting for the approval: %v", err)
	}
	for _, body := range []string{`{"decision":"approve","always":true}`, `{"decision":"deny"}`} {
		code, resp := adminRequest(t, data, "POST", "/v1/approvals/"+approvalID, scoped, body)
		if code != http.StatusForbidden || !strings.Contains(resp, "only the admin credential") {
			t.Fatalf("approval with the scoped credential: %d %s", code, resp)
		}
	}
	if code, resp := adminRequest(t, data, "POST", "/v1/credentials/"+m.Credential.ID+"/revoke", scoped, ""); code != http.StatusForbidden {
		t.Fatalf("self-revoke with the scoped credential: %d %s", code, resp)
	}
	if list, err := ac.Approvals(ctx); err != nil || len(list) != 1 || list[0].ID != approvalID {
		t.Fatalf("the approval after the scoped tries: %+v %v", list, err)
	}
	if _, errOut, code := warden(t, data, "", "deny", approvalID, "--reason", "admin says no"); code != 0 {
		t.Fatalf("deny: %s", errOut)
	}
	if body := <-got; !strings.Contains(body, `"block":true`) || !strings.Contains(body, "admin says no") {
		t.Fatalf("the call after the admin's deny: %s", body)
	}

	// Revocation holds at once: the open MCP session's next call fails.
	out, errOut, code = warden(t, data, "", "credentials", "revoke", m.Credential.ID)
	if code != 0 || !strings.Contains(out, "Revoked "+m.Credential.ID) {
		t.Fatalf("revoke: %d %s %s", code, out, errOut)
	}
	if _, err := cs.CallTool(mcpCtx, &sdk.CallToolParams{Name: "workspace.getStatus"}); err == nil {
		t.Fatal("the revoked credential's session still works")
	}
	if code, body := mcpPost(t, d.mcp, scoped, ws); code != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("revoked credential: %d %s", code, body)
	}
	if _, errOut, code := warden(t, data, "", "credentials", "revoke", "nope"); code == 0 || !strings.Contains(errOut, "warden credentials") {
		t.Fatalf("revoke unknown: %d %s", code, errOut)
	}
	// Removing a workspace revokes its credentials: registering the same
	// path again does not bring them back.
	om, err := ac.MintCredential(ctx, other, "opencode")
	if err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := warden(t, data, "", "workspace", "remove", other); code != 0 {
		t.Fatalf("workspace remove: %s", errOut)
	}
	if _, errOut, code := warden(t, data, "", "workspace", "add", other); code != 0 {
		t.Fatalf("workspace add again: %s", errOut)
	}
	if code, body := mcpPost(t, d.mcp, om.Token, other); code != http.StatusUnauthorized || !strings.Contains(body, "revoked") {
		t.Fatalf("a removed workspace's credential: %d %s", code, body)
	}
	// All of it is in the log, in warden's own session.
	out, _, _ = warden(t, data, "", "events", "--session", "warden", "--json")
	var kinds []string
	for _, e := range parseEvents(t, out) {
		if strings.HasPrefix(e.Type, "credential.") {
			kinds = append(kinds, fmt.Sprintf("%s %s", e.Type, e.Workspace))
		}
	}
	if got, want := strings.Join(kinds, ","), "credential.minted "+ws+",credential.revoked "+ws+",credential.minted "+other+",credential.revoked "+other; got != want {
		t.Fatalf("credential events: %q, want %q", got, want)
	}
	if strings.Contains(out, scoped) {
		t.Fatal("the log holds the secret")
	}
	d.stop()
}

// `warden run claude|opencode` hand the agent no credential in its
// environment, even one the user exported; Claude's --mcp-config carries
// the workspace's scoped credential, never the admin token.
func TestWardenRunGivesAgentsNoToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := gitWorkspace(t, filepath.Join(dir, "ws"))
	startDaemonIn(t, data, dir, nil)
	if _, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %s", errOut)
	}
	adminToken, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	admin := strings.TrimSpace(string(adminToken))
	// Stand-ins for the agents that write down what they were given.
	out := filepath.Join(dir, "out")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{out, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"claude", "opencode"} {
		script := "#!/bin/sh\nenv > '" + filepath.Join(out, name+".env") + "'\nprintf '%s\\n' \"$@\" > '" + filepath.Join(out, name+".args") + "'\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := filepath.Join(dir, "home")
	env := append(isolatedEnv(t, home), "WARDEN_DATA_DIR="+data,
		"WARDEN_CLAUDE_BIN="+filepath.Join(bin, "claude"), "WARDEN_OPENCODE_BIN="+filepath.Join(bin, "opencode"),
		"WARDEN_TOKEN="+admin, "WARDEN_MCP_TOKEN=exported-by-the-user")
	for _, name := range []string{"claude", "opencode"} {
		if o, errOut, code := runIn(t, ws, env, binary, "run", name, "-p", "hello"); code != 0 {
			t.Fatalf("warden run %s: %d\n%s\n%s", name, code, o, errOut)
		}
		b, err := os.ReadFile(filepath.Join(out, name+".env"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "HOME=") || strings.Contains(string(b), admin) || strings.Contains(string(b), "WARDEN_TOKEN") ||
			strings.Contains(string(b), "WARDEN_MCP_TOKEN") || strings.Contains(string(b), "wardenagent_") {
			t.Fatalf("%s's environment:\n%s", name, b)
		}
	}
	args, err := os.ReadFile(filepath.Join(out, "claude.args"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(args)), "\n")
	cfg := ""
	for i, a := range lines {
		if a == "--mcp-config" && i+1 < len(lines) {
			cfg = lines[i+1]
		}
	}
	if cfg == "" {
		t.Fatalf("claude ran without --mcp-config: %q", lines)
	}
	b, err := os.ReadFile(cfg)
	if err != nil || strings.Contains(string(b), admin) || !strings.Contains(string(b), `"Bearer wardenagent_`) || !strings.Contains(string(b), ws) {
		t.Fatalf("Claude's MCP config %s (%v):\n%s", cfg, err, b)
	}
	// The credential in it is the workspace's Claude Code credential.
	creds, _, _ := warden(t, data, "", "credentials", "--json")
	if !strings.Contains(creds, `"agent": "claude-code"`) || !strings.Contains(creds, `"workspace": "`+ws+`"`) {
		t.Fatalf("credentials --json:\n%s", creds)
	}
}
