package mcp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/netguard"
)

// Source names the door in gated calls and recorded events.
const Source = "mcp"

// WorkspaceHeader is the request header naming the workspace a request acts on.
const WorkspaceHeader = "X-Workspace-Path"

// MaxBodyBytes bounds the body of one request.
const MaxBodyBytes = 4 << 20

// sessionTimeout closes MCP sessions idle for this long.
const sessionTimeout = time.Hour

// Workspaces is what the door needs from warden's workspace registry and agent supervisor.
type Workspaces interface {
	// Lookup resolves a client-supplied path to a registered workspace root (absolute, cleaned, symlinks resolved); ok is false when it is not registered.
	Lookup(path string) (root string, ok bool)
	// Status returns the workspace's status (JSON-encodable): path, name, git dirty flag, agent type/status/session.
	Status(ctx context.Context, root string) (any, error)
	// Metadata returns the workspace's key/value metadata.
	Metadata(ctx context.Context, root string) (map[string]string, error)
	// SetMetadata sets key to *value, or deletes key when value is nil.
	SetMetadata(ctx context.Context, root, key string, value *string) error
	// Create makes a new workspace NAME in the project of root (a git worktree) and returns its path.
	Create(ctx context.Context, root, name, base string) (string, error)
	// Delete removes the workspace root (and its worktree when warden made it).
	Delete(ctx context.Context, root string) error
	// MarkActive notes the workspace's agent reached warden over MCP.
	MarkActive(root string)
}

// Commands runs editor commands (the control door's command registry) for a workspace.
type Commands interface {
	// Execute runs command with args in the workspace root and returns its
	// JSON result.
	Execute(ctx context.Context, root, command string, args []json.RawMessage) (json.RawMessage, error)
}

// Options configure a Server.
type Options struct {
	// Core gates every tool call and records results. Required.
	Core *core.Core
	// Token is warden's auth token; requests must carry it as a bearer
	// token. Required.
	Token string
	// Workspaces resolves X-Workspace-Path and serves the workspace.* tools.
	// Required.
	Workspaces Workspaces
	// Commands runs workspace.executeCommand; nil answers that tool with an
	// error (the control door, which owns the command registry, is off).
	Commands Commands
	// Logger receives the door's logs; nil discards them.
	Logger *slog.Logger
	// Locate finds language-server programs (gopls, pyright-langserver);
	// nil means exec.LookPath (see lsp.Options.Locate).
	Locate func(name string) (string, error)
	// Version is warden's version, reported to clients at initialize.
	Version string
}

// Server is the MCP door: an http.Handler serving MCP over streamable HTTP
// on /mcp (and /). Create it with New; Close it when the listener is done.
type Server struct {
	opts    Options
	log     *slog.Logger
	mcp     *sdk.Server
	handler http.Handler

	mu         sync.Mutex
	closed     bool
	workspaces map[string]*workspace // by root
	active     map[string]bool       // roots already marked active
}

// New returns the door configured by opts.
func New(opts Options) (*Server, error) {
	switch {
	case opts.Core == nil:
		return nil, errors.New("mcp door: Options.Core is required")
	case opts.Token == "":
		return nil, errors.New("mcp door: Options.Token is required")
	case opts.Workspaces == nil:
		return nil, errors.New("mcp door: Options.Workspaces is required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:       opts,
		log:        log,
		workspaces: map[string]*workspace{},
		active:     map[string]bool{},
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "warden", Title: "warden", Version: version}, &sdk.ServerOptions{
		Instructions: "warden serves one workspace per request: send its absolute path in the " + WorkspaceHeader +
			" header. Paths are relative to the workspace or absolute inside it. Every tool call is checked by warden's policy " +
			"and recorded; a denied call returns an error with the policy's reason.",
		Logger: log,
	})
	s.addTools()
	s.handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, &sdk.StreamableHTTPOptions{
		Logger:              log,
		SessionTimeout:      sessionTimeout,
		MaxRequestBodyBytes: MaxBodyBytes,
	})
	return s, nil
}

// ServeHTTP checks the request (path, Host and Origin, token, body size),
// marks its workspace active on first sight, and hands it to the SDK's
// streamable HTTP handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/mcp" && r.URL.Path != "/" {
		writeError(w, http.StatusNotFound, "not found: the MCP endpoint is /mcp")
		return
	}
	if reason := netguard.Check(r); reason != "" {
		s.log.Warn("mcp request refused", "reason", reason, "host", r.Host, "origin", r.Header.Get("Origin"))
		writeError(w, http.StatusForbidden, "forbidden: "+reason)
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
		writeError(w, http.StatusUnauthorized, `unauthorized: pass warden's token as "Authorization: Bearer <token>"; the token is in <data dir>/token (e.g. ~/.local/share/warden/token)`)
		return
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		writeError(w, http.StatusServiceUnavailable, "warden is shutting down")
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	if p := r.Header.Get(WorkspaceHeader); p != "" {
		if root, ok := s.opts.Workspaces.Lookup(p); ok {
			s.markActive(root)
		}
	}
	s.handler.ServeHTTP(w, r)
}

// authorized reports whether r carries the token as a bearer token.
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return false
	}
	got := strings.TrimSpace(h[len(prefix):])
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1
}

// markActive tells the registry, once per root, that its agent reached
// warden over MCP.
func (s *Server) markActive(root string) {
	s.mu.Lock()
	first := !s.active[root]
	s.active[root] = true
	s.mu.Unlock()
	if first {
		s.log.Info("workspace reached over MCP", "workspace", root)
		s.opts.Workspaces.MarkActive(root)
	}
}

// writeError answers with status and a JSON body {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// Close ends every MCP session and shuts the workspace services down
// (language servers, file systems). Requests after Close are refused with
// 503. Call it before (or while) the listener's http.Server shuts down:
// ending the sessions ends their long-lived SSE streams, which
// http.Server.Shutdown would otherwise wait for. Close is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	list := make([]*workspace, 0, len(s.workspaces))
	for _, w := range s.workspaces {
		list = append(list, w)
	}
	s.workspaces = map[string]*workspace{}
	s.mu.Unlock()

	var errs []error
	for ss := range s.mcp.Sessions() {
		if err := ss.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close MCP session %s: %w", ss.ID(), err))
		}
	}
	for _, w := range list {
		if err := w.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
