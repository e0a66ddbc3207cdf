package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/ops"
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
	// MarkActive notes the workspace's agent reached warden over MCP. It
	// is called for every request naming root (so an agent stopped and
	// started again is seen by its first request); it must be cheap, and
	// calls after the first change nothing.
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
	// Token is warden's admin token: requests carrying it as a bearer
	// token may act on any registered workspace. Used when Credentials is
	// nil; one of the two is required.
	Token string
	// Credentials checks every request's bearer token: the admin
	// credential opens every registered workspace, a scoped agent
	// credential only its own (X-Workspace-Path must resolve to it).
	Credentials credential.Verifier
	// Workspaces resolves X-Workspace-Path and serves the workspace.* tools.
	// Required.
	Workspaces Workspaces
	// Commands runs workspace.executeCommand; nil answers that tool with an
	// error (the control door, which owns the command registry, is off).
	Commands Commands
	// Ops runs every workspace operation (the daemon's one operations
	// layer, shared with the other doors). Required.
	Ops *ops.Service
	// Logger receives the door's logs; nil discards them.
	Logger *slog.Logger
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

	mu     sync.Mutex
	closed bool
}

// New returns the door configured by opts.
func New(opts Options) (*Server, error) {
	switch {
	case opts.Core == nil:
		return nil, errors.New("mcp door: Options.Core is required")
	case opts.Token == "" && opts.Credentials == nil:
		return nil, errors.New("mcp door: Options.Credentials (or Token) is required")
	case opts.Workspaces == nil:
		return nil, errors.New("mcp door: Options.Workspaces is required")
	case opts.Ops == nil:
		return nil, errors.New("mcp door: Options.Ops is required")
	}
	if opts.Credentials == nil {
		opts.Credentials = credential.AdminOnly(opts.Token)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts: opts,
		log:  log,
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
// marks its workspace active, and hands it to the SDK's streamable HTTP
// handler.
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
	if status, msg := s.authorize(r); status != 0 {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
		}
		s.log.Warn("mcp request refused", "status", status, "reason", msg)
		writeError(w, status, msg)
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
	if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody {
		// tool arguments end up in the log: JSON no reader of the log could
		// decode is refused before the MCP server sees it
		body, err := io.ReadAll(r.Body)
		if err != nil {
			status := http.StatusBadRequest
			if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
				status = http.StatusRequestEntityTooLarge
			}
			writeError(w, status, "read body: "+err.Error())
			return
		}
		if err := event.CheckDepth(body, event.MaxDepth); err != nil {
			writeError(w, http.StatusBadRequest, "bad request: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if p := r.Header.Get(WorkspaceHeader); p != "" {
		if root, ok := s.opts.Workspaces.Lookup(p); ok {
			s.opts.Workspaces.MarkActive(root)
		}
	}
	s.handler.ServeHTTP(w, r)
}

// authorize checks r's bearer credential: the admin credential passes; a
// scoped agent credential passes only when X-Workspace-Path resolves to its
// own workspace. It returns 0, or the refusal's status and message: 401
// for a missing, unknown or revoked credential, 403 for a scoped one used
// outside its workspace.
func (s *Server) authorize(r *http.Request) (int, string) {
	p, err := s.opts.Credentials.Verify(credential.Bearer(r.Header.Get("Authorization")))
	switch {
	case errors.Is(err, credential.ErrRevoked):
		return http.StatusUnauthorized, fmt.Sprintf("unauthorized: %v; restart the agent (warden agents restart, or warden run claude again) to give it a new one", err)
	case err != nil:
		return http.StatusUnauthorized, `unauthorized: pass a warden credential as "Authorization: Bearer <token>": the agent credential of the config warden generated for this workspace, or the admin token in <data dir>/token`
	case p.IsAdmin():
		return 0, ""
	}
	h := r.Header.Get(WorkspaceHeader)
	if h == "" {
		return http.StatusForbidden, fmt.Sprintf("forbidden: %s is scoped to one workspace: send %s: %s on every request", p, WorkspaceHeader, p.Workspace)
	}
	if root, ok := s.opts.Workspaces.Lookup(h); !ok || root != p.Workspace {
		return http.StatusForbidden, fmt.Sprintf("forbidden: %s is scoped to workspace %s; it cannot act on %s", p, p.Workspace, h)
	}
	return 0, ""
}

// writeError answers with status and a JSON body {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// Close ends every MCP session (the workspace services belong to the
// operations layer, which the daemon closes). Requests after Close are
// refused with 503. Call it before (or while) the listener's http.Server shuts down:
// ending the sessions ends their long-lived SSE streams, which
// http.Server.Shutdown would otherwise wait for. Close is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()

	var errs []error
	for ss := range s.mcp.Sessions() {
		if err := ss.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close MCP session %s: %w", ss.ID(), err))
		}
	}
	return errors.Join(errs...)
}
