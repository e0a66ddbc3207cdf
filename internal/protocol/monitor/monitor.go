// Package monitor is the door of specs/monitor-http.md: the HTTP endpoint the
// OpenCode agent-monitor plugin posts its events to. It parses and validates
// the wire shape, hands tool calls to core.Gate and everything else to
// core.Record, and maps the answer back. It keeps no state.
package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/proof"
)

// Path is the one endpoint of the monitor door.
const Path = "/agent-monitor"

// DefaultAddr is the spec's listening address.
const DefaultAddr = "127.0.0.1:37123"

// MaxBody is the largest request body accepted (1 MiB).
const MaxBody = 1 << 20

// Source is the source recorded for events arriving through this door. The
// spec's only client is the OpenCode plugin.
const Source = "opencode/monitor"

// Core is what the door needs from warden's core.
type Core interface {
	// Gate decides and records a tool call; see core.Core.Gate.
	Gate(ctx context.Context, req core.GateRequest) core.Verdict
	// Record makes events durable, then publishes them; see core.Core.Record.
	Record(ctx context.Context, evs ...event.Event) ([]event.Event, error)
}

// Confiner rewrites a call the gate allowed so that it runs confined (the
// daemon's confine.Rule): the command to run instead, ok=false to run it as
// it is; an error blocks the call.
type Confiner interface {
	Confine(ctx context.Context, req core.GateRequest, v core.Verdict) (command string, ok bool, err error)
}

// Handler serves POST /agent-monitor.
type Handler struct {
	core   Core
	logger *slog.Logger
	// Confiner, when set, rewrites allowed shell calls of clients that send
	// proof.NonceHeader (warden's plugin); the answer then carries "args"
	// {"command": ...}, which the plugin runs instead. Clients of the spec
	// get the spec's answer.
	Confiner Confiner
}

// NewHandler returns the monitor door over c.
func NewHandler(c Core, logger *slog.Logger) *Handler {
	if logger == nil {
		logger = slog.Default()
	}
	return &Handler{core: c, logger: logger}
}

// Response is the answer to tool.pre_execute.
type Response struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason,omitempty"`
	// Args, on an allow, are arguments to run the call with instead (a
	// warden extension: the shell command under warden's sandbox).
	Args map[string]any `json:"args,omitempty"`
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != Path || r.Method != http.MethodPost {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	if reason := netguard.Check(r); reason != "" {
		http.Error(w, "Forbidden: "+reason, http.StatusForbidden)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("Bad Request: body larger than %d bytes", MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	msg, err := Decode(body)
	if err != nil {
		http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if msg.Type == TypePreExecute {
		h.gate(w, r, msg)
		return
	}
	ev := msg.Event()
	if _, err := h.core.Record(r.Context(), ev); err != nil {
		h.logger.Error("monitor: could not record event", "type", msg.Type, "session", msg.SessionID, "err", err)
		http.Error(w, "warden could not record the event: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	writeJSON(w, map[string]bool{"ok": true})
}

func (h *Handler) gate(w http.ResponseWriter, r *http.Request, msg *Message) {
	// Fail closed even if something below panics.
	defer func() {
		if p := recover(); p != nil {
			h.logger.Error("monitor: panic while gating; blocking", "panic", p)
			writeJSON(w, Response{Block: true, Reason: fmt.Sprintf("blocked: warden failed while deciding (%v)", p)})
		}
	}()
	req := msg.GateRequest()
	v := h.core.Gate(r.Context(), req)
	resp := Response{Block: !v.Allowed}
	// Only warden's own plugin applies a rewrite; it is the client that
	// asks for a proof. A client of the spec gets the spec's answer, and
	// nothing is recorded as confined that would run as it is.
	if v.Allowed && h.Confiner != nil && r.Header.Get(proof.NonceHeader) != "" {
		line, ok, err := h.Confiner.Confine(r.Context(), req, v)
		switch {
		case err != nil:
			h.logger.Error("monitor: could not confine an allowed call; blocking", "session", msg.SessionID, "err", err)
			writeJSON(w, Response{Block: true, Reason: "blocked: " + err.Error()})
			return
		case ok:
			resp.Args = map[string]any{"command": line}
		}
	}
	if resp.Block {
		resp.Reason = v.Reason
		if v.Rule != "" {
			resp.Reason = fmt.Sprintf("%s [warden rule %s]", v.Reason, v.Rule)
		}
		if strings.TrimSpace(resp.Reason) == "" {
			resp.Reason = "blocked by warden policy"
		}
	}
	writeJSON(w, resp)
}

func writeJSON(w http.ResponseWriter, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// workspaceOf picks the workspace root of a monitor event: the git worktree
// when there is one, else the directory. OpenCode reports worktree "/" for a
// directory outside git; taking "/" as the workspace would put the whole
// machine "inside" it, so it is ignored.
func workspaceOf(directory, worktree string) string {
	if worktree != "" && worktree != "/" {
		return worktree
	}
	return directory
}
