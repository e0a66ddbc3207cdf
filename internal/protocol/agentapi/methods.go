package agentapi

import (
	"context"
	"errors"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/provider"
)

// handle answers one request: the methods of the spec's tables.
func (c *conn) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	e := c.srv.opts.Engine
	switch req.Method {
	case "session.create":
		var p struct {
			WorkingDirectory string `json:"workingDirectory"`
			Model            string `json:"model"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := required("workingDirectory", p.WorkingDirectory); err != nil {
			return nil, err
		}
		if err := required("model", p.Model); err != nil {
			return nil, err
		}
		root, ok := c.scopedRoot(p.WorkingDirectory)
		if !ok {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s is scoped to workspace %s; it cannot start a session in %s", c.principal, c.principal.Workspace, p.WorkingDirectory)
		}
		p.WorkingDirectory = root
		id, err := e.Create(ctx, p.WorkingDirectory, p.Model)
		if err != nil {
			return nil, fail(err)
		}
		c.attach(id)
		return map[string]any{"sessionId": id}, nil

	case "session.list":
		var p struct {
			WorkspaceID string `json:"workspaceId"`
			Limit       int    `json:"limit"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if p.Limit < 0 {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: limit must not be negative")
		}
		if p.Limit == 0 {
			p.Limit = defaultListLimit
		}
		// a credential lists its own workspace's sessions only: a filter
		// naming another workspace (or none warden knows) matches none
		if p.WorkspaceID != "" {
			if _, ok := c.scopedRoot(p.WorkspaceID); !ok {
				return map[string]any{"sessions": []agent.Session{}}, nil
			}
		}
		p.WorkspaceID = c.principal.Workspace
		ss, err := e.List(ctx, p.WorkspaceID, p.Limit)
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"sessions": ss}, nil

	case "session.get":
		p, err := c.sessionOnly(ctx, req)
		if err != nil {
			return nil, err
		}
		s, err := e.Get(ctx, p.SessionID)
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"session": s}, nil

	case "session.fork":
		var p struct {
			SessionID string `json:"sessionId"`
			EventID   int64  `json:"eventId"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		id, err := e.Fork(ctx, p.SessionID, p.EventID)
		if err != nil {
			return nil, fail(err)
		}
		c.attach(id)
		return map[string]any{"newSessionId": id}, nil

	case "session.delete":
		p, err := c.sessionOnly(ctx, req)
		if err != nil {
			return nil, err
		}
		if err := e.Delete(ctx, p.SessionID); err != nil {
			return nil, fail(err)
		}
		return map[string]any{"success": true}, nil

	case "agent.message":
		var p struct {
			SessionID   string             `json:"sessionId"`
			Content     string             `json:"content"`
			Attachments []agent.Attachment `json:"attachments"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		if err := required("content", p.Content); err != nil {
			return nil, err
		}
		res, err := e.Message(ctx, p.SessionID, p.Content, p.Attachments)
		c.flush(ctx)
		if err != nil {
			return nil, fail(err)
		}
		return res, nil

	case "agent.respond":
		var p struct {
			SessionID string `json:"sessionId"`
			Response  string `json:"response"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		if err := required("response", p.Response); err != nil {
			return nil, err
		}
		res, err := e.Respond(ctx, p.SessionID, p.Response)
		c.flush(ctx)
		if err != nil {
			return nil, fail(err)
		}
		return res, nil

	case "agent.abort":
		p, err := c.sessionOnly(ctx, req)
		if err != nil {
			return nil, err
		}
		return map[string]any{"aborted": e.Abort(ctx, p.SessionID)}, nil

	case "model.list":
		models, errs := e.Models(ctx)
		if models == nil {
			models = []provider.ModelInfo{}
		}
		out := map[string]any{"models": models}
		if len(errs) > 0 {
			var es []map[string]string
			for _, le := range errs {
				es = append(es, map[string]string{"provider": le.Provider, "error": le.Err.Error()})
			}
			out["errors"] = es
		}
		return out, nil

	case "model.switch":
		var p struct {
			SessionID string `json:"sessionId"`
			Model     string `json:"model"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		if err := required("model", p.Model); err != nil {
			return nil, err
		}
		if err := e.SwitchModel(ctx, p.SessionID, p.Model); err != nil {
			return nil, fail(err)
		}
		return map[string]any{"success": true}, nil

	case "context.get":
		p, err := c.sessionOnly(ctx, req)
		if err != nil {
			return nil, err
		}
		snap, err := e.Context(ctx, p.SessionID)
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"context": snap}, nil

	case "context.compact":
		p, err := c.sessionOnly(ctx, req)
		if err != nil {
			return nil, err
		}
		m, err := e.Compact(ctx, p.SessionID)
		if errors.Is(err, agent.ErrAborted) {
			// agent.abort stopped it: nothing was compacted
			return map[string]any{"compacted": false, "reason": "aborted"}, nil
		}
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"compacted": true, "compaction": m}, nil

	case "events.list":
		var p struct {
			SessionID string `json:"sessionId"`
			Limit     int    `json:"limit"`
			After     int64  `json:"after"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		if p.Limit < 0 || p.After < 0 {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: limit and after must not be negative")
		}
		evs, err := e.Events(ctx, p.SessionID, p.After, p.Limit)
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"events": specEvents(evs)}, nil

	case "events.sync":
		var p struct {
			SessionID    string `json:"sessionId"`
			LastSequence *int64 `json:"lastSequence"`
		}
		if err := params(req, &p); err != nil {
			return nil, err
		}
		if err := c.session(ctx, p.SessionID); err != nil {
			return nil, err
		}
		if p.LastSequence == nil || *p.LastSequence < 0 {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: lastSequence (0 or more) is required")
		}
		evs, err := e.Events(ctx, p.SessionID, *p.LastSequence, 0)
		if err != nil {
			return nil, fail(err)
		}
		return map[string]any{"events": specEvents(evs)}, nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
}

// scopedRoot resolves dir for a scoped credential: ok only when it is the
// credential's own workspace.
func (c *conn) scopedRoot(dir string) (string, bool) {
	root, err := c.srv.opts.Engine.ResolveWorkspace(dir)
	if err != nil || root != c.principal.Workspace {
		return "", false
	}
	return root, true
}

// sessionOnly decodes the params of a method that takes only a sessionId
// and checks that this connection may use that session.
func (c *conn) sessionOnly(ctx context.Context, req *jsonrpc.Request) (struct {
	SessionID string `json:"sessionId"`
}, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := params(req, &p); err != nil {
		return p, err
	}
	return p, c.session(ctx, p.SessionID)
}
