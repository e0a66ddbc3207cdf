package terminal

import (
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/testtools"
)

func TestMain(m *testing.M) {
	// warden serve catches SIGHUP (it reloads), so the shells it starts get
	// SIGHUP's default action. A test binary run under nohup would instead
	// hand them an ignored SIGHUP, and a disposed terminal's job would
	// outlive it: catch it here as the daemon does.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	goleak.VerifyTestMain(m)
}

const waitFor = 10 * time.Second

// recorder collects callback traffic for one Manager.
type recorder struct {
	mu     sync.Mutex
	chunks map[string]*strings.Builder
	kick   chan struct{} // signalled (non-blocking) on every callback
	closed map[string]chan int
}

func newRecorder() *recorder {
	return &recorder{chunks: map[string]*strings.Builder{}, kick: make(chan struct{}, 1), closed: map[string]chan int{}}
}

func (r *recorder) onOutput(id, data string) {
	r.mu.Lock()
	b := r.chunks[id]
	if b == nil {
		b = &strings.Builder{}
		r.chunks[id] = b
	}
	b.WriteString(data)
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *recorder) closedCh(id string) chan int {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.closed[id]
	if c == nil {
		c = make(chan int, 1)
		r.closed[id] = c
	}
	return c
}

func (r *recorder) onClosed(id string, code int) { r.closedCh(id) <- code }

func (r *recorder) streamed(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.chunks[id]; b != nil {
		return b.String()
	}
	return ""
}

// until checks cond on every output callback until it holds or the deadline
// passes. The terminal keeps output before it calls back, so a callback is
// the only moment cond can change.
func (r *recorder) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-r.kick:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (r *recorder) waitClosed(t *testing.T, id string) int {
	t.Helper()
	select {
	case code := <-r.closedCh(id):
		return code
	case <-time.After(waitFor):
		t.Fatalf("terminal %s: no OnClosed", id)
		return 0
	}
}

const prompt = "PROMPT> "

// lines splits terminal output into complete lines of plain text (escape
// sequences and carriage returns removed); the partial last line is dropped.
func lines(out string) []string {
	ls := strings.SplitAfter(StripANSI(out), "\n")
	var res []string
	for _, l := range ls {
		if strings.HasSuffix(l, "\n") {
			res = append(res, strings.Trim(l, "\r\n"))
		}
	}
	return res
}

// hasLine reports whether out holds a complete line equal to want.
func hasLine(out, want string) bool {
	for _, l := range lines(out) {
		if l == want {
			return true
		}
	}
	return false
}

func newTestManager(t *testing.T, cfg Config) (*Manager, *recorder) {
	t.Helper()
	rec := newRecorder()
	cfg.Shell = "/bin/bash"
	cfg.ShellArgs = []string{"--norc", "--noprofile"}
	if cfg.Env == nil {
		cfg.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PS1=" + prompt, "LC_ALL=C"}
	}
	cfg.OnOutput = rec.onOutput
	cfg.OnClosed = rec.onClosed
	m := NewManager(cfg)
	t.Cleanup(func() { _ = m.Close() })
	return m, rec
}

func TestEchoStreamsAndBuffers(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	term, err := m.Create(Options{Name: "build"})
	if err != nil {
		t.Fatal(err)
	}
	if term.ID == "" || term.Name != "build" || term.ProcessID <= 0 {
		t.Fatalf("terminal = %+v", term)
	}
	if err := term.SendText("echo hello-$((40+2))", true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "hello-42 in OnOutput", func() bool { return strings.Contains(rec.streamed(term.ID), "hello-42") })
	// The echoed command line does not contain the result; the result
	// line does, once its line break has come (the PTY may hand the text
	// and its "\r\n" over in two reads).
	rec.until(t, "hello-42 as a line of Output", func() bool { return hasLine(term.Output(0), "hello-42") })
	if got, _ := m.Get(term.ID); got != term {
		t.Fatal("Get returned another terminal")
	}
}

func TestCwdAndEnv(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	term, err := m.Create(Options{Cwd: dir, Env: map[string]string{"FOO": "bar baz"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := term.SendText(`pwd; echo "foo=[$FOO]"`, true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "pwd and FOO", func() bool {
		out := term.Output(0)
		return hasLine(out, dir) && hasLine(out, "foo=[bar baz]")
	})
}

func TestDirFollowsCd(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	term, err := m.Create(Options{Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := term.Dir(); got != dir {
		t.Fatalf("Dir at start = %q, want %q", got, dir)
	}
	if err := term.SendText("cd sub && echo moved", true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "the cd to run", func() bool { return hasLine(term.Output(0), "moved") })
	if got := term.Dir(); got != sub {
		t.Fatalf("Dir after cd = %q, want %q", got, sub)
	}
}

func TestRingKeepsLastThousandLines(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	term, err := m.Create(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := term.SendText("seq 1 1500; echo done-$((1+1))", true); err != nil {
		t.Fatal(err)
	}
	// Wait for the prompt after done-2, so the buffer holds exactly:
	// 503..1500 (998 lines), "done-2", and the partial prompt line.
	rec.until(t, "prompt after done-2", func() bool {
		out := term.Output(0)
		i := strings.LastIndex(out, "done-2\r\n")
		return i >= 0 && strings.Contains(out[i:], prompt)
	})
	out := term.Output(0)
	lines := strings.SplitAfter(out, "\n")
	if len(lines) != DefaultMaxLines {
		t.Fatalf("%d lines, want %d", len(lines), DefaultMaxLines)
	}
	if lines[0] != "503\r\n" || lines[997] != "1500\r\n" || lines[998] != "done-2\r\n" {
		t.Fatalf("first %q, 998th %q, 999th %q", lines[0], lines[997], lines[998])
	}
	if !strings.HasSuffix(StripANSI(lines[999]), prompt) {
		t.Fatalf("last line %q", lines[999])
	}
	if got := term.Output(2); !strings.HasPrefix(got, "done-2\r\n") || strings.Count(got, "\n") != 1 {
		t.Fatalf("Output(2) = %q", got)
	}
}

func TestExitCode(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	term, err := m.Create(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := term.SendText("exit 3", true); err != nil {
		t.Fatal(err)
	}
	if code := rec.waitClosed(t, term.ID); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	<-term.Done()
	if code, ok := term.ExitCode(); !ok || code != 3 {
		t.Fatalf("ExitCode = %d, %v", code, ok)
	}
	if _, err := m.Get(term.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after exit: %v", err)
	}
	if len(m.List()) != 0 {
		t.Fatal("exited terminal still listed")
	}
	if err := term.SendText("echo x", true); !errors.Is(err, ErrClosed) {
		t.Fatalf("SendText after exit: %v", err)
	}
	if !strings.Contains(term.Output(0), "exit 3") {
		t.Fatalf("output lost after exit: %q", term.Output(0))
	}
}

func TestDisposeKillsRunningCommand(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	term, err := m.Create(Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A foreground job in its own process group: sh prints its pid, then
	// becomes sleep.
	if err := term.SendText(`sh -c 'echo sleeper=$$; exec sleep 100'`, true); err != nil {
		t.Fatal(err)
	}
	var pid int
	rec.until(t, "sleeper pid", func() bool {
		for _, l := range lines(term.Output(0)) {
			if n, ok := strings.CutPrefix(l, "sleeper="); ok {
				pid, _ = strconv.Atoi(n)
			}
		}
		return pid > 0
	})
	start := time.Now()
	if err := m.Dispose(term.ID); err != nil {
		t.Fatal(err)
	}
	if code := rec.waitClosed(t, term.ID); code != -1 {
		t.Fatalf("exit code %d, want -1 (signal)", code)
	}
	if d := time.Since(start); d >= DefaultKillTimeout {
		t.Fatalf("dispose took %v; SIGHUP should have been enough", d)
	}
	// the sleeper is the shell's child, not ours: wait for its exit on a pidfd
	testtools.WaitExit(t, pid, waitFor)
	if err := m.Dispose(term.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Dispose: %v", err)
	}
}

func TestDisposeEscalatesToKill(t *testing.T) {
	m, rec := newTestManager(t, Config{KillTimeout: 300 * time.Millisecond})
	term, err := m.Create(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := term.SendText(`trap '' HUP; echo trapped-$((1+1))`, true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "trap set", func() bool { return strings.Contains(term.Output(0), "trapped-2") })
	if err := m.Dispose(term.ID); err != nil {
		t.Fatal(err)
	}
	if code := rec.waitClosed(t, term.ID); code != -1 {
		t.Fatalf("exit code %d, want -1", code)
	}
}

func TestUnknownID(t *testing.T) {
	m, _ := newTestManager(t, Config{})
	for name, err := range map[string]error{
		"Get":     func() error { _, err := m.Get("nope"); return err }(),
		"Show":    m.Show("nope"),
		"Dispose": m.Dispose("nope"),
	} {
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, ok := m.Active(); ok {
		t.Error("Active with no terminals")
	}
}

func TestListActiveShowClose(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	a, err := m.Create(Options{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Create(Options{Name: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if l := m.List(); len(l) != 2 || l[0] != a || l[1] != b {
		t.Fatalf("List = %v", l)
	}
	if act, _ := m.Active(); act != b {
		t.Fatal("newest terminal is not active")
	}
	if err := m.Show(a.ID); err != nil {
		t.Fatal(err)
	}
	if act, _ := m.Active(); act != a {
		t.Fatal("shown terminal is not active")
	}
	if err := a.SendText("exit", true); err != nil {
		t.Fatal(err)
	}
	if code := rec.waitClosed(t, a.ID); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if act, _ := m.Active(); act != b {
		t.Fatal("active did not fall back to b")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	rec.waitClosed(t, b.ID)
	if len(m.List()) != 0 {
		t.Fatal("terminals left after Close")
	}
	if _, err := m.Create(Options{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Create after Close: %v", err)
	}
}

func TestCreateErrors(t *testing.T) {
	m, _ := newTestManager(t, Config{})
	if _, err := m.Create(Options{Cwd: filepath.Join(t.TempDir(), "missing")}); err == nil {
		t.Error("missing cwd accepted")
	}
	if _, err := m.Create(Options{Env: map[string]string{"A=B": "x"}}); err == nil {
		t.Error("bad env key accepted")
	}
	bad := NewManager(Config{Shell: filepath.Join(t.TempDir(), "no-such-shell")})
	if _, err := bad.Create(Options{}); err == nil {
		t.Error("missing shell accepted")
	}
	if len(bad.List()) != 0 {
		t.Error("failed terminal listed")
	}
}

func TestResize(t *testing.T) {
	m, rec := newTestManager(t, Config{})
	term, err := m.Create(Options{Rows: 30, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	if err := term.SendText("stty size", true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "30 100", func() bool { return hasLine(term.Output(0), "30 100") })
	if err := term.Resize(40, 132); err != nil {
		t.Fatal(err)
	}
	if err := term.SendText("stty size", true); err != nil {
		t.Fatal(err)
	}
	rec.until(t, "40 132", func() bool { return hasLine(term.Output(0), "40 132") })
}

func TestUTF8NotSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"abc", 3}, {"a\xc3", 1}, {"a\xc3\xa9", 3}, {"\xe2\x82", 0}, {"x\xf0\x9f\x98", 1}, {"\xff", 1}, {"", 0},
	} {
		if got := completeUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("completeUTF8(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
