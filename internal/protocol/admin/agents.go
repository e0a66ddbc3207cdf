package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/agents"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/workspace"
)

// WorkspaceRequest is the body of the workspace and agent endpoints.
type WorkspaceRequest struct {
	// Path is the workspace (or, for create, a directory of the project).
	Path string `json:"path"`
	// Name and Base are for create.
	Name string `json:"name,omitempty"`
	Base string `json:"base,omitempty"`
	// Force removes a dirty worktree.
	Force bool `json:"force,omitempty"`
	// AllowBroad registers a directory too broad to be a workspace (/, the
	// home directory, a system directory) on purpose.
	AllowBroad bool `json:"allowBroad,omitempty"`
	// Agent is the agent type for agents/start.
	Agent string `json:"agent,omitempty"`
	// Key and Value are for metadata; a null Value deletes the key.
	Key   string  `json:"key,omitempty"`
	Value *string `json:"value,omitempty"`
}

// WorkspaceResult is the answer of the workspace endpoints.
type WorkspaceResult struct {
	Workspace workspace.Workspace `json:"workspace"`
	// New is false when add found the workspace registered already.
	New bool `json:"new,omitempty"`
}

func (s *Server) mountAgents(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/workspaces", s.withSupervisor(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor) {
		writeJSON(w, http.StatusOK, sv.Registry().List())
	}))
	mux.HandleFunc("POST /v1/workspaces", s.withBody(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor, req WorkspaceRequest) {
		ws, isNew, err := sv.AddWorkspace(r.Context(), req.Path, workspace.AddOptions{AllowBroad: req.AllowBroad})
		if err != nil {
			writeErr(w, http.StatusBadRequest, err)
			return
		}
		writeJSON(w, http.StatusOK, WorkspaceResult{Workspace: ws, New: isNew})
	}))
	mux.HandleFunc("POST /v1/workspaces/create", s.withBody(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor, req WorkspaceRequest) {
		ws, err := sv.CreateWorkspace(r.Context(), req.Path, req.Name, req.Base)
		if err != nil {
			writeErr(w, codeOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, WorkspaceResult{Workspace: ws, New: true})
	}))
	mux.HandleFunc("POST /v1/workspaces/remove", s.withBody(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor, req WorkspaceRequest) {
		ws, err := sv.RemoveWorkspace(r.Context(), req.Path, req.Force)
		if err != nil {
			writeErr(w, codeOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, WorkspaceResult{Workspace: ws})
	}))
	mux.HandleFunc("POST /v1/workspaces/metadata", s.withBody(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor, req WorkspaceRequest) {
		ws, err := sv.SetMetadata(r.Context(), req.Path, req.Key, req.Value)
		if err != nil {
			writeErr(w, codeOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, WorkspaceResult{Workspace: ws})
	}))
	mux.HandleFunc("GET /v1/agents", s.withSupervisor(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor) {
		if path := r.URL.Query().Get("workspace"); path != "" {
			ai, err := sv.Agent(path)
			if err != nil {
				writeErr(w, codeOf(err), err)
				return
			}
			writeJSON(w, http.StatusOK, []supervisor.AgentInfo{ai})
			return
		}
		list := sv.Agents()
		if list == nil {
			list = []supervisor.AgentInfo{}
		}
		writeJSON(w, http.StatusOK, list)
	}))
	mux.HandleFunc("POST /v1/agents/{action}", s.withBody(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor, req WorkspaceRequest) {
		var (
			ai  AgentActionResult
			err error
		)
		switch r.PathValue("action") {
		case "start":
			var t agent.Type
			if t, err = agents.Parse(req.Agent); err == nil {
				ai.AgentInfo, err = sv.StartAgent(r.Context(), req.Path, t)
			}
		case "stop":
			var before supervisor.AgentInfo
			if before, err = sv.Agent(req.Path); err != nil {
				break
			}
			var res agent.StopResult
			if res, err = sv.StopAgent(r.Context(), req.Path); err == nil {
				ai.Stopped, ai.Killed = before.Agent != "", res.Killed
				ai.AgentInfo, err = sv.Agent(req.Path)
			}
		case "restart":
			ai.AgentInfo, err = sv.RestartAgent(r.Context(), req.Path)
		default:
			writeErr(w, http.StatusNotFound, fmt.Errorf("no agent action %q (start, stop or restart)", r.PathValue("action")))
			return
		}
		if err != nil {
			writeErr(w, codeOf(err), err)
			return
		}
		writeJSON(w, http.StatusOK, ai)
	}))
}

// AgentActionResult answers POST /v1/agents/{action}: the workspace's
// agent as it is now and, for a stop, whether there was one to stop.
type AgentActionResult struct {
	supervisor.AgentInfo
	// Stopped is true when stop found an agent started for the workspace
	// (a server running, or restarts being tried) and ended it.
	Stopped bool `json:"stopped,omitempty"`
	// Killed is true when its server had to be killed after the grace
	// period.
	Killed bool `json:"killed,omitempty"`
}

func codeOf(err error) int {
	switch {
	case errors.Is(err, workspace.ErrNotFound), errors.Is(err, agent.ErrNotRunning):
		return http.StatusNotFound
	case errors.Is(err, workspace.ErrBadName), errors.Is(err, workspace.ErrBadKey), errors.Is(err, workspace.ErrNotProject),
		errors.Is(err, workspace.ErrExists), errors.Is(err, agent.ErrUnknownType):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func (s *Server) withSupervisor(fn func(http.ResponseWriter, *http.Request, *supervisor.Supervisor)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.Supervisor == nil {
			writeErr(w, http.StatusServiceUnavailable, errors.New("this daemon runs without the agent supervisor"))
			return
		}
		fn(w, r, s.Supervisor)
	}
}

func (s *Server) withBody(fn func(http.ResponseWriter, *http.Request, *supervisor.Supervisor, WorkspaceRequest)) http.HandlerFunc {
	return s.withSupervisor(func(w http.ResponseWriter, r *http.Request, sv *supervisor.Supervisor) {
		var req WorkspaceRequest
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
			writeErr(w, http.StatusBadRequest, fmt.Errorf("bad body: %w", err))
			return
		}
		if req.Path == "" {
			writeErr(w, http.StatusBadRequest, errors.New("path is required"))
			return
		}
		fn(w, r, sv, req)
	})
}

// Workspaces lists the registered workspaces.
func (c *Client) Workspaces(ctx context.Context) ([]workspace.Workspace, error) {
	var out []workspace.Workspace
	return out, c.do(ctx, "GET", "/v1/workspaces", nil, &out)
}

// AddWorkspace registers a directory (a broad one only with allowBroad).
func (c *Client) AddWorkspace(ctx context.Context, path string, allowBroad bool) (WorkspaceResult, error) {
	var out WorkspaceResult
	return out, c.do(ctx, "POST", "/v1/workspaces", WorkspaceRequest{Path: path, AllowBroad: allowBroad}, &out)
}

// CreateWorkspace makes a worktree workspace NAME of the project at path.
func (c *Client) CreateWorkspace(ctx context.Context, path, name, base string) (WorkspaceResult, error) {
	var out WorkspaceResult
	return out, c.do(ctx, "POST", "/v1/workspaces/create", WorkspaceRequest{Path: path, Name: name, Base: base}, &out)
}

// RemoveWorkspace unregisters a workspace (removing a worktree warden made).
func (c *Client) RemoveWorkspace(ctx context.Context, path string, force bool) (WorkspaceResult, error) {
	var out WorkspaceResult
	return out, c.do(ctx, "POST", "/v1/workspaces/remove", WorkspaceRequest{Path: path, Force: force}, &out)
}

// SetMetadata sets a workspace's metadata key (nil value deletes it).
func (c *Client) SetMetadata(ctx context.Context, path, key string, value *string) (WorkspaceResult, error) {
	var out WorkspaceResult
	return out, c.do(ctx, "POST", "/v1/workspaces/metadata", WorkspaceRequest{Path: path, Key: key, Value: value}, &out)
}

// Agents lists every workspace's agent; workspace, when not empty, picks
// the one holding that path.
func (c *Client) Agents(ctx context.Context, workspace string) ([]supervisor.AgentInfo, error) {
	var out []supervisor.AgentInfo
	path := "/v1/agents"
	if workspace != "" {
		path += "?workspace=" + url.QueryEscape(workspace)
	}
	return out, c.do(ctx, "GET", path, nil, &out)
}

// AgentAction starts, stops or restarts a workspace's agent.
func (c *Client) AgentAction(ctx context.Context, action, path, agentType string) (AgentActionResult, error) {
	var out AgentActionResult
	return out, c.do(ctx, "POST", "/v1/agents/"+url.PathEscape(action), WorkspaceRequest{Path: path, Agent: agentType}, &out)
}
