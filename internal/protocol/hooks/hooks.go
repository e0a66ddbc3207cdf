// Package hooks is the door Claude Code's hooks come through: one shared
// HTTP endpoint, POST /hook, for every workspace (the workspace is named by
// the X-Workspace-Path header, as specs/agent-integrations.md describes). The
// body is the hook's JSON exactly as Claude Code gives it on stdin; `warden
// hook claude` forwards it. PreToolUse goes to core.Gate; every other hook
// event is mapped onto the event vocabulary and recorded with core.Record.
// The door keeps no state.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/store"
)

// Path is the one endpoint of the hook door.
const Path = "/hook"

// DefaultAddr is where the door listens by default. The spec's Claude Code
// server uses a dynamic port; warden uses a fixed default so installed
// settings can stay static, and `warden hook claude` reads the bound address
// from the data dir's daemon.json anyway.
const DefaultAddr = "127.0.0.1:37124"

// WorkspaceHeader names the workspace a hook request belongs to.
const WorkspaceHeader = "X-Workspace-Path"

// MaxBody is the largest request body accepted (8 MiB: PostToolUse carries
// the tool's whole response).
const MaxBody = 8 << 20

// Source is the source recorded for events arriving through this door;
// Agent is the agent part of it.
const (
	Source = event.SourceClaudeCodeHooks
	Agent  = "claude-code"
)

// Core is what the door needs from warden's core.
type Core interface {
	// Gate decides and records a tool call; see core.Core.Gate.
	Gate(ctx context.Context, req core.GateRequest) core.Verdict
	// Record makes events durable, then publishes them; see core.Core.Record.
	Record(ctx context.Context, evs ...event.Event) ([]event.Event, error)
	// Events reads the log; the spool uses it to skip events it already
	// ingested.
	Events(ctx context.Context, f store.Filter) ([]event.Event, error)
}

// Confiner rewrites a call the gate allowed so that it runs confined (the
// daemon's confine.Rule): the command to run instead, ok=false to run it as
// it is; an error blocks the call.
type Confiner interface {
	Confine(ctx context.Context, req core.GateRequest, v core.Verdict) (command string, ok bool, err error)
}

// Handler serves POST /hook.
type Handler struct {
	core   Core
	auth   *proof.RequestVerifier
	logger *slog.Logger
	// Confiner, when set, rewrites allowed Bash calls; the verdict then
	// carries the tool input to run instead (Claude's updatedInput).
	Confiner Confiner

	// holdback keeps non-gating events the log could not take (set by
	// NewIngester); without one such a failure is a 503.
	holdback *Ingester
}

// HeldAnswer is the 202 answer to a non-gating event the log could not take:
// Held says where it waits (spool, memory) or that it was dropped (and
// counted: a log.dropped event reports it once the log writes again).
type HeldAnswer struct {
	OK    bool   `json:"ok"`
	Held  Held   `json:"held"`
	Error string `json:"error"`
}

// NewHandler returns the hook door over c. Every request must be signed with
// the hook key (proof.AuthHeader over the nonce, time, workspace and body;
// see package proof); a nil auth refuses every request (fail closed). The
// answers are signed by wrapping the handler in proof.SignAnswers.
func NewHandler(c Core, auth *proof.RequestVerifier, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handler{core: c, auth: auth, logger: logger}
}

// Verdict is the answer to a PreToolUse. It is sent only once the decision
// is durable in the log.
type Verdict struct {
	// Allow is true only when the call may run.
	Allow bool `json:"allow"`
	// Decision is "allow" or "deny" (an ask is answered after a person or
	// the deadline decided).
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Rule     string `json:"rule"`
	// ApprovalID is set when a person was asked.
	ApprovalID string `json:"approvalId,omitempty"`
	// UpdatedInput, on an allow, is the whole tool input to run instead
	// (the command under warden's sandbox): Claude Code's PreToolUse
	// "updatedInput".
	UpdatedInput map[string]any `json:"updatedInput,omitempty"`
}

// Error is the body of every non-2xx answer.
type Error struct {
	Error string `json:"error"`
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path {
		writeErr(w, http.StatusNotFound, "not found: the hook door serves POST "+Path)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeErr(w, http.StatusMethodNotAllowed, "method not allowed: use POST")
		return
	}
	if reason := netguard.Check(r); reason != "" {
		writeErr(w, http.StatusForbidden, "forbidden: "+reason)
		return
	}
	ws, err := Workspace(r.Header.Get(WorkspaceHeader))
	if err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeErr(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", MaxBody))
			return
		}
		writeErr(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	if err := h.authorize(r, body); err != nil {
		writeErr(w, http.StatusUnauthorized, "unauthorized: "+err.Error())
		return
	}
	p, err := Decode(body)
	if err != nil {
		writeErr(w, http.StatusBadRequest, err.Error())
		return
	}
	if p.HookEventName == EventPreToolUse {
		h.gate(w, r, p, ws)
		return
	}
	if _, err := h.core.Record(r.Context(), p.Events(ws, "", time.Time{})...); err != nil {
		h.logger.Error("hooks: could not record event", "hook", p.HookEventName, "session", p.SessionID, "err", err)
		if h.holdback == nil || r.Context().Err() != nil {
			writeErr(w, http.StatusServiceUnavailable, "warden could not record the event: "+err.Error())
			return
		}
		// The log cannot write (a full disk): the event is kept for later,
		// or counted as dropped. Either way the hook's client has nothing
		// better to do (its own spool is on the same disk).
		held := h.holdback.Hold(ws, p.HookEventName, body, err)
		writeJSONStatus(w, http.StatusAccepted, HeldAnswer{OK: held != HeldDropped, Held: held, Error: "warden could not record the event: " + err.Error()})
		return
	}
	writeJSON(w, map[string]bool{"ok": true})
}

// Workspace validates the X-Workspace-Path header: an absolute path,
// returned cleaned.
func Workspace(v string) (string, error) {
	switch {
	case v == "":
		return "", fmt.Errorf("missing %s header: name the workspace's absolute path", WorkspaceHeader)
	case !filepath.IsAbs(v):
		return "", fmt.Errorf("%s %q is not an absolute path", WorkspaceHeader, v)
	case strings.ContainsRune(v, 0):
		return "", fmt.Errorf("%s holds a NUL byte", WorkspaceHeader)
	}
	return filepath.Clean(v), nil
}

// authorize checks the request's signature; the workspace signed is the raw
// header value.
func (h *Handler) authorize(r *http.Request, body []byte) error {
	if h.auth == nil {
		return errors.New("the hook door has no key (fail closed)")
	}
	return h.auth.Check(r.Header.Get(proof.NonceHeader), r.Header.Get(proof.TimeHeader), r.Header.Get(proof.AuthHeader), r.Header.Get(WorkspaceHeader), body)
}

func (h *Handler) gate(w http.ResponseWriter, r *http.Request, p *Payload, ws string) {
	// Fail closed even if something below panics.
	defer func() {
		if v := recover(); v != nil {
			h.logger.Error("hooks: panic while gating; blocking", "panic", v)
			writeJSON(w, Verdict{Decision: "deny", Rule: "warden.internal-error", Reason: fmt.Sprintf("blocked: warden failed while deciding (%v)", v)})
		}
	}()
	req := p.GateRequest(ws)
	v := h.core.Gate(r.Context(), req)
	out := Verdict{Allow: v.Allowed, Decision: "deny", Reason: v.Reason, Rule: v.Rule, ApprovalID: v.ApprovalID}
	if v.Allowed {
		out.Decision = "allow"
	} else if strings.TrimSpace(out.Reason) == "" {
		out.Reason = "blocked by warden policy"
	}
	if v.Allowed && h.Confiner != nil {
		line, ok, err := h.Confiner.Confine(r.Context(), req, v)
		switch {
		case err != nil:
			h.logger.Error("hooks: could not confine an allowed call; blocking", "session", p.SessionID, "err", err)
			writeJSON(w, Verdict{Decision: "deny", Rule: "warden.internal-error", Reason: "blocked: " + err.Error()})
			return
		case ok:
			out.UpdatedInput = maps.Clone(p.ToolInput)
			out.UpdatedInput["command"] = line
		}
	}
	writeJSON(w, out)
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		writeErr(w, http.StatusInternalServerError, "internal error")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(buf.Bytes())
}

func writeErr(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(Error{Error: msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
