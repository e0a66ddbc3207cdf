package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/debug"
	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/terminal"
	"github.com/warden-dev/warden/internal/wsfs"
)

// Notice is something a workspace's services report on their own, for the
// doors to pass on to their clients: terminal output and exits, debug
// events.
type Notice struct {
	// Method is the notification's name in the control protocol's terms:
	// "terminal.output", "terminal.closed" or "debug.event".
	Method string
	// Params is its JSON-encodable payload.
	Params any
}

// Workspace is the services of one registered workspace root, shared by
// every door and every client working in it.
type Workspace struct {
	svc  *Service
	root string

	fs     *wsfs.FS
	editor *editor.Editor
	lsp    *lsp.Manager
	git    *gitcli.Repo
	terms  *terminal.Manager
	debug  *debug.Manager
	ix     *indexer

	mu        sync.Mutex
	listeners map[int]func(Notice)
	nextL     int
	shadow    map[protocol.DocumentURI]*shadowDoc // documents opened on the language servers for reads, not in the editor
	lines     map[string]*lineBuffer              // text typed into each terminal since its last Enter
}

// shadowDoc is the version and text last sent to the language servers for
// a file that is not open in the editor.
type shadowDoc struct {
	version int32
	text    string
}

func newWorkspace(s *Service, root string) (*Workspace, error) {
	f, err := wsfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace file system: %w", err)
	}
	log := s.log.With("workspace", root)
	w := &Workspace{
		svc: s, root: root, fs: f, editor: editor.New(),
		git:       &gitcli.Repo{Dir: root, Logger: log},
		listeners: map[int]func(Notice){},
		shadow:    map[protocol.DocumentURI]*shadowDoc{},
		lines:     map[string]*lineBuffer{},
	}
	w.lsp = lsp.NewManager(lsp.Options{
		Logger: log,
		Locate: s.opts.Locate,
		// one server per language for the whole workspace
		Root: func(string, string) string { return root },
	})
	w.editor.Listen(lspSync{w: w})
	w.startIndex()
	sh := s.opts.Shell
	if sh == "" {
		sh = os.Getenv("SHELL")
	}
	if sh == "" {
		sh = "/bin/bash"
	}
	var shArgs []string
	if filepath.Base(sh) == "bash" {
		// no history expansion: "!!" and "^a^b" would run a line other
		// than the one judged
		shArgs = []string{"+H"}
	}
	tcfg := terminal.Config{
		Logger:    log,
		Shell:     sh,
		ShellArgs: shArgs,
		Env:       terminalEnv(s.opts.TerminalEnv),
		OnOutput: func(id, data string) {
			w.notify(Notice{Method: "terminal.output", Params: map[string]string{"terminalId": id, "data": data}})
		},
		OnClosed: func(id string, code int) {
			w.mu.Lock()
			delete(w.lines, id)
			w.mu.Unlock()
			w.notify(Notice{Method: "terminal.closed", Params: map[string]any{"terminalId": id, "exitCode": code}})
		},
	}
	if l := s.opts.Launcher; l != nil {
		// a terminal outlives every request: its own context
		tcfg.Command = func(name string, args ...string) (*exec.Cmd, error) {
			return l.Command(context.Background(), root, name, args...)
		}
		// git runs what the repository's config names (hooks, filters,
		// diff drivers), and an agent can write that config
		w.git.Command = func(ctx context.Context, name string, args ...string) (*exec.Cmd, error) {
			return l.Command(ctx, root, name, args...)
		}
	}
	w.terms = terminal.NewManager(tcfg)
	var debugCmd func(string, ...string) (*exec.Cmd, error)
	if l := s.opts.Launcher; l != nil {
		// the debuggee is a program of the workspace: the adapter that
		// starts it runs confined, and the debuggee with it
		debugCmd = func(name string, args ...string) (*exec.Cmd, error) {
			return l.Command(context.Background(), root, name, args...)
		}
	}
	w.debug = debug.New(debug.Options{
		Logger:  log,
		Locate:  s.opts.Locate,
		Command: debugCmd,
		OnEvent: func(id string, ev debug.Event) {
			data, _ := event.Encode(event.DebugEventData{ // only plain values: cannot fail
				DebugSession: id, Kind: string(ev.Kind), Reason: ev.Reason, File: ev.File, Line: ev.Line,
				Function: ev.Function, Category: ev.Category, Output: ev.Output, ExitCode: ev.ExitCode,
			})
			if _, err := s.core().Record(context.Background(), event.Event{
				Session: "debug-" + id, Type: event.ToolResult, Source: "control/debug", Workspace: root, Data: data,
			}); err != nil {
				log.Warn("could not record a debug event", "err", err)
			}
			w.notify(Notice{Method: "debug.event", Params: map[string]any{"sessionId": id, "kind": ev.Kind, "reason": ev.Reason, "file": ev.File, "line": ev.Line, "output": ev.Output}})
		},
	})
	return w, nil
}

// terminalEnv is the base environment of the shells warden opens for
// agents: base (the daemon's own when nil) with readline's init file off
// (INPUTRC=/dev/null: no macro of the user's bound to a key rewrites a
// judged line), a UTF-8 character type (else readline reads the bytes of
// a non-ASCII character as Meta key commands, which edit the line after
// it was judged), and no history file (an agent's lines do not go into the
// user's history).
func terminalEnv(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+3)
	utf8Locale := false
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "INPUTRC", "HISTFILE":
			continue
		case "LC_ALL", "LC_CTYPE", "LANG":
			if isUTF8Locale(v) {
				utf8Locale = true
			} else if k == "LC_ALL" && v != "" {
				continue // it would override LC_CTYPE below
			}
		}
		out = append(out, kv)
	}
	out = append(out, "INPUTRC=/dev/null", "HISTFILE=")
	if !utf8Locale {
		out = append(out, "LC_CTYPE=C.UTF-8")
	}
	return out
}

func isUTF8Locale(v string) bool {
	v = strings.ToLower(v)
	return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
}

// Root is the workspace's absolute root directory.
func (w *Workspace) Root() string { return w.root }

// Editor is the workspace's headless editor: documents, versions and
// selections in memory. Buffer edits change no file; saving is an
// operation that goes through the gate.
func (w *Workspace) Editor() *editor.Editor { return w.editor }

// LSP is the workspace's language servers (one per language). Documents
// reach them through the editor or through the gated reads of this
// package.
func (w *Workspace) LSP() *lsp.Manager { return w.lsp }

// Terminal returns the terminal id of this workspace (to read its output,
// list or show it; typing into it is SendText).
func (w *Workspace) Terminal(id string) (*terminal.Terminal, error) { return w.terms.Get(id) }

// Terminals lists the workspace's terminals.
func (w *Workspace) Terminals() []*terminal.Terminal { return w.terms.List() }

// ActiveTerminal is the terminal last created or shown.
func (w *Workspace) ActiveTerminal() (*terminal.Terminal, bool) { return w.terms.Active() }

// ShowTerminal makes terminal id the active one.
func (w *Workspace) ShowTerminal(id string) error { return w.terms.Show(id) }

// DisposeTerminal ends terminal id (its shell gets SIGHUP).
func (w *Workspace) DisposeTerminal(id string) error { return w.terms.Dispose(id) }

// DebugSessions lists the workspace's debug sessions.
func (w *Workspace) DebugSessions() []debug.SessionInfo { return w.debug.Sessions() }

// Listen registers f for the workspace's notices and returns the function
// that removes it.
func (w *Workspace) Listen(f func(Notice)) (remove func()) {
	w.mu.Lock()
	id := w.nextL
	w.nextL++
	w.listeners[id] = f
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.listeners, id)
		w.mu.Unlock()
	}
}

func (w *Workspace) notify(n Notice) {
	w.mu.Lock()
	ids := make([]int, 0, len(w.listeners))
	for id := range w.listeners {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	fs := make([]func(Notice), 0, len(ids))
	for _, id := range ids {
		fs = append(fs, w.listeners[id])
	}
	w.mu.Unlock()
	for _, f := range fs {
		f(n)
	}
}

func (w *Workspace) close() error {
	var errs []error
	if err := w.debug.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: debuggers: %w", w.root, err))
	}
	if err := w.terms.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: terminals: %w", w.root, err))
	}
	if err := w.closeIndex(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: code index: %w", w.root, err))
	}
	if err := w.lsp.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: language servers: %w", w.root, err))
	}
	if err := w.fs.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: file system: %w", w.root, err))
	}
	return errors.Join(errs...)
}

// lspSync keeps the language servers in step with the headless editor.
type lspSync struct{ w *Workspace }

func (l lspSync) Opened(s editor.Snapshot) {
	u := lsp.URIFromPath(s.Path)
	l.w.mu.Lock()
	delete(l.w.shadow, u) // the editor's text is what the server has now
	l.w.mu.Unlock()
	if err := l.w.lsp.DidOpen(u, s.LanguageID, int32(s.Version), s.Text); err != nil && !errors.Is(err, lsp.ErrNoServer) {
		l.w.svc.log.Debug("lsp didOpen", "path", s.Path, "err", err)
	}
}

func (l lspSync) Changed(s editor.Snapshot) {
	if err := l.w.lsp.DidChange(lsp.URIFromPath(s.Path), int32(s.Version), s.Text); err != nil && !errors.Is(err, lsp.ErrNoServer) && !errors.Is(err, lsp.ErrNotOpen) {
		l.w.svc.log.Debug("lsp didChange", "path", s.Path, "err", err)
	}
}

func (l lspSync) Saved(s editor.Snapshot) {
	if err := l.w.lsp.DidSave(lsp.URIFromPath(s.Path), s.Text); err != nil && !errors.Is(err, lsp.ErrNoServer) && !errors.Is(err, lsp.ErrNotOpen) {
		l.w.svc.log.Debug("lsp didSave", "path", s.Path, "err", err)
	}
}

func (l lspSync) Closed(path string) {
	_ = l.w.lsp.DidClose(lsp.URIFromPath(path))
}

// Unwatch stops the file watch id (removing a watch touches nothing).
func (w *Workspace) Unwatch(id string) error { return w.fs.Unwatch(id) }

// StopDebug ends debug session id (its debuggee too).
func (w *Workspace) StopDebug(ctx context.Context, id string) error { return w.debug.Stop(ctx, id) }

// SetBreakpoints replaces the breakpoints of the file abs (they apply to
// every session, and to sessions started later).
func (w *Workspace) SetBreakpoints(ctx context.Context, abs string, bps []debug.Breakpoint) ([]debug.BreakpointResult, error) {
	return w.debug.SetBreakpoints(ctx, abs, bps)
}

// RemoveBreakpoints removes the breakpoints of abs at lines (all of them
// when lines is empty) and returns how many were removed.
func (w *Workspace) RemoveBreakpoints(ctx context.Context, abs string, lines []int) (int, error) {
	return w.debug.RemoveBreakpoints(ctx, abs, lines)
}

// Breakpoints lists the breakpoints of abs ("" for every file).
func (w *Workspace) Breakpoints(abs string) []debug.BreakpointInfo { return w.debug.Breakpoints(abs) }
