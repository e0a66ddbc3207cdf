package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestControlDoorE2E drives the real binary's control door as a client
// would: challenge, authenticate with the token from the data dir, write a
// file in the workspace, be refused outside it, and find the calls in
// `warden events`.
func TestControlDoorE2E(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	d := startDaemon(t, filepath.Join(dir, "data"))
	defer d.stop()
	token, err := os.ReadFile(filepath.Join(d.dataDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// a directory nobody registered is not served, nor is / or the home
	for _, dir := range []string{ws, "/", filepath.Join(dir, "home")} {
		_, resp, err := websocket.Dial(ctx, "ws://"+d.control, &websocket.DialOptions{HTTPHeader: http.Header{"X-Workspace-Path": {dir}}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("unregistered %s: %v %v, want 403", dir, err, resp)
		}
	}
	if out, errOut, code := warden(t, d.dataDir, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %q %q", code, out, errOut)
	}
	c, _, err := websocket.Dial(ctx, "ws://"+d.control, &websocket.DialOptions{HTTPHeader: http.Header{"X-Workspace-Path": {ws}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(websocket.StatusNormalClosure, "")
	read := func() map[string]any {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}
	send := func(id int, method string, params any) map[string]any {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		for {
			m := read()
			if m["id"] == float64(id) {
				return m
			}
		}
	}
	ch := read()
	if ch["method"] != "auth.challenge" {
		t.Fatalf("first message %v", ch)
	}
	nonce := ch["params"].(map[string]any)["nonce"]
	auth := send(1, "auth.authenticate", map[string]any{"token": strings.TrimSpace(string(token)), "nonce": nonce})
	if auth["result"].(map[string]any)["authenticated"] != true {
		t.Fatalf("auth %v", auth)
	}
	if r := send(2, "fs.writeFile", map[string]any{"path": "hello.txt", "content": "hi"}); r["error"] != nil {
		t.Fatalf("write %v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(b) != "hi" {
		t.Fatalf("file %q", b)
	}
	if r := send(3, "fs.writeFile", map[string]any{"path": "../escape.txt", "content": "x"}); r["error"].(map[string]any)["code"] != -32010.0 {
		t.Fatalf("escape %v", r)
	}
	out, errOut, code := warden(t, d.dataDir, "", "events", "--json")
	if code != 0 {
		t.Fatalf("events: %d %s", code, errOut)
	}
	if !strings.Contains(out, `"source":"control"`) || !strings.Contains(out, "hello.txt") {
		t.Fatalf("events lack the control calls:\n%s", out)
	}
}

// TestControlCallCLI checks `warden control call` against the real daemon.
func TestControlCallCLI(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "note.txt"), []byte("from disk"), 0o644)
	d := startDaemon(t, filepath.Join(dir, "data"))
	defer d.stop()
	out, errOut, code := warden(t, d.dataDir, "", "control", "call", "fs.readFile", `{"path":"note.txt"}`, "--workspace", ws)
	if code == 0 || !strings.Contains(errOut, "warden workspace add "+ws) {
		t.Fatalf("unregistered workspace via CLI: %d %q %q, want the server's reason", code, out, errOut)
	}
	if out, errOut, code := warden(t, d.dataDir, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %q %q", code, out, errOut)
	}
	out, errOut, code = warden(t, d.dataDir, "", "control", "call", "fs.readFile", `{"path":"note.txt"}`, "--workspace", ws)
	if code != 0 || !strings.Contains(out, `"content": "from disk"`) {
		t.Fatalf("control call: %d %q %q", code, out, errOut)
	}
	out, errOut, code = warden(t, d.dataDir, "", "control", "call", "fs.readFile", `{"path":"/etc/passwd"}`, "--workspace", ws)
	if code == 0 || !strings.Contains(errOut, "-32010") {
		t.Fatalf("escape via CLI: %d %q %q", code, out, errOut)
	}
}
