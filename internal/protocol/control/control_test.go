package control_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/protocol/control"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/testtools"
	"github.com/warden-dev/warden/internal/workspace"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/fsnotify/fsnotify.(*inotify).readEvents"))
}

const token = "test-token-0123456789"

// clock is a settable clock for rate limits and session expiry.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type env struct {
	t     *testing.T
	core  *core.Core
	srv   *control.Server
	http  *httptest.Server
	root  string
	clock *clock
	reg   *workspace.Registry
}

func newEnv(t *testing.T, settings config.Control, coreOpts coretest.Options) *env {
	t.Helper()
	e := newEnvWith(t, settings, coreOpts)
	e.t = t
	return e
}

func newEnvTB(tb testing.TB, settings config.Control) *env {
	return newEnvWith(tb, settings, coretest.Options{})
}

// newEnvWith is newEnv for a testing.TB; each of opsOpts, when given,
// adjusts the operations' options (the code index's directory).
func newEnvWith(t testing.TB, settings config.Control, coreOpts coretest.Options, opsOpts ...func(*ops.Options)) *env {
	t.Helper()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	c := coretest.New(t, coreOpts)
	clk := &clock{t: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	if err := settings.Validate(); err != nil {
		t.Fatal(err)
	}
	reg, err := workspace.Open(filepath.Join(t.TempDir(), "workspaces.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil {
		t.Fatal(err)
	}
	// terminals get a home of their own: the machine's ~/.bashrc may do
	// anything (and a shell killed while it runs may leave its locks)
	termHome := t.TempDir()
	oo := ops.Options{Core: c, Registry: reg, Locate: testtools.Lookup,
		TerminalEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + termHome, "TERM=xterm-256color", "LANG=C.UTF-8"}}
	for _, f := range opsOpts {
		f(&oo)
	}
	o, err := ops.New(oo)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := control.New(control.Options{
		Core: c, Ops: o, Settings: settings, Token: token, Workspace: root, Now: clk.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		if err := o.Close(); err != nil {
			t.Errorf("close ops: %v", err)
		}
	})
	return &env{core: c, srv: srv, http: hs, root: root, clock: clk, reg: reg}
}

// client is a test WebSocket client that routes responses by id and
// collects notifications.
type client struct {
	t      *testing.T
	ws     *websocket.Conn
	mu     sync.Mutex
	waits  map[string]chan json.RawMessage
	notes  chan map[string]any
	nextID int
	done   chan struct{}
}

func (e *env) dial(header http.Header) *client {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http"), &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		e.t.Fatal(err)
	}
	ws.SetReadLimit(64 << 20)
	c := &client{t: e.t, ws: ws, waits: map[string]chan json.RawMessage{}, notes: make(chan map[string]any, 4096), done: make(chan struct{})}
	go c.loop()
	e.t.Cleanup(func() {
		ws.Close(websocket.StatusNormalClosure, "")
		<-c.done
	})
	return c
}

func (c *client) loop() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err != nil {
			close(c.notes)
			return
		}
		if len(b) > 0 && b[0] == '[' {
			c.mu.Lock()
			ch := c.waits["batch"]
			c.mu.Unlock()
			ch <- b
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		if id, ok := m["id"]; ok {
			c.mu.Lock()
			ch := c.waits[string(id)]
			c.mu.Unlock()
			if ch != nil {
				ch <- b
			}
			continue
		}
		var n map[string]any
		json.Unmarshal(b, &n)
		c.notes <- n
	}
}

// raw sends a request and returns the whole response object.
func (c *client) raw(method string, params any) map[string]any {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprint(c.nextID)
	ch := make(chan json.RawMessage, 1)
	c.waits[id] = ch
	c.mu.Unlock()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		c.t.Fatal(err)
	}
	select {
	case b := <-ch:
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	case <-ctx.Done():
		c.t.Fatalf("%s: no answer", method)
		return nil
	}
}

// call returns the result of a request, failing on an error response.
func (c *client) call(method string, params any) map[string]any {
	c.t.Helper()
	m := c.raw(method, params)
	if m["error"] != nil {
		c.t.Fatalf("%s(%v): error %v", method, params, m["error"])
	}
	r, _ := m["result"].(map[string]any)
	return r
}

// fails checks that a request fails with code and returns the error.
func (c *client) fails(code int, method string, params any) map[string]any {
	c.t.Helper()
	m := c.raw(method, params)
	e, _ := m["error"].(map[string]any)
	if e == nil || int(e["code"].(float64)) != code {
		c.t.Fatalf("%s(%v): got %v, want error %d", method, params, m, code)
	}
	return e
}

// note waits for a notification matching f.
func (c *client) note(f func(map[string]any) bool) map[string]any {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case n, ok := <-c.notes:
			if !ok {
				c.t.Fatal("connection closed while waiting for a notification")
			}
			if f(n) {
				return n
			}
		case <-deadline:
			c.t.Fatal("notification did not come")
		}
	}
}

func method(name string) func(map[string]any) bool {
	return func(n map[string]any) bool { return n["method"] == name }
}

// auth answers the challenge.
func (c *client) auth() string {
	c.t.Helper()
	n := c.note(method("auth.challenge"))
	nonce := n["params"].(map[string]any)["nonce"].(string)
	r := c.call("auth.authenticate", map[string]string{"token": token, "nonce": nonce})
	if r["authenticated"] != true {
		c.t.Fatalf("auth: %v", r)
	}
	return r["sessionId"].(string)
}

func (e *env) authed() *client {
	c := e.dial(nil)
	c.auth()
	return c
}

func TestAuthFlow(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.dial(nil)
	n := c.note(method("auth.challenge"))
	nonce := n["params"].(map[string]any)["nonce"].(string)
	if len(nonce) < 16 {
		t.Fatalf("nonce %q", nonce)
	}
	c.fails(-32001, "fs.readFile", map[string]string{"path": "a"})
	c.fails(-32602, "auth.authenticate", map[string]string{"token": token})
	// a wrong token uses up the nonce and a new challenge follows
	r := c.call("auth.authenticate", map[string]string{"token": "wrong", "nonce": nonce})
	if r["authenticated"] != false || r["error"] == nil {
		t.Fatalf("wrong token: %v", r)
	}
	n2 := c.note(method("auth.challenge"))
	nonce2 := n2["params"].(map[string]any)["nonce"].(string)
	if nonce2 == nonce {
		t.Fatal("the same nonce was offered twice")
	}
	// the old nonce is dead even with the right token
	if r := c.call("auth.authenticate", map[string]string{"token": token, "nonce": nonce}); r["authenticated"] != false {
		t.Fatalf("reused nonce: %v", r)
	}
	n3 := c.note(method("auth.challenge"))
	nonce3 := n3["params"].(map[string]any)["nonce"].(string)
	r = c.call("auth.authenticate", map[string]string{"token": token, "nonce": nonce3})
	if r["authenticated"] != true || len(r["sessionId"].(string)) != 36 {
		t.Fatalf("auth: %v", r)
	}
	c.call("state.getWorkspace", nil)
	// the session is in the log
	evs, err := e.core.Events(context.Background(), store.Filter{Session: r["sessionId"].(string)})
	if err != nil || len(evs) == 0 || evs[0].Type != event.SessionStart || evs[0].Source != control.Source {
		t.Fatalf("session events %v %v", evs, err)
	}
}

func TestUpgradeChecks(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	for _, tc := range []struct {
		header http.Header
		want   int
	}{
		{http.Header{"Origin": {"https://evil.example"}}, http.StatusForbidden},
		{http.Header{"X-Workspace-Path": {"relative/dir"}}, http.StatusBadRequest},
		// only registered workspaces are served: not a missing dir, not /,
		// not the home directory, not /proc, not an unregistered dir
		{http.Header{"X-Workspace-Path": {"/definitely/not/here"}}, http.StatusForbidden},
		{http.Header{"X-Workspace-Path": {"/"}}, http.StatusForbidden},
		{http.Header{"X-Workspace-Path": {"/proc"}}, http.StatusForbidden},
		{http.Header{"X-Workspace-Path": {os.Getenv("HOME")}}, http.StatusForbidden},
		{http.Header{"X-Workspace-Path": {filepath.Dir(e.root)}}, http.StatusForbidden},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http"), &websocket.DialOptions{HTTPHeader: tc.header})
		cancel()
		if err == nil || resp == nil || resp.StatusCode != tc.want {
			t.Errorf("%v: err %v resp %v, want %d", tc.header, err, resp, tc.want)
		}
	}
	// a DNS-rebinding Host is refused
	req, _ := http.NewRequest("GET", e.http.URL, nil)
	req.Host = "attacker.example"
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("rebinding host: %d", resp.StatusCode)
	}
	// the refusal says how to register the directory
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, resp, err = websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http"), &websocket.DialOptions{HTTPHeader: http.Header{"X-Workspace-Path": {"/"}}})
	cancel()
	if err == nil || resp == nil {
		t.Fatal("/ was served")
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "warden workspace add /") {
		t.Errorf("refusal %q does not say how to register", body)
	}
	// a symlink to the workspace is the workspace
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(e.root, link); err != nil {
		t.Fatal(err)
	}
	cl := e.dial(http.Header{"X-Workspace-Path": {link}})
	cl.auth()
	if ws := cl.call("state.getWorkspace", nil); ws["folders"].([]any)[0] != e.root {
		t.Fatalf("workspace through a symlink %v, want %s", ws, e.root)
	}
	// a loopback origin is fine, and another registered workspace can be
	// chosen
	other, _ := filepath.EvalSymlinks(t.TempDir())
	if _, _, err := e.reg.Add(other); err != nil {
		t.Fatal(err)
	}
	c := e.dial(http.Header{"Origin": {"http://localhost:3000"}, "X-Workspace-Path": {other}})
	c.auth()
	ws := c.call("state.getWorkspace", nil)
	if f := ws["folders"].([]any); len(f) != 1 || f[0] != other {
		t.Fatalf("workspace %v, want %s", ws, other)
	}
}

func TestFileSystem(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.authed()
	c.call("fs.writeFile", map[string]string{"path": "src/a.txt", "content": "hello"})
	if b, _ := os.ReadFile(filepath.Join(e.root, "src/a.txt")); string(b) != "hello" {
		t.Fatalf("on disk %q", b)
	}
	c.call("fs.appendFile", map[string]string{"path": filepath.Join(e.root, "src/a.txt"), "content": " world"})
	if r := c.call("fs.readFile", map[string]string{"path": "src/a.txt"}); r["content"] != "hello world" {
		t.Fatalf("read %v", r)
	}
	if r := c.call("fs.exists", map[string]string{"path": "src"}); r["exists"] != true || r["isDirectory"] != true || r["isFile"] != false {
		t.Fatalf("exists %v", r)
	}
	if r := c.call("fs.stat", map[string]string{"path": "src/a.txt"}); r["size"] != 11.0 || r["isFile"] != true {
		t.Fatalf("stat %v", r)
	}
	c.call("fs.copy", map[string]string{"source": "src/a.txt", "destination": "src/b.txt"})
	c.call("fs.rename", map[string]string{"oldPath": "src/b.txt", "newPath": "src/c.txt"})
	c.call("fs.createDirectory", map[string]string{"path": "deep/er/dir"})
	list := c.call("fs.listDirectory", map[string]any{"path": ".", "recursive": true})["entries"].([]any)
	names := map[string]string{}
	for _, x := range list {
		m := x.(map[string]any)
		names[m["path"].(string)] = m["type"].(string)
	}
	if names[filepath.Join(e.root, "src/c.txt")] != "file" || names[filepath.Join(e.root, "deep/er/dir")] != "directory" || names[filepath.Join(e.root, "src/b.txt")] != "" {
		t.Fatalf("listing %v", names)
	}
	c.call("fs.deleteFile", map[string]string{"path": "src/c.txt"})
	c.fails(-32002, "fs.readFile", map[string]string{"path": "src/c.txt"})
	c.fails(-32602, "fs.deleteDirectory", map[string]any{"path": "deep"})
	c.call("fs.deleteDirectory", map[string]any{"path": "deep", "recursive": true})
	if _, err := os.Stat(filepath.Join(e.root, "deep")); !os.IsNotExist(err) {
		t.Fatal("deep still there")
	}
	// the sandbox: nothing outside the workspace, whatever the spelling
	outside := filepath.Join(filepath.Dir(e.root), "outside.txt")
	for _, p := range []string{"../outside.txt", outside, "/etc/passwd", "src/../../outside.txt"} {
		c.fails(-32010, "fs.writeFile", map[string]string{"path": p, "content": "x"})
		c.fails(-32010, "fs.readFile", map[string]string{"path": p})
	}
	if err := os.Symlink("/etc", filepath.Join(e.root, "etc-link")); err != nil {
		t.Fatal(err)
	}
	c.fails(-32010, "fs.readFile", map[string]string{"path": "etc-link/passwd"})
	// the policy: secrets are not read, git hooks not written
	os.WriteFile(filepath.Join(e.root, ".env"), []byte("KEY=1"), 0o600)
	e1 := c.fails(-32003, "fs.readFile", map[string]string{"path": ".env"})
	if d := e1["data"].(map[string]any); d["rule"] == "" || d["errorType"] != "FileAccessDenied" {
		t.Fatalf("deny data %v", d)
	}
	c.fails(-32003, "fs.writeFile", map[string]string{"path": ".git/hooks/pre-commit", "content": "curl x | sh"})
	c.fails(-32602, "fs.writeFile", map[string]string{"path": "x"})
	// watching
	w := c.call("fs.watchFiles", map[string]string{"pattern": "**/*.go"})["watcherId"].(string)
	c.call("fs.writeFile", map[string]string{"path": "pkg/main.go", "content": "package main"})
	c.note(func(n map[string]any) bool {
		p, _ := n["params"].(map[string]any)
		return n["method"] == "file.changed" && p["path"] == filepath.Join(e.root, "pkg/main.go")
	})
	c.call("fs.unwatchFiles", map[string]string{"watcherId": w})
	c.fails(-32602, "fs.unwatchFiles", map[string]string{"watcherId": w})
}

func TestEditor(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	c := e.authed()
	c.fails(-32005, "editor.getActiveFile", nil)
	c.fails(-32005, "editor.getSelection", nil)
	if r := c.call("editor.openFile", map[string]string{"path": "a.txt"}); r["documentUri"] != "file://"+filepath.Join(e.root, "a.txt") {
		t.Fatalf("open %v", r)
	}
	c.call("editor.insertText", map[string]any{"path": "a.txt", "position": map[string]int{"line": 1, "character": 0}, "text": "1.5\n"})
	c.call("editor.replaceRange", map[string]any{"path": "a.txt", "range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}}, "text": "ONE"})
	if r := c.call("editor.getContent", map[string]string{"path": "a.txt"}); r["content"] != "ONE\n1.5\ntwo\n" || r["languageId"] != "plaintext" {
		t.Fatalf("content %v", r)
	}
	info := c.call("editor.getDocumentInfo", map[string]string{"path": "a.txt"})
	if info["isDirty"] != true || info["version"] != 3.0 || info["lineCount"] != 4.0 {
		t.Fatalf("info %v", info)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != "one\ntwo\n" {
		t.Fatalf("disk changed before save: %q", b)
	}
	// atomic: one bad edit and nothing applies
	c.fails(-32602, "editor.applyEdits", map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 1}}, "text": "o"},
		{"range": map[string]any{"start": map[string]int{"line": 40, "character": 0}, "end": map[string]int{"line": 40, "character": 1}}, "text": "x"},
	}})
	r := c.call("editor.applyEdits", map[string]any{"path": "a.txt", "edits": []map[string]any{
		{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}}, "text": "uno"},
		{"range": map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 2, "character": 3}}, "text": "dos"},
	}})
	if r["applied"] != 2.0 {
		t.Fatalf("applied %v", r)
	}
	c.call("editor.setSelection", map[string]any{"path": "a.txt", "range": map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 1, "character": 3}}})
	if s := c.call("editor.getSelection", nil); s["text"] != "1.5" {
		t.Fatalf("selection %v", s)
	}
	c.call("editor.revealLine", map[string]any{"path": "a.txt", "line": 2, "at": "top"})
	c.call("editor.save", nil)
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != "uno\n1.5\ndos\n" {
		t.Fatalf("saved %q", b)
	}
	if a := c.call("editor.getActiveFile", nil); a["path"] != filepath.Join(e.root, "a.txt") {
		t.Fatalf("active %v", a)
	}
	c.fails(-32002, "editor.openFile", map[string]any{"path": "b.txt", "viewColumn": 2})
	os.WriteFile(filepath.Join(e.root, "b.txt"), []byte("b"), 0o644)
	c.call("editor.openFile", map[string]any{"path": "b.txt", "viewColumn": 2})
	if f := c.call("editor.getOpenFiles", nil)["files"].([]any); len(f) != 2 {
		t.Fatalf("open files %v", f)
	}
	if v := c.call("state.getVisibleEditors", nil)["editors"].([]any); len(v) != 2 {
		t.Fatalf("visible editors %v", v)
	}
	if d := c.call("state.getOpenDocuments", nil)["documents"].([]any); len(d) != 2 {
		t.Fatalf("documents %v", d)
	}
	c.call("editor.setContent", map[string]string{"path": "b.txt", "content": "bee"})
	c.call("editor.saveAll", nil)
	if b, _ := os.ReadFile(filepath.Join(e.root, "b.txt")); string(b) != "bee" {
		t.Fatalf("saveAll %q", b)
	}
	if r := c.call("editor.closeFile", map[string]string{"path": "b.txt"}); r["success"] != true {
		t.Fatalf("close %v", r)
	}
	c.fails(-32010, "editor.openFile", map[string]string{"path": "/etc/hosts"})
}

func TestBatchAndCommands(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("x"), 0o644)
	c := e.authed()
	c.call("editor.openFile", map[string]string{"path": "a.txt"})
	ch := make(chan json.RawMessage, 1)
	c.mu.Lock()
	c.waits["batch"] = ch
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.ws.Write(ctx, websocket.MessageText, []byte(`[
		{"jsonrpc":"2.0","id":"b1","method":"editor.getActiveFile"},
		{"jsonrpc":"2.0","method":"state.getWorkspace"},
		{"jsonrpc":"2.0","id":"b2","method":"state.getWorkspace"},
		{"jsonrpc":"2.0","id":"b3","method":"no.such"}]`))
	var out []map[string]any
	select {
	case b := <-ch:
		json.Unmarshal(b, &out)
	case <-ctx.Done():
		t.Fatal("no batch answer")
	}
	if len(out) != 3 || out[0]["id"] != "b1" || out[1]["id"] != "b2" || out[2]["error"] == nil {
		t.Fatalf("batch %v", out)
	}
	cmds := c.call("command.list", map[string]string{"filter": "workbench.action.files"})["commands"].([]any)
	if len(cmds) < 2 {
		t.Fatalf("commands %v", cmds)
	}
	c.call("editor.setContent", map[string]string{"path": "a.txt", "content": "saved by command"})
	c.call("command.execute", map[string]any{"command": "workbench.action.files.save"})
	if b, _ := os.ReadFile(filepath.Join(e.root, "a.txt")); string(b) != "saved by command" {
		t.Fatalf("command save %q", b)
	}
	c.fails(-32601, "command.execute", map[string]any{"command": "no.such.command"})
}

func TestTerminal(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.authed()
	id := c.call("terminal.create", map[string]any{"name": "build", "env": map[string]string{"GREETING": "hi"}})["terminalId"].(string)
	c.call("terminal.sendText", map[string]any{"terminalId": id, "text": "echo $GREETING-$((40+2))"})
	c.note(func(n map[string]any) bool {
		p, _ := n["params"].(map[string]any)
		return n["method"] == "terminal.output" && p["terminalId"] == id && strings.Contains(fmt.Sprint(p["data"]), "hi-42")
	})
	if out := c.call("terminal.getOutput", map[string]any{"terminalId": id})["output"].(string); !strings.Contains(out, "hi-42") {
		t.Fatalf("output %q", out)
	}
	if l := c.call("terminal.list", nil)["terminals"].([]any); len(l) != 1 || l[0].(map[string]any)["name"] != "build" || l[0].(map[string]any)["processId"] == nil {
		t.Fatalf("list %v", l)
	}
	if a := c.call("terminal.getActive", nil); a["terminalId"] != id {
		t.Fatalf("active %v", a)
	}
	// a destructive command typed into a terminal is gated like any shell call
	marker := filepath.Join(e.root, "never")
	c.fails(-32011, "terminal.sendText", map[string]any{"terminalId": id, "text": "rm -rf / ; touch " + marker})
	// a command typed after a `cd` is judged where the shell now is: a
	// delete that is fine in the workspace is outside it after `cd /`
	// (the quotes keep the terminal's echo of the typed line from matching)
	c.call("terminal.sendText", map[string]any{"terminalId": id, "text": "cd / && echo at-''root"})
	c.note(func(n map[string]any) bool {
		p, _ := n["params"].(map[string]any)
		return n["method"] == "terminal.output" && p["terminalId"] == id && strings.Contains(fmt.Sprint(p["data"]), "at-root")
	})
	c.fails(-32011, "terminal.sendText", map[string]any{"terminalId": id, "text": "rm -rf warden-nonexistent-x"})
	c.call("terminal.sendText", map[string]any{"terminalId": id, "text": "cd " + e.root})
	c.call("terminal.show", map[string]any{"terminalId": id})
	c.call("terminal.sendText", map[string]any{"terminalId": id, "text": "exit 3"})
	c.note(func(n map[string]any) bool {
		p, _ := n["params"].(map[string]any)
		return n["method"] == "terminal.closed" && p["terminalId"] == id
	})
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the blocked command ran")
	}
	c.fails(-32004, "terminal.sendText", map[string]any{"terminalId": "nope", "text": "ls"})
	c.fails(-32004, "terminal.dispose", map[string]any{"terminalId": "nope"})
	id2 := c.call("terminal.create", nil)["terminalId"].(string)
	c.call("terminal.dispose", map[string]any{"terminalId": id2})
}

func TestSecuritySettings(t *testing.T) {
	f := false
	e := newEnv(t, config.Control{Security: config.ControlSecurity{
		AllowTerminalAccess: &f, RestrictedPaths: []string{"secret/**"}, AllowedMethodCategories: []string{"fs", "editor", "state", "command"},
		RestrictedCommands: []string{"workbench.action.files.saveAll"},
	}}, coretest.Options{})
	c := e.authed()
	c.fails(-32009, "terminal.create", nil)
	c.fails(-32009, "git.status", nil)
	c.fails(-32003, "fs.writeFile", map[string]string{"path": "secret/a", "content": "x"})
	c.call("fs.writeFile", map[string]string{"path": "open/a", "content": "x"})
	c.fails(-32011, "command.execute", map[string]any{"command": "workbench.action.files.saveAll"})

	e2 := newEnv(t, config.Control{Security: config.ControlSecurity{AllowFileSystemAccess: &f}}, coretest.Options{})
	c2 := e2.authed()
	c2.fails(-32009, "fs.readFile", map[string]string{"path": "a"})
}

func TestRequireApproval(t *testing.T) {
	e := newEnv(t, config.Control{Security: config.ControlSecurity{RequireApproval: true}}, coretest.Options{ApprovalTimeout: time.Minute})
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(e.root, "b.txt"), []byte("x"), 0o644)
	c := e.authed()
	// each answers the next approval on the bus: the delete waits for it
	resolve := func(allow bool) {
		res := approval.Resolution{Outcome: approval.Denied, Reason: "no", By: "test"}
		if allow {
			res = approval.Resolution{Outcome: approval.Approved, By: "test"}
		}
		coretest.ResolveWhenAsked(t, e.core, nil, res)
	}
	go resolve(true)
	c.call("fs.deleteFile", map[string]string{"path": "a.txt"})
	if _, err := os.Stat(filepath.Join(e.root, "a.txt")); !os.IsNotExist(err) {
		t.Fatal("approved delete did not happen")
	}
	go resolve(false)
	c.fails(-32006, "fs.deleteFile", map[string]string{"path": "b.txt"})
	if _, err := os.Stat(filepath.Join(e.root, "b.txt")); err != nil {
		t.Fatal("denied delete happened")
	}
	// reads do not wait
	c.call("fs.readFile", map[string]string{"path": "b.txt"})
}

func TestRateLimitAndExpiry(t *testing.T) {
	e := newEnv(t, config.Control{RateLimit: config.RateLimit{RequestsPerSecond: 5}, SessionTimeout: config.Duration(time.Minute)}, coretest.Options{})
	c := e.authed()
	limited := false
	for i := 0; i < 10; i++ {
		m := c.raw("editor.getOpenFiles", nil)
		if e, _ := m["error"].(map[string]any); e != nil && e["code"] == -32007.0 {
			limited = true
		}
	}
	if !limited {
		t.Fatal("10 requests in no time at 5/s were not limited")
	}
	e.clock.add(2 * time.Second)
	c.call("editor.getOpenFiles", nil)
	e.clock.add(2 * time.Minute)
	c.fails(-32008, "editor.getOpenFiles", nil)
	c.fails(-32001, "editor.getOpenFiles", nil)
	c.auth()
	c.call("editor.getOpenFiles", nil)
}

func TestEverythingIsRecorded(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.dial(nil)
	sid := c.auth()
	c.call("fs.writeFile", map[string]string{"path": "a.txt", "content": "x"})
	c.raw("fs.readFile", map[string]string{"path": "/etc/passwd"})
	evs, err := e.core.Events(context.Background(), store.Filter{Session: sid})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ev := range evs {
		types = append(types, string(ev.Type))
		if ev.Source != control.Source || ev.Workspace != e.root {
			t.Fatalf("event %+v", ev)
		}
	}
	// the read outside the workspace is refused by the door, and the
	// refusal is in the log too
	want := "session.start tool.call tool.decision tool.result tool.call tool.decision"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// Each control.security switch holds for every method that reaches the
// same resource, whatever the route (issue 9, item 10).
func TestSecurityHoldsForEveryMethod(t *testing.T) {
	f := false
	e := newEnv(t, config.Control{Security: config.ControlSecurity{AllowFileSystemAccess: &f, AllowTerminalAccess: &f}}, coretest.Options{})
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("secret words"), 0o644)
	c := e.authed()
	for _, m := range []struct {
		method string
		params any
	}{
		{"fs.readFile", map[string]string{"path": "a.txt"}},
		{"editor.openFile", map[string]string{"path": "a.txt"}},
		{"editor.getContent", map[string]string{"path": "a.txt"}},
		{"editor.save", map[string]string{"path": "a.txt"}},
		{"search.findInFiles", map[string]any{"query": "secret"}},
		{"search.findAndReplace", map[string]any{"query": "secret", "replacement": "x"}},
		{"state.getSymbols", map[string]string{"path": "a.txt"}},
		{"git.status", nil},
		{"terminal.create", nil},
		{"debug.startSession", map[string]any{"type": "go", "request": "launch", "program": "."}},
		// the same resources through the command registry
		{"command.execute", map[string]any{"command": "workbench.action.terminal.new", "args": []any{map[string]any{}}}},
		{"command.execute", map[string]any{"command": "vscode.open", "args": []any{"a.txt"}}},
		{"command.execute", map[string]any{"command": "workbench.action.files.revert", "args": []any{"a.txt"}}},
	} {
		c.fails(-32009, m.method, m.params)
	}
	if n := len(e.core.Approvals()); n != 0 {
		t.Fatalf("%d approvals", n)
	}
	// through another door: the MCP door's workspace.executeCommand
	if _, err := e.srv.ExecuteCommand(t.Context(), e.root, "mcp-x", "workbench.action.terminal.new", []json.RawMessage{json.RawMessage(`{}`)}); err == nil || !strings.Contains(err.Error(), "allowTerminalAccess") {
		t.Fatalf("executeCommand terminal.new with terminals off: %v", err)
	}
}

// restrictedPaths are not listed, not searched, and not reachable from a
// terminal (issue 9, item 10).
func TestRestrictedPathsEverywhere(t *testing.T) {
	e := newEnv(t, config.Control{Security: config.ControlSecurity{RestrictedPaths: []string{"secret/**", "**/*.pem"}}}, coretest.Options{})
	os.MkdirAll(filepath.Join(e.root, "secret"), 0o755)
	os.WriteFile(filepath.Join(e.root, "secret", "k"), []byte("needle"), 0o644)
	os.WriteFile(filepath.Join(e.root, "cert.pem"), []byte("needle"), 0o644)
	os.WriteFile(filepath.Join(e.root, "open.txt"), []byte("needle"), 0o644)
	c := e.authed()
	for _, rec := range []bool{false, true} {
		list := c.call("fs.listDirectory", map[string]any{"path": ".", "recursive": rec})["entries"].([]any)
		for _, en := range list {
			p := en.(map[string]any)["path"].(string)
			if strings.Contains(p, "secret/") || strings.HasSuffix(p, ".pem") {
				t.Errorf("listing (recursive %v) shows restricted %s", rec, p)
			}
		}
	}
	res := c.call("search.findInFiles", map[string]any{"query": "needle"})["results"].([]any)
	if len(res) != 1 || !strings.HasSuffix(res[0].(map[string]any)["path"].(string), "open.txt") {
		t.Fatalf("search %v, want open.txt only", res)
	}
	id := c.call("terminal.create", nil)["terminalId"].(string)
	for _, line := range []string{"cat secret/k", "cat " + filepath.Join(e.root, "cert.pem"), "grep -r needle .", "cp -r secret /tmp/x"} {
		c.fails(-32003, "terminal.sendText", map[string]any{"terminalId": id, "text": line})
	}
	c.call("terminal.sendText", map[string]any{"terminalId": id, "text": "cat open.txt"})
}

// A terminal's environment cannot run code, whatever the route: the
// control door, command.execute, or the MCP door's executeCommand.
func TestTerminalEnvironmentRefused(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.authed()
	env := map[string]any{"PROMPT_COMMAND": "cp ~/.ssh/id_rsa /tmp/x"}
	c.fails(-32602, "terminal.create", map[string]any{"env": env})
	c.fails(-32602, "command.execute", map[string]any{"command": "workbench.action.terminal.new", "args": []any{map[string]any{"env": map[string]any{"BASH_ENV": "/tmp/x"}}}})
	_, err := e.srv.ExecuteCommand(t.Context(), e.root, "mcp-x", "workbench.action.terminal.new", []json.RawMessage{json.RawMessage(`{"env":{"LD_PRELOAD":"/tmp/x.so"}}`)})
	if err == nil || !strings.Contains(err.Error(), "LD_PRELOAD") {
		t.Fatalf("executeCommand with LD_PRELOAD: %v", err)
	}
	if list := c.call("terminal.list", nil)["terminals"].([]any); len(list) != 0 {
		t.Fatalf("terminals started: %v", list)
	}
}

// Every refusal is in the log, like the policy's: the door's own settings,
// a terminal's environment, text that cannot be judged, a directory that
// is no registered workspace.
func TestRefusalsAreLogged(t *testing.T) {
	f := false
	e := newEnv(t, config.Control{Security: config.ControlSecurity{AllowCommandExecution: &f, RestrictedPaths: []string{"secret/**"}}}, coretest.Options{})
	c := e.authed()
	c.fails(-32009, "command.execute", map[string]any{"command": "workbench.action.files.saveAll"})
	c.fails(-32003, "fs.readFile", map[string]string{"path": "secret/k"})
	c.fails(-32602, "terminal.create", map[string]any{"env": map[string]any{"BASH_ENV": "/tmp/x"}})
	id := c.call("terminal.create", nil)["terminalId"].(string)
	c.fails(-32602, "terminal.sendText", map[string]any{"terminalId": id, "text": "ls\t"})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http"), &websocket.DialOptions{HTTPHeader: http.Header{"X-Workspace-Path": {"/"}}})
	cancel()
	if err == nil {
		t.Fatal("/ was served")
	}
	evs, err := e.core.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolDecision}})
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string]bool{}
	for _, ev := range evs {
		var d struct {
			Decision, Rule string
		}
		if err := json.Unmarshal(ev.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Decision == "deny" {
			rules[d.Rule] = true
		}
	}
	for _, want := range []string{"control.security", "control.security.restrictedPaths", "warden.terminal-env", "warden.typed-text", "warden.unregistered-workspace"} {
		if !rules[want] {
			t.Errorf("no logged deny with rule %s (logged: %v)", want, rules)
		}
	}
}
