// Package admin is the door the warden CLI uses to talk to a running daemon:
// HTTP with JSON over a Unix socket in the data dir (mode 0600), guarded by
// the admin credential (the data dir's token; a scoped agent credential is
// refused). It serves status, events (with live follow), sessions,
// approvals, workspaces, agents and credentials. Like every door it only
// calls the core.
package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/session"
	"github.com/warden-dev/warden/internal/store"
)

// SocketName is the file name of the admin socket inside the data dir.
const SocketName = "warden.sock"

// Status is the answer of GET /v1/status.
type Status struct {
	Version          string            `json:"version"`
	PID              int               `json:"pid"`
	Started          time.Time         `json:"started"`
	DataDir          string            `json:"dataDir"`
	Listeners        map[string]string `json:"listeners"`
	Policy           string            `json:"policy"`
	LastEventID      int64             `json:"lastEventId"`
	Sessions         int               `json:"sessions"`
	PendingApprovals int               `json:"pendingApprovals"`
	Workspaces       int               `json:"workspaces"`
	AgentsRunning    int               `json:"agentsRunning"`
}

// ResolveRequest is the body of POST /v1/approvals/{id}.
type ResolveRequest struct {
	// Decision is "approve" or "deny".
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
	Always   bool   `json:"always,omitempty"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Error string `json:"error"`
}

// Server holds what the handlers need.
type Server struct {
	Core *core.Core
	// Credentials checks every request's bearer token (only the admin
	// credential passes) and serves the credential endpoints. Required.
	Credentials *credential.Store
	Logger      *slog.Logger
	// Status fills the daemon-level fields of GET /v1/status.
	Status func() Status
	// Supervisor serves the workspace and agent endpoints (nil: they
	// answer 503).
	Supervisor *supervisor.Supervisor
}

// Handler returns the admin API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", s.status)
	mux.HandleFunc("GET /v1/events", s.events)
	mux.HandleFunc("GET /v1/sessions", s.sessions)
	mux.HandleFunc("GET /v1/sessions/{id}", s.session)
	mux.HandleFunc("GET /v1/approvals", s.approvals)
	mux.HandleFunc("POST /v1/approvals/{id}", s.resolve)
	s.mountAgents(mux)
	s.mountCredentials(mux)
	s.mountRules(mux)
	s.mountLog(mux)
	return s.auth(mux)
}

// auth lets only the admin credential through: a scoped agent credential
// is 403 (it opens the MCP door of its workspace, nothing else), anything
// else 401.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Credentials == nil {
			writeErr(w, http.StatusServiceUnavailable, errors.New("this daemon has no credentials configured"))
			return
		}
		p, err := s.Credentials.Verify(credential.Bearer(r.Header.Get("Authorization")))
		switch {
		case err != nil:
			writeErr(w, http.StatusUnauthorized, fmt.Errorf("missing or wrong token: the admin API takes only the admin credential in <data dir>/%s (the CLI reads it from the data dir): %w", credential.AdminTokenFile, err))
		case !p.IsAdmin():
			writeErr(w, http.StatusForbidden, fmt.Errorf("forbidden: %s opens only the MCP door and the Agent API door of its workspace; the admin API takes only the admin credential", p))
		default:
			next.ServeHTTP(w, r)
		}
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeErr(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, Error{Error: err.Error()})
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	st := s.Status()
	id, err := s.Core.LastID(r.Context())
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	st.LastEventID = id
	sess, err := s.Core.Sessions().List(r.Context())
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	st.Sessions = len(sess)
	st.PendingApprovals = len(s.Core.Approvals())
	if s.Supervisor != nil {
		for _, a := range s.Supervisor.Agents() {
			st.Workspaces++
			if a.Running {
				st.AgentsRunning++
			}
		}
	}
	writeJSON(w, http.StatusOK, st)
}

// sessions serves GET /v1/sessions[?all=1]: the agents' sessions; with
// all, the control door's clients' too.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	list, err := s.Core.Sessions().List(r.Context())
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	if all := r.URL.Query().Get("all"); all != "1" && all != "true" {
		list = slices.DeleteFunc(list, session.Session.Client)
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) session(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	sess, ok, err := s.Core.Sessions().Get(r.Context(), id)
	switch {
	case err != nil:
		writeErr(w, http.StatusInternalServerError, err)
	case !ok:
		writeErr(w, http.StatusNotFound, fmt.Errorf("no session %q (list them with: warden sessions)", id))
	default:
		writeJSON(w, http.StatusOK, sess)
	}
}

func (s *Server) approvals(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Core.Approvals())
}

func (s *Server) resolve(w http.ResponseWriter, r *http.Request) {
	var req ResolveRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("bad body: %w", err))
		return
	}
	// Only the admin gets here (auth): approvals are resolved by an
	// admin-authenticated client and nobody else.
	res := approval.Resolution{Reason: req.Reason, Always: req.Always, By: "cli"}
	switch req.Decision {
	case "approve":
		res.Outcome = approval.Approved
	case "deny":
		res.Outcome = approval.Denied
	default:
		writeErr(w, http.StatusBadRequest, fmt.Errorf("decision must be approve or deny, not %q", req.Decision))
		return
	}
	id := r.PathValue("id")
	got, err := s.Core.Resolve(r.Context(), id, res)
	switch {
	case errors.Is(err, approval.ErrNotFound):
		writeErr(w, http.StatusNotFound, fmt.Errorf("no pending approval %q (it may have expired; list them with: warden approvals)", id))
	case errors.Is(err, approval.ErrResolved):
		writeErr(w, http.StatusConflict, fmt.Errorf("approval %q was already resolved", id))
	case err != nil && got.ID == "":
		writeErr(w, http.StatusInternalServerError, err)
	case err != nil:
		// Resolved, but the standing rule could not be added.
		writeJSON(w, http.StatusOK, map[string]any{"approval": got, "warning": err.Error()})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"approval": got})
	}
}

// OmittedHeader of GET /v1/events says how many selected events of the
// backlog `last` left out.
const OmittedHeader = "X-Warden-Omitted"

// events serves GET /v1/events?session=ID&since=N&limit=N&follow=1 as JSON
// lines. With a session, since is that session's seq; without, the global id.
// after=RFC3339, type=T[,T] (T.* for a family) and decision=allow|deny|ask
// select events; last=N sends only the newest N of the backlog (the
// OmittedHeader says how many it left out). Follow applies the same
// selection to live events.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sessionID := q.Get("session")
	since, err := intParam(q.Get("since"))
	if err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("since: %w", err))
		return
	}
	limit, err := intParam(q.Get("limit"))
	if err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("limit: %w", err))
		return
	}
	last, err := intParam(q.Get("last"))
	if err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("last: %w", err))
		return
	}
	m, err := parseEventMatch(q)
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	follow := q.Get("follow") == "1" || q.Get("follow") == "true"
	ctx := r.Context()

	// The point up to which the backlog is read from the log; the live part
	// starts after it, so nothing is missed or repeated.
	upto, err := s.Core.LastID(ctx)
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	f := store.Filter{Session: sessionID}
	if sessionID != "" {
		f.AfterSeq = since
	} else {
		f.AfterID = since
	}
	evs, omitted, err := backlog(ctx, s.Core.Events, f, upto, m, int(limit), int(last))
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set(OmittedHeader, strconv.Itoa(omitted))
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	flusher, _ := w.(http.Flusher)
	for _, e := range evs {
		if err := enc.Encode(e); err != nil {
			return
		}
	}
	if !follow {
		return
	}
	if flusher != nil {
		flusher.Flush()
	}
	start := upto
	if sessionID == "" && since > upto {
		start = since
	}
	sub := s.Core.Bus().Subscribe(start)
	defer sub.Close()
	for {
		e, err := sub.Next(ctx)
		if err != nil {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, event.ErrSubscriptionClosed) {
				s.Logger.Warn("events follow ended", "err", err)
			}
			return
		}
		if sessionID != "" && (e.Session != sessionID || e.Seq <= since) {
			continue
		}
		if !m.match(e) {
			continue
		}
		if err := enc.Encode(e); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func intParam(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a non-negative integer, got %q", s)
	}
	return n, nil
}
