package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The doors' limits against a fresh warden serve: a trickled body is cut, an
// unauthenticated control connection is closed, JSON deeper than the
// stored-payload limit and malformed shell calls are refused and nothing is
// stored, while a long-lived stream (events --follow) outlives the body
// timeout; SIGTERM then ends it all in bounded time.
func TestDoorLimits(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte("limits: {bodyReadTimeout: 1s, authTimeout: 1500ms}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := startDaemonIn(t, data, ws, nil, "--config", cfgFile)
	if out, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %s %s", code, out, errOut)
	}

	// A long-lived stream, started first: it must outlive every timeout below.
	follow := exec.Command(binary, "events", "--follow", "--json", "--data-dir", data)
	follow.Env = isolatedEnv(t, filepath.Join(dir, "home"))
	pipe, _ := follow.StdoutPipe()
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { follow.Process.Kill(); follow.Wait() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()

	// A body that trickles is cut: the door answers (or hangs up) without
	// the rest ever coming, and records nothing.
	conn, err := net.Dial("tcp", d.monitor)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /agent-monitor HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"type\":", d.monitor)
	answer, _ := io.ReadAll(conn) // returns once the door gave up on the body
	t.Logf("trickled body: %.60q", answer)
	if strings.HasPrefix(string(answer), "HTTP/1.1 200") {
		t.Fatalf("a trickled body was served: %q", answer)
	}

	// An unauthenticated control connection is closed after authTimeout.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws://"+d.control, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, b, err := c.Read(ctx); err != nil || !strings.Contains(string(b), "auth.challenge") {
		t.Fatalf("first message: %s %v", b, err)
	}
	_, _, err = c.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("unauthenticated connection: %v, want closed with policy violation", err)
	}

	// Deep JSON and malformed shell calls: 400, nothing stored.
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	for name, body := range map[string]string{
		"deep error": `{"type":"session.error","timestamp":1,"directory":"` + ws + `","worktree":"` + ws + `","sessionID":"ses_1","error":` + deep + `}`,
		"deep args":  `{"type":"tool.pre_execute","timestamp":1,"directory":"` + ws + `","worktree":"` + ws + `","sessionID":"ses_1","callID":"c1","tool":"bash","args":{"command":"ls","x":` + deep + `}}`,
		"args null":  `{"type":"tool.pre_execute","timestamp":1,"directory":"` + ws + `","worktree":"` + ws + `","sessionID":"ses_1","callID":"c2","tool":"bash","args":null}`,
		"command 7":  `{"type":"tool.pre_execute","timestamp":1,"directory":"` + ws + `","worktree":"` + ws + `","sessionID":"ses_1","callID":"c3","tool":"bash","args":{"command":7}}`,
	} {
		if code, resp := d.post(t, body); code != 400 {
			t.Errorf("%s: %d %s, want 400", name, code, resp)
		}
	}
	// The control door (a WebSocket message) and the MCP door (a POST body)
	// refuse it too, before anything is decoded or stored.
	cc, _, err := websocket.Dial(ctx, "ws://"+d.control, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.CloseNow()
	cc.Read(ctx) // auth.challenge
	if err := cc.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"fs.readFile","params":{"path":`+deep+`}}`)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := cc.Read(ctx); err != nil || !strings.Contains(string(b), "-32600") || !strings.Contains(string(b), "nested too deeply") {
		t.Fatalf("deep control message: %s %v", b, err)
	}
	token, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+d.mcp+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":`+deep+`}}}`))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "nested too deeply") {
		t.Fatalf("deep MCP body: %d %s", resp.StatusCode, b)
	}

	out, errOut, code := warden(t, data, "", "events", "--json")
	if code != 0 {
		t.Fatalf("events --json after the refusals: %d %s", code, errOut)
	}
	for _, e := range parseEvents(t, out) {
		if e.Session == "ses_1" {
			t.Fatalf("a refused body was stored: %+v", e)
		}
	}

	// The stream, older than both timeouts, still delivers.
	if code, body := d.post(t, `{"type":"session.started","timestamp":1,"project":"proj","directory":"`+ws+`","worktree":"`+ws+`","sessionID":"ses_2","startTime":1}`); code != 200 {
		t.Fatalf("session.started: %d %s", code, body)
	}
	delivered := false
	for line := range lines {
		if strings.Contains(line, "ses_2") {
			delivered = true
			break
		}
	}
	if !delivered {
		t.Fatal("events --follow ended before the new event came")
	}

	// Shutdown is bounded with a request stuck on its body and a stream open.
	stuck, err := net.Dial("tcp", d.hooks)
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	fmt.Fprintf(stuck, "POST /hook HTTP/1.1\r\nHost: %s\r\nContent-Length: 500\r\n\r\n{", d.hooks)
	d.stop()
	if _, err := os.Stat(filepath.Join(data, "daemon.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("daemon.json after SIGTERM: %v", err)
	}
}
