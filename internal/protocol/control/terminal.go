package control

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/policy/shell"
	"github.com/warden-dev/warden/internal/terminal"
)

func terminalMethods() map[string]method {
	return map[string]method{
		"terminal.create":    terminalCreate,
		"terminal.dispose":   terminalDispose,
		"terminal.sendText":  terminalSendText,
		"terminal.show":      terminalShow,
		"terminal.list":      terminalList,
		"terminal.getActive": terminalGetActive,
		"terminal.getOutput": terminalGetOutput,
	}
}

func newTerminals(w *workspace) *terminal.Manager {
	return terminal.NewManager(terminal.Config{
		Logger: w.srv.log.With("workspace", w.root),
		OnOutput: func(id, data string) {
			w.broadcast("terminal.output", map[string]string{"terminalId": id, "data": data})
		},
		OnClosed: func(id string, code int) {
			w.broadcast("terminal.closed", map[string]any{"terminalId": id, "exitCode": code})
		},
	})
}

func terminalCreate(ctx context.Context, c *call) (any, error) {
	var p struct {
		Name string            `json:"name"`
		Cwd  string            `json:"cwd"`
		Env  map[string]string `json:"env"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	cwd := c.ws.root
	if p.Cwd != "" {
		abs, err := c.abs(p.Cwd)
		if err != nil {
			return nil, err
		}
		cwd = abs
	}
	// starting a shell runs nothing yet; what is typed into it is gated
	if err := c.gate(ctx, "bash", map[string]any{"command": "cd " + shell.Quote(cwd), "description": "terminal.create " + p.Name}, false, denyCommand); err != nil {
		return nil, err
	}
	t, err := c.ws.svc.terms.Create(terminal.Options{Name: p.Name, Cwd: cwd, Env: p.Env})
	if err != nil {
		return nil, fail(err, cwd)
	}
	return map[string]string{"terminalId": t.ID}, nil
}

type terminalParams struct {
	TerminalID    string  `json:"terminalId"`
	Text          *string `json:"text"`
	AddNewLine    *bool   `json:"addNewLine"`
	PreserveFocus bool    `json:"preserveFocus"`
	MaxLines      int     `json:"maxLines"`
}

func (c *call) terminal() (*terminal.Terminal, terminalParams, error) {
	var p terminalParams
	if err := c.params(&p); err != nil {
		return nil, p, err
	}
	if p.TerminalID == "" {
		return nil, p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: terminalId is required")
	}
	t, err := c.ws.svc.terms.Get(p.TerminalID)
	if err != nil {
		return nil, p, fail(err, "")
	}
	return t, p, nil
}

func terminalDispose(ctx context.Context, c *call) (any, error) {
	t, _, err := c.terminal()
	if err != nil {
		return nil, err
	}
	if err := c.ws.svc.terms.Dispose(t.ID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

// checkCommand applies control.security.allowedCommands/restrictedCommands
// to every program a command line runs (globs on the program name or the
// whole command).
func (c *call) checkCommand(line string) error {
	sec := c.ws.srv.opts.Settings.Security
	if len(sec.AllowedCommands) == 0 && len(sec.RestrictedCommands) == 0 {
		return nil
	}
	names := []string{}
	if a, err := shell.Analyze(line, shell.Options{Cwd: c.ws.root}); err == nil {
		for _, cm := range a.Commands {
			if cm.Name != "" {
				names = append(names, cm.Name)
			} else if cm.Dynamic {
				names = append(names, "$dynamic")
			}
		}
	} else {
		names = append(names, strings.Fields(line + " x")[0])
	}
	match := func(globs []string, name string) bool {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, name); ok {
				return true
			}
			if ok, _ := filepath.Match(g, strings.TrimSpace(line)); ok {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		if len(sec.AllowedCommands) > 0 {
			if !match(sec.AllowedCommands, n) {
				return jsonrpc.Errorf(jsonrpc.CodeCommandRestricted, "command restricted: %s is not in control.security.allowedCommands", n).With("command", line)
			}
			continue
		}
		if match(sec.RestrictedCommands, n) {
			return jsonrpc.Errorf(jsonrpc.CodeCommandRestricted, "command restricted: %s is in control.security.restrictedCommands", n).With("command", line)
		}
	}
	return nil
}

func terminalSendText(ctx context.Context, c *call) (any, error) {
	t, p, err := c.terminal()
	if err != nil {
		return nil, err
	}
	if p.Text == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: text is required")
	}
	text := *p.Text
	if err := c.checkCommand(text); err != nil {
		return nil, err
	}
	// text typed into a shell is a command line: gated like any shell call,
	// in the directory the shell is in now (it follows the `cd`s typed
	// before)
	if err := c.gateIn(ctx, t.Dir(), "bash", map[string]any{"command": text, "terminalId": t.ID}, true, denyCommand); err != nil {
		return nil, err
	}
	nl := p.AddNewLine == nil || *p.AddNewLine
	err = t.SendText(text, nl)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func terminalShow(ctx context.Context, c *call) (any, error) {
	t, _, err := c.terminal()
	if err != nil {
		return nil, err
	}
	if err := c.ws.svc.terms.Show(t.ID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func terminalList(ctx context.Context, c *call) (any, error) {
	type info struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		ProcessID int    `json:"processId,omitempty"`
	}
	out := []info{}
	for _, t := range c.ws.svc.terms.List() {
		out = append(out, info{ID: t.ID, Name: t.Name, ProcessID: t.ProcessID})
	}
	return map[string]any{"terminals": out}, nil
}

func terminalGetActive(ctx context.Context, c *call) (any, error) {
	t, ok := c.ws.svc.terms.Active()
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeTerminalNotFound, "terminal not found: no terminal is active")
	}
	return map[string]string{"terminalId": t.ID, "name": t.Name}, nil
}

func terminalGetOutput(ctx context.Context, c *call) (any, error) {
	t, p, err := c.terminal()
	if err != nil {
		return nil, err
	}
	if p.MaxLines < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: maxLines must not be negative")
	}
	return map[string]string{"output": t.Output(p.MaxLines)}, nil
}
