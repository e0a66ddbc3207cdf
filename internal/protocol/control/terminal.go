package control

import (
	"context"

	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/ops"
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

func terminalCreate(ctx context.Context, c *call) (any, error) {
	var p struct {
		Name string            `json:"name"`
		Cwd  string            `json:"cwd"`
		Env  map[string]string `json:"env"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if err := c.terminalAllowed(); err != nil {
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
	// the environment is judged, the start is gated as `cd CWD`; what is
	// typed into the shell later is gated line by line at Enter
	t, err := c.ws.ops.CreateTerminal(ctx, c.caller(), ops.TerminalOptions{Name: p.Name, Cwd: cwd, Env: p.Env})
	if err != nil {
		return nil, deniedError(err, denyCommand)
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

// terminal decodes the params and finds the terminal they name; required
// params (terminalId, and text when needText) are checked before the
// terminal is looked up.
func (c *call) terminal(needText bool) (*terminal.Terminal, terminalParams, error) {
	var p terminalParams
	if err := c.params(&p); err != nil {
		return nil, p, err
	}
	if p.TerminalID == "" {
		return nil, p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: terminalId is required")
	}
	if needText && p.Text == nil {
		return nil, p, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: text is required")
	}
	t, err := c.ws.ops.Terminal(p.TerminalID)
	if err != nil {
		return nil, p, fail(err, "")
	}
	return t, p, nil
}

func terminalDispose(ctx context.Context, c *call) (any, error) {
	t, _, err := c.terminal(false)
	if err != nil {
		return nil, err
	}
	if err := c.ws.ops.DisposeTerminal(t.ID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func terminalSendText(ctx context.Context, c *call) (any, error) {
	t, p, err := c.terminal(true)
	if err != nil {
		return nil, err
	}
	// what is typed is kept until Enter; the assembled line is checked
	// against allowedCommands/restrictedCommands and gated like any shell
	// call, in the directory the shell is in now
	nl := p.AddNewLine == nil || *p.AddNewLine
	if err := c.ws.ops.SendText(ctx, c.caller(), t.ID, *p.Text, nl, c.checkCommand); err != nil {
		return nil, deniedError(err, denyCommand)
	}
	return ok, nil
}

func terminalShow(ctx context.Context, c *call) (any, error) {
	t, _, err := c.terminal(false)
	if err != nil {
		return nil, err
	}
	if err := c.ws.ops.ShowTerminal(t.ID); err != nil {
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
	for _, t := range c.ws.ops.Terminals() {
		out = append(out, info{ID: t.ID, Name: t.Name, ProcessID: t.ProcessID})
	}
	return map[string]any{"terminals": out}, nil
}

func terminalGetActive(ctx context.Context, c *call) (any, error) {
	t, ok := c.ws.ops.ActiveTerminal()
	if !ok {
		return nil, jsonrpc.Errorf(CodeTerminalNotFound, "terminal not found: no terminal is active")
	}
	return map[string]string{"terminalId": t.ID, "name": t.Name}, nil
}

func terminalGetOutput(ctx context.Context, c *call) (any, error) {
	t, p, err := c.terminal(false)
	if err != nil {
		return nil, err
	}
	if p.MaxLines < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: maxLines must not be negative")
	}
	return map[string]string{"output": t.Output(p.MaxLines)}, nil
}
