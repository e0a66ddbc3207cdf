package control

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/warden-dev/warden/internal/jsonrpc"
)

// command is an entry of the command registry: a VS Code command id that
// means the same thing in warden, run as a door method with its arguments.
type command struct {
	method string
	// params builds the method's params from command.execute's args.
	params func(args []json.RawMessage) (json.RawMessage, error)
	doc    string
}

// noArgs passes {} to the method.
func noArgs([]json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`{}`), nil }

// firstArgPath passes {"path": args[0]} when given (a path string or a
// {path}/{uri} object), else {} (the active document).
func firstArgPath(args []json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	var s string
	if json.Unmarshal(args[0], &s) == nil {
		return json.Marshal(map[string]string{"path": s})
	}
	var o struct {
		Path string `json:"path"`
		URI  string `json:"uri"`
		Fs   string `json:"fsPath"`
	}
	if err := json.Unmarshal(args[0], &o); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: the first argument must be a path")
	}
	p := o.Path
	if p == "" {
		p = o.Fs
	}
	if p == "" {
		p = o.URI
	}
	return json.Marshal(map[string]string{"path": p})
}

// firstArgObject passes args[0] (an object) as the params.
func firstArgObject(args []json.RawMessage) (json.RawMessage, error) {
	if len(args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	return args[0], nil
}

func commandRegistry() map[string]command {
	return map[string]command{
		"editor.action.formatDocument":       {"editor.formatDocument", firstArgPath, "format the active (or given) document with its language server"},
		"workbench.action.files.save":        {"editor.save", firstArgPath, "save the active (or given) document"},
		"workbench.action.files.saveAll":     {"editor.saveAll", noArgs, "save every dirty document"},
		"workbench.action.closeActiveEditor": {"warden.closeActive", noArgs, "close the active document (unsaved edits are dropped)"},
		"vscode.open":                        {"editor.openFile", firstArgPath, "open a document"},
		"workbench.action.terminal.new":      {"terminal.create", firstArgObject, "create a terminal ({name, cwd, env})"},
		"workbench.action.terminal.kill":     {"warden.killActiveTerminal", noArgs, "dispose of the active terminal"},
		"editor.action.revealDefinition":     {"warden.definitionAtSelection", noArgs, "definition of the symbol at the active selection"},
		"editor.action.goToReferences":       {"warden.referencesAtSelection", noArgs, "references of the symbol at the active selection"},
		"workbench.action.files.revert":      {"warden.revert", firstArgPath, "drop unsaved edits and reload from disk"},
		"git.refresh":                        {"git.status", noArgs, "git status"},
	}
}

func commandMethods() map[string]method {
	return map[string]method{
		"command.list":                 commandList,
		"command.execute":              commandExecute,
		"warden.closeActive":           closeActive,
		"warden.killActiveTerminal":    killActiveTerminal,
		"warden.definitionAtSelection": atSelection("state.goToDefinition"),
		"warden.referencesAtSelection": atSelection("state.findReferences"),
		"warden.revert":                revert,
	}
}

func commandList(ctx context.Context, c *call) (any, error) {
	var p struct {
		Filter string `json:"filter"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	out := []string{}
	for id := range commandRegistry() {
		if strings.HasPrefix(id, p.Filter) {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return map[string]any{"commands": out}, nil
}

func commandExecute(ctx context.Context, c *call) (any, error) {
	var p struct {
		Command string            `json:"command"`
		Args    []json.RawMessage `json:"args"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Command == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: command is required")
	}
	if err := c.checkCommand(p.Command, c.ws.root); err != nil {
		return nil, c.refuse("control.security", map[string]any{"command": p.Command}, err)
	}
	cmd, found := commandRegistry()[p.Command]
	if !found {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "command not found: %s (see command.list)", p.Command).With("command", p.Command)
	}
	params, err := cmd.params(p.Args)
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "control.command", map[string]any{"command": p.Command, "args": p.Args}, false, denyCommand); err != nil {
		return nil, err
	}
	// the command's method is held to control.security as if the
	// client had called it
	if err := c.ws.srv.allowed(cmd.method); err != nil {
		return nil, c.refuse("control.security", map[string]any{"command": p.Command, "method": cmd.method}, err)
	}
	m := c.ws.srv.methods[cmd.method]
	sub := &call{ss: c.ss, ws: c.ws, req: &jsonrpc.Request{JSONRPC: jsonrpc.Version, ID: c.req.ID, Method: cmd.method, Params: params}}
	res, err := m(ctx, sub)
	if err != nil {
		return nil, err
	}
	return map[string]any{"result": res}, nil
}

func closeActive(ctx context.Context, c *call) (any, error) {
	s, err := c.ws.ops.Editor().Active()
	if err != nil {
		return nil, fail(err, "")
	}
	return success{Success: c.ws.ops.Editor().Close(s.Path)}, nil
}

func killActiveTerminal(ctx context.Context, c *call) (any, error) {
	t, found := c.ws.ops.ActiveTerminal()
	if !found {
		return nil, jsonrpc.Errorf(CodeTerminalNotFound, "terminal not found: no terminal is active")
	}
	if err := c.ws.ops.DisposeTerminal(t.ID); err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

// atSelection runs a position method at the start of the active selection.
func atSelection(name string) method {
	return func(ctx context.Context, c *call) (any, error) {
		s, err := c.ws.ops.Editor().Active()
		if err != nil {
			return nil, fail(err, "")
		}
		if err := c.ws.srv.allowed(name); err != nil {
			return nil, c.refuse("control.security", map[string]any{"method": name}, err)
		}
		params, _ := json.Marshal(map[string]any{"path": s.Path, "position": s.Selection.Start})
		sub := &call{ss: c.ss, ws: c.ws, req: &jsonrpc.Request{JSONRPC: jsonrpc.Version, ID: c.req.ID, Method: name, Params: params}}
		return c.ws.srv.methods[name](ctx, sub)
	}
}

func revert(ctx context.Context, c *call) (any, error) {
	abs, err := c.target()
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}, false, denyFile); err != nil {
		return nil, err
	}
	b, err := c.p.FS().ReadFile(abs)
	if err != nil {
		return nil, fail(err, abs)
	}
	if _, err := c.ws.ops.Editor().SetContent(abs, string(b)); err != nil {
		return nil, fail(err, abs)
	}
	if _, err := c.ws.ops.Editor().MarkSaved(abs, string(b)); err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

// ExecuteCommand runs a command of the registry (as command.execute does)
// for workspace root on behalf of another door (the MCP door's
// workspace.executeCommand), in the name of session. The call is gated
// and recorded like a client's; errors are the door's JSON-RPC errors.
func (s *Server) ExecuteCommand(ctx context.Context, root, session, command string, args []json.RawMessage) (json.RawMessage, error) {
	ws, err := s.workspace(root)
	if err != nil {
		return nil, err
	}
	ss := s.newSession(ws)
	ss.id = session
	params, err := json.Marshal(map[string]any{"command": command, "args": args})
	if err != nil {
		return nil, err
	}
	id, _ := json.Marshal(session)
	c := &call{ss: ss, ws: ws, req: &jsonrpc.Request{JSONRPC: jsonrpc.Version, ID: id, Method: "command.execute", Params: params}}
	res, err := commandExecute(ctx, c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}
