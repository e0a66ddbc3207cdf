package control

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/jsonrpc"
)

// session is one client connection: its auth state, rate limit and the
// subscriptions it holds.
type session struct {
	srv *Server
	ws  *workspace

	mu         sync.Mutex
	conn       *jsonrpc.Conn
	nonce      string // outstanding challenge; "" once used
	id         string // set once authenticated
	lastActive time.Time
	tokens     float64 // rate limit bucket
	refilled   time.Time
	watchers   []string
}

func (s *Server) newSession(ws *workspace) *session {
	now := s.opts.Now()
	return &session{srv: s, ws: ws, lastActive: now, refilled: now, tokens: s.opts.Settings.RateLimit.RequestsPerSecond}
}

// serve runs the connection: the challenge first, then requests until the
// client leaves.
func (ss *session) serve(ctx context.Context, c *websocket.Conn) {
	st := ss.srv.opts.Settings
	conn := jsonrpc.NewConn(c, ss, jsonrpc.Options{
		Logger: ss.srv.log, Now: ss.srv.opts.Now, Debug: st.Logging.Level == "debug",
		ReadLimit: st.MaxMessageBytes, Detached: detached, CodeName: CodeName,
		// params end up in the log (tool.call args): what no reader of the
		// log could decode is refused here
		Check: func(msg []byte) error { return event.CheckDepth(msg, event.MaxDepth) },
	})
	ss.mu.Lock()
	ss.conn = conn
	ss.mu.Unlock()
	ws := ss.ws
	ws.attach(ss)
	defer ws.detach(ss)
	if err := ss.challenge(ctx); err != nil {
		c.CloseNow()
		return
	}
	if d := ss.srv.opts.AuthTimeout; d > 0 {
		timer := time.AfterFunc(d, func() {
			ss.mu.Lock()
			authed := ss.id != ""
			ss.mu.Unlock()
			if !authed {
				ss.srv.log.Info("closing a connection that did not authenticate in time", "timeout", d)
				c.Close(websocket.StatusPolicyViolation, fmt.Sprintf("not authenticated within %s: answer auth.challenge with auth.authenticate", d))
			}
		})
		defer timer.Stop()
	}
	err := conn.Run(ctx)
	ss.cleanup()
	if err != nil {
		ss.srv.log.Debug("connection ended", "err", err)
		c.CloseNow()
		return
	}
	c.Close(websocket.StatusNormalClosure, "")
}

// challenge sends auth.challenge with a fresh single-use nonce.
func (ss *session) challenge(ctx context.Context) error {
	nonce := ss.srv.randomHex(16)
	ss.mu.Lock()
	ss.nonce = nonce
	conn := ss.conn
	ss.mu.Unlock()
	return conn.Notify(ctx, "auth.challenge", map[string]string{"nonce": nonce})
}

// notify sends a notification; errors (a client gone) are ignored.
func (ss *session) notify(method string, params any) {
	ss.mu.Lock()
	conn := ss.conn
	authed := ss.id != ""
	ss.mu.Unlock()
	if conn == nil || !authed {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = conn.Notify(ctx, method, params)
}

// shutdown tells the client and closes the connection.
func (ss *session) shutdown(reason string) {
	ss.mu.Lock()
	conn := ss.conn
	ss.mu.Unlock()
	if conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = conn.Notify(ctx, "server.shutdown", map[string]string{"reason": reason})
	_ = conn.Close(websocket.StatusGoingAway, reason)
}

// cleanup releases what the connection held (file watchers).
func (ss *session) cleanup() {
	ss.mu.Lock()
	ws := ss.watchers
	ss.watchers = nil
	ss.mu.Unlock()
	for _, id := range ws {
		ss.ws.unwatch(id)
	}
}

// allow takes one token from the client's bucket.
func (ss *session) allow(now time.Time) bool {
	rl := ss.srv.opts.Settings.RateLimit
	if !config.Enabled(rl.Enabled) {
		return true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	rate := rl.RequestsPerSecond
	ss.tokens = min(rate, ss.tokens+now.Sub(ss.refilled).Seconds()*rate)
	ss.refilled = now
	if ss.tokens < 1 {
		return false
	}
	ss.tokens--
	return true
}

// Handle answers one request: rate limit, authentication, session expiry,
// categories and feature switches, then the method.
func (ss *session) Handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	now := ss.srv.opts.Now()
	if !ss.allow(now) {
		return nil, jsonrpc.Errorf(CodeRateLimited, "rate limited: more than %v requests per second", ss.srv.opts.Settings.RateLimit.RequestsPerSecond)
	}
	if req.Method == "auth.authenticate" {
		return ss.authenticate(ctx, req)
	}
	ss.mu.Lock()
	authed := ss.id != ""
	idle := now.Sub(ss.lastActive)
	ss.mu.Unlock()
	if !authed {
		return nil, jsonrpc.Errorf(CodeUnauthorized, "unauthorized: call auth.authenticate with the token and the nonce of auth.challenge first")
	}
	if timeout := time.Duration(ss.srv.opts.Settings.SessionTimeout); timeout > 0 && idle > timeout {
		ss.mu.Lock()
		ss.id = ""
		ss.mu.Unlock()
		go func() { _ = ss.challenge(context.Background()) }()
		return nil, jsonrpc.Errorf(CodeSessionExpired, "session expired after %s without requests: authenticate again with the new auth.challenge nonce", timeout)
	}
	ss.mu.Lock()
	ss.lastActive = now
	ss.mu.Unlock()
	m, ok := ss.srv.methods[req.Method]
	if !ok || strings.HasPrefix(req.Method, "warden.") {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method).With("method", req.Method)
	}
	c := &call{ss: ss, ws: ss.ws, req: req}
	if err := ss.srv.allowed(req.Method); err != nil {
		return nil, c.refuse("control.security", map[string]any{"method": req.Method}, err)
	}
	return m(ctx, c)
}

type authParams struct {
	Token string `json:"token"`
	Nonce string `json:"nonce"`
}

type authResult struct {
	Authenticated bool   `json:"authenticated"`
	SessionID     string `json:"sessionId,omitempty"`
	Error         string `json:"error,omitempty"`
}

// authenticate checks the token (constant time) and the nonce (single use).
// A failed attempt uses up the nonce; a new challenge follows it.
func (ss *session) authenticate(ctx context.Context, req *jsonrpc.Request) (any, error) {
	var p authParams
	if err := jsonrpc.Params(req.Params, &p); err != nil {
		return nil, err
	}
	if p.Token == "" || p.Nonce == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: token and nonce are required")
	}
	ss.mu.Lock()
	nonce := ss.nonce
	ss.nonce = ""
	ss.mu.Unlock()
	okNonce := nonce != "" && subtle.ConstantTimeCompare([]byte(p.Nonce), []byte(nonce)) == 1
	okToken := subtle.ConstantTimeCompare([]byte(p.Token), []byte(ss.srv.token)) == 1
	if !okNonce || !okToken {
		why := "invalid token"
		if strings.HasPrefix(p.Token, credential.AgentPrefix) {
			why = "invalid token: a scoped agent credential opens only the MCP door and the Agent API door of its workspace; the control door takes the admin token (<data dir>/token)"
		}
		if !okNonce {
			why = "invalid or already used nonce"
		}
		ss.srv.log.Warn("control authentication failed", "reason", why, "workspace", ss.ws.root)
		go func() { _ = ss.challenge(context.WithoutCancel(ctx)) }()
		return authResult{Authenticated: false, Error: why + "; a new auth.challenge was sent"}, nil
	}
	id := newUUID(ss.srv.opts.Random)
	ss.mu.Lock()
	ss.id = id
	ss.lastActive = ss.srv.opts.Now()
	ss.mu.Unlock()
	ss.ws.recordSession(ctx, id, true)
	return authResult{Authenticated: true, SessionID: id}, nil
}

func (ss *session) sessionID() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.id
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// newUUID returns a random (version 4) UUID.
func newUUID(random func([]byte)) string {
	b := make([]byte, 16)
	random(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexd = "0123456789abcdef"
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexd[c>>4], hexd[c&0xf])
	}
	return string(out)
}

// rawParams decodes params into v.
func (c *call) params(v any) error { return jsonrpc.Params(c.req.Params, v) }

var _ = json.RawMessage{}
