package debug

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/testtools"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder collects a manager's events.
type recorder struct {
	mu     sync.Mutex
	events []recorded
	notify chan struct{}
}

type recorded struct {
	session string
	ev      Event
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) on(id string, ev Event) {
	r.mu.Lock()
	r.events = append(r.events, recorded{id, ev})
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// waitFor waits until an event of session id satisfies ok, starting at
// index from; it returns the event's index.
func (r *recorder) waitFor(t *testing.T, id string, from int, what string, ok func(Event) bool) (int, Event) {
	t.Helper()
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	for {
		evs := r.snapshot()
		for i := from; i < len(evs); i++ {
			if evs[i].session == id && ok(evs[i].ev) {
				return i, evs[i].ev
			}
		}
		select {
		case <-r.notify:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; events: %+v", what, evs)
		}
	}
}

// waitOutput waits until the session's output, concatenated (adapters
// split writes across events), contains text.
func (r *recorder) waitOutput(t *testing.T, id, text string) {
	t.Helper()
	r.waitFor(t, id, 0, fmt.Sprintf("output %q", text), func(Event) bool {
		var all strings.Builder
		for _, e := range r.snapshot() {
			if e.session == id && e.ev.Kind == EventOutput && e.ev.Category != "telemetry" {
				all.WriteString(e.ev.Output)
			}
		}
		return strings.Contains(all.String(), text)
	})
}

// syncBuffer is a goroutine-safe log sink dumped when a test fails.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newManager(t *testing.T, rec *recorder) *Manager {
	t.Helper()
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("WARDEN_DEBUG_TEST_LOG") != "" {
			t.Logf("manager log:\n%s", logs.String())
		}
	})
	opts := Options{
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Locate: func(name string) (string, error) { return testtools.Find(t, name), nil },
		// The debuggee is a module without dependencies; never reach
		// for the network.
		AdapterEnv: []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local"},
	}
	if rec != nil {
		opts.OnEvent = rec.on
	}
	m := New(opts)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func requireDebugpy(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("/usr/bin/python3", "-c", "import debugpy").CombinedOutput(); err != nil {
		t.Fatalf("debugpy is not importable by /usr/bin/python3 (%v: %s): run scripts/install-tools.sh (make tools)", err, out)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func samePath(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}

func hasSession(m *Manager, id string) bool {
	return slices.ContainsFunc(m.Sessions(), func(s SessionInfo) bool { return s.ID == id })
}

const goProgram = `package main

func main() {
	println("hello from go")
	x := 1
	x++
	println("x is", x)
}
`

const goBreakLine = 7

func TestGoLaunchBreakpoint(t *testing.T) {
	rec := newRecorder()
	m := newManager(t, rec)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/prog\n\ngo 1.26\n")
	main := filepath.Join(dir, "main.go")
	writeFile(t, main, goProgram)

	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Second)
	defer cancel()

	res, err := m.SetBreakpoints(ctx, main, []Breakpoint{{Line: goBreakLine}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].ID == "" || res[0].Verified || res[0].Line != goBreakLine {
		t.Fatalf("pending breakpoint result = %+v", res)
	}

	id, err := m.Start(ctx, Config{Type: "go", Request: "launch", Name: "prog", Program: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sessions(); len(got) != 1 || got[0] != (SessionInfo{ID: id, Name: "prog", Type: "go"}) {
		t.Fatalf("Sessions() = %+v", got)
	}
	_, ev := rec.waitFor(t, id, 0, "stopped at the breakpoint", func(ev Event) bool { return ev.Kind == EventStopped })
	if ev.Reason != "breakpoint" || !samePath(ev.File, main) || ev.Line != goBreakLine {
		t.Fatalf("stopped event = %+v, want breakpoint at %s:%d", ev, main, goBreakLine)
	}
	rec.waitOutput(t, id, "hello from go")

	// Setting a breakpoint now reaches the live session, which verifies it.
	res, err = m.SetBreakpoints(ctx, main, []Breakpoint{{Line: 5, Condition: "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Verified || res[0].Line != 5 {
		t.Fatalf("live breakpoint result = %+v", res)
	}
	if n, err := m.RemoveBreakpoints(ctx, main, []int{5, 99}); err != nil || n != 1 {
		t.Fatalf("RemoveBreakpoints = %d, %v", n, err)
	}

	if err := m.Stop(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if hasSession(m, id) {
		t.Fatalf("session %s still listed after Stop: %+v", id, m.Sessions())
	}
	_, ev = rec.waitFor(t, id, 0, "the ended event", func(ev Event) bool { return ev.Kind == EventEnded })
	if ev.Reason != "stopped" {
		t.Fatalf("ended event = %+v", ev)
	}
	if err := m.Stop(ctx, id); !errors.Is(err, ErrNoSession) {
		t.Fatalf("second Stop = %v, want ErrNoSession", err)
	}
}

const pyProgram = `import sys
print("hello from python", flush=True)
total = 0
for i in range(3):
    total += i
print("total", total, flush=True)
sys.exit(3)
`

func TestPythonLaunchBreakpoint(t *testing.T) {
	requireDebugpy(t)
	rec := newRecorder()
	m := newManager(t, rec)
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog.py")
	writeFile(t, prog, pyProgram)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := m.SetBreakpoints(ctx, prog, []Breakpoint{{Line: 5, Condition: "i == 2"}}); err != nil {
		t.Fatal(err)
	}
	id, err := m.Start(ctx, Config{Type: "debugpy", Request: "launch", Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Sessions(); len(got) != 1 || got[0].ID != id || got[0].Type != "python" || got[0].Name != "prog.py" {
		t.Fatalf("Sessions() = %+v", got)
	}
	i, ev := rec.waitFor(t, id, 0, "stopped at the breakpoint", func(ev Event) bool { return ev.Kind == EventStopped })
	if ev.Reason != "breakpoint" || !samePath(ev.File, prog) || ev.Line != 5 {
		t.Fatalf("stopped event = %+v, want breakpoint at %s:5", ev, prog)
	}
	rec.waitOutput(t, id, "hello from python\n")
	rec.waitFor(t, id, 0, "stdout output", func(ev Event) bool {
		return ev.Kind == EventOutput && ev.Category == "stdout" && strings.Contains(ev.Output, "hello")
	})

	// A second breakpoint, set while stopped; continue to it.
	res, err := m.SetBreakpoints(ctx, prog, []Breakpoint{{Line: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Verified {
		t.Fatalf("live breakpoint result = %+v", res)
	}
	if err := m.Continue(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	_, ev = rec.waitFor(t, id, i+1, "stopped at the second breakpoint", func(ev Event) bool { return ev.Kind == EventStopped })
	if ev.Reason != "breakpoint" || ev.Line != 6 {
		t.Fatalf("second stopped event = %+v", ev)
	}

	if err := m.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if hasSession(m, id) {
		t.Fatalf("session %s still listed after Stop: %+v", id, m.Sessions())
	}
	rec.waitFor(t, id, 0, "the ended event", func(ev Event) bool { return ev.Kind == EventEnded })
}

// TestPythonRunsToEnd: without breakpoints the program runs to completion;
// its exit is reported and the session ends by itself.
func TestPythonRunsToEnd(t *testing.T) {
	requireDebugpy(t)
	rec := newRecorder()
	m := newManager(t, rec)
	prog := filepath.Join(t.TempDir(), "prog.py")
	writeFile(t, prog, pyProgram)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id, err := m.Start(ctx, Config{Type: "python", Request: "launch", Program: prog, Args: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	rec.waitOutput(t, id, "total 3\n")
	_, ev := rec.waitFor(t, id, 0, "exited", func(ev Event) bool { return ev.Kind == EventExited })
	if ev.ExitCode != 3 {
		t.Fatalf("exited event = %+v, want exit code 3", ev)
	}
	rec.waitFor(t, id, 0, "terminated", func(ev Event) bool { return ev.Kind == EventTerminated })
	_, ev = rec.waitFor(t, id, 0, "ended", func(ev Event) bool { return ev.Kind == EventEnded })
	if ev.Reason != "program terminated" {
		t.Fatalf("ended event = %+v", ev)
	}
	if hasSession(m, id) {
		t.Fatalf("session %s still listed after the program ended", id)
	}
}

func TestBreakpointsBook(t *testing.T) {
	m := newManager(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.py")

	r1, err := m.SetBreakpoints(ctx, a, []Breakpoint{{Line: 10}, {Line: 3, Condition: "x > 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.SetBreakpoints(ctx, b, []Breakpoint{{Line: 1, LogMessage: "hi {x}"}}); err != nil {
		t.Fatal(err)
	}
	// Updating a line keeps its id; other lines stay.
	r2, err := m.SetBreakpoints(ctx, a, []Breakpoint{{Line: 10, Condition: "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if r2[0].ID != r1[0].ID {
		t.Fatalf("id changed on update: %s -> %s", r1[0].ID, r2[0].ID)
	}
	want := []BreakpointInfo{
		{ID: r1[1].ID, Path: a, Line: 3, Enabled: true, Condition: "x > 1"},
		{ID: r1[0].ID, Path: a, Line: 10, Enabled: true, Condition: "y"},
	}
	if got := m.Breakpoints(a); !slices.Equal(got, want) {
		t.Fatalf("Breakpoints(a) = %+v, want %+v", got, want)
	}
	if got := m.Breakpoints(""); len(got) != 3 || got[2].Path != b || got[2].LogMessage != "hi {x}" {
		t.Fatalf("Breakpoints(\"\") = %+v", got)
	}
	if n, err := m.RemoveBreakpoints(ctx, a, []int{3, 4}); err != nil || n != 1 {
		t.Fatalf("RemoveBreakpoints = %d, %v", n, err)
	}
	if n, err := m.RemoveBreakpoints(ctx, b, []int{1}); err != nil || n != 1 {
		t.Fatalf("RemoveBreakpoints = %d, %v", n, err)
	}
	if got := m.Breakpoints(""); len(got) != 1 || got[0].Line != 10 {
		t.Fatalf("after removal Breakpoints(\"\") = %+v", got)
	}
	if _, err := m.SetBreakpoints(ctx, a, []Breakpoint{{Line: 0}}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("line 0: err = %v, want ErrInvalidArgument", err)
	}
}

func TestErrors(t *testing.T) {
	m := newManager(t, nil)
	ctx := context.Background()
	if _, err := m.Start(ctx, Config{Type: "node", Request: "launch", Program: "x.js"}); !errors.Is(err, ErrUnsupportedType) {
		t.Fatalf("Start(node) = %v, want ErrUnsupportedType", err)
	}
	if _, err := m.Start(ctx, Config{Type: "go", Request: "run", Program: "."}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("Start(request run) = %v, want ErrInvalidArgument", err)
	}
	if err := m.Stop(ctx, "dbg-nope"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Stop(unknown) = %v, want ErrNoSession", err)
	}
	if err := m.Stop(ctx, ""); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Stop(\"\") without sessions = %v, want ErrNoSession", err)
	}
	if err := m.Continue(ctx, "dbg-nope", 0); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Continue(unknown) = %v, want ErrNoSession", err)
	}
}

// TestGoBuildError: a program that does not compile fails Start with
// delve's message, and leaves no session behind.
func TestGoBuildError(t *testing.T) {
	m := newManager(t, nil)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/bad\n\ngo 1.26\n")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nfunc main() { undefined() }\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := m.Start(ctx, Config{Type: "go", Request: "launch", Program: dir})
	t.Logf("Start error: %v", err)
	if err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Fatalf("Start = %v, want a build error", err)
	}
	if got := m.Sessions(); len(got) != 0 {
		t.Fatalf("Sessions() = %+v", got)
	}
}

// TestAdapterCrash: when the adapter dies the session ends, says why, and
// the debuggee it left behind is killed.
func TestAdapterCrash(t *testing.T) {
	requireDebugpy(t)
	dir := t.TempDir()
	// the debuggees idle (their sleeps are the programs', not the test's)
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/sleep\n\ngo 1.26\n")
	writeFile(t, filepath.Join(dir, "main.go"), "package main\n\nimport \"time\"\n\nfunc main() {\n\tprintln(\"up\")\n\ttime.Sleep(time.Minute)\n}\n")
	writeFile(t, filepath.Join(dir, "prog.py"), "import time\nprint('up', flush=True)\ntime.sleep(60)\n")
	for _, tc := range []struct{ typ, program string }{
		{"go", dir},
		{"python", filepath.Join(dir, "prog.py")},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			rec := newRecorder()
			m := newManager(t, rec)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			id, err := m.Start(ctx, Config{Type: tc.typ, Request: "launch", Program: tc.program})
			if err != nil {
				t.Fatal(err)
			}
			rec.waitOutput(t, id, "up\n")
			s, err := m.lookup(id)
			if err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			pid := s.debuggee
			s.mu.Unlock()
			if pid == 0 {
				t.Fatal("no process event with the debuggee's pid")
			}
			s.a.kill()
			_, ev := rec.waitFor(t, id, 0, "ended", func(ev Event) bool { return ev.Kind == EventEnded })
			if !strings.HasPrefix(ev.Reason, "adapter exited unexpectedly") {
				t.Fatalf("ended event = %+v", ev)
			}
			if hasSession(m, id) {
				t.Fatalf("crashed session still listed")
			}
			// The debuggee was killed (it may linger briefly as a zombie
			// until its parent reaps it).
			testtools.WaitExit(t, pid, 10*time.Second)
		})
	}
}

// TestPythonAttach attaches to a program that called debugpy.listen.
func TestPythonAttach(t *testing.T) {
	requireDebugpy(t)
	rec := newRecorder()
	m := newManager(t, rec)
	prog := filepath.Join(t.TempDir(), "serve.py")
	writeFile(t, prog, `import debugpy, sys, time
host, port = debugpy.listen(("127.0.0.1", 0))
print(port, flush=True)
debugpy.wait_for_client()
n = 0
while True:
    n += 1
    time.sleep(0.05)
`)
	cmd := exec.Command("/usr/bin/python3", "-Xfrozen_modules=off", prog)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var port int
	if _, err := fmt.Fscan(out, &port); err != nil {
		t.Fatalf("reading the port: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := m.SetBreakpoints(ctx, prog, []Breakpoint{{Line: 7}}); err != nil {
		t.Fatal(err)
	}
	id, err := m.Start(ctx, Config{Type: "python", Request: "attach", Port: port})
	if err != nil {
		t.Fatal(err)
	}
	_, ev := rec.waitFor(t, id, 0, "stopped", func(ev Event) bool { return ev.Kind == EventStopped })
	if ev.Reason != "breakpoint" || !samePath(ev.File, prog) || ev.Line != 7 {
		t.Fatalf("stopped event = %+v", ev)
	}
	if err := m.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if hasSession(m, id) {
		t.Fatal("session still listed after Stop")
	}
	// Detaching leaves the program running.
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("debuggee gone after detaching: %v", err)
	}
}

// TestGoAttachRemote attaches to a headless delve server.
func TestGoAttachRemote(t *testing.T) {
	rec := newRecorder()
	m := newManager(t, rec)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/loop\n\ngo 1.26\n")
	// a debuggee that keeps running (its sleep is the program's, not the
	// test's) for the debugger to attach to
	main := filepath.Join(dir, "main.go")
	writeFile(t, main, `package main

import "time"

func main() {
	n := 0
	for {
		n++
		time.Sleep(50 * time.Millisecond)
	}
}
`)
	cmd := exec.Command(testtools.Find(t, "dlv"), "debug", "--headless", "--listen=127.0.0.1:0", "--accept-multiclient", "--api-version=2")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	addr := ""
	for sc.Scan() {
		if _, a, ok := strings.Cut(sc.Text(), "listening at:"); ok {
			addr = strings.TrimSpace(a)
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	_, portText, _ := strings.Cut(addr, "127.0.0.1:")
	port, err := strconv.Atoi(portText)
	if err != nil {
		t.Fatalf("no address from headless dlv (%q)", addr)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := m.SetBreakpoints(ctx, main, []Breakpoint{{Line: 8}}); err != nil {
		t.Fatal(err)
	}
	id, err := m.Start(ctx, Config{Type: "go", Request: "attach", Port: port})
	if err != nil {
		t.Fatal(err)
	}
	_, ev := rec.waitFor(t, id, 0, "stopped", func(ev Event) bool { return ev.Kind == EventStopped })
	if ev.Reason != "breakpoint" || !samePath(ev.File, main) || ev.Line != 8 {
		t.Fatalf("stopped event = %+v", ev)
	}
	if err := m.Stop(ctx, id); err != nil {
		t.Fatal(err)
	}
	if hasSession(m, id) {
		t.Fatal("session still listed after Stop")
	}
}

// TestClose: Close ends live sessions; Start fails afterwards.
func TestClose(t *testing.T) {
	requireDebugpy(t)
	rec := newRecorder()
	m := newManager(t, rec)
	prog := filepath.Join(t.TempDir(), "prog.py")
	writeFile(t, prog, "import time\nprint('up', flush=True)\ntime.sleep(60)\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	id, err := m.Start(ctx, Config{Type: "python", Request: "launch", Program: prog})
	if err != nil {
		t.Fatal(err)
	}
	rec.waitOutput(t, id, "up\n")
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := m.Sessions(); len(got) != 0 {
		t.Fatalf("Sessions() after Close = %+v", got)
	}
	_, ev := rec.waitFor(t, id, 0, "ended", func(ev Event) bool { return ev.Kind == EventEnded })
	if ev.Reason != "manager closed" {
		t.Fatalf("ended event = %+v", ev)
	}
	if _, err := m.Start(ctx, Config{Type: "python", Request: "launch", Program: prog}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Start after Close = %v, want ErrClosed", err)
	}
}
