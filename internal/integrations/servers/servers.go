// Package servers runs one agent server process per workspace (the
// "per-workspace" pattern of specs/agent-integrations.md): it allocates a
// port, starts the process, reports it started only once a health probe
// answers, keeps the port across restarts, stops gracefully and then kills,
// and notices a crash and restarts the server with exponential backoff. An
// agent type supplies what differs (the command line and the probe) as a
// Spec; see internal/integrations/opencode.
package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/ports"
	"github.com/warden-dev/warden/internal/tailbuf"
)

// Spec is what differs between agent types.
type Spec struct {
	// Name names the agent type in logs and errors ("opencode").
	Name string
	// Command returns the program, its arguments and extra environment
	// (NAME=value) for the workspace's server on port. It runs in the
	// workspace directory.
	Command func(workspace string, port int) (argv []string, env []string, err error)
	// Healthy probes a server; nil means it is ready.
	Healthy func(ctx context.Context, port int) error
	// SerialStart starts one server at a time (until it is healthy), for
	// agents whose start-up writes shared state (OpenCode migrates one
	// SQLite database in the user's home; two first starts at once fail).
	SerialStart bool
}

// Options configure a Manager.
type Options struct {
	Spec   Spec
	Ports  *ports.Manager
	Logger *slog.Logger
	// LogDir receives each server's output (NAME-<workspace>.log); "" keeps
	// only the last lines, for error messages.
	LogDir string
	// StartTimeout bounds start-up until the probe answers (default 60 s).
	StartTimeout time.Duration
	// StopTimeout is the grace period after SIGTERM before SIGKILL
	// (default 5 s).
	StopTimeout time.Duration
	// ProbeInterval is the pause between health probes (default 200 ms).
	ProbeInterval time.Duration
	// BackoffInitial and BackoffMax shape the restarts of a crashed server:
	// 1 s, 2 s, 4 s ... up to 30 s by default. A server that stays up for
	// StableAfter (default 1 min) starts again from BackoffInitial.
	BackoffInitial, BackoffMax, StableAfter time.Duration
}

// Manager implements agent.ServerManager for one agent type.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	servers  map[string]*server
	lastPort map[string]int
	locks    map[string]*sync.Mutex
	started  map[int]func(string, int)
	stopped  map[int]func(string, bool)
	failed   map[int]func(string, agent.RestartFailure)
	nextSub  int
	closed   bool
	restarts sync.WaitGroup
	// serial is held across a start when Spec.SerialStart is set.
	serial sync.Mutex
}

var (
	_ agent.ServerManager  = (*Manager)(nil)
	_ agent.RestartWatcher = (*Manager)(nil)
)

type server struct {
	ws      string
	port    int
	cmd     *exec.Cmd
	done    chan struct{}
	tail    *tailbuf.Buffer
	logFile *os.File
	up      time.Time
	// stopping is set (under Manager.mu) when the stop was asked for.
	stopping bool
	// cancelRestart stops a pending restart after a crash.
	cancelRestart context.CancelFunc
	failures      int
}

// New returns a manager.
func New(opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = 5 * time.Second
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = 200 * time.Millisecond
	}
	if opts.BackoffInitial <= 0 {
		opts.BackoffInitial = time.Second
	}
	if opts.BackoffMax <= 0 {
		opts.BackoffMax = 30 * time.Second
	}
	if opts.StableAfter <= 0 {
		opts.StableAfter = time.Minute
	}
	if opts.Ports == nil {
		opts.Ports = ports.New()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{
		opts: opts, log: log.With("agent", opts.Spec.Name),
		servers: map[string]*server{}, lastPort: map[string]int{}, locks: map[string]*sync.Mutex{},
		started: map[int]func(string, int){}, stopped: map[int]func(string, bool){},
		failed: map[int]func(string, agent.RestartFailure){},
	}
}

func (m *Manager) lock(ws string) *sync.Mutex {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.locks[ws]
	if !ok {
		l = &sync.Mutex{}
		m.locks[ws] = l
	}
	return l
}

// StartServer implements agent.ServerManager.
func (m *Manager) StartServer(ctx context.Context, ws string) (int, error) {
	l := m.lock(ws)
	l.Lock()
	defer l.Unlock()
	return m.start(ctx, ws, 0)
}

// start runs with the workspace lock held. failures carries the crash count
// into a restarted server.
func (m *Manager) start(ctx context.Context, ws string, failures int) (int, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return 0, fmt.Errorf("%s servers: manager disposed", m.opts.Spec.Name)
	}
	if s, ok := m.servers[ws]; ok && !s.stopping {
		if s.cancelRestart != nil { // a restart is pending: do it now
			s.cancelRestart()
		} else {
			m.mu.Unlock()
			return s.port, nil
		}
	}
	last := m.lastPort[ws]
	m.mu.Unlock()

	port, err := m.port(last)
	if err != nil {
		return 0, err
	}
	s, err := m.spawn(ctx, ws, port)
	if err != nil {
		m.opts.Ports.Release(port)
		return 0, err
	}
	s.failures = failures
	m.mu.Lock()
	m.servers[ws] = s
	m.lastPort[ws] = port
	subs := m.startedSubs()
	m.mu.Unlock()
	go m.watch(s)
	m.log.Info("agent server started", "workspace", ws, "port", port, "pid", s.cmd.Process.Pid)
	for _, fn := range subs {
		fn(ws, port)
	}
	return port, nil
}

// port keeps the last port when it is still free, else takes a new one.
func (m *Manager) port(last int) (int, error) {
	if last != 0 {
		if err := m.opts.Ports.Reserve(last); err == nil {
			return last, nil
		}
		m.log.Warn("the server's previous port is taken; using another", "port", last)
	}
	return m.opts.Ports.Acquire()
}

func (m *Manager) spawn(ctx context.Context, ws string, port int) (*server, error) {
	if m.opts.Spec.SerialStart {
		m.serial.Lock()
		defer m.serial.Unlock()
	}
	name := m.opts.Spec.Name
	argv, env, err := m.opts.Spec.Command(ws, port)
	if err != nil {
		return nil, fmt.Errorf("%s server for %s: %w", name, ws, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s server for %s: empty command", name, ws)
	}
	s := &server{ws: ws, port: port, done: make(chan struct{}), tail: tailbuf.New(4096)}
	var out io.Writer = s.tail
	if m.opts.LogDir != "" {
		if err := os.MkdirAll(m.opts.LogDir, 0o700); err != nil {
			return nil, fmt.Errorf("%s server log dir: %w", name, err)
		}
		f, err := os.OpenFile(filepath.Join(m.opts.LogDir, logName(name, ws)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("%s server log: %w", name, err)
		}
		s.logFile = f
		out = io.MultiWriter(f, s.tail)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		s.closeLog()
		return nil, fmt.Errorf("start %s server for %s: %w", name, ws, err)
	}
	s.cmd = cmd
	go func() {
		_ = cmd.Wait()
		s.closeLog()
		close(s.done)
	}()
	if err := m.waitHealthy(ctx, s); err != nil {
		m.kill(s)
		return nil, err
	}
	s.up = time.Now()
	return s, nil
}

func (m *Manager) waitHealthy(ctx context.Context, s *server) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	tick := time.NewTicker(m.opts.ProbeInterval)
	defer tick.Stop()
	var last error
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		last = m.opts.Spec.Healthy(pctx, s.port)
		pcancel()
		if last == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%s server for %s exited before it was ready (%s): %s", m.opts.Spec.Name, s.ws, s.cmd.ProcessState, s.tail.String())
		case <-ctx.Done():
			return fmt.Errorf("%s server for %s did not answer its health probe on port %d: %v (output: %s)", m.opts.Spec.Name, s.ws, s.port, last, s.tail.String())
		case <-tick.C:
		}
	}
}

// kill ends a server's whole process group: SIGTERM, then SIGKILL after
// the stop timeout. It reports whether SIGKILL was needed.
func (m *Manager) kill(s *server) bool {
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-s.done:
		return false
	case <-time.After(m.opts.StopTimeout):
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-s.done
	return true
}

// watch waits for a server to end; an end nobody asked for is a crash. A
// crashed server is restarted with backoff (BackoffInitial doubling up to
// BackoffMax; a server that ran for StableAfter starts again from
// BackoffInitial) until a restart succeeds or the server is stopped. The
// crash is told once (OnServerStopped); each failed restart goes to
// OnRestartFailed with its count, and the crashed server stays the
// workspace's record (not running) so StopServer ends the retries.
func (m *Manager) watch(s *server) {
	<-s.done
	m.mu.Lock()
	if s.stopping || m.servers[s.ws] != s {
		m.mu.Unlock()
		return
	}
	failures := s.failures + 1
	if time.Since(s.up) >= m.opts.StableAfter {
		failures = 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancelRestart = cancel
	subs := m.stoppedSubs()
	m.restarts.Add(1)
	m.mu.Unlock()
	defer m.restarts.Done()
	delay := m.backoff(failures)
	m.log.Warn("agent server exited unexpectedly; restarting", "workspace", s.ws, "port", s.port, "state", s.cmd.ProcessState.String(), "in", delay, "output", s.tail.String())
	for _, fn := range subs {
		fn(s.ws, true)
	}
	// The crashed server's port stays ours for the restart.
	m.opts.Ports.Release(s.port)
	for attempts := 1; ; attempts++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		retry, err := m.restart(ctx, s, failures)
		if !retry {
			return
		}
		failures++
		delay = m.backoff(failures)
		m.log.Warn("agent server restart failed; trying again", "workspace", s.ws, "attempts", attempts, "in", delay, "err", err)
		m.mu.Lock()
		fsubs := m.failedSubs()
		m.mu.Unlock()
		for _, fn := range fsubs {
			fn(s.ws, agent.RestartFailure{Attempts: attempts, Next: delay, Err: err})
		}
	}
}

// restart makes one attempt to start the crashed server s again. retry is
// true when it failed and another attempt is due; s is then the
// workspace's record again.
func (m *Manager) restart(ctx context.Context, s *server, failures int) (retry bool, err error) {
	l := m.lock(s.ws)
	l.Lock()
	defer l.Unlock()
	m.mu.Lock()
	current := m.servers[s.ws] == s && !s.stopping && ctx.Err() == nil && !m.closed
	if current {
		delete(m.servers, s.ws)
	}
	m.mu.Unlock()
	if !current {
		return false, nil
	}
	if _, err := m.start(ctx, s.ws, failures); err != nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed || ctx.Err() != nil {
			return false, err
		}
		m.servers[s.ws] = s
		return true, err
	}
	return false, nil
}

// backoff is the pause before restart number failures (1-based).
func (m *Manager) backoff(failures int) time.Duration {
	if failures > 16 {
		return m.opts.BackoffMax
	}
	return min(m.opts.BackoffInitial<<(failures-1), m.opts.BackoffMax)
}

// StopServer implements agent.ServerManager.
func (m *Manager) StopServer(ctx context.Context, ws string) (agent.StopResult, error) {
	l := m.lock(ws)
	l.Lock()
	defer l.Unlock()
	return m.stop(ctx, ws)
}

func (m *Manager) stop(_ context.Context, ws string) (agent.StopResult, error) {
	m.mu.Lock()
	s, ok := m.servers[ws]
	if !ok {
		m.mu.Unlock()
		return agent.StopResult{}, nil
	}
	s.stopping = true
	if s.cancelRestart != nil {
		s.cancelRestart()
	}
	delete(m.servers, ws)
	subs := m.stoppedSubs()
	m.mu.Unlock()
	res := agent.StopResult{}
	select {
	case <-s.done:
	default:
		res.Stopped = true
		res.Killed = m.kill(s)
	}
	m.opts.Ports.Release(s.port)
	m.log.Info("agent server stopped", "workspace", ws, "port", s.port, "killed", res.Killed)
	for _, fn := range subs {
		fn(ws, false)
	}
	return res, nil
}

// RestartServer implements agent.ServerManager.
func (m *Manager) RestartServer(ctx context.Context, ws string) (int, error) {
	l := m.lock(ws)
	l.Lock()
	defer l.Unlock()
	if _, err := m.stop(ctx, ws); err != nil {
		return 0, err
	}
	return m.start(ctx, ws, 0)
}

// IsRunning implements agent.ServerManager.
func (m *Manager) IsRunning(ws string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[ws]
	if !ok {
		return false
	}
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// Port implements agent.ServerManager.
func (m *Manager) Port(ws string) (int, bool) {
	if !m.IsRunning(ws) {
		return 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[ws].port, true
}

// PID implements agent.ServerManager.
func (m *Manager) PID(ws string) int {
	if !m.IsRunning(ws) {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.servers[ws].cmd.Process.Pid
}

// StopAllForProject implements agent.ServerManager: it stops the servers
// of project and of every workspace under it.
func (m *Manager) StopAllForProject(ctx context.Context, project string) error {
	var errs []error
	for _, ws := range m.workspaces() {
		if ws == project || strings.HasPrefix(ws, strings.TrimSuffix(project, string(filepath.Separator))+string(filepath.Separator)) {
			if _, err := m.StopServer(ctx, ws); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

func (m *Manager) workspaces() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.servers))
	for ws := range m.servers {
		out = append(out, ws)
	}
	return out
}

// OnServerStarted implements agent.ServerManager.
func (m *Manager) OnServerStarted(fn func(string, int)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.nextSub
	m.nextSub++
	m.started[id] = fn
	return func() { m.mu.Lock(); delete(m.started, id); m.mu.Unlock() }
}

// OnServerStopped implements agent.ServerManager.
func (m *Manager) OnServerStopped(fn func(string, bool)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.nextSub
	m.nextSub++
	m.stopped[id] = fn
	return func() { m.mu.Lock(); delete(m.stopped, id); m.mu.Unlock() }
}

// OnRestartFailed implements agent.RestartWatcher.
func (m *Manager) OnRestartFailed(fn func(string, agent.RestartFailure)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.nextSub
	m.nextSub++
	m.failed[id] = fn
	return func() { m.mu.Lock(); delete(m.failed, id); m.mu.Unlock() }
}

func (m *Manager) failedSubs() []func(string, agent.RestartFailure) {
	out := make([]func(string, agent.RestartFailure), 0, len(m.failed))
	for _, fn := range m.failed {
		out = append(out, fn)
	}
	return out
}

func (m *Manager) startedSubs() []func(string, int) {
	out := make([]func(string, int), 0, len(m.started))
	for _, fn := range m.started {
		out = append(out, fn)
	}
	return out
}

func (m *Manager) stoppedSubs() []func(string, bool) {
	out := make([]func(string, bool), 0, len(m.stopped))
	for _, fn := range m.stopped {
		out = append(out, fn)
	}
	return out
}

// Dispose implements agent.ServerManager.
func (m *Manager) Dispose(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	errc := make(chan error, 1)
	for _, ws := range m.workspaces() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := m.StopServer(ctx, ws); err != nil {
				select {
				case errc <- err:
				default:
				}
			}
		}()
	}
	wg.Wait()
	m.restarts.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

func (s *server) closeLog() {
	if s.logFile != nil {
		_ = s.logFile.Close()
	}
}

func logName(name, ws string) string {
	clean := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, strings.Trim(ws, string(filepath.Separator)))
	if len(clean) > 120 {
		clean = clean[len(clean)-120:]
	}
	return name + "-" + clean + ".log"
}
