package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/wsfs"
)

// diagWait is how long lsp.diagnostics waits for a language server's
// diagnostics of a document it was just sent.
const diagWait = 10 * time.Second

// MaxReadBytes is the largest file fs.readFile returns (and the lsp.* tools
// send to a language server).
const MaxReadBytes = 10 << 20

// readText reads the text file abs through the sandbox.
func (c *call) readText(abs string) (string, error) {
	info, err := c.ws.fs.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", c.rel(abs), err)
	}
	if info.IsDir {
		return "", fmt.Errorf("read %s: is a directory (use fs.listDirectory)", c.rel(abs))
	}
	if info.Size > MaxReadBytes {
		return "", fmt.Errorf("read %s: %d bytes is more than %d (use search.text to find what you need)", c.rel(abs), info.Size, MaxReadBytes)
	}
	b, err := c.ws.fs.ReadFile(abs)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", c.rel(abs), err)
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("read %s: not a UTF-8 text file (%d bytes)", c.rel(abs), len(b))
	}
	return string(b), nil
}

func fsReadFile(ctx context.Context, c *call, in pathInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}); err != nil {
		return nil, err
	}
	text, err := c.readText(abs)
	if err != nil {
		return nil, err
	}
	return textResult(text), nil
}

func fsWriteFile(ctx context.Context, c *call, in writeInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "write", map[string]any{"filePath": abs, "content": in.Content}); err != nil {
		return nil, err
	}
	err = c.ws.fs.WriteFile(abs, []byte(in.Content))
	c.record(ctx, "write", err)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", c.rel(abs), err)
	}
	return textResult(fmt.Sprintf("wrote %d bytes to %s", len(in.Content), c.rel(abs))), nil
}

// replace applies an exact-match edit to text: old must occur exactly once,
// or at least once when all is set, and is replaced by repl. It returns the new text and the number
// of replacements.
func replace(text, old, repl string, all bool) (string, int, error) {
	if old == "" {
		return "", 0, errors.New("oldString is empty")
	}
	if old == repl {
		return "", 0, errors.New("oldString and newString are the same")
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return "", 0, errors.New("oldString not found (it must match the file exactly, whitespace and indentation included)")
	case n > 1 && !all:
		return "", 0, fmt.Errorf("oldString occurs %d times: add surrounding lines to make it unique, or set replaceAll", n)
	case all:
		return strings.ReplaceAll(text, old, repl), n, nil
	}
	return strings.Replace(text, old, repl, 1), 1, nil
}

func fsEditFile(ctx context.Context, c *call, in editInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "edit", map[string]any{"filePath": abs, "oldString": in.OldString, "newString": in.NewString, "replaceAll": in.ReplaceAll}); err != nil {
		return nil, err
	}
	n, err := c.edit(abs, in)
	c.record(ctx, "edit", err)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", c.rel(abs), err)
	}
	return textResult(fmt.Sprintf("edited %s: %d replacement%s", c.rel(abs), n, plural(n))), nil
}

// edit reads abs, applies the edit and writes the result back.
func (c *call) edit(abs string, in editInput) (int, error) {
	b, err := c.ws.fs.ReadFile(abs)
	if err != nil {
		return 0, err
	}
	text, n, err := replace(string(b), in.OldString, in.NewString, in.ReplaceAll)
	if err != nil {
		return 0, err
	}
	return n, c.ws.fs.WriteFile(abs, []byte(text))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func fsListDirectory(ctx context.Context, c *call, in listInput) (*sdk.CallToolResult, error) {
	if in.Path == "" {
		in.Path = "."
	}
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	if err := c.gate(ctx, "list", map[string]any{"path": abs}); err != nil {
		return nil, err
	}
	entries, err := c.ws.fs.List(abs, false)
	if err != nil && !errors.Is(err, wsfs.ErrListLimit) {
		return nil, fmt.Errorf("list %s: %w", c.rel(abs), err)
	}
	if entries == nil {
		entries = []wsfs.Entry{}
	}
	res := map[string]any{"path": abs, "entries": entries}
	if err != nil {
		res["truncated"] = true
	}
	return jsonResult(res)
}

func searchText(ctx context.Context, c *call, in searchInput) (*sdk.CallToolResult, error) {
	if in.Query == "" {
		return nil, errors.New("search.text: query is required")
	}
	if in.MaxResults < 0 {
		return nil, errors.New("search.text: maxResults must not be negative")
	}
	if err := c.gate(ctx, "grep", map[string]any{"path": c.root, "pattern": in.Query, "include": in.Include}); err != nil {
		return nil, err
	}
	res, err := search.Find(ctx, c.root, in.Query, search.Options{
		Include: in.Include, MaxResults: in.MaxResults, UseRegex: in.Regex, CaseSensitive: in.CaseSensitive,
	})
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", in.Query, err)
	}
	if res == nil {
		res = []search.Result{}
	}
	return jsonResult(map[string]any{"results": res})
}

// gateGit gates a git operation as the git command line it amounts to, so
// the policy's git rules apply.
func (c *call) gateGit(ctx context.Context, argv ...string) error {
	return c.gateShell(ctx, append([]string{"git"}, argv...)...)
}

func gitStatus(ctx context.Context, c *call, _ noInput) (*sdk.CallToolResult, error) {
	if err := c.gateGit(ctx, "status"); err != nil {
		return nil, err
	}
	st, err := c.ws.git.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	if st.Changes == nil {
		st.Changes = []gitcli.Change{}
	}
	return jsonResult(st)
}

func gitDiff(ctx context.Context, c *call, in diffInput) (*sdk.CallToolResult, error) {
	argv := []string{"diff"}
	if in.Staged {
		argv = append(argv, "--staged")
	}
	rel := ""
	if in.Path != "" {
		abs, err := c.abs(in.Path)
		if err != nil {
			return nil, err
		}
		rel = c.rel(abs)
		argv = append(argv, "--", rel)
	}
	if err := c.gateGit(ctx, argv...); err != nil {
		return nil, err
	}
	d, err := c.ws.git.Diff(ctx, rel, in.Staged)
	if err != nil {
		return nil, fmt.Errorf("git diff: %w", err)
	}
	if d == "" {
		d = "(no changes)"
	}
	return textResult(d), nil
}

func gitLog(ctx context.Context, c *call, in logInput) (*sdk.CallToolResult, error) {
	if in.MaxCount < 0 {
		return nil, errors.New("git.log: maxCount must not be negative")
	}
	if in.MaxCount == 0 {
		in.MaxCount = gitcli.DefaultLogMax
	}
	if err := c.gateGit(ctx, "log", "-n", strconv.Itoa(in.MaxCount)); err != nil {
		return nil, err
	}
	entries, err := c.ws.git.Log(ctx, in.MaxCount, "")
	if err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	if entries == nil {
		entries = []gitcli.Entry{}
	}
	return jsonResult(map[string]any{"entries": entries})
}

// document gates a read of the file at p, reads it through the sandbox and
// brings its language server up to date with it.
func (c *call) document(ctx context.Context, p string) (protocol.DocumentURI, error) {
	abs, err := c.abs(p)
	if err != nil {
		return "", err
	}
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}); err != nil {
		return "", err
	}
	text, err := c.readText(abs)
	if err != nil {
		return "", err
	}
	return c.ws.sync(abs, text)
}

func (c *call) position(ctx context.Context, in positionInput) (protocol.DocumentURI, protocol.Position, error) {
	if in.Line < 0 || in.Character < 0 {
		return "", protocol.Position{}, fmt.Errorf("%s: line and character must not be negative", c.tool)
	}
	u, err := c.document(ctx, in.Path)
	return u, protocol.Position{Line: uint32(in.Line), Character: uint32(in.Character)}, err
}

// location is a place in a file, as lsp.definition and lsp.references
// return it.
type location struct {
	Path  string         `json:"path"`
	Range protocol.Range `json:"range"`
}

func locations(ls []protocol.Location) []location {
	out := make([]location, 0, len(ls))
	for _, l := range ls {
		p, err := lsp.PathFromURI(l.URI)
		if err != nil {
			p = string(l.URI)
		}
		out = append(out, location{Path: p, Range: l.Range})
	}
	return out
}

func lspSymbols(ctx context.Context, c *call, in pathInput) (*sdk.CallToolResult, error) {
	u, err := c.document(ctx, in.Path)
	if err != nil {
		return nil, err
	}
	syms, err := c.ws.lsp.DocumentSymbols(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("symbols of %s: %w", in.Path, err)
	}
	if syms == nil {
		syms = []lsp.Symbol{}
	}
	return jsonResult(map[string]any{"symbols": syms})
}

func lspDefinition(ctx context.Context, c *call, in positionInput) (*sdk.CallToolResult, error) {
	u, pos, err := c.position(ctx, in)
	if err != nil {
		return nil, err
	}
	ls, err := c.ws.lsp.Definition(ctx, u, pos)
	if err != nil {
		return nil, fmt.Errorf("definition at %s:%d:%d: %w", in.Path, in.Line, in.Character, err)
	}
	return jsonResult(map[string]any{"locations": locations(ls)})
}

func lspReferences(ctx context.Context, c *call, in positionInput) (*sdk.CallToolResult, error) {
	u, pos, err := c.position(ctx, in)
	if err != nil {
		return nil, err
	}
	ls, err := c.ws.lsp.References(ctx, u, pos)
	if err != nil {
		return nil, fmt.Errorf("references at %s:%d:%d: %w", in.Path, in.Line, in.Character, err)
	}
	return jsonResult(map[string]any{"locations": locations(ls)})
}

// diagnostic is one diagnostic of lsp.diagnostics.
type diagnostic struct {
	Range    protocol.Range `json:"range"`
	Severity string         `json:"severity"`
	Message  string         `json:"message"`
	Source   string         `json:"source,omitempty"`
	Code     any            `json:"code,omitempty"`
}

func lspDiagnostics(ctx context.Context, c *call, in pathInput) (*sdk.CallToolResult, error) {
	u, err := c.document(ctx, in.Path)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, diagWait)
	defer cancel()
	ds, err := c.ws.waitDiagnostics(wctx, u)
	if err != nil {
		return nil, fmt.Errorf("diagnostics of %s: %w", in.Path, err)
	}
	out := make([]diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic{Range: d.Range, Severity: lsp.SeverityName(d.Severity), Message: d.Message, Source: d.Source, Code: d.Code})
	}
	return jsonResult(map[string]any{"path": in.Path, "diagnostics": out})
}
