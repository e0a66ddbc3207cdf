package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/search"
)

// diagWait is how long lsp.diagnostics waits for a language server's
// diagnostics of a document it was just sent.
const diagWait = 10 * time.Second

// MaxReadBytes is the largest file fs.readFile returns (and the lsp.* tools
// send to a language server).
const MaxReadBytes = ops.MaxReadBytes

func fsReadFile(ctx context.Context, c *call, in pathInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	text, err := c.ws.ReadText(ctx, c.caller(), abs)
	if err != nil {
		if errors.Is(err, ops.ErrTooLarge) {
			return nil, fmt.Errorf("read %s: %w (use search.text to find what you need)", c.rel(abs), err)
		}
		return nil, fmt.Errorf("read %s: %w", c.rel(abs), err)
	}
	return textResult(text), nil
}

func fsWriteFile(ctx context.Context, c *call, in writeInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	if err := c.ws.WriteFile(ctx, c.caller(), abs, []byte(in.Content)); err != nil {
		return nil, fmt.Errorf("write %s: %w", c.rel(abs), err)
	}
	return textResult(fmt.Sprintf("wrote %d bytes to %s", len(in.Content), c.rel(abs))), nil
}

func fsEditFile(ctx context.Context, c *call, in editInput) (*sdk.CallToolResult, error) {
	abs, err := c.abs(in.Path)
	if err != nil {
		return nil, err
	}
	n, err := c.ws.EditFile(ctx, c.caller(), abs, in.OldString, in.NewString, in.ReplaceAll)
	if err != nil {
		return nil, fmt.Errorf("edit %s: %w", c.rel(abs), err)
	}
	return textResult(fmt.Sprintf("edited %s: %d replacement%s", c.rel(abs), n, plural(n))), nil
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
	entries, truncated, err := c.ws.List(ctx, c.caller(), abs, false, nil)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", c.rel(abs), err)
	}
	res := map[string]any{"path": abs, "entries": entries}
	if truncated {
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
	res, err := c.ws.Search(ctx, c.caller(), in.Query, search.Options{
		Include: in.Include, MaxResults: in.MaxResults, UseRegex: in.Regex, CaseSensitive: in.CaseSensitive,
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("search %q: %w", in.Query, err)
	}
	for i := range res.Results {
		res.Results[i].Path = c.rel(res.Results[i].Path)
	}
	return jsonResult(res)
}

func searchCode(ctx context.Context, c *call, in codeInput) (*sdk.CallToolResult, error) {
	q, err := index.ParseQuery(in.Query)
	if err != nil {
		return nil, fmt.Errorf("search.code: %w", err)
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, errors.New("search.code: query is required")
	}
	if in.Limit < 0 {
		return nil, errors.New("search.code: limit must not be negative")
	}
	q.Limit = in.Limit
	res, err := c.ws.IndexSearch(ctx, c.caller(), q, nil)
	if err != nil {
		return nil, fmt.Errorf("search.code %q: %w", in.Query, err)
	}
	return jsonResult(res)
}

func searchSymbols(ctx context.Context, c *call, in symbolsInput) (*sdk.CallToolResult, error) {
	if strings.TrimSpace(in.Name) == "" {
		return nil, errors.New("search.symbols: name is required")
	}
	if in.Limit < 0 {
		return nil, errors.New("search.symbols: limit must not be negative")
	}
	res, err := c.ws.IndexSearch(ctx, c.caller(), index.Query{Text: in.Name, Mode: index.ModeSymbol, Kind: in.Kind, CaseSensitive: in.CaseSensitive, Limit: in.Limit}, nil)
	if err != nil {
		return nil, fmt.Errorf("search.symbols %q: %w", in.Name, err)
	}
	return jsonResult(res)
}

func gitStatus(ctx context.Context, c *call, _ noInput) (*sdk.CallToolResult, error) {
	st, err := c.ws.GitStatus(ctx, c.caller())
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	return jsonResult(st)
}

func gitDiff(ctx context.Context, c *call, in diffInput) (*sdk.CallToolResult, error) {
	rel := ""
	if in.Path != "" {
		abs, err := c.abs(in.Path)
		if err != nil {
			return nil, err
		}
		rel = c.rel(abs)
	}
	d, skipped, err := c.ws.GitDiff(ctx, c.caller(), rel, in.Staged, nil)
	if err != nil {
		return nil, fmt.Errorf("git diff: %w", err)
	}
	if d == "" {
		d = "(no changes)"
	}
	if skipped > 0 {
		d += fmt.Sprintf("\n(%d changed file%s not shown: warden would refuse to read %s)", skipped, plural(skipped), map[bool]string{true: "it", false: "them"}[skipped == 1])
	}
	return textResult(d), nil
}

func gitLog(ctx context.Context, c *call, in logInput) (*sdk.CallToolResult, error) {
	if in.MaxCount < 0 {
		return nil, errors.New("git.log: maxCount must not be negative")
	}
	entries, err := c.ws.GitLog(ctx, c.caller(), in.MaxCount, "")
	if err != nil {
		return nil, fmt.Errorf("git log: %w", err)
	}
	return jsonResult(map[string]any{"entries": entries})
}

// document gates a read of the file at p and brings its language server up
// to date with it.
func (c *call) document(ctx context.Context, p string) (protocol.DocumentURI, error) {
	abs, err := c.abs(p)
	if err != nil {
		return "", err
	}
	return c.ws.Document(ctx, c.caller(), abs)
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
	syms, err := c.ws.LSP().DocumentSymbols(ctx, u)
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
	ls, err := c.ws.LSP().Definition(ctx, u, pos)
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
	ls, err := c.ws.LSP().References(ctx, u, pos)
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
	ds, err := c.ws.WaitDiagnostics(wctx, u)
	if err != nil {
		return nil, fmt.Errorf("diagnostics of %s: %w", in.Path, err)
	}
	out := make([]diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic{Range: d.Range, Severity: lsp.SeverityName(d.Severity), Message: d.Message, Source: d.Source, Code: d.Code})
	}
	return jsonResult(map[string]any{"path": in.Path, "diagnostics": out})
}
