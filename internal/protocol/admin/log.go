package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/session"
)

// PruneRequest is the body of POST /v1/events/prune: exactly one of
// BeforeID (remove every event with a smaller id) and Before (a duration:
// remove the events older than that, as a prefix of ids).
type PruneRequest struct {
	BeforeID int64  `json:"beforeId,omitempty"`
	Before   string `json:"before,omitempty"`
}

// ParsePruneBefore reads the CLI's --before: a global event id (digits) or
// a duration ("720h", "90m", or whole days "30d").
func ParsePruneBefore(s string) (PruneRequest, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 1 {
			return PruneRequest{}, fmt.Errorf("--before %q: an event id is 1 or more", s)
		}
		return PruneRequest{BeforeID: n}, nil
	}
	if _, err := parseAge(s); err != nil {
		return PruneRequest{}, fmt.Errorf("--before %q: want an event id (as in warden events) or a duration (720h, 30d): %w", s, err)
	}
	return PruneRequest{Before: s}, nil
}

// parseAge parses a positive duration; "Nd" is N days.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > 100000 {
			return 0, fmt.Errorf("bad number of days %q", days)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, err
		}
	}
	if d <= 0 {
		return 0, errors.New("the duration must be positive")
	}
	return d, nil
}

func (s *Server) mountLog(mux *http.ServeMux) {
	mux.HandleFunc("POST /v1/events/prune", s.prune)
}

// prune serves POST /v1/events/prune: the events before the cut go, the
// sessions' summaries stay (core.Prune).
func (s *Server) prune(w http.ResponseWriter, r *http.Request) {
	var req PruneRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("body: %w", err))
		return
	}
	ctx := r.Context()
	before := req.BeforeID
	switch {
	case (req.BeforeID != 0) == (req.Before != ""):
		writeErr(w, http.StatusBadRequest, errors.New(`give exactly one of "beforeId" (an event id) and "before" (a duration)`))
		return
	case req.BeforeID < 0:
		writeErr(w, http.StatusBadRequest, errors.New(`"beforeId" must be 1 or more`))
		return
	case req.BeforeID > 0:
		// An id past the end (a digit too many) would empty the whole
		// log; that takes the id right after the last event, on purpose.
		last, err := s.Core.LastID(ctx)
		if err != nil {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
		if req.BeforeID > last+1 {
			writeErr(w, http.StatusBadRequest, fmt.Errorf("event id %d is past the end of the log (its last event is id %d): to remove every event, give --before %d", req.BeforeID, last, last+1))
			return
		}
	case req.Before != "":
		age, err := parseAge(req.Before)
		if err != nil {
			writeErr(w, http.StatusBadRequest, fmt.Errorf("before %q: %w", req.Before, err))
			return
		}
		if before, err = s.Core.CutBefore(ctx, time.Now().Add(-age)); err != nil {
			writeErr(w, http.StatusInternalServerError, err)
			return
		}
	}
	res, err := s.Core.Prune(ctx, before)
	switch {
	case errors.Is(err, core.ErrNothingToPrune) && req.Before != "":
		writeErr(w, http.StatusConflict, fmt.Errorf("%w: no event is older than %s", core.ErrNothingToPrune, req.Before))
	case errors.Is(err, core.ErrNothingToPrune):
		writeErr(w, http.StatusConflict, err)
	case err != nil:
		writeErr(w, http.StatusInternalServerError, err)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

// Prune removes old events through the daemon; the sessions keep their
// summaries.
func (c *Client) Prune(ctx context.Context, req PruneRequest) (core.PruneResult, error) {
	var res core.PruneResult
	err := c.do(ctx, "POST", "/v1/events/prune", req, &res)
	return res, err
}

// ListSessions lists sessions, most recent first; all includes the
// control door's clients (GET /v1/sessions leaves them out by default).
func (c *Client) ListSessions(ctx context.Context, all bool) ([]session.Session, error) {
	path := "/v1/sessions"
	if all {
		path += "?all=1"
	}
	var s []session.Session
	err := c.do(ctx, "GET", path, nil, &s)
	return s, err
}
