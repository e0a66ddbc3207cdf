package admin

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/policy"
)

// RuleRevokeResult is the answer of POST /v1/policy/rules/{id}/revoke.
type RuleRevokeResult struct {
	// Rule is the standing rule removed.
	Rule policy.Rule `json:"rule"`
	// Warning says the revocation holds but could not be recorded.
	Warning string `json:"warning,omitempty"`
}

// mountRules serves the standing "always" rules of the policy overlay.
func (s *Server) mountRules(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/policy/rules", func(w http.ResponseWriter, _ *http.Request) {
		rules := s.Core.StandingRules()
		if rules == nil {
			rules = []policy.Rule{}
		}
		writeJSON(w, http.StatusOK, rules)
	})
	mux.HandleFunc("POST /v1/policy/rules/{id}/revoke", func(w http.ResponseWriter, r *http.Request) {
		rule, err := s.Core.RevokeRule(r.Context(), r.PathValue("id"))
		switch {
		case errors.Is(err, core.ErrNoRule):
			writeErr(w, http.StatusNotFound, err)
		case err != nil && rule.ID == "":
			writeErr(w, http.StatusInternalServerError, err)
		case err != nil:
			writeJSON(w, http.StatusOK, RuleRevokeResult{Rule: rule, Warning: err.Error()})
		default:
			writeJSON(w, http.StatusOK, RuleRevokeResult{Rule: rule})
		}
	})
}

// StandingRules lists the policy overlay's standing rules ("always"
// decisions), oldest first.
func (c *Client) StandingRules(ctx context.Context) ([]policy.Rule, error) {
	var out []policy.Rule
	return out, c.do(ctx, "GET", "/v1/policy/rules", nil, &out)
}

// RevokeRule removes a standing rule (by its id, or the id of the approval
// that made it); the daemon judges the next call without it.
func (c *Client) RevokeRule(ctx context.Context, id string) (RuleRevokeResult, error) {
	var out RuleRevokeResult
	return out, c.do(ctx, "POST", "/v1/policy/rules/"+url.PathEscape(id)+"/revoke", nil, &out)
}
