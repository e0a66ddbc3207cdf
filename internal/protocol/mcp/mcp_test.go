package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/protocol/mcp"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/testtools"
)

const token = "test-token-0123456789"

// workspaces is the test's registry: a map of roots and their metadata.
type workspaces struct {
	mu      sync.Mutex
	roots   map[string]bool
	md      map[string]map[string]string
	active  map[string]int
	deleted []string
}

func newWorkspaces(roots ...string) *workspaces {
	w := &workspaces{roots: map[string]bool{}, md: map[string]map[string]string{}, active: map[string]int{}}
	for _, r := range roots {
		w.roots[r] = true
	}
	return w
}

func (w *workspaces) Lookup(p string) (string, bool) {
	p, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return p, w.roots[p]
}

func (w *workspaces) Status(_ context.Context, root string) (any, error) {
	return map[string]any{"path": root, "name": filepath.Base(root), "dirty": false}, nil
}

func (w *workspaces) Metadata(_ context.Context, root string) (map[string]string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for k, v := range w.md[root] {
		out[k] = v
	}
	return out, nil
}

func (w *workspaces) SetMetadata(_ context.Context, root, key string, value *string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.md[root] == nil {
		w.md[root] = map[string]string{}
	}
	if value == nil {
		delete(w.md[root], key)
	} else {
		w.md[root][key] = *value
	}
	return nil
}

func (w *workspaces) Create(_ context.Context, root, name, _ string) (string, error) {
	p := filepath.Join(filepath.Dir(root), name)
	if err := os.Mkdir(p, 0o755); err != nil {
		return "", err
	}
	w.mu.Lock()
	w.roots[p] = true
	w.mu.Unlock()
	return p, nil
}

func (w *workspaces) Delete(_ context.Context, root string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.roots, root)
	w.deleted = append(w.deleted, root)
	return nil
}

func (w *workspaces) MarkActive(root string) {
	w.mu.Lock()
	w.active[root]++
	w.mu.Unlock()
}

func (w *workspaces) deletedRoots() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.deleted)
}

func (w *workspaces) activeCount(root string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.active[root]
}

// commands echoes its command and arguments.
type commands struct{}

func (commands) Execute(_ context.Context, root, command string, args []json.RawMessage) (json.RawMessage, error) {
	if command == "fail" {
		return nil, errors.New("command failed on purpose")
	}
	return json.Marshal(map[string]any{"root": root, "command": command, "args": args})
}

type env struct {
	t    *testing.T
	core *core.Core
	srv  *mcp.Server
	http *httptest.Server
	root string
	ws   *workspaces
	ops  *ops.Service
}

type envOptions struct {
	commands mcp.Commands
	core     coretest.Options
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	c := coretest.New(t, o.core)
	ws := newWorkspaces(root)
	opsSvc := newOps(t, c, ws)
	srv, err := mcp.New(mcp.Options{
		Core: c, Token: token, Workspaces: ws, Commands: o.commands, Version: "test",
		Ops: opsSvc,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		if err := srv.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		hs.Close()
	})
	return &env{t: t, core: c, srv: srv, http: hs, root: root, ws: ws, ops: opsSvc}
}

// approveWhenAsked approves the next approval requested for tool, waiting
// for it on the bus; the channel closes once it is approved.
func approveWhenAsked(t *testing.T, c *core.Core, tool string) <-chan approval.Request {
	t.Helper()
	return coretest.ResolveWhenAsked(t, c, func(a approval.Request) bool { return a.Call.Tool == tool },
		approval.Resolution{Outcome: approval.Approved, By: "test"})
}

// newOps is the operations layer over the test's registry, closed with the
// test.
func newOps(tb testing.TB, c *core.Core, reg ops.Registry) *ops.Service {
	tb.Helper()
	s, err := ops.New(ops.Options{Core: c, Registry: reg, Locate: testtools.Lookup, IndexDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close ops: %v", err)
		}
	})
	return s
}

// headers adds fixed headers to every request.
type headers struct {
	h    map[string]string
	base http.RoundTripper
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.h {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// connect opens an MCP session with the token and the workspace header
// (none when workspace is "").
func (e *env) connect(workspace string) *sdk.ClientSession {
	e.t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	if workspace != "" {
		h[mcp.WorkspaceHeader] = workspace
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "warden-test", Version: "1"}, nil)
	tr := &sdk.StreamableClientTransport{
		Endpoint:   e.http.URL + "/mcp",
		HTTPClient: &http.Client{Transport: headers{h: h, base: e.http.Client().Transport}},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns its result (a protocol error fails the test).
func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// ok calls a tool that must succeed and returns its text.
func ok(t *testing.T, cs *sdk.ClientSession, name string, args any) string {
	t.Helper()
	res := call(t, cs, name, args)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", name, args, text(res))
	}
	return text(res)
}

// fails calls a tool that must fail with a tool error containing every want.
func fails(t *testing.T, cs *sdk.ClientSession, name string, args any, want ...string) string {
	t.Helper()
	res := call(t, cs, name, args)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded: %s", name, args, text(res))
	}
	s := text(res)
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s(%v) error %q does not contain %q", name, args, s, w)
		}
	}
	return s
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListTools(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := e.connect("")
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range mcp.ToolNames() {
		if byName[name] == nil {
			t.Errorf("tool %s missing from tools/list", name)
		}
	}
	if len(res.Tools) != len(mcp.ToolNames()) {
		t.Errorf("tools/list has %d tools, want %d", len(res.Tools), len(mcp.ToolNames()))
	}
	props := map[string][]string{
		"fs.readFile":              {"path"},
		"fs.writeFile":             {"path", "content"},
		"fs.editFile":              {"path", "oldString", "newString", "replaceAll"},
		"fs.listDirectory":         {"path"},
		"search.text":              {"query", "regex", "caseSensitive", "include", "maxResults"},
		"search.code":              {"query", "limit"},
		"search.symbols":           {"name", "kind", "caseSensitive", "limit"},
		"git.diff":                 {"staged", "path"},
		"git.log":                  {"maxCount"},
		"lsp.definition":           {"path", "line", "character"},
		"lsp.references":           {"path", "line", "character"},
		"lsp.symbols":              {"path"},
		"lsp.diagnostics":          {"path"},
		"workspace.setMetadata":    {"key", "value"},
		"workspace.create":         {"name", "base"},
		"workspace.executeCommand": {"command", "args"},
	}
	for name, want := range props {
		tool := byName[name]
		if tool == nil {
			continue
		}
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		if schema.Type != "object" {
			t.Errorf("%s: schema type %q", name, schema.Type)
		}
		for _, p := range want {
			prop, ok := schema.Properties[p]
			if !ok {
				t.Errorf("%s: schema %s has no property %q", name, b, p)
				continue
			}
			if prop.Description == "" {
				t.Errorf("%s: property %q has no description", name, p)
			}
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", name)
		}
	}
	var schema struct {
		Required []string `json:"required"`
	}
	b, _ := json.Marshal(byName["fs.editFile"].InputSchema)
	_ = json.Unmarshal(b, &schema)
	slices.Sort(schema.Required)
	if !slices.Equal(schema.Required, []string{"newString", "oldString", "path"}) {
		t.Errorf("fs.editFile required = %v", schema.Required)
	}
}

func TestFiles(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := e.connect(e.root)

	if got := ok(t, cs, "fs.writeFile", map[string]any{"path": "src/a.txt", "content": "hello\nworld\n"}); !strings.Contains(got, "wrote 12 bytes") {
		t.Errorf("writeFile said %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "src/a.txt")); string(b) != "hello\nworld\n" {
		t.Fatalf("file holds %q", b)
	}
	if got := ok(t, cs, "fs.readFile", map[string]any{"path": filepath.Join(e.root, "src/a.txt")}); got != "hello\nworld\n" {
		t.Errorf("readFile (absolute) = %q", got)
	}
	ok(t, cs, "fs.editFile", map[string]any{"path": "src/a.txt", "oldString": "world", "newString": "there"})
	if got := ok(t, cs, "fs.readFile", map[string]any{"path": "./src/a.txt"}); got != "hello\nthere\n" {
		t.Errorf("after edit = %q", got)
	}
	fails(t, cs, "fs.editFile", map[string]any{"path": "src/a.txt", "oldString": "nowhere", "newString": "x"}, "oldString not found")
	ok(t, cs, "fs.writeFile", map[string]any{"path": "b.txt", "content": "x x x"})
	fails(t, cs, "fs.editFile", map[string]any{"path": "b.txt", "oldString": "x", "newString": "y"}, "occurs 3 times", "replaceAll")
	if got := ok(t, cs, "fs.editFile", map[string]any{"path": "b.txt", "oldString": "x", "newString": "y", "replaceAll": true}); !strings.Contains(got, "3 replacements") {
		t.Errorf("replaceAll said %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "b.txt")); string(b) != "y y y" {
		t.Errorf("b.txt holds %q", b)
	}
	fails(t, cs, "fs.readFile", map[string]any{"path": "missing.txt"}, "no such file")
	fails(t, cs, "fs.readFile", map[string]any{"path": "src"}, "is a directory")
	writeFile(t, filepath.Join(e.root, "big.bin"), strings.Repeat("x", mcp.MaxReadBytes+1))
	fails(t, cs, "fs.readFile", map[string]any{"path": "big.bin"}, "more than")
	if err := os.Remove(filepath.Join(e.root, "big.bin")); err != nil {
		t.Fatal(err)
	}
	fails(t, cs, "fs.editFile", map[string]any{"path": "b.txt", "newString": "y"}, "oldString")

	res := call(t, cs, "fs.listDirectory", map[string]any{})
	var list struct {
		Entries []struct{ Name, Type string } `json:"entries"`
	}
	if err := json.Unmarshal([]byte(text(res)), &list); err != nil || res.IsError {
		t.Fatalf("listDirectory: %v %s", err, text(res))
	}
	if len(list.Entries) != 2 || list.Entries[0].Name != "b.txt" || list.Entries[1].Name != "src" || list.Entries[1].Type != "directory" {
		t.Errorf("listDirectory = %+v", list.Entries)
	}
	if res.StructuredContent == nil {
		t.Error("listDirectory has no structured content")
	}

	got := ok(t, cs, "search.text", map[string]any{"query": "HELLO"})
	if !strings.Contains(got, `"path":"src/a.txt"`) || !strings.Contains(got, `"preview":"hello"`) {
		t.Errorf("search.text = %s", got)
	}
	if got := ok(t, cs, "search.text", map[string]any{"query": "HELLO", "caseSensitive": true}); !strings.Contains(got, `"results":[]`) {
		t.Errorf("case-sensitive search = %s", got)
	}
	if got := ok(t, cs, "search.text", map[string]any{"query": "^y y", "regex": true, "include": "*.txt"}); !strings.Contains(got, `"path":"b.txt"`) {
		t.Errorf("regex search = %s", got)
	}
	fails(t, cs, "search.text", map[string]any{"query": "(", "regex": true}, "invalid search query")

	// The code index: ranked and symbol search see what was just written.
	ok(t, cs, "fs.writeFile", map[string]any{"path": "pkg/limit.go", "content": "package pkg\n\n// allowRequest reports whether the rate limiter lets one more request through.\nfunc allowRequest() bool { return true }\n"})
	ok(t, cs, "fs.writeFile", map[string]any{"path": ".env", "content": "TOKEN=limiter-secret\n"})
	if got := ok(t, cs, "search.code", map[string]any{"query": "rate limiter request"}); !strings.Contains(got, `"path":"pkg/limit.go"`) || !strings.Contains(got, `"symbol":"allowRequest"`) || strings.Contains(got, ".env") {
		t.Errorf("search.code = %s", got)
	}
	if got := ok(t, cs, "search.symbols", map[string]any{"name": "allowReq"}); !strings.Contains(got, `"kind":"function"`) || !strings.Contains(got, `"line":3`) {
		t.Errorf("search.symbols = %s", got)
	}
	if got := ok(t, cs, "search.code", map[string]any{"query": "mode:literal limiter"}); strings.Contains(got, ".env") || !strings.Contains(got, "pkg/limit.go") {
		t.Errorf("literal search.code = %s", got)
	}
	fails(t, cs, "search.code", map[string]any{"query": "mode:fuzzy x"}, "invalid query syntax")
	fails(t, cs, "search.symbols", map[string]any{"name": ""}, "name is required")
}

func TestSandbox(t *testing.T) {
	e := newEnv(t, envOptions{})
	cs := e.connect(e.root)
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "file:///etc/passwd", "a/../../x"} {
		fails(t, cs, "fs.readFile", map[string]any{"path": p}, "outside the workspace")
		fails(t, cs, "fs.writeFile", map[string]any{"path": p, "content": "x"}, "outside the workspace")
	}
	// a symlink out of the workspace is refused by the os.Root sandbox
	outside := filepath.Join(filepath.Dir(e.root), "outside")
	writeFile(t, filepath.Join(outside, "secret.txt"), "top secret")
	if err := os.Symlink(outside, filepath.Join(e.root, "link")); err != nil {
		t.Fatal(err)
	}
	s := fails(t, cs, "fs.readFile", map[string]any{"path": "link/secret.txt"}, "escapes the workspace")
	if strings.Contains(s, "top secret") {
		t.Fatal("read through a symlink out of the workspace")
	}
	fails(t, cs, "fs.writeFile", map[string]any{"path": "link/new.txt", "content": "x"}, "escapes the workspace")
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("wrote through a symlink out of the workspace")
	}
}

func TestPolicyDeny(t *testing.T) {
	e := newEnv(t, envOptions{})
	writeFile(t, filepath.Join(e.root, ".env"), "API_KEY=hunter2")
	cs := e.connect(e.root)
	s := fails(t, cs, "fs.readFile", map[string]any{"path": ".env"}, "blocked by policy rule secret-read")
	if strings.Contains(s, "hunter2") {
		t.Fatal("denied read returned the secret")
	}
	fails(t, cs, "fs.writeFile", map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}, "blocked by policy rule")
	if _, err := os.Stat(filepath.Join(e.root, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("denied write happened")
	}

	// the tool error carries the policy's reason as recorded
	evs, err := e.core.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolCall, event.ToolDecision}})
	if err != nil {
		t.Fatal(err)
	}
	var reason string
	var calls, decisions int
	for _, ev := range evs {
		if ev.Source != mcp.Source || ev.Workspace != e.root || !strings.HasPrefix(ev.Session, "mcp-") {
			t.Errorf("event %s: source %q workspace %q session %q", ev.Type, ev.Source, ev.Workspace, ev.Session)
		}
		var d map[string]any
		_ = json.Unmarshal(ev.Data, &d)
		switch ev.Type {
		case event.ToolCall:
			calls++
			if calls == 1 && (d["tool"] != "read" || !strings.HasSuffix(fmt.Sprint(d["args"]), ".env]")) {
				t.Errorf("first tool.call = %s", ev.Data)
			}
		case event.ToolDecision:
			decisions++
			if decisions == 1 {
				reason, _ = d["reason"].(string)
				if d["decision"] != "deny" || d["rule"] != "secret-read" {
					t.Errorf("first tool.decision = %s", ev.Data)
				}
			}
		}
	}
	if calls != 2 || decisions != 2 {
		t.Errorf("%d tool.call and %d tool.decision events, want 2 and 2", calls, decisions)
	}
	if reason == "" || !strings.Contains(s, reason) {
		t.Errorf("tool error %q does not carry the policy's reason %q", s, reason)
	}
}

func TestAuthAndHost(t *testing.T) {
	e := newEnv(t, envOptions{})
	post := func(path string, h map[string]string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, e.http.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := e.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	jsonError := func(body string) string {
		var m map[string]string
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Errorf("body %q is not JSON: %v", body, err)
		}
		return m["error"]
	}
	code, body := post("/mcp", nil)
	if code != http.StatusUnauthorized || !strings.Contains(jsonError(body), "/token") {
		t.Errorf("no token: %d %s", code, body)
	}
	code, body = post("/mcp", map[string]string{"Authorization": "Bearer wrong"})
	if code != http.StatusUnauthorized || !strings.Contains(jsonError(body), "Authorization: Bearer") {
		t.Errorf("wrong token: %d %s", code, body)
	}
	code, body = post("/", map[string]string{"Authorization": token})
	if code != http.StatusUnauthorized {
		t.Errorf("token without Bearer: %d %s", code, body)
	}
	auth := "Bearer " + token
	code, body = post("/mcp", map[string]string{"Authorization": auth, "Host": "evil.example.com"})
	if code != http.StatusForbidden || jsonError(body) == "" {
		t.Errorf("bad Host: %d %s", code, body)
	}
	code, body = post("/mcp", map[string]string{"Authorization": auth, "Host": "evil.example.com:80"})
	if code != http.StatusForbidden {
		t.Errorf("bad Host with port: %d %s", code, body)
	}
	code, body = post("/mcp", map[string]string{"Authorization": auth, "Origin": "https://evil.example.com"})
	if code != http.StatusForbidden || jsonError(body) == "" {
		t.Errorf("bad Origin: %d %s", code, body)
	}
	code, body = post("/other", map[string]string{"Authorization": auth})
	if code != http.StatusNotFound {
		t.Errorf("other path: %d %s", code, body)
	}
	// good requests reach the SDK on /mcp and / with loopback Host names
	for _, h := range []map[string]string{
		{"Authorization": auth},
		{"Authorization": "bearer " + token, "Host": "localhost:1234"},
		{"Authorization": auth, "Host": "[::1]:9", "Origin": "http://127.0.0.1:3000"},
	} {
		for _, path := range []string{"/mcp", "/"} {
			code, body = post(path, h)
			// no session: the SDK answers 400 (an initialize is needed first)
			if code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound {
				t.Errorf("%s %v: %d %s", path, h, code, body)
			}
		}
	}
	// the body limit
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"`+strings.Repeat("a", mcp.MaxBodyBytes)+`"}}`))
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("oversized body: %d", resp.StatusCode)
	}
}

func TestWorkspaceHeader(t *testing.T) {
	e := newEnv(t, envOptions{})
	none := e.connect("")
	fails(t, none, "fs.readFile", map[string]any{"path": "a"}, mcp.WorkspaceHeader)
	fails(t, none, "workspace.getStatus", map[string]any{}, mcp.WorkspaceHeader)

	other := t.TempDir()
	unreg := e.connect(other)
	fails(t, unreg, "fs.listDirectory", map[string]any{}, "not a registered workspace", "warden workspace add "+other)
	if n := e.ws.activeCount(other); n != 0 {
		t.Errorf("unregistered workspace marked active %d times", n)
	}

	if n := e.ws.activeCount(e.root); n != 0 {
		t.Fatalf("marked active before any request: %d", n)
	}
	// a path naming the root through a symlink resolves to it
	link := filepath.Join(filepath.Dir(e.root), "ws-link")
	if err := os.Symlink(e.root, link); err != nil {
		t.Fatal(err)
	}
	cs := e.connect(link)
	ok(t, cs, "workspace.getStatus", map[string]any{})
	first := e.ws.activeCount(e.root)
	if first == 0 {
		t.Fatal("a request naming the workspace did not mark it active")
	}
	// Every request marks it, not only the first of the daemon's life: an
	// agent stopped and started again (a new provider, status none) is seen
	// as soon as the new one reaches warden.
	cs2 := e.connect(e.root)
	ok(t, cs2, "fs.listDirectory", map[string]any{})
	if n := e.ws.activeCount(e.root); n <= first {
		t.Errorf("MarkActive called %d times after a second agent's requests, want more than %d", n, first)
	}
}

func TestWorkspaceTools(t *testing.T) {
	e := newEnv(t, envOptions{core: coretest.Options{ApprovalTimeout: time.Minute}})
	cs := e.connect(e.root)

	got := ok(t, cs, "workspace.getStatus", map[string]any{})
	if !strings.Contains(got, `"path":"`+e.root+`"`) {
		t.Errorf("getStatus = %s", got)
	}
	if got := ok(t, cs, "workspace.getMetadata", map[string]any{}); got != `{"metadata":{}}` {
		t.Errorf("empty metadata = %s", got)
	}
	ok(t, cs, "workspace.setMetadata", map[string]any{"key": "task", "value": "fix the bug"})
	ok(t, cs, "workspace.setMetadata", map[string]any{"key": "owner", "value": "ana"})
	res := call(t, cs, "workspace.getMetadata", map[string]any{})
	if text(res) != `{"metadata":{"owner":"ana","task":"fix the bug"}}` {
		t.Errorf("metadata = %s", text(res))
	}
	if res.StructuredContent == nil {
		t.Error("getMetadata has no structured content")
	}
	ok(t, cs, "workspace.setMetadata", map[string]any{"key": "owner", "value": nil})
	ok(t, cs, "workspace.setMetadata", map[string]any{"key": "task"})
	if got := ok(t, cs, "workspace.getMetadata", map[string]any{}); got != `{"metadata":{}}` {
		t.Errorf("metadata after deletes = %s", got)
	}
	fails(t, cs, "workspace.setMetadata", map[string]any{"key": ""}, "key is required")

	// an agent's workspace.create asks a person (workspace-create)
	approved := approveWhenAsked(t, e.core, "workspace.create")
	got = ok(t, cs, "workspace.create", map[string]any{"name": "feature"})
	<-approved
	want := filepath.Join(filepath.Dir(e.root), "feature")
	if !strings.Contains(got, want) {
		t.Errorf("create = %s, want path %s", got, want)
	}

	fails(t, cs, "workspace.executeCommand", map[string]any{"command": "editor.save"}, "no command runner: the control door is off")

	// workspace.delete asks a person (delete-workspace-root): a refusal
	// keeps it, an approval deletes it
	resolve := func(allow bool) {
		res := approval.Resolution{Outcome: approval.Denied, Reason: "keep it", By: "test"}
		if allow {
			res = approval.Resolution{Outcome: approval.Approved, By: "test"}
		}
		coretest.ResolveWhenAsked(t, e.core, func(a approval.Request) bool {
			if a.Call.Tool != "bash" || !strings.Contains(fmt.Sprint(a.Call.Args["command"]), "rm -rf -- "+e.root) {
				t.Errorf("approval for %+v", a.Call)
			}
			return true
		}, res)
	}
	go resolve(false)
	fails(t, cs, "workspace.delete", map[string]any{}, "was not approved", "delete-workspace-root")
	if len(e.ws.deletedRoots()) != 0 {
		t.Fatal("refused delete happened")
	}
	go resolve(true)
	ok(t, cs, "workspace.delete", map[string]any{})
	if got := e.ws.deletedRoots(); !slices.Equal(got, []string{e.root}) {
		t.Fatalf("deleted = %v", got)
	}
	fails(t, cs, "workspace.getStatus", map[string]any{}, "not a registered workspace")

	// the acting tools recorded their results
	evs, err := e.core.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolResult}})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, ev := range evs {
		var d struct {
			MCPTool string `json:"mcpTool"`
			Success bool   `json:"success"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		if ev.Source != mcp.Source || !d.Success {
			t.Errorf("tool.result %s from %s", ev.Data, ev.Source)
		}
		tools = append(tools, d.MCPTool)
	}
	wantTools := []string{"workspace.setMetadata", "workspace.setMetadata", "workspace.setMetadata", "workspace.setMetadata", "workspace.create", "workspace.delete"}
	if !slices.Equal(tools, wantTools) {
		t.Errorf("tool.result events for %v, want %v", tools, wantTools)
	}
}

func TestExecuteCommand(t *testing.T) {
	e := newEnv(t, envOptions{commands: commands{}})
	cs := e.connect(e.root)
	got := ok(t, cs, "workspace.executeCommand", map[string]any{"command": "editor.format", "args": []any{"a.go", 2, map[string]any{"x": true}}})
	want := `{"args":["a.go",2,{"x":true}],"command":"editor.format","root":"` + e.root + `"}`
	if got != want {
		t.Errorf("executeCommand = %s, want %s", got, want)
	}
	fails(t, cs, "workspace.executeCommand", map[string]any{"command": "fail"}, "command failed on purpose")
	evs, err := e.core.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolCall}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || !strings.Contains(string(evs[0].Data), `"tool":"command"`) || !strings.Contains(string(evs[0].Data), `"command":"editor.format"`) {
		t.Errorf("tool.call events: %v", evs)
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com", "GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestGit(t *testing.T) {
	e := newEnv(t, envOptions{})
	git(t, e.root, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(e.root, "a.txt"), "one\n")
	git(t, e.root, "add", "a.txt")
	git(t, e.root, "commit", "-q", "-m", "first commit")
	writeFile(t, filepath.Join(e.root, "a.txt"), "two\n")
	writeFile(t, filepath.Join(e.root, "b.txt"), "new\n")

	cs := e.connect(e.root)
	got := ok(t, cs, "git.status", map[string]any{})
	var st struct {
		Branch  string `json:"branch"`
		Changes []struct {
			Path string `json:"path"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(got), &st); err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || len(st.Changes) != 2 {
		t.Errorf("git.status = %s", got)
	}
	diff := ok(t, cs, "git.diff", map[string]any{})
	if !strings.Contains(diff, "-one") || !strings.Contains(diff, "+two") {
		t.Errorf("git.diff = %s", diff)
	}
	if got := ok(t, cs, "git.diff", map[string]any{"staged": true}); got != "(no changes)" {
		t.Errorf("staged diff = %q", got)
	}
	if got := ok(t, cs, "git.diff", map[string]any{"path": "b.txt"}); got != "(no changes)" {
		t.Errorf("diff of untracked b.txt = %q", got)
	}
	fails(t, cs, "git.diff", map[string]any{"path": "../x"}, "outside the workspace")
	log := ok(t, cs, "git.log", map[string]any{"maxCount": 5})
	if !strings.Contains(log, `"message":"first commit"`) {
		t.Errorf("git.log = %s", log)
	}

	evs, err := e.core.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolCall}})
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, ev := range evs {
		var d struct {
			Tool string `json:"tool"`
			Args struct {
				Command string `json:"command"`
			} `json:"args"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		if d.Tool != "bash" {
			t.Errorf("git tool gated as %q", d.Tool)
		}
		cmds = append(cmds, d.Args.Command)
	}
	want := []string{"git status", "git diff", "git diff --staged", "git diff -- b.txt", "git log -n 5"}
	if !slices.Equal(cmds, want) {
		t.Errorf("gated commands %q, want %q", cmds, want)
	}
}

func TestLSP(t *testing.T) {
	testtools.Find(t, "gopls")
	e := newEnv(t, envOptions{})
	writeFile(t, filepath.Join(e.root, "go.mod"), "module example.com/demo\n\ngo 1.22\n")
	src := "package main\n\nfunc greet() string { return \"hi\" }\n\nfunc main() {\n\t_ = greet()\n}\n"
	writeFile(t, filepath.Join(e.root, "main.go"), src)
	cs := e.connect(e.root)

	// the call greet() on line 5, character 5
	got := ok(t, cs, "lsp.definition", map[string]any{"path": "main.go", "line": 5, "character": 5})
	var defs struct {
		Locations []struct {
			Path  string `json:"path"`
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"locations"`
	}
	if err := json.Unmarshal([]byte(got), &defs); err != nil {
		t.Fatal(err)
	}
	if len(defs.Locations) != 1 || defs.Locations[0].Path != filepath.Join(e.root, "main.go") || defs.Locations[0].Range.Start.Line != 2 || defs.Locations[0].Range.Start.Character != 5 {
		t.Errorf("lsp.definition = %s", got)
	}

	got = ok(t, cs, "lsp.references", map[string]any{"path": "main.go", "line": 2, "character": 6})
	if n := strings.Count(got, `"path"`); n != 2 {
		t.Errorf("lsp.references found %d locations: %s", n, got)
	}
	got = ok(t, cs, "lsp.symbols", map[string]any{"path": "main.go"})
	if !strings.Contains(got, `"name":"greet"`) || !strings.Contains(got, `"name":"main"`) {
		t.Errorf("lsp.symbols = %s", got)
	}
	if got := ok(t, cs, "lsp.diagnostics", map[string]any{"path": "main.go"}); !strings.Contains(got, `"diagnostics":[]`) {
		t.Errorf("diagnostics of a good file = %s", got)
	}
	// an edit through the door reaches the language server
	ok(t, cs, "fs.editFile", map[string]any{"path": "main.go", "oldString": "_ = greet()", "newString": "_ = greet(1)"})
	// the door's first ask sends the change to gopls, which publishes more
	// than once per change (parse errors, then type errors): wait for its
	// publication of the type error, then ask the door again
	ok(t, cs, "lsp.diagnostics", map[string]any{"path": "main.go"})
	w, err := e.ops.Workspace(e.root)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := w.LSP().WaitDiagnostics(wctx, lsp.URIFromPath(filepath.Join(e.root, "main.go")), func(ds []protocol.Diagnostic) bool {
		return slices.ContainsFunc(ds, func(d protocol.Diagnostic) bool { return strings.Contains(d.Message, "greet") })
	}); err != nil {
		t.Fatalf("gopls published no diagnostics naming greet after the bad edit: %v", err)
	}
	diags := ok(t, cs, "lsp.diagnostics", map[string]any{"path": "main.go"})
	if !strings.Contains(diags, `"severity":"error"`) || !strings.Contains(diags, "greet") {
		t.Errorf("diagnostics after a bad edit = %s", diags)
	}
	fails(t, cs, "lsp.definition", map[string]any{"path": "main.go", "line": -1, "character": 0}, "must not be negative")
	fails(t, cs, "lsp.symbols", map[string]any{"path": "../../etc/passwd"}, "outside the workspace")
	writeFile(t, filepath.Join(e.root, ".env"), "K=v")
	fails(t, cs, "lsp.symbols", map[string]any{"path": ".env"}, "secret-read")
}
