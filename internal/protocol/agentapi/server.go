// Package agentapi is the Agent API door (specs/agent-api.md): WebSocket
// JSON-RPC 2.0 on 127.0.0.1:8080 that serves warden's own agent
// (internal/agent): sessions, turns with streamed notifications, abort,
// fork, models, the model's context and the session's events.
//
// The spec calls the API local-only; warden's agent runs tools on this
// machine, so the upgrade also checks Host and Origin (loopback only) and
// requires "Authorization: Bearer <credential>": a scoped credential
// (credential.AgentAPIClient for `warden chat`, or an agent's own), which
// reaches only the sessions of its own workspace. The admin credential is
// refused (403): it stays on the admin socket, so a client of this door can
// neither resolve an approval nor reach an admin method, and the admin
// token never crosses a TCP port to whatever listens on it.
package agentapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/provider"
)

// The spec's own error codes.
const (
	CodeSessionNotFound  = -32000
	CodeAgentBusy        = -32001
	CodeContextOverflow  = -32002
	defaultListLimit     = 100
	maxNotifyQueue       = 1 << 16
	notificationsDropped = "notifications dropped: the client did not read them; resync with events.sync"
)

// codeName names the door's codes for data.errorType.
func codeName(code int) string {
	switch code {
	case CodeSessionNotFound:
		return "SessionNotFound"
	case CodeAgentBusy:
		return "AgentBusy"
	case CodeContextOverflow:
		return "ContextOverflow"
	}
	return ""
}

// Options configure the door.
type Options struct {
	// Engine runs the sessions; Credentials checks the bearer token of the
	// upgrade. Both are required.
	Engine      *agent.Engine
	Credentials credential.Verifier
	Logger      *slog.Logger
}

// Server is the Agent API door.
type Server struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	closed bool
	conns  map[*conn]struct{}
	remove func()
}

// New returns the door.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil || opts.Credentials == nil {
		return nil, errors.New("agentapi: Options.Engine and Credentials are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: opts.Logger, conns: map[*conn]struct{}{}}
	s.remove = opts.Engine.Subscribe(s.fanout)
	return s, nil
}

// ServeHTTP checks the upgrade (Host, Origin, bearer credential) and
// serves the connection until the client leaves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if reason := netguard.Check(r); reason != "" {
		s.log.Warn("agent api upgrade refused", "reason", reason, "host", r.Host, "origin", r.Header.Get("Origin"))
		http.Error(w, "forbidden: "+reason, http.StatusForbidden)
		return
	}
	p, err := s.opts.Credentials.Verify(credential.Bearer(r.Header.Get("Authorization")))
	if err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer realm="warden"`)
		http.Error(w, `unauthorized: pass a scoped warden credential of the workspace as "Authorization: Bearer <token>" (POST /v1/credentials {"workspace": DIR, "agent": "`+credential.AgentAPIClient+`"} on the admin socket mints one; warden chat does)`, http.StatusUnauthorized)
		return
	}
	if p.IsAdmin() {
		s.log.Warn("agent api upgrade refused: the admin credential was presented")
		http.Error(w, `forbidden: the Agent API takes a scoped credential of the workspace, never the admin credential, which opens only the admin socket and the control door (POST /v1/credentials {"workspace": DIR, "agent": "`+credential.AgentAPIClient+`"} on the admin socket mints one; warden chat does)`, http.StatusForbidden)
		return
	}
	// Host and Origin were checked above; the library's same-origin check
	// would refuse the loopback origins allowed.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		s.log.Debug("upgrade failed", "err", err)
		return
	}
	c := &conn{srv: s, principal: p, attached: map[string]bool{}, wake: make(chan struct{}, 1)}
	c.rpc = jsonrpc.NewConn(ws, jsonrpc.HandlerFunc(c.handle), jsonrpc.Options{
		Logger: s.log, CodeName: codeName,
		Detached: func(m string) bool {
			switch m {
			case "agent.message", "agent.respond", "agent.abort", "context.compact", "model.list":
				return true
			}
			return false
		},
		Check: func(msg []byte) error { return event.CheckDepth(msg, event.MaxDepth) },
	})
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ws.Close(websocket.StatusGoingAway, "warden is shutting down")
		return
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(r.Context())
	var wg sync.WaitGroup
	wg.Go(func() { c.writer(ctx) })
	if err := c.rpc.Run(ctx); err != nil {
		s.log.Debug("agent api connection ended", "err", err)
	}
	cancel()
	wg.Wait()
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// Close tells every client to go. The sessions' turns go on (they belong
// to the engine, which the daemon closes).
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	s.remove()
	for _, c := range conns {
		_ = c.rpc.Close(websocket.StatusGoingAway, "warden is shutting down")
	}
	return nil
}

// fanout hands an engine notice to every connection following its session.
func (s *Server) fanout(n agent.Notice) {
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.deliver(n)
	}
}

// queued is a notice waiting to be sent, or a flush mark (flushed is
// closed when everything queued before it was sent).
type queued struct {
	n       agent.Notice
	flushed chan struct{}
}

// conn is one client.
type conn struct {
	srv       *Server
	rpc       *jsonrpc.Conn
	principal credential.Principal

	mu       sync.Mutex
	attached map[string]bool // sessions whose notices this client gets
	queue    []queued
	dropped  bool
	wake     chan struct{}
}

// attach makes the client follow session id's notices.
func (c *conn) attach(id string) {
	c.mu.Lock()
	c.attached[id] = true
	c.mu.Unlock()
}

// deliver queues n when the client follows its session (a subagent spawned
// by a followed session is followed from then on). It never blocks the
// engine: a client that reads nothing loses notices, never events.
func (c *conn) deliver(n agent.Notice) {
	c.mu.Lock()
	if !c.attached[n.Session] {
		c.mu.Unlock()
		return
	}
	if n.Method == "subagent.spawn" {
		if child, ok := n.Params["subagentSessionId"].(string); ok {
			c.attached[child] = true
		}
	}
	if len(c.queue) >= maxNotifyQueue {
		c.dropped = true
	} else {
		c.queue = append(c.queue, queued{n: n})
	}
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// flush returns once every notice queued so far was sent (so a turn's
// answer follows its notifications), or ctx ends.
func (c *conn) flush(ctx context.Context) {
	f := make(chan struct{})
	c.mu.Lock()
	c.queue = append(c.queue, queued{flushed: f})
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	select {
	case <-f:
	case <-ctx.Done():
	}
}

// writer sends queued notices in order.
func (c *conn) writer(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		c.mu.Lock()
		q := c.queue
		c.queue = nil
		dropped := c.dropped
		c.dropped = false
		c.mu.Unlock()
		for _, x := range q {
			if x.flushed != nil {
				close(x.flushed)
				continue
			}
			if err := c.rpc.Notify(ctx, x.n.Method, x.n.Params); err != nil {
				return
			}
		}
		if dropped {
			c.srv.log.Warn(notificationsDropped)
		}
	}
}

// params decodes a request's params into v: -32602 when they do not fit.
func params(req *jsonrpc.Request, v any) error {
	raw := req.Params
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

func required(name, v string) error {
	if v == "" {
		return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s is required", name)
	}
	return nil
}

// fail maps the engine's errors to the spec's codes.
func fail(err error) error {
	var je *jsonrpc.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &je):
		return err
	case errors.Is(err, agent.ErrSessionNotFound):
		return jsonrpc.Wrap(CodeSessionNotFound, err, err.Error())
	case errors.Is(err, agent.ErrBusy):
		return jsonrpc.Wrap(CodeAgentBusy, err, err.Error())
	case errors.Is(err, agent.ErrContextOverflow):
		return jsonrpc.Wrap(CodeContextOverflow, err, err.Error())
	case errors.Is(err, agent.ErrInvalid), errors.Is(err, ops.ErrNotRegistered), errors.Is(err, provider.ErrUnknownModel):
		return jsonrpc.Wrap(jsonrpc.CodeInvalidParams, err, "invalid params: "+err.Error())
	}
	return jsonrpc.Wrap(jsonrpc.CodeInternalError, err, "internal error: "+err.Error())
}

// session checks that the client may act on session id (a scoped
// credential reaches only its workspace's sessions: others are not found)
// and follows it.
func (c *conn) session(ctx context.Context, id string) error {
	if err := required("sessionId", id); err != nil {
		return err
	}
	root, err := c.srv.opts.Engine.Workspace(ctx, id)
	if err != nil {
		return fail(err)
	}
	if root != c.principal.Workspace {
		return fail(fmt.Errorf("%w: %s", agent.ErrSessionNotFound, id))
	}
	c.attach(id)
	return nil
}
