package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/ops"
)

// workspace is the door's side of one registered workspace: the
// connections to it (for notifications). Its services (file system,
// editor, terminals, git, language servers, debuggers) belong to the
// operations layer, shared with every other door.
type workspace struct {
	srv    *Server
	root   string
	ops    *ops.Workspace
	unlist func()

	mu       sync.Mutex
	sessions map[*session]struct{}
}

// workspace returns the door's state for the registered workspace root,
// creating it on first use (and anew when the operations layer started
// the workspace's services again, after it was removed and added back).
func (s *Server) workspace(root string) (*workspace, error) {
	ow, err := s.opts.Ops.Workspace(root)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("warden is shutting down")
	}
	if w, ok := s.workspaces[root]; ok {
		if w.ops == ow {
			return w, nil
		}
		w.close()
	}
	w := &workspace{srv: s, root: ow.Root(), ops: ow, sessions: map[*session]struct{}{}}
	w.unlist = ow.Listen(func(n ops.Notice) { w.broadcast(n.Method, n.Params) })
	s.workspaces[root] = w
	return w, nil
}

func (w *workspace) attach(ss *session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sessions[ss] = struct{}{}
}

func (w *workspace) detach(ss *session) {
	w.mu.Lock()
	delete(w.sessions, ss)
	w.mu.Unlock()
	if id := ss.sessionID(); id != "" {
		w.recordSession(context.Background(), id, false)
	}
}

// broadcast sends a notification to every authenticated client of the
// workspace.
func (w *workspace) broadcast(method string, params any) {
	w.mu.Lock()
	list := make([]*session, 0, len(w.sessions))
	for ss := range w.sessions {
		list = append(list, ss)
	}
	w.mu.Unlock()
	for _, ss := range list {
		ss.notify(method, params)
	}
}

// close stops listening to the workspace's services (they stay with the
// operations layer).
func (w *workspace) close() { w.unlist() }

// recordSession records the start or end of a control session.
func (w *workspace) recordSession(ctx context.Context, id string, start bool) {
	t, data := event.SessionEnd, map[string]any{"reason": "client disconnected"}
	if start {
		t, data = event.SessionStart, map[string]any{"agent": "control", "directory": w.root}
	}
	b, _ := json.Marshal(data)
	if _, err := w.srv.opts.Core.Record(ctx, event.Event{Session: id, Type: t, Source: Source, Workspace: w.root, Data: b}); err != nil {
		w.srv.log.Warn("could not record control session event", "type", t, "err", err)
	}
}

// call is one request being handled.
type call struct {
	ss  *session
	ws  *workspace
	req *jsonrpc.Request
	p   ops.Permit // set by a successful gate
}

// abs turns a client path (absolute, or relative to the workspace) into an
// absolute, cleaned path inside the workspace, or a PathRestricted error;
// paths matching control.security.restrictedPaths are FileAccessDenied.
func (c *call) abs(p string) (string, error) { return c.absField("path", p) }

// absField is abs for the param named field (a missing one is
// InvalidParams naming it).
func (c *call) absField(field, p string) (string, error) {
	if p == "" {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %s is required", field)
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.ws.root, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(c.ws.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", c.refuse("warden.outside-workspace", map[string]any{field: p},
			jsonrpc.Errorf(CodePathRestricted, "path restricted: %s is outside the workspace %s", p, c.ws.root).With("path", p))
	}
	for _, g := range c.ws.srv.opts.Settings.Security.RestrictedPaths {
		if ok, _ := doublestar.Match(g, filepath.ToSlash(rel)); ok {
			return "", c.refuse("control.security.restrictedPaths", map[string]any{field: p},
				jsonrpc.Errorf(CodeFileAccessDenied, "file access denied: %s matches control.security.restrictedPaths %q", rel, g).With("path", p))
		}
		if ok, _ := doublestar.Match(g, p); ok {
			return "", c.refuse("control.security.restrictedPaths", map[string]any{field: p},
				jsonrpc.Errorf(CodeFileAccessDenied, "file access denied: %s matches control.security.restrictedPaths %q", p, g).With("path", p))
		}
	}
	return p, nil
}

// refuse records a refusal of the door's own (a control.security setting,
// a path outside the workspace) as the method's call and its final deny,
// and returns err.
func (c *call) refuse(rule string, args map[string]any, err error) error {
	return c.ws.ops.Refuse(context.Background(), c.caller(), "", c.req.Method, args, rule, err)
}

// rel is p relative to the workspace root.
func (c *call) rel(p string) string {
	r, err := filepath.Rel(c.ws.root, p)
	if err != nil {
		return p
	}
	return r
}

// denyCode is the error code a policy denial gets for a kind of operation.
type denyCode int

const (
	denyFile    = denyCode(CodeFileAccessDenied)
	denyCommand = denyCode(CodeCommandRestricted)
	denyOther   = denyCode(CodeOperationCancelled)
)

// caller is who the operations layer sees for this call.
func (c *call) caller() ops.Caller {
	oc := ops.Caller{Source: Source, Session: c.ss.sessionID(), CallID: string(c.req.ID), Extra: map[string]any{"method": c.req.Method}}
	if c.ws.srv.opts.Settings.Security.RequireApproval {
		oc.RequireApproval = c.req.Method + " is destructive and control.security.requireApproval is on"
	}
	return oc
}

// gate asks the core about the call tool(args). destructive operations wait
// for a person when control.security.requireApproval is on. A policy deny
// is answered with code; a person's denial (or an expired approval) with
// OperationCancelled. The permit it gets is kept in c.p: the workspace's
// file system, git, terminals and debuggers are reached only through it.
func (c *call) gate(ctx context.Context, tool string, args map[string]any, destructive bool, code denyCode) error {
	return c.gateIn(ctx, c.ws.root, tool, args, destructive, code)
}

// gateIn is gate for a call that runs in directory cwd (a terminal's
// shell after a `cd`).
func (c *call) gateIn(ctx context.Context, cwd, tool string, args map[string]any, destructive bool, code denyCode) error {
	p, err := c.ws.ops.Gate(ctx, c.caller(), cwd, tool, args, destructive)
	if err != nil {
		return deniedError(err, code)
	}
	c.p = p
	return nil
}

// deniedError maps an operation's refusal to the spec's codes.
func deniedError(err error, code denyCode) error {
	var d *ops.DeniedError
	if !errors.As(err, &d) {
		return fail(err, "")
	}
	v := d.Verdict
	if v.ApprovalID != "" {
		return jsonrpc.Errorf(CodeOperationCancelled, "operation cancelled: %s", v.Reason).
			With("approvalId", v.ApprovalID).With("rule", v.Rule)
	}
	return jsonrpc.Errorf(int(code), "%s: %s", denyWord(code), v.Reason).With("rule", v.Rule)
}

func denyWord(c denyCode) string {
	switch c {
	case denyFile:
		return "file access denied by policy"
	case denyCommand:
		return "command restricted by policy"
	}
	return "operation cancelled by policy"
}

// recordResult records the outcome of a mutating method.
func (c *call) recordResult(ctx context.Context, tool string, err error) {
	c.ws.ops.Record(ctx, c.caller(), tool, err)
}

// fail maps an internal error to the spec's error codes: the one table of
// the door. Errors that already are *jsonrpc.Error pass through.
func fail(err error, path string) error {
	if err == nil {
		return nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	code, msg := classify(err)
	text := msg + ": " + err.Error()
	if h := hint(err); h != "" {
		text += " (" + h + ")"
	}
	e := jsonrpc.Wrap(code, err, text)
	if path != "" {
		e = e.With("path", path)
	}
	return e
}

// classify is the table from internal errors to spec codes.
func classify(err error) (int, string) {
	switch {
	case isEscape(err):
		return CodePathRestricted, "path restricted"
	case errors.Is(err, fs.ErrNotExist):
		return CodeFileNotFound, "file not found"
	case errors.Is(err, fs.ErrExist):
		return jsonrpc.CodeInvalidParams, "invalid params"
	case errors.Is(err, fs.ErrPermission):
		return CodeFileAccessDenied, "file access denied"
	case errors.Is(err, editor.ErrNoActive):
		return CodeEditorNotActive, "editor not active"
	case errors.Is(err, editor.ErrNotOpen):
		return CodeFileNotFound, "document not open"
	case errors.Is(err, editor.ErrBadRange):
		return jsonrpc.CodeInvalidParams, "invalid params"
	case errors.Is(err, context.DeadlineExceeded):
		return jsonrpc.CodeInternalError, "timed out"
	}
	if code, msg, ok := classifyService(err); ok {
		return code, msg
	}
	return jsonrpc.CodeInternalError, "internal error"
}

// hint is what the person behind a call can do about a mistake the table
// above knows ("" when there is nothing to add).
func hint(err error) string {
	switch {
	case errors.Is(err, fs.ErrExist):
		return "choose another destination, or delete it first"
	case errors.Is(err, editor.ErrBadRange):
		return "positions are 0-based lines and UTF-16 characters; editor.getDocumentInfo gives the line count"
	}
	return serviceHint(err)
}
