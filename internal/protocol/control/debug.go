package control

import (
	"context"
	"fmt"

	"github.com/warden-dev/warden/internal/debug"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/policy/shell"
)

// Debug lines on the wire are 1-based, as editors show them and DAP counts
// them (the spec does not say; see docs/protocols.md).

func debugMethods() map[string]method {
	return map[string]method{
		"debug.startSession":      debugStart,
		"debug.stopSession":       debugStop,
		"debug.setBreakpoints":    debugSetBreakpoints,
		"debug.removeBreakpoints": debugRemoveBreakpoints,
		"debug.getBreakpoints":    debugGetBreakpoints,
		"debug.listSessions":      debugListSessions,
	}
}

func debugStart(ctx context.Context, c *call) (any, error) {
	var p struct {
		Type      string            `json:"type"`
		Request   string            `json:"request"`
		Name      string            `json:"name"`
		Program   string            `json:"program"`
		Args      []string          `json:"args"`
		Cwd       string            `json:"cwd"`
		Env       map[string]string `json:"env"`
		ProcessID int               `json:"processId"`
		Port      int               `json:"port"`
		Host      string            `json:"host"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Type == "" || (p.Request != "launch" && p.Request != "attach") {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, `invalid params: type and request ("launch" or "attach") are required`)
	}
	cfg := debug.Config{Type: p.Type, Request: p.Request, Name: p.Name, Args: p.Args, Env: p.Env, ProcessID: p.ProcessID, Port: p.Port, Host: p.Host}
	if p.Program != "" {
		abs, err := c.abs(p.Program)
		if err != nil {
			return nil, err
		}
		cfg.Program = abs
	}
	if p.Cwd != "" {
		abs, err := c.abs(p.Cwd)
		if err != nil {
			return nil, err
		}
		cfg.Cwd = abs
	}
	// launching a program under a debugger runs it: judged like running it
	line := ""
	switch p.Type {
	case "go":
		line = shell.Join(append([]string{"dlv", "debug", cfg.Program, "--"}, p.Args...)...)
	default:
		line = shell.Join(append([]string{"python3", cfg.Program}, p.Args...)...)
	}
	if p.Request == "attach" {
		line = fmt.Sprintf("dlv attach %d", p.ProcessID)
	}
	if err := c.gate(ctx, "bash", map[string]any{"command": line, "description": "debug.startSession"}, false, denyCommand); err != nil {
		return nil, err
	}
	id, err := c.p.Debug().Start(ctx, cfg)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, cfg.Program)
	}
	return map[string]string{"sessionId": id}, nil
}

func debugStop(ctx context.Context, c *call) (any, error) {
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if err := c.ws.ops.StopDebug(ctx, p.SessionID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func debugSetBreakpoints(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path        string             `json:"path"`
		Breakpoints []debug.Breakpoint `json:"breakpoints"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Breakpoints == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: breakpoints is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	res, err := c.ws.ops.SetBreakpoints(ctx, abs, p.Breakpoints)
	if err != nil {
		return nil, fail(err, abs)
	}
	type bp struct {
		ID       string `json:"id"`
		Verified bool   `json:"verified"`
		Line     int    `json:"line"`
	}
	out := []bp{}
	for _, r := range res {
		out = append(out, bp{ID: r.ID, Verified: r.Verified, Line: r.Line})
	}
	return map[string]any{"breakpoints": out}, nil
}

func debugRemoveBreakpoints(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path  string `json:"path"`
		Lines []int  `json:"lines"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Lines == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: lines is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	n, err := c.ws.ops.RemoveBreakpoints(ctx, abs, p.Lines)
	if err != nil {
		return nil, fail(err, abs)
	}
	return map[string]int{"removed": n}, nil
}

func debugGetBreakpoints(ctx context.Context, c *call) (any, error) {
	var p pathParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	abs := ""
	if p.Path != "" {
		a, err := c.abs(p.Path)
		if err != nil {
			return nil, err
		}
		abs = a
	}
	type bp struct {
		ID        string `json:"id"`
		Path      string `json:"path"`
		Line      int    `json:"line"`
		Enabled   bool   `json:"enabled"`
		Condition string `json:"condition,omitempty"`
	}
	out := []bp{}
	for _, b := range c.ws.ops.Breakpoints(abs) {
		out = append(out, bp{ID: b.ID, Path: b.Path, Line: b.Line, Enabled: b.Enabled, Condition: b.Condition})
	}
	return map[string]any{"breakpoints": out}, nil
}

func debugListSessions(ctx context.Context, c *call) (any, error) {
	type s struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Type string `json:"type"`
	}
	out := []s{}
	for _, x := range c.ws.ops.DebugSessions() {
		out = append(out, s{ID: x.ID, Name: x.Name, Type: x.Type})
	}
	return map[string]any{"sessions": out}, nil
}
