package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/testtools"
)

// The tests of this file and provider_test.go drive the real OpenCode
// (npm opencode-ai@1.18.33, installed by scripts/install-agents.sh) offline,
// with the fake OpenAI-compatible model of internal/fakemodel/openai.

func openCodeBinary(t *testing.T) string {
	t.Helper()
	root, err := testtools.ModuleRoot()
	if err != nil {
		t.Fatalf("module root: %v", err)
	}
	nm := filepath.Join(root, ".cache", "agents", "node_modules")
	for _, p := range []string{
		filepath.Join(nm, "opencode-ai", "bin", "opencode.exe"),
		filepath.Join(nm, "opencode-linux-x64", "bin", "opencode"),
	} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	t.Fatalf("the real OpenCode is not installed under %s: run scripts/install-agents.sh (make test does)", nm)
	return ""
}

// shellScript answers like a model that runs the user's text as a bash
// command: titles get a title, a user turn gets a bash tool call with the
// last user message as the command, a tool result gets "Done.". A user text
// starting with "say " is answered with text instead.
func shellScript(r openai.Request) openai.Reply {
	if len(r.Tools) == 0 {
		return openai.Reply{Text: "Test session"}
	}
	last := r.Messages[len(r.Messages)-1]
	if last.Role != "user" {
		return openai.Reply{Text: "Done."}
	}
	text := strings.TrimSpace(last.Text())
	if rest, ok := strings.CutPrefix(text, "say "); ok {
		return openai.Reply{Text: rest}
	}
	return openai.Reply{Tool: "bash", Args: map[string]any{"command": text, "description": "run it"}}
}

// openCode is one `opencode serve` of a test, in its own HOME and
// workspace, on a port picked for it.
type openCode struct {
	t         *testing.T
	bin       string
	home, dir string
	port      int
	env       []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{} // closed when cmd has exited
}

type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed (and replaced) by every Write
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.wrote != nil {
		close(b.wrote)
		b.wrote = nil
	}
	return b.b.Write(p)
}

// waitFor waits until the output holds s, stop is closed, or ctx ends, and
// reports whether it holds s.
func (b *syncBuffer) waitFor(ctx context.Context, stop <-chan struct{}, s string) bool {
	for {
		b.mu.Lock()
		if strings.Contains(b.b.String(), s) {
			b.mu.Unlock()
			return true
		}
		if b.wrote == nil {
			b.wrote = make(chan struct{})
		}
		wrote := b.wrote
		b.mu.Unlock()
		select {
		case <-wrote:
		case <-stop:
			return strings.Contains(b.String(), s)
		case <-ctx.Done():
			return false
		}
	}
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// newOpenCode starts OpenCode with the fake model; ask makes bash ask for
// permission.
func newOpenCode(t *testing.T, ask bool) *openCode {
	t.Helper()
	model := openai.New(shellScript)
	t.Cleanup(model.Close)
	base := t.TempDir()
	oc := &openCode{t: t, bin: openCodeBinary(t), home: filepath.Join(base, "home"), dir: filepath.Join(base, "workspace"), port: freePort(t)}
	for _, d := range []string{oc.home, oc.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bash := "allow"
	if ask {
		bash = "ask"
	}
	conf, err := json.Marshal(map[string]any{
		"autoupdate": false, "share": "disabled", "enabled_providers": []string{"fake"},
		"model": "fake/fake-model", "small_model": "fake/fake-model",
		"permission": map[string]any{"bash": bash},
		"provider": map[string]any{"fake": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Fake",
			"options": map[string]any{"baseURL": model.URL + "/v1", "apiKey": "dummy"},
			"models": map[string]any{"fake-model": map[string]any{"name": "Fake Model", "tool_call": true,
				"limit": map[string]any{"context": 100000, "output": 4096}}},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	oc.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + oc.home,
		"TMPDIR=" + base,
		"XDG_CONFIG_HOME=" + filepath.Join(oc.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(oc.home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(oc.home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(oc.home, ".local", "state"),
		"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "npm_config_registry=http://127.0.0.1:9/",
		"OPENCODE_CONFIG_CONTENT=" + string(conf),
	}
	t.Cleanup(oc.kill)
	oc.start()
	return oc
}

// start runs `opencode serve` on oc.port and waits until it is healthy.
func (oc *openCode) start() {
	t := oc.t
	t.Helper()
	cmd := exec.Command(oc.bin, "serve", "--port", strconv.Itoa(oc.port), "--hostname", "127.0.0.1")
	cmd.Dir = oc.dir
	cmd.Env = oc.env
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start opencode: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	oc.mu.Lock()
	oc.cmd, oc.out, oc.exited = cmd, out, exited
	oc.mu.Unlock()
	// opencode says when it listens: wait for that line, not on a clock
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if !out.waitFor(ctx, exited, "opencode server listening on") {
		select {
		case <-exited:
			t.Fatalf("opencode exited during start-up:\n%s", out)
		default:
			t.Fatalf("opencode not listening after 60s:\n%s", out)
		}
	}
	v, err := NewClient(baseURL(oc.port), nil, 10*time.Second).Health(ctx)
	if err != nil {
		t.Fatalf("opencode listening but not healthy (%v):\n%s", err, out)
	}
	if v != "1.18.33" {
		t.Fatalf("opencode version %q, want 1.18.33", v)
	}
}

// pid returns the running server's pid.
func (oc *openCode) pid() int {
	oc.mu.Lock()
	defer oc.mu.Unlock()
	if oc.cmd == nil {
		return 0
	}
	return oc.cmd.Process.Pid
}

// kill kills the server's process group and waits until the server has
// exited (its port is then free).
func (oc *openCode) kill() {
	oc.mu.Lock()
	cmd, exited := oc.cmd, oc.exited
	oc.cmd = nil
	oc.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		oc.t.Errorf("opencode (pid %d) did not exit after SIGKILL", cmd.Process.Pid)
	}
}

func (oc *openCode) client() *Client { return NewClient(baseURL(oc.port), nil, 10*time.Second) }

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// nextEvent reads events until one satisfies ok.
func nextEvent(t *testing.T, s *EventStream, what string, ok func(Event) bool) Event {
	t.Helper()
	timer := time.AfterFunc(30*time.Second, func() { s.Close() })
	defer timer.Stop()
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok(ev) {
			return ev
		}
	}
}

func isType(typ, session string) func(Event) bool {
	return func(ev Event) bool {
		if ev.Type != typ {
			return false
		}
		var p struct {
			SessionID string `json:"sessionID"`
		}
		_ = json.Unmarshal(ev.Properties, &p)
		return session == "" || p.SessionID == session
	}
}

func TestClientRealOpenCode(t *testing.T) {
	t.Parallel()
	oc := newOpenCode(t, true)
	ctx := testCtx(t)
	c := oc.client()
	if c.BaseURL() != "http://127.0.0.1:"+strconv.Itoa(oc.port) {
		t.Fatalf("base url %s", c.BaseURL())
	}

	sessions, err := c.Sessions(ctx)
	if err != nil || len(sessions) != 0 {
		t.Fatalf("sessions of a fresh server: %v %v", sessions, err)
	}
	statuses, err := c.SessionStatuses(ctx)
	if err != nil || len(statuses) != 0 {
		t.Fatalf("statuses of a fresh server: %v %v", statuses, err)
	}
	perms, err := c.Permissions(ctx)
	if err != nil || len(perms) != 0 {
		t.Fatalf("permissions of a fresh server: %v %v", perms, err)
	}

	events, err := c.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	nextEvent(t, events, "server.connected", isType("server.connected", ""))

	s, err := c.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.ID, "ses") || s.ParentID != "" || s.Time.Created == 0 {
		t.Fatalf("created session %+v", s)
	}
	ev := nextEvent(t, events, "session.created", isType("session.created", s.ID))
	var created sessionInfoProps
	if err := json.Unmarshal(ev.Properties, &created); err != nil || created.Info.ID != s.ID {
		t.Fatalf("session.created %s: %v", ev.Properties, err)
	}
	sessions, err = c.Sessions(ctx)
	if err != nil || len(sessions) != 1 || sessions[0].ID != s.ID || sessions[0].Directory == "" {
		t.Fatalf("sessions: %+v %v", sessions, err)
	}

	// A prompt whose answer is a bash call: busy, then a pending permission.
	if err := c.PromptAsync(ctx, s.ID, "touch asked.txt"); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "session.status busy", func(ev Event) bool {
		var p sessionStatusProps
		return ev.Type == "session.status" && json.Unmarshal(ev.Properties, &p) == nil && p.SessionID == s.ID && p.Status.Type == SessionBusy
	})
	statuses, err = c.SessionStatuses(ctx)
	if err != nil || statuses[s.ID].Type != SessionBusy {
		t.Fatalf("statuses while working: %v %v", statuses, err)
	}
	ev = nextEvent(t, events, "permission.asked", isType("permission.asked", s.ID))
	var asked PermissionRequest
	if err := json.Unmarshal(ev.Properties, &asked); err != nil {
		t.Fatal(err)
	}
	perms, err = c.Permissions(ctx)
	if err != nil || len(perms) != 1 || perms[0].ID != asked.ID {
		t.Fatalf("pending permissions: %+v %v (event %s)", perms, err, ev.Properties)
	}
	p := perms[0]
	if p.SessionID != s.ID || p.Permission != "bash" || len(p.Patterns) != 1 || p.Patterns[0] != "touch asked.txt" || p.Tool == nil || p.Tool.CallID == "" {
		t.Fatalf("permission %+v", p)
	}

	// Replies: bad ones fail, unknown ids are ErrNotFound, a real one runs
	// the command.
	if err := c.Reply(ctx, p.ID, "maybe"); err == nil {
		t.Fatal("a reply that is not once/always/reject was sent")
	}
	if err := c.Reply(ctx, "per_doesnotexist", agent.ReplyOnce); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reply to an unknown request: %v, want ErrNotFound", err)
	}
	var he *HTTPError
	if err := c.Reply(ctx, "nope", agent.ReplyOnce); !errors.As(err, &he) || he.StatusCode != 400 || errors.Is(err, ErrNotFound) {
		t.Fatalf("reply to a malformed id: %v", err)
	}
	if err := c.Reply(ctx, p.ID, agent.ReplyOnce); err != nil {
		t.Fatal(err)
	}
	ev = nextEvent(t, events, "permission.replied", isType("permission.replied", s.ID))
	var replied struct{ RequestID, Reply string }
	if err := json.Unmarshal(ev.Properties, &replied); err != nil || replied.RequestID != p.ID || replied.Reply != "once" {
		t.Fatalf("permission.replied %s", ev.Properties)
	}
	nextEvent(t, events, "session.idle", isType("session.idle", s.ID))
	if _, err := os.Stat(filepath.Join(oc.dir, "asked.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if err := c.Reply(ctx, p.ID, agent.ReplyOnce); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second reply: %v, want ErrNotFound", err)
	}
	if err := c.PromptAsync(ctx, "ses_doesnotexist", "hi"); err == nil {
		t.Fatal("prompt to an unknown session accepted")
	}
}

// A server that accepts and never answers (OpenCode during start-up): every
// call returns within the timeout.
func TestClientTimeouts(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	c := NewClient("http://"+l.Addr().String()+"/", nil, 200*time.Millisecond)
	ctx := context.Background()
	calls := map[string]func() error{
		"health":      func() error { _, err := c.Health(ctx); return err },
		"sessions":    func() error { _, err := c.Sessions(ctx); return err },
		"statuses":    func() error { _, err := c.SessionStatuses(ctx); return err },
		"permissions": func() error { _, err := c.Permissions(ctx); return err },
		"reply":       func() error { return c.Reply(ctx, "per_1", agent.ReplyOnce) },
		"create":      func() error { _, err := c.CreateSession(ctx); return err },
		"prompt":      func() error { return c.PromptAsync(ctx, "ses_1", "hi") },
		"events":      func() error { _, err := c.Events(ctx); return err },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if err == nil || !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "Timeout") {
			t.Fatalf("%s: %v, want a timeout", name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%s took %v", name, d)
		}
	}
}
