package opencode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// DefaultRequestTimeout bounds every request of a Client (for the event
// stream: until its headers arrive). OpenCode can leave a request sent
// during its start-up unanswered forever.
const DefaultRequestTimeout = 10 * time.Second

// ErrNotFound is matched (errors.Is) by the error of a request OpenCode
// answered 404: an unknown session or permission request.
var ErrNotFound = errors.New("opencode: not found")

// HTTPError is a request OpenCode answered with a status other than the
// expected one.
type HTTPError struct {
	// Method and Path are the request's.
	Method, Path string
	// StatusCode is the answer's HTTP status.
	StatusCode int
	// Body is the start of the answer (OpenCode sends JSON errors).
	Body string
}

// Error describes the failed request.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("opencode: %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Body)
}

// Is makes a 404 match ErrNotFound.
func (e *HTTPError) Is(target error) bool {
	return target == ErrNotFound && e.StatusCode == http.StatusNotFound
}

// Client talks to one `opencode serve` over its HTTP API. It is safe for
// concurrent use.
type Client struct {
	base    string
	hc      *http.Client
	timeout time.Duration
}

// NewClient returns a client of the server at baseURL
// (http://127.0.0.1:PORT). hc nil means a new http.Client; it must have no
// Timeout of its own, which would cut the event stream. Every request is
// bounded by timeout (DefaultRequestTimeout when <= 0).
func NewClient(baseURL string, hc *http.Client, timeout time.Duration) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	if timeout <= 0 {
		timeout = DefaultRequestTimeout
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc, timeout: timeout}
}

// BaseURL returns the server's address.
func (c *Client) BaseURL() string { return c.base }

// Session is one OpenCode session as GET /session lists it (the fields warden
// uses). Child sessions (sub-agents) have a ParentID.
type Session struct {
	// ID is the session id ("ses_...").
	ID string `json:"id"`
	// ParentID is the parent session of a sub-agent session ("" for a
	// root session).
	ParentID string `json:"parentID,omitempty"`
	// Directory is the session's working directory.
	Directory string `json:"directory,omitempty"`
	// Title is the session's title.
	Title string `json:"title,omitempty"`
	// Time holds when it was created and last updated.
	Time SessionTime `json:"time"`
}

// SessionTime holds a session's times in Unix milliseconds.
type SessionTime struct {
	// Created is when the session was created.
	Created int64 `json:"created"`
	// Updated is when it last changed.
	Updated int64 `json:"updated"`
}

// SessionStatus is what a session does: Type is "idle", "busy" or "retry"
// (a model request failed and is retried; Attempt, Message and Next, in Unix
// milliseconds, say more).
type SessionStatus struct {
	// Type is SessionIdle, SessionBusy or SessionRetry.
	Type string `json:"type"`
	// Attempt counts the retries (retry only).
	Attempt int `json:"attempt,omitempty"`
	// Message says why the model request failed (retry only).
	Message string `json:"message,omitempty"`
	// Next is when the next attempt is made (retry only).
	Next int64 `json:"next,omitempty"`
}

// The session status types.
const (
	SessionIdle  = "idle"
	SessionBusy  = "busy"
	SessionRetry = "retry"
)

// PermissionRequest is a pending request of OpenCode's permission system
// (GET /permission, event permission.asked).
type PermissionRequest struct {
	// ID is the request id ("per_..."), the one to reply to.
	ID string `json:"id"`
	// SessionID is the session that asks.
	SessionID string `json:"sessionID"`
	// Permission is the kind: "bash", "edit", ...
	Permission string `json:"permission"`
	// Patterns are what is asked for (command lines, paths).
	Patterns []string `json:"patterns,omitempty"`
	// Metadata is OpenCode's detail (for bash: the command).
	Metadata map[string]any `json:"metadata,omitempty"`
	// Always are the patterns an "always" reply would allow from now on.
	Always []string `json:"always,omitempty"`
	// Tool is the tool call that asks, when a tool asks.
	Tool *PermissionTool `json:"tool,omitempty"`
}

// PermissionTool is the tool call that asked for a permission.
type PermissionTool struct {
	// MessageID is the assistant message holding the call.
	MessageID string `json:"messageID"`
	// CallID is the model's tool call id.
	CallID string `json:"callID"`
}

// Agent converts r to the agent package's Permission.
func (r PermissionRequest) Agent() agent.Permission {
	p := agent.Permission{ID: r.ID, Session: r.SessionID, Permission: r.Permission, Patterns: r.Patterns, Metadata: r.Metadata}
	if r.Tool != nil {
		p.CallID = r.Tool.CallID
	}
	return p
}

// Health asks GET /global/health and returns the server's version.
func (c *Client) Health(ctx context.Context) (string, error) {
	var h struct {
		Healthy bool   `json:"healthy"`
		Version string `json:"version"`
	}
	if err := c.do(ctx, http.MethodGet, "/global/health", nil, http.StatusOK, &h); err != nil {
		return "", err
	}
	if !h.Healthy {
		return h.Version, fmt.Errorf("opencode %s reports itself unhealthy", h.Version)
	}
	return h.Version, nil
}

// Sessions lists every session (GET /session), the most recently updated
// first.
func (c *Client) Sessions(ctx context.Context) ([]Session, error) {
	var out []Session
	if err := c.do(ctx, http.MethodGet, "/session", nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// SessionStatuses returns the status of the sessions that are not idle
// (GET /session/status; a session it leaves out is idle).
func (c *Client) SessionStatuses(ctx context.Context) (map[string]SessionStatus, error) {
	out := map[string]SessionStatus{}
	if err := c.do(ctx, http.MethodGet, "/session/status", nil, http.StatusOK, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// ErrOldServer is matched (errors.Is, along with agent.ErrUnsupported) by
// the error of a server without OpenCode 1.x's permission API: no GET
// /permission to list pending requests, and replies only through the older
// POST /session/{id}/permissions/{permissionID}. warden refuses such a
// server rather than follow its requests without being able to list them
// after a reconnect or answer them reliably.
var ErrOldServer = fmt.Errorf("%w: this OpenCode server has no permission API (GET /permission, POST /permission/{id}/reply): it is older than OpenCode 1.x; upgrade OpenCode (warden is tested with %s)", agent.ErrUnsupported, Version)

// Permissions lists the pending permission requests of every session (GET
// /permission). OpenCode keeps them in memory only: a restarted server has
// none. A server without the route fails with ErrOldServer.
func (c *Client) Permissions(ctx context.Context) ([]PermissionRequest, error) {
	var out []PermissionRequest
	if err := c.do(ctx, http.MethodGet, "/permission", nil, http.StatusOK, &out); err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("%w (%v)", ErrOldServer, err)
		}
		return nil, err
	}
	return out, nil
}

// Reply answers permission request requestID (POST
// /permission/{requestID}/reply). A request OpenCode does not know fails
// with an error matching ErrNotFound.
func (c *Client) Reply(ctx context.Context, requestID string, r agent.Reply) error {
	switch r {
	case agent.ReplyOnce, agent.ReplyAlways, agent.ReplyReject:
	default:
		return fmt.Errorf("opencode: reply %q to %s: not once, always or reject", r, requestID)
	}
	if requestID == "" {
		return errors.New("opencode: reply: no request id")
	}
	body := map[string]string{"reply": string(r)}
	var ok bool
	path := "/permission/" + url.PathEscape(requestID) + "/reply"
	if err := c.do(ctx, http.MethodPost, path, body, http.StatusOK, &ok); err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("opencode: POST %s: the server did not process the reply", path)
	}
	return nil
}

// CreateSession creates a root session (POST /session).
func (c *Client) CreateSession(ctx context.Context) (Session, error) {
	var s Session
	if err := c.do(ctx, http.MethodPost, "/session", map[string]any{}, http.StatusOK, &s); err != nil {
		return Session{}, err
	}
	if s.ID == "" {
		return Session{}, errors.New("opencode: POST /session: answer without a session id")
	}
	return s, nil
}

// PromptAsync sends text as a user message to session sessionID and returns
// at once (POST /session/{id}/prompt_async, 204); the work shows in the
// events.
func (c *Client) PromptAsync(ctx context.Context, sessionID, text string) error {
	body := map[string]any{"parts": []map[string]string{{"type": "text", "text": text}}}
	return c.do(ctx, http.MethodPost, "/session/"+url.PathEscape(sessionID)+"/prompt_async", body, http.StatusNoContent, nil)
}

// Events opens the event stream (GET /event). The request timeout bounds
// only the wait for the answer's headers; the stream then lasts until ctx
// ends, the server closes it or Close is called.
func (c *Client) Events(ctx context.Context) (*EventStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/event", nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("opencode: GET /event: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	timer := time.AfterFunc(c.timeout, cancel)
	resp, err := c.hc.Do(req)
	timedOut := !timer.Stop()
	if err != nil {
		cancel()
		if timedOut {
			return nil, fmt.Errorf("opencode: GET /event: no answer within %v: %w", c.timeout, err)
		}
		return nil, fmt.Errorf("opencode: GET /event: %w", err)
	}
	if timedOut {
		cancel()
		resp.Body.Close()
		return nil, fmt.Errorf("opencode: GET /event: no answer within %v: %w", c.timeout, context.DeadlineExceeded)
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		return nil, httpError(http.MethodGet, "/event", resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		cancel()
		resp.Body.Close()
		return nil, fmt.Errorf("opencode: GET /event: content type %q, not text/event-stream", ct)
	}
	return &EventStream{body: resp.Body, cancel: cancel, sse: NewSSEReader(resp.Body, DefaultMaxEventSize)}, nil
}

// EventStream is an open GET /event stream. Next is for one goroutine; Close
// may be called from any, also to interrupt a blocked Next.
type EventStream struct {
	body   io.ReadCloser
	cancel context.CancelFunc
	sse    *SSEReader
	once   sync.Once
}

// Next returns the next event. An error wrapping ErrBadEvent concerns that
// event only; any other error ends the stream (io.EOF when the server closed
// it cleanly).
func (s *EventStream) Next() (Event, error) {
	data, err := s.sse.Next()
	if err != nil {
		return Event{}, err
	}
	return ParseEvent(data)
}

// Close ends the stream.
func (s *EventStream) Close() error {
	var err error
	s.once.Do(func() {
		s.cancel()
		err = s.body.Close()
	})
	return err
}

// do sends one bounded request with a JSON body (when in is not nil) and
// decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, in any, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("opencode: %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("opencode: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		return httpError(method, path, resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(out); err != nil {
		return fmt.Errorf("opencode: %s %s: decode answer: %w", method, path, err)
	}
	return nil
}

func httpError(method, path string, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return &HTTPError{Method: method, Path: path, StatusCode: resp.StatusCode, Body: strings.TrimSpace(string(b))}
}

// baseURL returns the address of a server on loopback port port.
func baseURL(port int) string {
	return "http://127.0.0.1:" + strconv.Itoa(port)
}
