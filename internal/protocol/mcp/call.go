package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
)

// call is one tool call being handled, in the workspace its request named.
type call struct {
	srv     *Server
	tool    string // the MCP tool name
	id      string // the call id in gated and recorded events
	session string // the policy's session: "mcp-" + the MCP session id
	root    string
	ws      *ops.Workspace
}

// begin resolves the workspace of a tool call from its X-Workspace-Path
// header. The error is the tool error the client sees.
func (s *Server) begin(req *sdk.CallToolRequest, tool string) (*call, error) {
	var p string
	if req.Extra != nil && req.Extra.Header != nil {
		p = req.Extra.Header.Get(WorkspaceHeader)
	}
	if p == "" {
		return nil, fmt.Errorf("no workspace: send the %s header with the absolute path of a registered workspace on every request", WorkspaceHeader)
	}
	root, ok := s.opts.Workspaces.Lookup(p)
	if !ok {
		err := fmt.Errorf("%s is not a registered workspace (%s): run `warden workspace add %s` first", p, WorkspaceHeader, p)
		session := "mcp"
		if req.Session != nil && req.Session.ID() != "" {
			session = "mcp-" + req.Session.ID()
		}
		// in the log like any refusal
		s.opts.Core.Refuse(context.Background(), core.GateRequest{
			Call:   policy.Call{Tool: tool, Args: map[string]any{"workspace": p}, Session: session, Source: Source},
			Source: Source, CallID: newCallID(), Extra: map[string]any{"mcpTool": tool},
		}, "warden.unregistered-workspace", err.Error())
		return nil, err
	}
	ws, err := s.opsWorkspace(root)
	if err != nil {
		return nil, err
	}
	session := "mcp"
	if req.Session != nil && req.Session.ID() != "" {
		session = "mcp-" + req.Session.ID()
	}
	return &call{srv: s, tool: tool, id: newCallID(), session: session, root: ws.Root(), ws: ws}, nil
}

// newCallID returns a random id for a tool call (MCP does not expose the
// JSON-RPC request id to tool handlers).
func newCallID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "mcp-" + hex.EncodeToString(b)
}

// caller is who the operations layer sees.
func (c *call) caller() ops.Caller {
	return ops.Caller{Source: Source, Session: c.session, CallID: c.id, Extra: map[string]any{"mcpTool": c.tool}}
}

// abs resolves a path argument inside the workspace.
func (c *call) abs(p string) (string, error) {
	abs, err := c.ws.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", c.tool, err)
	}
	return abs, nil
}

// rel is abs relative to the workspace root.
func (c *call) rel(abs string) string { return c.ws.Rel(abs) }

// gate asks the core about tool(args) and returns nil only when the call may
// run. A refusal is an error carrying the policy's reason and rule.
func (c *call) gate(ctx context.Context, tool string, args map[string]any) error {
	_, err := c.ws.Gate(ctx, c.caller(), "", tool, args, false)
	return err
}

// gateShell gates an operation as the shell command line it amounts to.
func (c *call) gateShell(ctx context.Context, argv ...string) error {
	_, err := c.ws.GateShell(ctx, c.caller(), c.tool, false, argv...)
	return err
}

// record records the outcome of a tool call that changed something.
func (c *call) record(ctx context.Context, tool string, err error) {
	c.ws.Record(ctx, c.caller(), tool, err)
}

// textResult is a tool result of plain text.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// jsonResult is a tool result of v as JSON text, and as structured content
// when v encodes to a JSON object.
func jsonResult(v any) (*sdk.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	res := textResult(string(b))
	if len(b) > 0 && b[0] == '{' {
		res.StructuredContent = json.RawMessage(b)
	}
	return res, nil
}
