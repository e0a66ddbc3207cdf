package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/ops"
)

// toolNames lists the door's tools, in the order tools/list shows them.
var toolNames = []string{
	"workspace.getStatus", "workspace.getMetadata", "workspace.setMetadata",
	"workspace.create", "workspace.delete", "workspace.executeCommand",
	"fs.readFile", "fs.writeFile", "fs.editFile", "fs.listDirectory",
	"search.text", "search.code", "search.symbols",
	"git.status", "git.diff", "git.log",
	"lsp.symbols", "lsp.definition", "lsp.references", "lsp.diagnostics",
}

// ToolNames returns the names of the tools the door serves.
func ToolNames() []string { return append([]string(nil), toolNames...) }

// handler is a tool's body, run after its workspace was resolved.
type handler[In any] func(ctx context.Context, c *call, in In) (*sdk.CallToolResult, error)

// addTool registers one tool whose input schema the SDK derives from In.
func addTool[In any](s *Server, name, description string, ann *sdk.ToolAnnotations, h handler[In]) {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: name, Description: description, Annotations: ann},
		func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			c, err := s.begin(req, name)
			if err != nil {
				return nil, nil, err
			}
			res, err := h(ctx, c, in)
			if err != nil {
				if !errors.Is(err, ops.ErrDenied) {
					s.log.Debug("mcp tool failed", "tool", name, "workspace", c.root, "err", err)
				}
				return nil, nil, err
			}
			return res, nil, nil
		})
}

func readOnly() *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
}

func mutating(destructive, idempotent bool) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{DestructiveHint: new(destructive), IdempotentHint: idempotent, OpenWorldHint: new(false)}
}

// The tools' inputs: their JSON Schemas (with these descriptions) are what
// tools/list shows.
type (
	noInput struct{}

	setMetadataInput struct {
		Key   string  `json:"key" jsonschema:"the metadata key"`
		Value *string `json:"value,omitempty" jsonschema:"the new value; omit it (or send null) to delete the key"`
	}
	createInput struct {
		Name string `json:"name" jsonschema:"name of the new workspace (a git worktree in the same project)"`
		Base string `json:"base,omitempty" jsonschema:"branch or commit the new worktree starts from (default: the current HEAD)"`
	}
	executeCommandInput struct {
		Command string `json:"command" jsonschema:"the editor command to run (e.g. one listed by the control door's command.list)"`
		Args    []any  `json:"args,omitempty" jsonschema:"the command's arguments, any JSON values, in order"`
	}
	pathInput struct {
		Path string `json:"path" jsonschema:"file path, relative to the workspace or absolute inside it"`
	}
	writeInput struct {
		Path    string `json:"path" jsonschema:"file path, relative to the workspace or absolute inside it; missing parent directories are created"`
		Content string `json:"content" jsonschema:"the whole new content of the file (UTF-8 text)"`
	}
	editInput struct {
		Path       string `json:"path" jsonschema:"file path, relative to the workspace or absolute inside it"`
		OldString  string `json:"oldString" jsonschema:"the exact text to replace; it must occur exactly once unless replaceAll is set"`
		NewString  string `json:"newString" jsonschema:"the text to put in its place"`
		ReplaceAll bool   `json:"replaceAll,omitempty" jsonschema:"replace every occurrence of oldString (default false: exactly one must exist)"`
	}
	listInput struct {
		Path string `json:"path,omitempty" jsonschema:"directory, relative to the workspace or absolute inside it (default: the workspace root)"`
	}
	searchInput struct {
		Query         string `json:"query" jsonschema:"the text to find (a Go RE2 regular expression when regex is set)"`
		Regex         bool   `json:"regex,omitempty" jsonschema:"treat query as a regular expression (Go RE2 syntax)"`
		CaseSensitive bool   `json:"caseSensitive,omitempty" jsonschema:"match case exactly (default: case-insensitive)"`
		Include       string `json:"include,omitempty" jsonschema:"only files matching these comma-separated globs, e.g. \"src/**/*.go, *.md\""`
		MaxResults    int    `json:"maxResults,omitempty" jsonschema:"stop after this many matches (default 1000)"`
	}
	codeInput struct {
		Query string `json:"query" jsonschema:"what to find: a description of what the code does (\"where are HTTP headers parsed\") or identifiers (\"parseHeader\", \"parse header\"); may hold filters: file:GLOB -file:GLOB lang:go kind:function mode:literal|regex|symbol case:yes"`
		Limit int    `json:"limit,omitempty" jsonschema:"how many hits to return, best first (default 20)"`
	}
	symbolsInput struct {
		Name          string `json:"name" jsonschema:"the symbol's name or its beginning (exact matches first)"`
		Kind          string `json:"kind,omitempty" jsonschema:"only symbols of this kind: function, method, class, struct, interface, type, variable, ..."`
		CaseSensitive bool   `json:"caseSensitive,omitempty" jsonschema:"match the name's case exactly"`
		Limit         int    `json:"limit,omitempty" jsonschema:"how many symbols to return (default 20)"`
	}
	diffInput struct {
		Staged bool   `json:"staged,omitempty" jsonschema:"show staged changes (git diff --staged) instead of unstaged ones"`
		Path   string `json:"path,omitempty" jsonschema:"limit the diff to this path, relative to the workspace or absolute inside it"`
	}
	logInput struct {
		MaxCount int `json:"maxCount,omitempty" jsonschema:"how many commits to show, newest first (default 50)"`
	}
	positionInput struct {
		Path      string `json:"path" jsonschema:"file path, relative to the workspace or absolute inside it"`
		Line      int    `json:"line" jsonschema:"zero-based line number"`
		Character int    `json:"character" jsonschema:"zero-based character offset in the line, in UTF-16 code units (the LSP convention)"`
	}
)

func (s *Server) addTools() {
	addTool(s, "workspace.getStatus", "Show the workspace's status: path, name, whether git has uncommitted changes, and the agent working in it.", readOnly(), workspaceGetStatus)
	addTool(s, "workspace.getMetadata", "Show the workspace's key/value metadata.", readOnly(), workspaceGetMetadata)
	addTool(s, "workspace.setMetadata", "Set one key of the workspace's metadata, or delete it when value is omitted or null.", mutating(false, true), workspaceSetMetadata)
	addTool(s, "workspace.create", "Create a new workspace (a git worktree) in this workspace's project and return its path.", mutating(false, false), workspaceCreate)
	addTool(s, "workspace.delete", "Delete this workspace (and its worktree when warden made it). A person is usually asked first.", mutating(true, true), workspaceDelete)
	addTool(s, "workspace.executeCommand", "Run an editor command of the workspace (the control door's command registry) and return its result.", mutating(true, false), workspaceExecuteCommand)

	addTool(s, "fs.readFile", "Read a text file of the workspace.", readOnly(), fsReadFile)
	addTool(s, "fs.writeFile", "Write a file of the workspace (created or replaced atomically).", mutating(true, true), fsWriteFile)
	addTool(s, "fs.editFile", "Replace exact text in a file: oldString must occur exactly once (add surrounding lines to make it unique) unless replaceAll is set.", mutating(true, false), fsEditFile)
	addTool(s, "fs.listDirectory", "List a directory of the workspace: name, path, type, size and modification time of each entry.", readOnly(), fsListDirectory)

	addTool(s, "search.text", "Find text in the workspace's files (.gitignore-aware); results give each file's matches with zero-based line and character and the matching line.", readOnly(), searchText)
	addTool(s, "search.code", "Find code by what it does or by identifiers, ranked from warden's code index (BM25 over definitions with split identifiers, fused with symbol names); each hit gives path, 1-based line and endLine, the enclosing symbol, its kind and a score.", readOnly(), searchCode)
	addTool(s, "search.symbols", "Look up definitions (functions, types, methods, classes, ...) by name in warden's code index: exact names first, then names starting with it; each hit gives path, 1-based line range, kind and the qualified name.", readOnly(), searchSymbols)

	addTool(s, "git.status", "Show the git status of the workspace: branch, HEAD, upstream and changed paths.", readOnly(), gitStatus)
	addTool(s, "git.diff", "Show the git diff of the workspace (unstaged changes, or staged ones), optionally for one path.", readOnly(), gitDiff)
	addTool(s, "git.log", "Show the workspace's recent commits, newest first.", readOnly(), gitLog)

	addTool(s, "lsp.symbols", "List the symbols (functions, types, methods, ...) of a file, from its language server.", readOnly(), lspSymbols)
	addTool(s, "lsp.definition", "Find where the symbol at a position is defined, from the file's language server.", readOnly(), lspDefinition)
	addTool(s, "lsp.references", "Find every reference to the symbol at a position (its declaration included), from the file's language server.", readOnly(), lspReferences)
	addTool(s, "lsp.diagnostics", "Show the language server's diagnostics (errors, warnings) for a file.", readOnly(), lspDiagnostics)
}

func workspaceGetStatus(ctx context.Context, c *call, _ noInput) (*sdk.CallToolResult, error) {
	if err := c.gate(ctx, "workspace.getStatus", map[string]any{"path": c.root}); err != nil {
		return nil, err
	}
	st, err := c.srv.opts.Workspaces.Status(ctx, c.root)
	if err != nil {
		return nil, fmt.Errorf("workspace status of %s: %w", c.root, err)
	}
	return jsonResult(st)
}

func workspaceGetMetadata(ctx context.Context, c *call, _ noInput) (*sdk.CallToolResult, error) {
	if err := c.gate(ctx, "workspace.getMetadata", map[string]any{"path": c.root}); err != nil {
		return nil, err
	}
	md, err := c.srv.opts.Workspaces.Metadata(ctx, c.root)
	if err != nil {
		return nil, fmt.Errorf("workspace metadata of %s: %w", c.root, err)
	}
	if md == nil {
		md = map[string]string{}
	}
	return jsonResult(map[string]any{"metadata": md})
}

func workspaceSetMetadata(ctx context.Context, c *call, in setMetadataInput) (*sdk.CallToolResult, error) {
	if in.Key == "" {
		return nil, errors.New("workspace.setMetadata: key is required")
	}
	args := map[string]any{"path": c.root, "key": in.Key}
	if in.Value != nil {
		args["value"] = *in.Value
	} else {
		args["delete"] = true
	}
	if err := c.gate(ctx, "workspace.setMetadata", args); err != nil {
		return nil, err
	}
	err := c.srv.opts.Workspaces.SetMetadata(ctx, c.root, in.Key, in.Value)
	c.record(ctx, "workspace.setMetadata", err)
	if err != nil {
		return nil, fmt.Errorf("set metadata %q of %s: %w", in.Key, c.root, err)
	}
	if in.Value == nil {
		return textResult(fmt.Sprintf("deleted metadata key %q", in.Key)), nil
	}
	return textResult(fmt.Sprintf("set metadata key %q", in.Key)), nil
}

func workspaceCreate(ctx context.Context, c *call, in createInput) (*sdk.CallToolResult, error) {
	if in.Name == "" {
		return nil, errors.New("workspace.create: name is required")
	}
	if err := c.gate(ctx, "workspace.create", map[string]any{"path": c.root, "name": in.Name, "base": in.Base}); err != nil {
		return nil, err
	}
	p, err := c.srv.opts.Workspaces.Create(ctx, c.root, in.Name, in.Base)
	c.record(ctx, "workspace.create", err)
	if err != nil {
		return nil, fmt.Errorf("create workspace %q from %s: %w", in.Name, c.root, err)
	}
	return jsonResult(map[string]string{"path": p})
}

func workspaceDelete(ctx context.Context, c *call, _ noInput) (*sdk.CallToolResult, error) {
	// what deleting a workspace amounts to at worst: the policy's delete
	// rules (delete-workspace-root asks a person) judge it
	if err := c.gateShell(ctx, "rm", "-rf", "--", c.root); err != nil {
		return nil, err
	}
	err := c.srv.opts.Workspaces.Delete(ctx, c.root)
	c.record(ctx, "bash", err)
	if err != nil {
		return nil, fmt.Errorf("delete workspace %s: %w", c.root, err)
	}
	c.srv.forget(c.root)
	return textResult("deleted workspace " + c.root), nil
}

func workspaceExecuteCommand(ctx context.Context, c *call, in executeCommandInput) (*sdk.CallToolResult, error) {
	if c.srv.opts.Commands == nil {
		return nil, errors.New("no command runner: the control door is off")
	}
	if in.Command == "" {
		return nil, errors.New("workspace.executeCommand: command is required")
	}
	args := make([]json.RawMessage, len(in.Args))
	for i, a := range in.Args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("workspace.executeCommand: argument %d: %w", i, err)
		}
		args[i] = b
	}
	if err := c.gate(ctx, "command", map[string]any{"command": in.Command, "args": in.Args}); err != nil {
		return nil, err
	}
	out, err := c.srv.opts.Commands.Execute(ctx, c.root, in.Command, args)
	c.record(ctx, "command", err)
	if err != nil {
		return nil, fmt.Errorf("command %s: %w", in.Command, err)
	}
	if len(out) == 0 {
		out = json.RawMessage("null")
	}
	return jsonResult(out)
}
