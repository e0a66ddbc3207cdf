package servers

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/ports"
)

// The test binary doubles as the server process: with SERVERS_HELPER set
// it serves /health on the port it is given (the way `opencode serve
// --port N` does), after SERVERS_DELAY, and ignores SIGTERM when
// SERVERS_STUBBORN is set.
func TestMain(m *testing.M) {
	if port := os.Getenv("SERVERS_HELPER"); port != "" {
		helper(port)
		return
	}
	os.Exit(m.Run())
}

func helper(port string) {
	if os.Getenv("SERVERS_STUBBORN") != "" {
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv("SERVERS_FAIL") != "" {
		fmt.Println("cannot start: config is broken")
		os.Exit(3)
	}
	if d, err := time.ParseDuration(os.Getenv("SERVERS_DELAY")); err == nil {
		// not a wait in a test: this process plays a server that hangs in
		// its start-up (the scenario), and nothing stands in for a hang
		time.Sleep(d)
	}
	wd, _ := os.Getwd()
	http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "%d %s", os.Getpid(), wd)
	})
	fmt.Println("listening on", port)
	if err := http.ListenAndServe("127.0.0.1:"+port, nil); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

func probe(ctx context.Context, port int) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

func newManager(t *testing.T, env ...string) *Manager {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{
		Spec: Spec{
			Name: "test",
			Command: func(ws string, port int) ([]string, []string, error) {
				return []string{self}, append([]string{"SERVERS_HELPER=" + strconv.Itoa(port)}, env...), nil
			},
			Healthy: probe,
		},
		Ports:          ports.New(),
		LogDir:         t.TempDir(),
		StartTimeout:   10 * time.Second,
		StopTimeout:    300 * time.Millisecond,
		ProbeInterval:  20 * time.Millisecond,
		BackoffInitial: 50 * time.Millisecond,
		BackoffMax:     200 * time.Millisecond,
	})
	t.Cleanup(func() { _ = m.Dispose(context.Background()) })
	return m
}

type recorder struct {
	mu      sync.Mutex
	started []string
	stopped []string
	ch      chan string
}

func record(m *Manager) *recorder {
	r := &recorder{ch: make(chan string, 100)}
	m.OnServerStarted(func(ws string, port int) {
		r.mu.Lock()
		r.started = append(r.started, fmt.Sprintf("%s:%d", filepath.Base(ws), port))
		r.mu.Unlock()
		r.ch <- "started"
	})
	m.OnServerStopped(func(ws string, crashed bool) {
		r.mu.Lock()
		r.stopped = append(r.stopped, fmt.Sprintf("%s:%v", filepath.Base(ws), crashed))
		r.mu.Unlock()
		if crashed {
			r.ch <- "crashed"
		} else {
			r.ch <- "stopped"
		}
	})
	return r
}

func (r *recorder) wait(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-r.ch:
		if got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("no %s", want)
	}
}

func TestStartHealthyRestartStop(t *testing.T) {
	ctx := context.Background()
	m := newManager(t)
	rec := record(m)
	ws := t.TempDir()
	port, err := m.StartServer(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "started") // fired before StartServer returned
	if err := probe(ctx, port); err != nil {
		t.Fatalf("started but not healthy: %v", err)
	}
	if !m.IsRunning(ws) || m.PID(ws) == 0 {
		t.Fatal("not running after start")
	}
	if p, ok := m.Port(ws); !ok || p != port {
		t.Fatalf("Port = %d, %v", p, ok)
	}
	again, err := m.StartServer(ctx, ws)
	if err != nil || again != port {
		t.Fatalf("second start = %d, %v; want the running %d", again, err, port)
	}
	pid := m.PID(ws)
	rport, err := m.RestartServer(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "stopped")
	rec.wait(t, "started")
	if rport != port {
		t.Fatalf("restart moved the server from %d to %d", port, rport)
	}
	if m.PID(ws) == pid {
		t.Fatal("restart kept the old process")
	}
	res, err := m.StopServer(ctx, ws)
	if err != nil || !res.Stopped || res.Killed {
		t.Fatalf("stop = %+v, %v", res, err)
	}
	rec.wait(t, "stopped")
	if m.IsRunning(ws) {
		t.Fatal("running after stop")
	}
	if res, _ := m.StopServer(ctx, ws); res.Stopped {
		t.Fatal("stopping a stopped server reported a stop")
	}
	if err := probe(ctx, port); err == nil {
		t.Fatal("the stopped server still answers")
	}
}

func TestCrashIsNoticedAndRestartedOnTheSamePort(t *testing.T) {
	ctx := context.Background()
	m := newManager(t)
	rec := record(m)
	ws := t.TempDir()
	port, err := m.StartServer(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "started")
	for round := range 3 {
		pid := m.PID(ws)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		rec.wait(t, "crashed")
		rec.wait(t, "started")
		if p, _ := m.Port(ws); p != port {
			t.Fatalf("round %d: restarted on %d, want %d", round, p, port)
		}
		if m.PID(ws) == pid {
			t.Fatalf("round %d: same pid after a crash", round)
		}
		if err := probe(ctx, port); err != nil {
			t.Fatalf("round %d: restarted server not healthy: %v", round, err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.stopped) != 3 || !strings.HasSuffix(rec.stopped[0], ":true") {
		t.Fatalf("stopped callbacks %v", rec.stopped)
	}
}

func TestStoppedServerIsNotRestarted(t *testing.T) {
	ctx := context.Background()
	m := newManager(t)
	rec := record(m)
	ws := t.TempDir()
	if _, err := m.StartServer(ctx, ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "started")
	if err := syscall.Kill(m.PID(ws), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "crashed")
	// Stopped during the backoff: the pending restart is dropped.
	if _, err := m.StopServer(ctx, ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "stopped")
	// once the crash's restart loop has ended, no restart can come
	ended := make(chan struct{})
	go func() { m.restarts.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the restart loop did not end after the stop")
	}
	select {
	case got := <-rec.ch:
		t.Fatalf("after stop: %s", got)
	default:
	}
	if m.IsRunning(ws) {
		t.Fatal("running after stop")
	}
}

func TestStubbornServerIsKilled(t *testing.T) {
	m := newManager(t, "SERVERS_STUBBORN=1")
	ws := t.TempDir()
	if _, err := m.StartServer(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	res, err := m.StopServer(context.Background(), ws)
	if err != nil || !res.Stopped || !res.Killed {
		t.Fatalf("stop = %+v, %v; want killed", res, err)
	}
}

func TestFailedStartSaysWhy(t *testing.T) {
	m := newManager(t, "SERVERS_FAIL=1")
	ws := t.TempDir()
	_, err := m.StartServer(context.Background(), ws)
	if err == nil || !strings.Contains(err.Error(), "config is broken") || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Fatalf("err = %v", err)
	}
	if m.IsRunning(ws) {
		t.Fatal("a failed server counts as running")
	}
}

func TestSlowServerTimesOut(t *testing.T) {
	m := newManager(t, "SERVERS_DELAY=1h")
	m.opts.StartTimeout = 300 * time.Millisecond
	_, err := m.StartServer(context.Background(), t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "did not answer its health probe") {
		t.Fatalf("err = %v", err)
	}
}

func TestTakenPortMovesAndProjectsStop(t *testing.T) {
	ctx := context.Background()
	m := newManager(t)
	proj := t.TempDir()
	a, b := filepath.Join(proj, "a"), filepath.Join(proj, "b")
	other := t.TempDir()
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pa, err := m.StartServer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := m.StartServer(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.StartServer(ctx, other); err != nil {
		t.Fatal(err)
	}
	if pa == pb {
		t.Fatal("two workspaces share a port")
	}
	if _, err := m.StopServer(ctx, a); err != nil {
		t.Fatal(err)
	}
	// Someone else takes a's port while it is stopped.
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(pa))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	np, err := m.StartServer(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if np == pa {
		t.Fatal("started on a port another process holds")
	}
	if err := m.StopAllForProject(ctx, proj); err != nil {
		t.Fatal(err)
	}
	if m.IsRunning(a) || m.IsRunning(b) || !m.IsRunning(other) {
		t.Fatalf("after StopAllForProject: a=%v b=%v other=%v", m.IsRunning(a), m.IsRunning(b), m.IsRunning(other))
	}
	if err := m.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	if m.IsRunning(other) {
		t.Fatal("running after Dispose")
	}
	if _, err := m.StartServer(ctx, other); err == nil {
		t.Fatal("start after Dispose succeeded")
	}
}

// A server that cannot be started again after a crash is retried with a
// pause that grows to BackoffMax (a failed restart has no start time: it
// must not count as a server that ran stably), the crash is told once,
// and each failed attempt is told with its count.
func TestUnrestartableServerBacksOffToItsCap(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	m := New(Options{
		Spec: Spec{
			Name: "test",
			Command: func(ws string, port int) ([]string, []string, error) {
				env := []string{"SERVERS_HELPER=" + strconv.Itoa(port)}
				if broken.Load() {
					env = append(env, "SERVERS_FAIL=1")
				}
				return []string{self}, env, nil
			},
			Healthy: probe,
		},
		Ports: ports.New(), StartTimeout: 10 * time.Second, StopTimeout: 300 * time.Millisecond,
		ProbeInterval: 20 * time.Millisecond, BackoffInitial: 10 * time.Millisecond, BackoffMax: 80 * time.Millisecond,
	})
	t.Cleanup(func() { _ = m.Dispose(context.Background()) })
	rec := record(m)
	failures := make(chan agent.RestartFailure, 100)
	m.OnRestartFailed(func(_ string, f agent.RestartFailure) { failures <- f })
	ws := t.TempDir()
	if _, err := m.StartServer(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "started")
	broken.Store(true)
	if err := syscall.Kill(m.PID(ws), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "crashed")
	var next []time.Duration
	for i := range 6 {
		select {
		case f := <-failures:
			if f.Attempts != i+1 || f.Err == nil || !strings.Contains(f.Err.Error(), "config is broken") {
				t.Fatalf("failure %d: %+v", i, f)
			}
			next = append(next, f.Next)
		case <-time.After(30 * time.Second):
			t.Fatalf("no failed restart %d", i+1)
		}
	}
	want := []time.Duration{20, 40, 80, 80, 80, 80}
	for i := range want {
		if next[i] != want[i]*time.Millisecond {
			t.Fatalf("pauses %v, want %v ms", next, want)
		}
	}
	// The crash was told once; the failed attempts are not crashes.
	select {
	case got := <-rec.ch:
		t.Fatalf("while retrying: %s", got)
	default:
	}
	if m.IsRunning(ws) {
		t.Fatal("running while every restart fails")
	}
	// Once it can start again it does, and stopping ends the retries.
	broken.Store(false)
	rec.wait(t, "started")
	if _, err := m.StopServer(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "stopped")
}

// Stopping a server whose restarts fail ends the retries.
func TestStopEndsFailingRestarts(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	m := New(Options{
		Spec: Spec{
			Name: "test",
			Command: func(ws string, port int) ([]string, []string, error) {
				env := []string{"SERVERS_HELPER=" + strconv.Itoa(port)}
				if broken.Load() {
					env = append(env, "SERVERS_FAIL=1")
				}
				return []string{self}, env, nil
			},
			Healthy: probe,
		},
		Ports: ports.New(), StartTimeout: 10 * time.Second, StopTimeout: 300 * time.Millisecond,
		ProbeInterval: 20 * time.Millisecond, BackoffInitial: 10 * time.Millisecond, BackoffMax: 20 * time.Millisecond,
	})
	t.Cleanup(func() { _ = m.Dispose(context.Background()) })
	rec := record(m)
	failures := make(chan agent.RestartFailure, 100)
	m.OnRestartFailed(func(_ string, f agent.RestartFailure) { failures <- f })
	ws := t.TempDir()
	if _, err := m.StartServer(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "started")
	broken.Store(true)
	if err := syscall.Kill(m.PID(ws), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "crashed")
	select {
	case <-failures:
	case <-time.After(30 * time.Second):
		t.Fatal("no failed restart")
	}
	if _, err := m.StopServer(context.Background(), ws); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, "stopped")
	m.mu.Lock()
	_, held := m.servers[ws]
	m.mu.Unlock()
	if held {
		t.Fatal("the workspace still has a server record after stop")
	}
	// No restart is pending: Dispose returns once nothing is left to wait for.
	if err := m.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-rec.ch:
		t.Fatalf("after stop: %s", got)
	default:
	}
}
