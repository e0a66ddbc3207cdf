// Package debug runs debug sessions against real debug adapters over the
// Debug Adapter Protocol (DAP): delve ("dlv dap") for Go and debugpy for
// Python. It backs the control door's debug.* methods.
//
// A Manager owns the sessions and a set of breakpoints remembered per file:
// breakpoints set before a session starts are sent to it while it is being
// configured, and breakpoints set later are sent to every live session.
//
// Lines and columns in this package's API are 1-based, as in DAP (the
// adapters are initialised with linesStartAt1 and columnsStartAt1); callers
// holding 0-based positions (LSP, editors) must add one. Paths are file
// system paths; relative paths are made absolute against the process's
// working directory.
package debug

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Sentinel errors. Errors returned by the Manager wrap these with %w.
var (
	// ErrNoSession is returned when a session id names no live session, or
	// when an empty id is given and no session is live.
	ErrNoSession = errors.New("debug: no such session")
	// ErrUnsupportedType is returned by Start for a debug type other than
	// "go", "python" or "debugpy".
	ErrUnsupportedType = errors.New("debug: unsupported debug type")
	// ErrInvalidArgument is returned for malformed requests: an unknown
	// request kind, a launch without a program, a breakpoint line below 1.
	ErrInvalidArgument = errors.New("debug: invalid argument")
	// ErrClosed is returned by Start after Close.
	ErrClosed = errors.New("debug: manager closed")
	// ErrSessionEnded is returned when a request is made to, or was pending
	// on, a session whose adapter has gone away.
	ErrSessionEnded = errors.New("debug: session ended")
)

// Event kinds carried by Event.Kind.
const (
	// EventStopped: the debuggee stopped (breakpoint, step, pause,
	// exception, entry). Reason, ThreadID and, when the adapter answered a
	// stackTrace request, File, Line and Function of the top frame are set.
	EventStopped = "stopped"
	// EventContinued: the debuggee resumed. ThreadID is set.
	EventContinued = "continued"
	// EventOutput: the debuggee or the adapter printed something. Category
	// ("stdout", "stderr", "console", ...) and Output are set.
	EventOutput = "output"
	// EventTerminated: the adapter reported that debugging has ended (the
	// program finished or was killed). The session is then stopped.
	EventTerminated = "terminated"
	// EventExited: the debuggee exited; ExitCode is set.
	EventExited = "exited"
	// EventEnded: emitted exactly once per started session, last, when the
	// session is gone: Reason says why ("stopped", "program terminated",
	// or "adapter exited unexpectedly: ..." when the adapter crashed).
	EventEnded = "ended"
)

// Event is something that happened in a debug session, delivered to
// Options.OnEvent.
type Event struct {
	// Kind is one of the Event* constants.
	Kind string
	// Reason is the stop reason for EventStopped ("breakpoint", "step",
	// "pause", "exception", "entry", ...) and why the session ended for
	// EventEnded.
	Reason string
	// Description is the adapter's human-readable stop description, if any.
	Description string
	// ThreadID is the thread (goroutine for delve) that stopped or continued.
	ThreadID int
	// File is the path of the top stack frame's source, for EventStopped.
	File string
	// Line is the 1-based line of the top stack frame, for EventStopped.
	Line int
	// Function is the name of the top stack frame, for EventStopped.
	Function string
	// Category is the output category for EventOutput ("stdout", "stderr",
	// "console", "important", "telemetry" ...).
	Category string
	// Output is the text printed, for EventOutput (may hold several lines
	// or a partial line).
	Output string
	// ExitCode is the debuggee's exit code, for EventExited.
	ExitCode int
}

// Options configures a Manager. The zero value works: adapters are found on
// $PATH and Python is /usr/bin/python3.
type Options struct {
	// Logger receives diagnostics, including the adapters' own stderr at
	// debug level. Nil discards them.
	Logger *slog.Logger
	// Locate finds an adapter binary ("dlv", or the Python interpreter when
	// Python is not an absolute path). Default exec.LookPath.
	Locate func(name string) (string, error)
	// Python is the interpreter that runs debugpy's adapter (python -m
	// debugpy.adapter) and the debuggee. Default /usr/bin/python3.
	Python string
	// AdapterEnv is added to the adapters' environment (which is otherwise
	// this process's), as KEY=VALUE entries. Delve builds Go programs with
	// it, so e.g. GOFLAGS belongs here.
	AdapterEnv []string
	// OnEvent, if set, receives every session's events, in order per
	// session, from a goroutine of that session. It must not block for long
	// and must not call Stop or Close synchronously (they wait for that
	// goroutine); the other methods are safe to call.
	OnEvent func(sessionID string, ev Event)
	// StartTimeout bounds how long Start waits for an adapter process to
	// announce where it listens (the request context bounds the rest).
	// Default 30s.
	StartTimeout time.Duration
	// StopTimeout bounds how long Stop waits for the adapter to answer
	// disconnect and exit before it is killed. Default 5s.
	StopTimeout time.Duration
	// Command, when set, builds each adapter's process (the adapter starts
	// the debuggee, which inherits its confinement): the caller's hook to
	// run what is debugged, a program of the workspace, in its kernel
	// sandbox. Nil means exec.Command.
	Command func(name string, args ...string) (*exec.Cmd, error)
}

// Config describes a session to start; it mirrors the control protocol's
// debug.startSession params plus what attaching needs.
type Config struct {
	// Type is the debugger: "go" (delve), or "python" / "debugpy" (debugpy).
	Type string
	// Request is "launch" or "attach".
	Request string
	// Name is a label for the session (shown by Sessions).
	Name string
	// Program is what to launch: for Go a main package directory or .go
	// file (delve builds it with mode "debug"), for Python a script.
	Program string
	// Args are the program's arguments.
	Args []string
	// Cwd is the debuggee's working directory (default: the program's
	// directory).
	Cwd string
	// Env is added to the debuggee's environment. Delve also applies it
	// to its own build of the program.
	Env map[string]string
	// StopOnEntry asks the adapter to stop at the program's entry.
	StopOnEntry bool
	// ProcessID is the local process to attach to (attach only).
	ProcessID int
	// Host and Port address a debug server to attach to (attach only),
	// which is spoken to directly over DAP: a headless delve server
	// ("dlv --headless --listen"; attach mode "remote") or a program
	// that called debugpy.listen. Host defaults to 127.0.0.1.
	Host string
	// Port is the debug server's port; see Host.
	Port int
}

// Breakpoint is a source breakpoint to set. Its JSON form is the control
// protocol's debug.setBreakpoints element.
type Breakpoint struct {
	// Line is the 1-based line.
	Line int `json:"line"`
	// Condition is an expression; the breakpoint stops only when it holds.
	Condition string `json:"condition,omitempty"`
	// HitCondition is an adapter-specific hit count expression (e.g. "3",
	// ">= 3").
	HitCondition string `json:"hitCondition,omitempty"`
	// LogMessage turns the breakpoint into a logpoint: the message (with
	// {expression} interpolation) is printed instead of stopping.
	LogMessage string `json:"logMessage,omitempty"`
}

// BreakpointResult is the outcome of setting one breakpoint.
type BreakpointResult struct {
	// ID identifies the breakpoint; it stays the same while a breakpoint
	// on that file and line exists.
	ID string
	// Verified reports whether at least one live session's adapter
	// accepted the breakpoint. Without live sessions it is false: the
	// breakpoint is pending and will be sent to sessions started later.
	Verified bool
	// Line is the 1-based line the adapter placed the breakpoint on (it
	// may move it to the next line with code), else the requested line.
	Line int
}

// BreakpointInfo describes a remembered breakpoint.
type BreakpointInfo struct {
	// ID identifies the breakpoint.
	ID string
	// Path is the file's absolute path.
	Path string
	// Line is the requested 1-based line.
	Line int
	// Enabled is always true: breakpoints are removed, not disabled.
	Enabled bool
	// Condition is the breakpoint's condition, if any.
	Condition string
	// HitCondition is the breakpoint's hit condition, if any.
	HitCondition string
	// LogMessage is the logpoint message, if any.
	LogMessage string
}

// SessionInfo describes a live session.
type SessionInfo struct {
	// ID identifies the session.
	ID string
	// Name is the Config's Name.
	Name string
	// Type is the normalised debug type: "go" or "python".
	Type string
}

// Normalised debug types.
const (
	typeGo     = "go"
	typePython = "python"
)

type storedBP struct {
	id string
	bp Breakpoint
}

// Manager runs debug sessions and remembers breakpoints. Its methods are
// safe for concurrent use.
type Manager struct {
	log         *slog.Logger
	locate      func(string) (string, error)
	python      string
	adapterEnv  []string
	onEvent     func(string, Event)
	command     func(string, ...string) (*exec.Cmd, error)
	startTO     time.Duration
	stopTimeout time.Duration

	mu       sync.Mutex
	sessions map[string]*session
	order    []*session // start order, live sessions only
	bps      map[string][]storedBP
	nextBP   int
	closed   bool
	bg       sync.WaitGroup // background stops of terminated sessions
}

// New returns a Manager configured by opts.
func New(opts Options) *Manager {
	m := &Manager{
		log:         opts.Logger,
		locate:      opts.Locate,
		python:      opts.Python,
		adapterEnv:  slices.Clone(opts.AdapterEnv),
		onEvent:     opts.OnEvent,
		command:     opts.Command,
		startTO:     opts.StartTimeout,
		stopTimeout: opts.StopTimeout,
		sessions:    make(map[string]*session),
		bps:         make(map[string][]storedBP),
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.locate == nil {
		m.locate = exec.LookPath
	}
	if m.command == nil {
		m.command = func(name string, args ...string) (*exec.Cmd, error) { return exec.Command(name, args...), nil }
	}
	if m.python == "" {
		m.python = "/usr/bin/python3"
	}
	if m.startTO <= 0 {
		m.startTO = 30 * time.Second
	}
	if m.stopTimeout <= 0 {
		m.stopTimeout = 5 * time.Second
	}
	return m
}

// normalizeType maps a debug type, including VS Code's names, to typeGo or
// typePython.
func normalizeType(t string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "go":
		return typeGo, nil
	case "python", "debugpy":
		return typePython, nil
	}
	return "", fmt.Errorf("%w: %q (want \"go\", \"python\" or \"debugpy\")", ErrUnsupportedType, t)
}

func newID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Start starts a session described by cfg: it starts the adapter, then
// sends initialize, launch or attach, setBreakpoints for every file with
// remembered breakpoints, and configurationDone. It returns the session's
// id once the adapter has answered the launch or attach request. ctx bounds
// the start (delve builds Go programs meanwhile, which can take a while);
// the session outlives it.
//
// When Start fails after the adapter started, the events the aborted
// session emitted (such as delve's build output) have been delivered
// under its id, ending with EventEnded; the error also quotes the
// adapter's output.
func (m *Manager) Start(ctx context.Context, cfg Config) (string, error) {
	typ, err := normalizeType(cfg.Type)
	if err != nil {
		return "", err
	}
	request := strings.ToLower(strings.TrimSpace(cfg.Request))
	switch request {
	case "launch":
		if cfg.Program == "" {
			return "", fmt.Errorf("%w: launch needs a program", ErrInvalidArgument)
		}
		if cfg.Program, err = filepath.Abs(cfg.Program); err != nil {
			return "", fmt.Errorf("%w: program: %v", ErrInvalidArgument, err)
		}
	case "attach":
		if cfg.ProcessID <= 0 && cfg.Port <= 0 {
			return "", fmt.Errorf("%w: attach needs a processId or a port", ErrInvalidArgument)
		}
	default:
		return "", fmt.Errorf("%w: request %q (want \"launch\" or \"attach\")", ErrInvalidArgument, cfg.Request)
	}
	if cfg.Cwd != "" {
		if cfg.Cwd, err = filepath.Abs(cfg.Cwd); err != nil {
			return "", fmt.Errorf("%w: cwd: %v", ErrInvalidArgument, err)
		}
	}
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return "", ErrClosed
	}

	args, err := m.requestArgs(typ, request, cfg)
	if err != nil {
		return "", err
	}
	a, err := m.startAdapter(ctx, typ, request, cfg)
	if err != nil {
		return "", fmt.Errorf("debug: start %s adapter: %w", typ, err)
	}
	id := newID("dbg-")
	name := cfg.Name
	if name == "" {
		name = filepath.Base(cfg.Program)
	}
	s := newSession(m, id, name, typ, request, a)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		s.run()
		_ = s.stop(context.Background(), "manager closed")
		return "", ErrClosed
	}
	m.sessions[id] = s
	m.mu.Unlock()
	s.run()
	log := m.log.With("session", id, "type", typ)
	log.Info("debug: starting session", "request", request, "program", cfg.Program, "pid", cfg.ProcessID, "port", cfg.Port)
	if err := s.configure(ctx, request, args); err != nil {
		log.Warn("debug: session failed to start", "err", err)
		_ = s.stop(context.Background(), "start failed")
		return "", fmt.Errorf("debug: start %s session: %w", typ, err)
	}
	m.mu.Lock()
	if _, live := m.sessions[id]; live {
		m.order = append(m.order, s)
	}
	m.mu.Unlock()
	log.Info("debug: session started")
	return id, nil
}

// lookup finds a live session; an empty id means the most recently started
// live session.
func (m *Manager) lookup(id string) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id == "" {
		if len(m.order) == 0 {
			return nil, fmt.Errorf("%w: no live session", ErrNoSession)
		}
		return m.order[len(m.order)-1], nil
	}
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSession, id)
	}
	return s, nil
}

// remove forgets s (called once its adapter is gone).
func (m *Manager) remove(s *session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions[s.id] == s {
		delete(m.sessions, s.id)
	}
	m.order = slices.DeleteFunc(m.order, func(o *session) bool { return o == s })
}

// Stop ends session id (empty: the most recently started live session): it
// sends disconnect (terminating a launched debuggee), waits for the adapter
// to exit up to Options.StopTimeout and then kills it. When Stop returns
// the session is gone from Sessions and emits no more events.
func (m *Manager) Stop(ctx context.Context, id string) error {
	s, err := m.lookup(id)
	if err != nil {
		return err
	}
	return s.stop(ctx, "stopped")
}

// Continue resumes a stopped session (empty id: the most recently started).
// threadID 0 means the thread of the last stop.
func (m *Manager) Continue(ctx context.Context, id string, threadID int) error {
	s, err := m.lookup(id)
	if err != nil {
		return err
	}
	return s.resume(ctx, threadID)
}

// Sessions lists the live, started sessions in start order.
func (m *Manager) Sessions() []SessionInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]SessionInfo, 0, len(m.order))
	for _, s := range m.order {
		out = append(out, SessionInfo{ID: s.id, Name: s.name, Type: s.typ})
	}
	return out
}

// Close stops every session and waits for them to end. Start fails with
// ErrClosed afterwards; the other methods keep working on the (empty) set.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	all := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { _ = s.stop(context.Background(), "manager closed") })
	}
	wg.Wait()
	m.bg.Wait()
	return nil
}

// sessionTerminated stops s in the background after the adapter reported
// the end of debugging.
func (m *Manager) sessionTerminated(s *session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return // Close stops it
	}
	m.bg.Go(func() { _ = s.stop(context.Background(), "program terminated") })
}

func (m *Manager) emit(id string, ev Event) {
	if m.onEvent != nil {
		m.onEvent(id, ev)
	}
}

func cleanPath(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: empty path", ErrInvalidArgument)
	}
	p, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("%w: path %q: %v", ErrInvalidArgument, path, err)
	}
	return p, nil
}

// fileBreakpoints returns a copy of the breakpoints of path, by line.
func (m *Manager) fileBreakpoints(path string) []storedBP {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.bps[path])
}

func (m *Manager) breakpointFiles() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	files := make([]string, 0, len(m.bps))
	for p := range m.bps {
		files = append(files, p)
	}
	sort.Strings(files)
	return files
}

func (m *Manager) allSessions() []*session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}

// SetBreakpoints adds breakpoints to path, or updates those already on the
// same lines; the file's other breakpoints stay. The breakpoints are
// remembered (sessions started later get them) and the file's full set is
// sent to every live session. The results, one per bp in order, report
// whether any live adapter verified each breakpoint. An adapter that fails
// to answer is logged and counts as not verifying.
func (m *Manager) SetBreakpoints(ctx context.Context, path string, bps []Breakpoint) ([]BreakpointResult, error) {
	path, err := cleanPath(path)
	if err != nil {
		return nil, err
	}
	for _, bp := range bps {
		if bp.Line < 1 {
			return nil, fmt.Errorf("%w: breakpoint line %d (lines are 1-based)", ErrInvalidArgument, bp.Line)
		}
	}
	results := make([]BreakpointResult, len(bps))
	byLine := make(map[int][]int) // line -> indexes into results
	m.mu.Lock()
	cur := m.bps[path]
	for i, bp := range bps {
		j := slices.IndexFunc(cur, func(s storedBP) bool { return s.bp.Line == bp.Line })
		if j >= 0 {
			cur[j].bp = bp
		} else {
			m.nextBP++
			cur = append(cur, storedBP{id: fmt.Sprintf("bp-%d", m.nextBP), bp: bp})
			j = len(cur) - 1
		}
		results[i] = BreakpointResult{ID: cur[j].id, Line: bp.Line}
		byLine[bp.Line] = append(byLine[bp.Line], i)
	}
	slices.SortFunc(cur, func(a, b storedBP) int { return a.bp.Line - b.bp.Line })
	m.bps[path] = cur
	m.mu.Unlock()

	for _, s := range m.allSessions() {
		sent, got, err := s.syncFile(ctx, path)
		if err != nil {
			m.log.Warn("debug: setBreakpoints failed", "session", s.id, "path", path, "err", err)
			continue
		}
		for k, sb := range sent {
			if k >= len(got) || !got[k].Verified {
				continue
			}
			for _, i := range byLine[sb.bp.Line] {
				if !results[i].Verified {
					results[i].Verified = true
					if got[k].Line > 0 {
						results[i].Line = got[k].Line
					}
				}
			}
		}
	}
	return results, nil
}

// RemoveBreakpoints removes the breakpoints on the given 1-based lines of
// path, updates every live session, and returns how many were removed.
func (m *Manager) RemoveBreakpoints(ctx context.Context, path string, lines []int) (int, error) {
	path, err := cleanPath(path)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	cur := m.bps[path]
	n := len(cur)
	cur = slices.DeleteFunc(slices.Clone(cur), func(s storedBP) bool { return slices.Contains(lines, s.bp.Line) })
	removed := n - len(cur)
	if len(cur) == 0 {
		delete(m.bps, path)
	} else {
		m.bps[path] = cur
	}
	m.mu.Unlock()
	if removed == 0 {
		return 0, nil
	}
	for _, s := range m.allSessions() {
		if _, _, err := s.syncFile(ctx, path); err != nil {
			m.log.Warn("debug: setBreakpoints failed", "session", s.id, "path", path, "err", err)
		}
	}
	return removed, nil
}

// Breakpoints lists the remembered breakpoints of path (empty: of every
// file), ordered by path and line.
func (m *Manager) Breakpoints(path string) []BreakpointInfo {
	if path != "" {
		if p, err := filepath.Abs(path); err == nil {
			path = p
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []BreakpointInfo
	for p, list := range m.bps {
		if path != "" && p != path {
			continue
		}
		for _, s := range list {
			out = append(out, BreakpointInfo{
				ID: s.id, Path: p, Line: s.bp.Line, Enabled: true,
				Condition: s.bp.Condition, HitCondition: s.bp.HitCondition, LogMessage: s.bp.LogMessage,
			})
		}
	}
	slices.SortFunc(out, func(a, b BreakpointInfo) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out
}
