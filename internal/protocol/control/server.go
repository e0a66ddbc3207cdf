// Package control is the control door: specs/control-protocol.md, a
// WebSocket JSON-RPC 2.0 server (default 127.0.0.1:19876) that gives an agent
// the workspace without an editor running: warden's headless editor
// buffers, the file system (sandboxed on os.Root), real PTYs, the real git,
// real language servers over LSP, real debug adapters over DAP, search and a
// command registry. Every method goes through core.Gate: the same policy and
// the same log as every other door.
package control

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
)

// Source is the source of the events the control door records.
const Source = event.SourceControl

// WorkspaceHeader names the workspace a client wants on the upgrade request
// (the query parameter "workspace" does the same).
const WorkspaceHeader = "X-Workspace-Path"

// Options configure the door.
type Options struct {
	// Core gates and records every method.
	Core *core.Core
	// Ops runs every workspace operation (the daemon's one operations
	// layer, shared with the other doors); it serves registered
	// workspaces only. Required.
	Ops *ops.Service
	// Settings is the control: section of the config (Validate already run).
	Settings config.Control
	// Token authenticates clients when Settings.Token is empty.
	Token string
	// Workspace is served to clients that name none (Settings.Workspace
	// overrides it).
	Workspace string
	// Logger receives operational logs.
	Logger *slog.Logger
	// AuthTimeout is how long a connection may stay unauthenticated before
	// it is closed (DefaultAuthTimeout when 0; negative: never).
	AuthTimeout time.Duration
	// Now and Random are injected for tests (defaults: time.Now, crypto/rand).
	Now    func() time.Time
	Random func(b []byte)
}

// Server is the control door. It is an http.Handler for the WebSocket
// upgrade; Close ends every connection and the workspace services.
type Server struct {
	opts  Options
	log   *slog.Logger
	token string

	methods map[string]method

	mu         sync.Mutex
	workspaces map[string]*workspace
	sessions   map[*session]struct{}
	closed     bool
	wg         sync.WaitGroup
}

// New returns the door.
func New(opts Options) (*Server, error) {
	if opts.Core == nil {
		return nil, fmt.Errorf("control: no core")
	}
	if opts.Ops == nil {
		return nil, fmt.Errorf("control: no operations layer")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.AuthTimeout == 0 {
		opts.AuthTimeout = DefaultAuthTimeout
	}
	if opts.Random == nil {
		opts.Random = func(b []byte) { _, _ = rand.Read(b) }
	}
	if err := opts.Settings.Validate(); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	tok := opts.Settings.Token
	if tok == "" {
		tok = opts.Token
	}
	if tok == "" {
		return nil, fmt.Errorf("control: no token configured")
	}
	if opts.Settings.Workspace != "" {
		opts.Workspace = opts.Settings.Workspace
	}
	return &Server{
		opts: opts, log: opts.Logger.With("door", "control"), token: tok, methods: methodTable(),
		workspaces: map[string]*workspace{}, sessions: map[*session]struct{}{},
	}, nil
}

func (s *Server) randomHex(n int) string {
	b := make([]byte, n)
	s.opts.Random(b)
	return hex.EncodeToString(b)
}

// ServeHTTP upgrades a request to a control connection after checking Host
// (loopback names only, against DNS rebinding), Origin (allowedOrigins) and
// the workspace, then serves it until the client leaves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !netguard.LoopbackHost(r.Host) && !s.publicHost() {
		http.Error(w, "host "+r.Host+" is not a loopback name; the control door answers only localhost", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !s.originAllowed(o) {
		http.Error(w, "origin "+o+" is not in control.allowedOrigins", http.StatusForbidden)
		return
	}
	root, err := s.workspaceRoot(r)
	if err != nil {
		status := http.StatusBadRequest
		if errors.Is(err, ops.ErrNotRegistered) {
			status = http.StatusForbidden
			// in the log like any refusal: someone tried this directory
			s.opts.Core.Refuse(r.Context(), core.GateRequest{
				Call: policy.Call{Tool: "control.connect", Args: map[string]any{"workspace": requestedWorkspace(r)},
					Session: event.SystemSession, Source: Source},
				Source: Source,
			}, "warden.unregistered-workspace", err.Error())
		}
		http.Error(w, err.Error(), status)
		return
	}
	ws, err := s.workspace(root)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	// Origins were checked above; the library's own same-origin check would
	// refuse the loopback origins the default allows.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		s.log.Debug("upgrade failed", "err", err)
		return
	}
	sess := s.newSession(ws)
	if !s.track(sess, true) {
		c.Close(websocket.StatusGoingAway, "warden is shutting down")
		return
	}
	defer s.track(sess, false)
	sess.serve(r.Context(), c)
}

// publicHost reports whether the door was configured to bind a
// non-loopback host, where the Host check does not apply.
func (s *Server) publicHost() bool {
	h := s.opts.Settings.Host
	return h != "" && !netguard.LoopbackHost(h)
}

func (s *Server) originAllowed(o string) bool {
	allowed := s.opts.Settings.AllowedOrigins
	if len(allowed) == 0 {
		return netguard.LoopbackOrigin(o)
	}
	return slices.Contains(allowed, "*") || slices.Contains(allowed, o)
}

// requestedWorkspace is the workspace the upgrade request names.
func requestedWorkspace(r *http.Request) string {
	if h := r.Header.Get(WorkspaceHeader); h != "" {
		return h
	}
	return r.URL.Query().Get("workspace")
}

// workspaceRoot picks the workspace of a connection: the header, the query
// parameter, or the default. It must resolve (symlinks too) to a
// registered workspace; anything else is refused with how to register it.
func (s *Server) workspaceRoot(r *http.Request) (string, error) {
	root := r.Header.Get(WorkspaceHeader)
	if root == "" {
		root = r.URL.Query().Get("workspace")
	}
	if root == "" {
		root = s.opts.Workspace
	}
	if root == "" {
		return "", fmt.Errorf("no workspace: send the %s header or ?workspace=DIR, or set control.workspace", WorkspaceHeader)
	}
	if !filepath.IsAbs(root) {
		return "", fmt.Errorf("workspace %q is not an absolute path", root)
	}
	return s.opts.Ops.Resolve(filepath.Clean(root))
}

func (s *Server) track(sess *session, add bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if add {
		if s.closed {
			return false
		}
		s.sessions[sess] = struct{}{}
		s.wg.Add(1)
		return true
	}
	delete(s.sessions, sess)
	s.wg.Done()
	return true
}

// Close tells every client the server is shutting down (server.shutdown),
// closes their connections, and stops the workspace services (terminals,
// language servers, debuggers, watchers).
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	sessions := make([]*session, 0, len(s.sessions))
	for sess := range s.sessions {
		sessions = append(sessions, sess)
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		sess.shutdown("warden is shutting down")
	}
	s.wg.Wait()
	s.mu.Lock()
	wss := make([]*workspace, 0, len(s.workspaces))
	for _, w := range s.workspaces {
		wss = append(wss, w)
	}
	s.workspaces = map[string]*workspace{}
	s.mu.Unlock()
	for _, w := range wss {
		w.close()
	}
	return nil
}

// DefaultAuthTimeout is how long a connection may stay unauthenticated: a
// client answers auth.challenge at once, and an open socket that never
// does only holds a connection and its goroutines.
const DefaultAuthTimeout = 10 * time.Second

// Addr returns the listener address the settings ask for, given the
// default address of the control listener; "" (no listener) when
// control.enabled is false.
func Addr(def string, c config.Control) string {
	if !c.On() {
		return "" // control.enabled: false
	}
	if c.Port == 0 && c.Host == "" {
		return def
	}
	host, port, err := net.SplitHostPort(def)
	if err != nil {
		host, port = "127.0.0.1", "19876"
	}
	if c.Host != "" {
		host = c.Host
	}
	if c.Port != 0 {
		port = fmt.Sprint(c.Port)
	}
	return net.JoinHostPort(host, port)
}

// detached lists methods that may wait for a person's approval: they run
// alongside the connection's other requests.
func detached(method string) bool {
	switch method {
	case "fs.deleteFile", "fs.deleteDirectory", "fs.writeFile", "fs.appendFile", "fs.rename", "fs.copy",
		"terminal.sendText", "terminal.create", "command.execute", "search.findAndReplace",
		"git.commit", "git.checkout", "git.stage", "git.unstage", "debug.startSession",
		"editor.save", "editor.saveAll", "editor.formatDocument":
		return true
	}
	return false
}

// compile-time check that the jsonrpc handler contract is met.
var _ jsonrpc.Handler = (*session)(nil)
