package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/integrations/agents"
)

// MintRequest is the body of POST /v1/credentials.
type MintRequest struct {
	// Workspace is a path inside a registered workspace.
	Workspace string `json:"workspace"`
	// Agent is the agent type (opencode, claude-code; "claude" too), or
	// credential.AgentAPIClient for a client of the Agent API door.
	Agent string `json:"agent"`
}

// RevokeResult is the answer of POST /v1/credentials/{id}/revoke.
type RevokeResult struct {
	Credential credential.Credential `json:"credential"`
	// Warning says the revocation holds but could not be recorded.
	Warning string `json:"warning,omitempty"`
}

func (s *Server) mountCredentials(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/credentials", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, s.Credentials.List())
	})
	mux.HandleFunc("POST /v1/credentials", s.mint)
	mux.HandleFunc("POST /v1/credentials/{id}/revoke", func(w http.ResponseWriter, r *http.Request) {
		c, err := s.Credentials.Revoke(r.Context(), r.PathValue("id"))
		switch {
		case errors.Is(err, credential.ErrNotFound):
			writeErr(w, http.StatusNotFound, err)
		case err != nil && c.ID == "":
			writeErr(w, http.StatusInternalServerError, err)
		case err != nil:
			writeJSON(w, http.StatusOK, RevokeResult{Credential: c, Warning: err.Error()})
		default:
			writeJSON(w, http.StatusOK, RevokeResult{Credential: c})
		}
	})
}

// mint returns the scoped credential of a registered workspace's agent,
// minting it when there is none (`warden run claude` writes it into
// Claude's MCP config).
func (s *Server) mint(w http.ResponseWriter, r *http.Request) {
	if s.Supervisor == nil {
		writeErr(w, http.StatusServiceUnavailable, errors.New("this daemon runs without the agent supervisor"))
		return
	}
	var req MintRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		writeErr(w, http.StatusBadRequest, fmt.Errorf("bad body: %w", err))
		return
	}
	// an Agent API client's credential (warden chat), or an agent type's
	agentType := credential.AgentAPIClient
	if req.Agent != credential.AgentAPIClient {
		t, err := agents.Parse(req.Agent)
		if err != nil {
			writeErr(w, http.StatusBadRequest, err)
			return
		}
		agentType = string(t)
	}
	root, err := s.Supervisor.Registry().Root(req.Workspace)
	if err != nil {
		writeErr(w, codeOf(err), err)
		return
	}
	m, err := s.Credentials.Mint(r.Context(), root, agentType)
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// Credentials lists every scoped agent credential, revoked ones too.
func (c *Client) Credentials(ctx context.Context) ([]credential.Credential, error) {
	var out []credential.Credential
	return out, c.do(ctx, "GET", "/v1/credentials", nil, &out)
}

// MintCredential returns the scoped credential of the agent of type
// agentType in the registered workspace holding path, minting one when
// there is none.
func (c *Client) MintCredential(ctx context.Context, path, agentType string) (credential.Minted, error) {
	var out credential.Minted
	return out, c.do(ctx, "POST", "/v1/credentials", MintRequest{Workspace: path, Agent: agentType}, &out)
}

// RevokeCredential revokes the scoped credential id at once.
func (c *Client) RevokeCredential(ctx context.Context, id string) (RevokeResult, error) {
	var out RevokeResult
	return out, c.do(ctx, "POST", "/v1/credentials/"+url.PathEscape(id)+"/revoke", nil, &out)
}
