package control

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/lsp"
)

func toLSP(p editor.Position) protocol.Position {
	return protocol.Position{Line: uint32(max(p.Line, 0)), Character: uint32(max(p.Character, 0))}
}

func fromLSP(p protocol.Position) editor.Position {
	return editor.Position{Line: int(p.Line), Character: int(p.Character)}
}

func rangeFromLSP(r protocol.Range) editor.Range {
	return editor.Range{Start: fromLSP(r.Start), End: fromLSP(r.End)}
}

// format returns the language server's formatting edits for a document.
func (w *workspace) format(ctx context.Context, d editor.Snapshot) ([]editor.Edit, error) {
	edits, err := w.ops.LSP().Formatting(ctx, lsp.URIFromPath(d.Path))
	if err != nil {
		return nil, err
	}
	out := make([]editor.Edit, len(edits))
	for i, e := range edits {
		out[i] = editor.Edit{Range: rangeFromLSP(e.Range), Text: e.NewText}
	}
	return out, nil
}

type completionItem struct {
	Label      string `json:"label"`
	Kind       string `json:"kind"`
	Detail     string `json:"detail,omitempty"`
	InsertText string `json:"insertText,omitempty"`
	SortText   string `json:"sortText,omitempty"`
}

func (w *workspace) completions(ctx context.Context, d editor.Snapshot, pos editor.Position, trigger string) (any, error) {
	list, err := w.ops.LSP().Completion(ctx, lsp.URIFromPath(d.Path), toLSP(pos), trigger)
	if err != nil {
		return nil, fail(err, d.Path)
	}
	items := []completionItem{}
	incomplete := false
	if list != nil {
		incomplete = list.IsIncomplete
		for _, it := range list.Items {
			ins := it.InsertText
			if ins == "" && it.TextEdit != nil {
				ins = it.TextEdit.NewText
			}
			items = append(items, completionItem{Label: it.Label, Kind: strings.ToLower(it.Kind.String()), Detail: it.Detail, InsertText: ins, SortText: it.SortText})
		}
	}
	return map[string]any{"items": items, "isIncomplete": incomplete}, nil
}

func stateMethods() map[string]method {
	return map[string]method{
		"state.getWorkspace":      stateGetWorkspace,
		"state.getDiagnostics":    stateGetDiagnostics,
		"state.getSymbols":        stateGetSymbols,
		"state.findReferences":    stateFindReferences,
		"state.goToDefinition":    stateGoToDefinition,
		"state.getHover":          stateGetHover,
		"state.getCodeActions":    stateGetCodeActions,
		"state.getOpenDocuments":  stateGetOpenDocuments,
		"state.getVisibleEditors": stateGetVisibleEditors,
	}
}

func stateGetWorkspace(ctx context.Context, c *call) (any, error) {
	if err := c.gate(ctx, "list", map[string]any{"path": c.ws.root}, false, denyFile); err != nil {
		return nil, err
	}
	name := c.ws.root[strings.LastIndex(c.ws.root, "/")+1:]
	return map[string]any{"folders": []string{c.ws.root}, "name": name}, nil
}

type diagnostic struct {
	URI      string       `json:"uri"`
	Range    editor.Range `json:"range"`
	Message  string       `json:"message"`
	Severity string       `json:"severity"`
	Source   string       `json:"source,omitempty"`
	Code     any          `json:"code,omitempty"`
}

func convertDiags(u protocol.DocumentURI, ds []protocol.Diagnostic, out []diagnostic) []diagnostic {
	for _, d := range ds {
		out = append(out, diagnostic{URI: string(u), Range: rangeFromLSP(d.Range), Message: d.Message, Severity: lsp.SeverityName(d.Severity), Source: d.Source, Code: d.Code})
	}
	return out
}

// diagWait is how long state.getDiagnostics waits for a language server's
// first diagnostics of a document it just opened.
const diagWait = 10 * time.Second

func stateGetDiagnostics(ctx context.Context, c *call) (any, error) {
	var p pathParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	out := []diagnostic{}
	if p.Path == "" {
		if err := c.gate(ctx, "grep", map[string]any{"path": c.ws.root, "pattern": "diagnostics"}, false, denyFile); err != nil {
			return nil, err
		}
		for _, fd := range c.ws.ops.LSP().DiagnosticList() {
			out = convertDiags(fd.URI, []protocol.Diagnostic{fd.Diagnostic}, out)
		}
		return map[string]any{"diagnostics": out}, nil
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := c.open(ctx, abs, false, 0); err != nil {
		return nil, err
	}
	u := lsp.URIFromPath(abs)
	wctx, cancel := context.WithTimeout(ctx, diagWait)
	defer cancel()
	ds, err := c.ws.ops.LSP().WaitDiagnostics(wctx, u, func([]protocol.Diagnostic) bool { return true })
	if err != nil {
		if errors.Is(err, lsp.ErrNoServer) || errors.Is(err, lsp.ErrNotInstalled) {
			return map[string]any{"diagnostics": out}, nil // at once: no server will ever publish
		}
		ds = c.ws.ops.LSP().Diagnostics(u)
	}
	return map[string]any{"diagnostics": convertDiags(u, ds, out)}, nil
}

// langDoc opens the document at the path param for a language feature (a
// gated read) and returns its URI and the position param.
func (c *call) langDoc(ctx context.Context, needPos, needRange bool) (protocol.DocumentURI, editor.Position, editor.Range, error) {
	var p rangeParams
	if err := c.params(&p); err != nil {
		return "", editor.Position{}, editor.Range{}, err
	}
	if needPos && p.Position == nil {
		return "", editor.Position{}, editor.Range{}, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: position is required")
	}
	if needRange && p.Range == nil {
		return "", editor.Position{}, editor.Range{}, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: range is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return "", editor.Position{}, editor.Range{}, err
	}
	d, err := c.open(ctx, abs, false, 0)
	if err != nil {
		return "", editor.Position{}, editor.Range{}, err
	}
	// a position outside the document is the caller's mistake, said as
	// such, not whatever the language server makes of it
	var pos editor.Position
	var rng editor.Range
	if needPos {
		pos = *p.Position
		if err := editor.CheckPosition(d.Text, pos); err != nil {
			return "", editor.Position{}, editor.Range{}, fail(err, abs)
		}
	}
	if needRange {
		rng = *p.Range
		if err := editor.CheckRange(d.Text, rng); err != nil {
			return "", editor.Position{}, editor.Range{}, fail(err, abs)
		}
	}
	return lsp.URIFromPath(abs), pos, rng, nil
}

type location struct {
	URI   string       `json:"uri"`
	Range editor.Range `json:"range"`
}

func locations(ls []protocol.Location) []location {
	out := make([]location, 0, len(ls))
	for _, l := range ls {
		out = append(out, location{URI: string(l.URI), Range: rangeFromLSP(l.Range)})
	}
	return out
}

func stateGetSymbols(ctx context.Context, c *call) (any, error) {
	u, _, _, err := c.langDoc(ctx, false, false)
	if err != nil {
		return nil, err
	}
	syms, err := c.ws.ops.LSP().DocumentSymbols(ctx, u)
	if err != nil {
		return nil, fail(err, string(u))
	}
	if syms == nil {
		syms = []lsp.Symbol{}
	}
	return map[string]any{"symbols": syms}, nil
}

func stateFindReferences(ctx context.Context, c *call) (any, error) {
	u, pos, _, err := c.langDoc(ctx, true, false)
	if err != nil {
		return nil, err
	}
	ls, err := c.ws.ops.LSP().References(ctx, u, toLSP(pos))
	if err != nil {
		return nil, fail(err, string(u))
	}
	return map[string]any{"locations": locations(ls)}, nil
}

func stateGoToDefinition(ctx context.Context, c *call) (any, error) {
	u, pos, _, err := c.langDoc(ctx, true, false)
	if err != nil {
		return nil, err
	}
	ls, err := c.ws.ops.LSP().Definition(ctx, u, toLSP(pos))
	if err != nil {
		return nil, fail(err, string(u))
	}
	return map[string]any{"locations": locations(ls)}, nil
}

func stateGetHover(ctx context.Context, c *call) (any, error) {
	u, pos, _, err := c.langDoc(ctx, true, false)
	if err != nil {
		return nil, err
	}
	h, err := c.ws.ops.LSP().Hover(ctx, u, toLSP(pos))
	if err != nil {
		return nil, fail(err, string(u))
	}
	return map[string]string{"content": h}, nil
}

func stateGetCodeActions(ctx context.Context, c *call) (any, error) {
	u, _, rng, err := c.langDoc(ctx, false, true)
	if err != nil {
		return nil, err
	}
	acts, err := c.ws.ops.LSP().CodeActions(ctx, u, protocol.Range{Start: toLSP(rng.Start), End: toLSP(rng.End)})
	if err != nil {
		return nil, fail(err, string(u))
	}
	type action struct {
		Title       string `json:"title"`
		Kind        string `json:"kind,omitempty"`
		IsPreferred bool   `json:"isPreferred,omitempty"`
	}
	out := []action{}
	for _, a := range acts {
		out = append(out, action{Title: a.Title, Kind: string(a.Kind), IsPreferred: a.IsPreferred})
	}
	return map[string]any{"actions": out}, nil
}

func stateGetOpenDocuments(ctx context.Context, c *call) (any, error) {
	type doc struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int    `json:"version"`
		IsDirty    bool   `json:"isDirty"`
	}
	out := []doc{}
	for _, s := range c.ws.ops.Editor().List() {
		out = append(out, doc{URI: uri(s.Path), LanguageID: s.LanguageID, Version: s.Version, IsDirty: s.IsDirty})
	}
	return map[string]any{"documents": out}, nil
}

func stateGetVisibleEditors(ctx context.Context, c *call) (any, error) {
	type ed struct {
		DocumentURI string         `json:"documentUri"`
		ViewColumn  int            `json:"viewColumn"`
		Selections  []editor.Range `json:"selections"`
	}
	out := []ed{}
	// a headless editor shows the active document of each view column
	seen := map[int]bool{}
	list := c.ws.ops.Editor().List()
	if a, err := c.ws.ops.Editor().Active(); err == nil {
		out = append(out, ed{DocumentURI: uri(a.Path), ViewColumn: a.ViewColumn, Selections: []editor.Range{a.Selection}})
		seen[a.ViewColumn] = true
	}
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i]
		if !s.Shown || seen[s.ViewColumn] {
			continue
		}
		seen[s.ViewColumn] = true
		out = append(out, ed{DocumentURI: uri(s.Path), ViewColumn: s.ViewColumn, Selections: []editor.Range{s.Selection}})
	}
	return map[string]any{"editors": out}, nil
}
