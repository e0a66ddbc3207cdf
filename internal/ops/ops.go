// Package ops is warden's operations layer: the one place where a
// workspace operation (read a file, search, run git, ask a language server,
// open a terminal, ...) is defined, with how it becomes a policy.Call and
// how it runs.
//
// The daemon owns one [Service]; it holds one [Workspace] per registered
// workspace root, and each Workspace owns that root's services: the
// sandboxed file system (wsfs), the headless editor, the language servers
// (one per language for the whole workspace), git, terminals and debuggers.
// Every door (the control door, the MCP door, and next warden's own agent)
// only translates its wire shapes into these operations and their errors
// back into its own codes.
//
// A door cannot run an operation without the gate: the mechanisms that
// touch the disk or start processes (the file system, git, terminals,
// debuggers) are reachable only through a [Permit], and the only way to get
// a Permit is [Workspace.Gate], which asks core.Gate (policy, durable
// record, a person when the policy asks).
//
// A Workspace exists only for a root the registry knows (after symlinks
// are resolved): anything else is [ErrNotRegistered].
package ops

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/index"
)

// ErrNotRegistered reports a directory that is not a registered workspace.
var ErrNotRegistered = errors.New("not a registered workspace")

// ErrCannotConfine reports a program the Launcher refuses to start because
// its confinement would not hold (a file that decides what agents may do
// is writable inside the sandbox, the profile cannot be built).
var ErrCannotConfine = errors.New("cannot confine")

// ErrClosed reports an operation on a Service that is shutting down.
var ErrClosed = errors.New("warden is shutting down")

// NotRegisteredError is ErrNotRegistered with the path asked for and what
// to do about it.
type NotRegisteredError struct {
	// Path is the directory the client named.
	Path string
}

func (e *NotRegisteredError) Error() string {
	return fmt.Sprintf("%s is not a registered workspace: register it with `warden workspace add %s` (warden serves registered workspaces only)", e.Path, e.Path)
}

// Unwrap makes errors.Is(err, ErrNotRegistered) hold.
func (e *NotRegisteredError) Unwrap() error { return ErrNotRegistered }

// Registry is what the Service needs of warden's workspace registry.
type Registry interface {
	// Lookup resolves a client-supplied path (symlinks resolved) to the
	// root of the registered workspace it names; ok is false when none.
	Lookup(path string) (root string, ok bool)
}

// Launcher starts the programs warden runs on an agent's behalf in a
// workspace (terminal shells, git, debug adapters and the programs they
// debug) confined to it: it returns the command that runs name with args
// inside the workspace's kernel sandbox, ended when ctx is.
type Launcher interface {
	// Command returns the confined command for workspace root.
	Command(ctx context.Context, root, name string, args ...string) (*exec.Cmd, error)
}

// Options configure a Service.
type Options struct {
	// Core gates every operation and records its result. Required.
	Core *core.Core
	// Registry decides which roots may be served. Required.
	Registry Registry
	// Logger receives operational logs; nil discards them.
	Logger *slog.Logger
	// Locate finds external programs (gopls, dlv, ...); nil means
	// exec.LookPath.
	Locate func(name string) (string, error)
	// Launcher confines terminal shells; nil runs them unconfined (the
	// daemon logs that the kernel sandbox is not enforced).
	Launcher Launcher
	// ExecGuard, when set, is warden's program (one that calls
	// reaper.MaybeRun): Exec runs each command under its guard, so nothing
	// the command starts outlives the call or the daemon (see
	// internal/reaper). Empty: the command's group is ended when the call
	// ends, and what left the group, or outlives a killed daemon, is not.
	ExecGuard string
	// TerminalEnv is the base environment of terminal shells ("KEY=value");
	// nil means the daemon's own environment.
	TerminalEnv []string
	// WorkspaceEnv, when set, returns warden's own variables for a new
	// terminal in the workspace root: where the workspace's agent runs
	// (WARDEN_OPENCODE_PORT, WARDEN_OPENCODE_SESSION_ID, ...), so `warden
	// run opencode` there attaches to it (the spec's port discovery for new
	// terminals). They are warden's, so they are not judged by CheckEnv as
	// a client's are, and they are set over the client's. The daemon
	// implements it over the agent supervisor.
	WorkspaceEnv func(root string) map[string]string
	// Shell is the program of every terminal; empty means $SHELL or
	// /bin/bash.
	Shell string
	// IndexDir is where the workspaces' code indexes keep their catalogs
	// (one directory per workspace); empty switches the code index off
	// (search then walks the tree on every query).
	IndexDir string
	// Embedder, when set, gives every workspace's index vectors: each
	// chunk is embedded behind the text index, and ranked queries fuse a
	// nearest-neighbour ranking in (the text ranking answers alone while
	// the embedder fails). Nil: text only.
	Embedder index.Embedder
}

// Service holds the services of every registered workspace in use.
type Service struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	closed bool
	ws     map[string]*Workspace
	// bound are the cancel functions of long operations (search, replace)
	// running now: Close cancels them before it returns, whatever their
	// callers' contexts say
	bound    map[uint64]context.CancelCauseFunc
	nextBind uint64
}

// New returns a Service.
func New(opts Options) (*Service, error) {
	if opts.Core == nil {
		return nil, errors.New("ops: Options.Core is required")
	}
	if opts.Registry == nil {
		return nil, errors.New("ops: Options.Registry is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: opts, log: opts.Logger, ws: map[string]*Workspace{}, bound: map[uint64]context.CancelCauseFunc{}}, nil
}

// Core is the core every operation is gated through.
func (s *Service) Core() *core.Core { return s.opts.Core }

// Resolve returns the registered workspace root that path names, or a
// *NotRegisteredError.
func (s *Service) Resolve(path string) (string, error) {
	root, ok := s.opts.Registry.Lookup(path)
	if !ok {
		return "", &NotRegisteredError{Path: path}
	}
	return root, nil
}

// Workspace returns the services of the registered workspace that path
// names, starting them on first use.
func (s *Service) Workspace(path string) (*Workspace, error) {
	root, err := s.Resolve(path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if w, ok := s.ws[root]; ok {
		return w, nil
	}
	w, err := newWorkspace(s, root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	s.ws[root] = w
	return w, nil
}

// Forget stops the services of root (after the workspace was removed).
// Operations on a Workspace of root after that fail: it is no longer
// registered.
func (s *Service) Forget(root string) {
	s.mu.Lock()
	w := s.ws[root]
	delete(s.ws, root)
	s.mu.Unlock()
	if w != nil {
		if err := w.close(); err != nil {
			s.log.Warn("close removed workspace", "workspace", root, "err", err)
		}
	}
}

// Close stops every workspace's services (terminals, language servers,
// debuggers, watchers) and cancels the operations still running (a search
// or a replace stops at its next file). Operations after Close fail with
// ErrClosed.
func (s *Service) Close() error {
	s.mu.Lock()
	s.closed = true
	for _, cancel := range s.bound {
		cancel(errShuttingDown)
	}
	clear(s.bound)
	list := make([]*Workspace, 0, len(s.ws))
	for _, w := range s.ws {
		list = append(list, w)
	}
	s.ws = map[string]*Workspace{}
	s.mu.Unlock()
	var errs []error
	for _, w := range list {
		errs = append(errs, w.close())
	}
	return errors.Join(errs...)
}

// errShuttingDown is why Close cancels the operations still running.
var errShuttingDown = errors.New("warden is shutting down")

// bind returns ctx, also canceled (synchronously, before Close returns)
// when the service closes.
func (s *Service) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		cancel(errShuttingDown)
		return ctx, func() {}
	}
	id := s.nextBind
	s.nextBind++
	s.bound[id] = cancel
	return ctx, func() {
		s.mu.Lock()
		delete(s.bound, id)
		s.mu.Unlock()
		cancel(context.Canceled)
	}
}

// core is the core operations are gated through and recorded in.
func (s *Service) core() *core.Core { return s.opts.Core }

// background is the context results are recorded with when the caller's
// is gone.
func background(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
