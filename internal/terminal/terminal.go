// Package terminal runs interactive shells on real pseudo-terminals for the
// control door's terminal.* methods. It is the mechanism only: deciding who
// may create a terminal or what text may be sent to it is the caller's job.
//
// A Manager owns its terminals; there is no package-level mutable state.
// Each Terminal is a shell process leading its own session on the PTY, a
// reader goroutine that copies PTY output into a ring of the last lines (and
// to the OnOutput callbacks), and a waiter goroutine that reaps the shell and
// reports its exit through OnClosed.
//
// Lifecycle choices, stated once:
//
//   - A terminal whose shell has exited (by itself or through Dispose) is
//     removed from the Manager before OnClosed is called, so List, Get and
//     Active stop reporting it as soon as a client could hear of the close.
//     A *Terminal the caller still holds keeps its Output buffer readable;
//     SendText on it fails with ErrClosed.
//   - All OnOutput calls for a terminal happen before its OnClosed call, and
//     none happen concurrently for the same terminal.
//   - The exit code given to OnClosed is the shell's exit status, or -1 when
//     the shell was ended by a signal (as Dispose normally does: SIGHUP, then
//     SIGKILL).
package terminal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/creack/pty"
)

// ErrNotFound is returned (wrapped, with the id) for an unknown terminal id,
// including the id of a terminal whose shell has already exited.
var ErrNotFound = errors.New("terminal not found")

// ErrClosed is returned when writing to a terminal whose shell has exited,
// or when creating a terminal on a Manager that has been closed.
var ErrClosed = errors.New("terminal closed")

// DefaultKillTimeout is how long Dispose waits after SIGHUP before it kills
// the terminal's processes, when Config.KillTimeout is zero.
const DefaultKillTimeout = 3 * time.Second

// Default window size for a new terminal when Options leaves it zero.
const (
	// DefaultRows is the default number of rows.
	DefaultRows = 24
	// DefaultCols is the default number of columns.
	DefaultCols = 120
)

// drainGrace bounds how long the waiter lets the reader drain output after
// the shell has exited, before it closes the PTY. Processes the shell left
// running in the background can hold the PTY open for ever.
const drainGrace = 500 * time.Millisecond

// OutputFunc receives a chunk of a terminal's output. Chunks are cut at
// UTF-8 boundaries (a multi-byte character split across reads is held back
// until it is complete); they are otherwise raw, escape sequences and '\r'
// included. It is called on the terminal's reader goroutine: a slow callback
// slows the terminal down, it does not lose output.
type OutputFunc func(id, data string)

// ClosedFunc is told that a terminal's shell has exited, with its exit code
// (-1 when killed by a signal). It must not wait for Dispose or Close of the
// same Manager to return.
type ClosedFunc func(id string, exitCode int)

// Config configures a Manager. The zero value is usable.
type Config struct {
	// Logger receives lifecycle events. Nil discards them.
	Logger *slog.Logger
	// Shell is the program started in each terminal. Empty means $SHELL,
	// or /bin/bash when $SHELL is unset.
	Shell string
	// ShellArgs are passed to Shell. Nil means none: a shell whose stdin is
	// a terminal is interactive by itself.
	ShellArgs []string
	// Env is the base environment of each shell ("KEY=value" entries). Nil
	// means the environment of this process. TERM=xterm-256color is added
	// when the base has no TERM; Options.Env is applied on top.
	Env []string
	// MaxLines is how many lines of output each terminal keeps (default
	// DefaultMaxLines). MaxLineBytes bounds one line (default
	// DefaultMaxLineBytes); longer lines keep their last MaxLineBytes bytes.
	MaxLines     int
	MaxLineBytes int
	// KillTimeout is how long Dispose waits after SIGHUP before SIGKILL
	// (default DefaultKillTimeout).
	KillTimeout time.Duration
	// OnOutput and OnClosed, when set, are called for every terminal of the
	// Manager, before the per-terminal callbacks in Options.
	OnOutput OutputFunc
	OnClosed ClosedFunc
	// Command, when set, builds the process of each shell (name is Shell,
	// args ShellArgs): the caller's hook to run it confined (a kernel
	// sandbox). Create sets the command's Dir and its environment, keeping
	// the entries the hook set in cmd.Env last (they win). Nil means
	// exec.Command.
	Command func(name string, args ...string) (*exec.Cmd, error)
}

// Options describe one terminal to Create.
type Options struct {
	// Name is a label for clients; empty means the shell's base name.
	Name string
	// Cwd is the shell's working directory; empty means this process's.
	Cwd string
	// Env is set in the shell's environment on top of Config.Env.
	Env map[string]string
	// Rows and Cols give the window size; zero means DefaultRows and
	// DefaultCols.
	Rows, Cols uint16
	// OnOutput and OnClosed, when set, are called for this terminal only,
	// after the Manager's callbacks.
	OnOutput OutputFunc
	OnClosed ClosedFunc
}

// Manager creates and tracks terminals. It is safe for concurrent use.
type Manager struct {
	cfg   Config
	log   *slog.Logger
	shell string

	mu     sync.Mutex
	terms  map[string]*Terminal
	seq    uint64 // stamps creation and activation order
	closed bool
}

// NewManager returns a Manager configured by cfg.
func NewManager(cfg Config) *Manager {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	shell := cfg.Shell
	if shell == "" {
		shell = os.Getenv("SHELL")
	}
	if shell == "" {
		shell = "/bin/bash"
	}
	if cfg.KillTimeout <= 0 {
		cfg.KillTimeout = DefaultKillTimeout
	}
	return &Manager{cfg: cfg, log: log, shell: shell, terms: make(map[string]*Terminal)}
}

// Terminal is one shell on a PTY. ID, Name and ProcessID never change.
type Terminal struct {
	// ID identifies the terminal to its Manager; it is random, not reused.
	ID string
	// Name is the label given at creation.
	Name string
	// ProcessID is the shell's process id; the shell leads its own session
	// and process group, both with this id.
	ProcessID int

	m        *Manager
	cmd      *exec.Cmd
	pty      *os.File
	startDir string
	created  uint64
	active   uint64 // guarded by m.mu
	onOutput []OutputFunc
	onClosed []ClosedFunc

	writeMu sync.Mutex // serialises SendText

	mu       sync.Mutex // guards ring, exitCode, hasCode, reaped
	ring     *lineRing
	exitCode int
	hasCode  bool
	reaped   bool // the shell's pid is about to be released: no more group signals

	readDone chan struct{} // the reader has stopped
	exited   chan struct{} // the shell has been reaped and removed from m
	done     chan struct{} // OnClosed callbacks have returned
}

// Create starts a shell on a new PTY and makes it the active terminal.
func (m *Manager) Create(opts Options) (*Terminal, error) {
	env, err := m.environ(opts.Env)
	if err != nil {
		return nil, err
	}
	if opts.Cwd != "" {
		fi, err := os.Stat(opts.Cwd)
		if err != nil {
			return nil, fmt.Errorf("terminal: cwd: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("terminal: cwd %s: %w", opts.Cwd, syscall.ENOTDIR)
		}
	}
	rows, cols := opts.Rows, opts.Cols
	if rows == 0 {
		rows = DefaultRows
	}
	if cols == 0 {
		cols = DefaultCols
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(m.shell)
	}
	id, err := newID()
	if err != nil {
		return nil, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("terminal: create: manager: %w", ErrClosed)
	}

	var cmd *exec.Cmd
	if m.cfg.Command != nil {
		cmd, err = m.cfg.Command(m.shell, m.cfg.ShellArgs...)
		if err != nil {
			return nil, fmt.Errorf("terminal: %s: %w", m.shell, err)
		}
	} else {
		cmd = exec.Command(m.shell, m.cfg.ShellArgs...)
	}
	cmd.Dir = opts.Cwd
	cmd.Env = append(env, cmd.Env...) // what the hook set wins
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		return nil, fmt.Errorf("terminal: start %s: %w", m.shell, err)
	}
	master, err := pollable(ptmx)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("terminal: pty: %w", err)
	}

	t := &Terminal{
		ID:        id,
		Name:      name,
		ProcessID: cmd.Process.Pid,
		m:         m,
		cmd:       cmd,
		startDir:  cmd.Dir,
		pty:       master,
		ring:      newLineRing(m.cfg.MaxLines, m.cfg.MaxLineBytes),
		readDone:  make(chan struct{}),
		exited:    make(chan struct{}),
		done:      make(chan struct{}),
	}
	if m.cfg.OnOutput != nil {
		t.onOutput = append(t.onOutput, m.cfg.OnOutput)
	}
	if opts.OnOutput != nil {
		t.onOutput = append(t.onOutput, opts.OnOutput)
	}
	if m.cfg.OnClosed != nil {
		t.onClosed = append(t.onClosed, m.cfg.OnClosed)
	}
	if opts.OnClosed != nil {
		t.onClosed = append(t.onClosed, opts.OnClosed)
	}
	m.seq++
	t.created, t.active = m.seq, m.seq
	m.terms[id] = t
	m.log.Info("terminal created", "id", id, "name", name, "pid", t.ProcessID, "cwd", opts.Cwd)

	go t.readLoop()
	go t.waitLoop()
	return t, nil
}

// environ builds a shell's environment.
func (m *Manager) environ(extra map[string]string) ([]string, error) {
	base := m.cfg.Env
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+len(extra)+1)
	hasTerm := false
	for _, kv := range base {
		if strings.HasPrefix(kv, "TERM=") {
			hasTerm = true
		}
		env = append(env, kv)
	}
	if !hasTerm {
		env = append(env, "TERM=xterm-256color")
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(extra[k], 0) {
			return nil, fmt.Errorf("terminal: bad environment variable %q", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k]) // exec keeps the last of duplicate keys
	}
	return env, nil
}

// Get returns the terminal with the given id.
func (m *Manager) Get(id string) (*Terminal, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	if !ok {
		return nil, fmt.Errorf("terminal %q: %w", id, ErrNotFound)
	}
	return t, nil
}

// List returns the live terminals in creation order.
func (m *Manager) List() []*Terminal {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Terminal, 0, len(m.terms))
	for _, t := range m.terms {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].created < out[j].created })
	return out
}

// Active returns the live terminal most recently created or shown, and false
// when there is none. When the active terminal exits, the one created or
// shown before it becomes active.
func (m *Manager) Active() (*Terminal, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var best *Terminal
	for _, t := range m.terms {
		if best == nil || t.active > best.active {
			best = t
		}
	}
	return best, best != nil
}

// Show makes the terminal with the given id the active one.
func (m *Manager) Show(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.terms[id]
	if !ok {
		return fmt.Errorf("terminal %q: %w", id, ErrNotFound)
	}
	m.seq++
	t.active = m.seq
	return nil
}

// Dispose ends the terminal with the given id: SIGHUP to the shell's process
// group and to the terminal's foreground process group (an interactive shell
// passes the hang-up on to its jobs), then, if the shell has not exited
// within Config.KillTimeout, SIGKILL to every process in the shell's session.
// It returns once the shell has been reaped and OnClosed has returned.
func (m *Manager) Dispose(id string) error {
	t, err := m.Get(id)
	if err != nil {
		return err
	}
	m.log.Info("terminal dispose", "id", id, "pid", t.ProcessID)
	t.terminate(m.cfg.KillTimeout)
	return nil
}

// Close disposes every terminal (concurrently) and makes later Creates fail
// with ErrClosed. It is safe to call more than once.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	terms := make([]*Terminal, 0, len(m.terms))
	for _, t := range m.terms {
		terms = append(terms, t)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range terms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.terminate(m.cfg.KillTimeout)
		}()
	}
	wg.Wait()
	return nil
}

func (m *Manager) remove(t *Terminal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.terms[t.ID] == t {
		delete(m.terms, t.ID)
	}
}

// SendText writes text to the terminal as if typed, followed by a carriage
// return (the Enter key) when addNewLine is true. Text is written verbatim:
// control characters such as "\x03" (Ctrl-C) reach the terminal as such.
// It fails with ErrClosed once the shell has exited.
func (t *Terminal) SendText(text string, addNewLine bool) error {
	if addNewLine {
		text += "\r"
	}
	select {
	case <-t.exited:
		return fmt.Errorf("terminal %q: %w", t.ID, ErrClosed)
	default:
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if _, err := t.pty.WriteString(text); err != nil {
		if errors.Is(err, os.ErrClosed) {
			return fmt.Errorf("terminal %q: %w", t.ID, ErrClosed)
		}
		return fmt.Errorf("terminal %q: write: %w", t.ID, err)
	}
	return nil
}

// Dir returns the shell's current directory as the kernel knows it
// (/proc/PID/cwd on Linux), so a command typed after a `cd` is judged where
// it will run. Where that cannot be read (another OS, the shell gone) it
// is the directory the shell started in.
func (t *Terminal) Dir() string {
	if d, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", t.ProcessID)); err == nil && filepath.IsAbs(d) {
		return d
	}
	return t.startDir
}

// Output returns the last maxLines lines of buffered output (all of them
// when maxLines <= 0), exactly as the PTY produced them: escape sequences are
// kept and lines end in "\r\n". Use StripANSI for plain text.
//
// A line is what ends in '\n'; the bytes after the last '\n' (typically the
// prompt) are the partial last line, which counts as a line when not empty.
// The buffer holds at most Config.MaxLines lines, partial one included.
func (t *Terminal) Output(maxLines int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ring.last(maxLines)
}

// Resize sets the terminal's window size; the foreground job gets SIGWINCH.
func (t *Terminal) Resize(rows, cols uint16) error {
	ws := pty.Winsize{Rows: rows, Cols: cols}
	err := t.control(func(fd uintptr) error {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
		if e != 0 {
			return e
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("terminal %q: resize: %w", t.ID, err)
	}
	return nil
}

// Done is closed when the shell has exited, been reaped, and OnClosed has
// returned.
func (t *Terminal) Done() <-chan struct{} { return t.done }

// ExitCode returns the shell's exit code (-1 when killed by a signal) and
// true once it has exited; 0 and false before.
func (t *Terminal) ExitCode() (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exitCode, t.hasCode
}

// control runs f on the PTY's descriptor without taking it out of the
// runtime poller (os.File.Fd would make it blocking, and then Close could
// not interrupt the reader).
func (t *Terminal) control(f func(fd uintptr) error) error {
	sc, err := t.pty.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) { ferr = f(fd) }); err != nil {
		return err
	}
	return ferr
}

// foreground returns the terminal's foreground process group, or 0.
func (t *Terminal) foreground() int {
	var pgrp int32
	err := t.control(func(fd uintptr) error {
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
		if e != 0 {
			return e
		}
		return nil
	})
	if err != nil {
		return 0
	}
	return int(pgrp)
}

// signalGroups sends sig to the shell's process group and the terminal's
// foreground process group; with all set, to every process of the shell's
// session too. Nothing is sent once the shell has been reaped, since its id
// may then belong to someone else.
func (t *Terminal) signalGroups(sig syscall.Signal, all bool) {
	t.mu.Lock()
	defer t.mu.Unlock() // held so the waiter cannot release the pid meanwhile
	if t.reaped {
		return
	}
	pid := t.ProcessID
	_ = syscall.Kill(-pid, sig)
	if fg := t.foreground(); fg > 0 && fg != pid {
		_ = syscall.Kill(-fg, sig)
	}
	if all {
		for _, p := range sessionMembers(pid) {
			_ = syscall.Kill(p, sig)
		}
	}
}

// terminate hangs the terminal up, escalates to SIGKILL after timeout, and
// waits for the waiter to finish.
func (t *Terminal) terminate(timeout time.Duration) {
	select {
	case <-t.exited:
		<-t.done
		return
	default:
	}
	t.signalGroups(syscall.SIGHUP, false)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-t.done:
		return
	case <-timer.C:
	}
	t.m.log.Warn("terminal did not exit on SIGHUP; killing", "id", t.ID, "pid", t.ProcessID)
	t.signalGroups(syscall.SIGKILL, true)
	<-t.done
}

func (t *Terminal) readLoop() {
	defer close(t.readDone)
	buf := make([]byte, 32<<10)
	var carry []byte
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			data := buf[:n]
			if len(carry) > 0 {
				data = append(carry, data...)
			}
			k := completeUTF8(data)
			if k > 0 {
				t.emit(data[:k])
			}
			carry = append([]byte(nil), data[k:]...)
		}
		if err != nil {
			// EIO once the last process holding the PTY's other side has
			// gone; os.ErrClosed when the waiter closed it.
			if len(carry) > 0 {
				t.emit(carry)
			}
			return
		}
	}
}

// completeUTF8 returns the length of the longest prefix of p that does not
// end inside a multi-byte UTF-8 character.
func completeUTF8(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				return i
			}
			break
		}
	}
	return len(p)
}

func (t *Terminal) emit(p []byte) {
	t.mu.Lock()
	t.ring.write(p)
	t.mu.Unlock()
	if len(t.onOutput) == 0 {
		return
	}
	s := string(p)
	for _, f := range t.onOutput {
		f(t.ID, s)
	}
}

func (t *Terminal) waitLoop() {
	pid := t.ProcessID
	// Wait for the exit without reaping, so signalGroups can be fenced off
	// before the pid is released.
	blockUntilExited(pid)
	t.mu.Lock()
	t.reaped = true
	t.mu.Unlock()
	_ = t.cmd.Wait() // the exit status is in ProcessState
	code := -1
	if ps := t.cmd.ProcessState; ps != nil {
		code = ps.ExitCode() // -1 when ended by a signal
	}

	grace := time.NewTimer(drainGrace)
	select {
	case <-t.readDone:
	case <-grace.C:
	}
	grace.Stop()
	_ = t.pty.Close() // also hangs up anything the shell left on the PTY
	<-t.readDone

	t.mu.Lock()
	t.exitCode, t.hasCode = code, true
	t.mu.Unlock()
	t.m.remove(t)
	close(t.exited)
	t.m.log.Info("terminal exited", "id", t.ID, "pid", pid, "exit_code", code)
	for _, f := range t.onClosed {
		f(t.ID, code)
	}
	close(t.done)
}

// pollable swaps the PTY master for a non-blocking descriptor in the
// runtime poller. creack/pty hands it over in blocking mode, in which a
// pending Read cannot be interrupted by Close.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(int(f.Fd()))
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("dup: %w", err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return nil, fmt.Errorf("set non-blocking: %w", err)
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("terminal: id: %w", err)
	}
	return "term-" + hex.EncodeToString(b[:]), nil
}
