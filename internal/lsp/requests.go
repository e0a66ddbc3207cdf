package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// request sends method to the server for u and decodes the result into
// result. A call that fails because the server died is retried once on
// the restarted server (every request the Manager sends is a query).
func (m *Manager) request(ctx context.Context, u protocol.DocumentURI, method string, params func(protocol.DocumentURI) any, result any) error {
	c, u, err := m.clientForURI(u)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		inst, err := c.get(ctx)
		if err != nil {
			return fmt.Errorf("lsp: %s %s: %w", method, u, err)
		}
		err = inst.conn.Call(ctx, method, params(u), result)
		if err != nil && errors.Is(err, ErrServerExited) && attempt == 0 && ctx.Err() == nil {
			m.log.Info("lsp: server exited during request; retrying", "method", method)
			continue
		}
		return err
	}
}

func isNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null"))
}

func posParams(pos protocol.Position) func(protocol.DocumentURI) any {
	return func(u protocol.DocumentURI) any {
		return &protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos}
	}
}

// decodeLocations accepts Location, []Location and []LocationLink results
// (LocationLinks become their target selection range).
func decodeLocations(raw json.RawMessage) ([]protocol.Location, error) {
	if isNull(raw) {
		return nil, nil
	}
	raw = bytes.TrimSpace(raw)
	if raw[0] == '{' {
		var loc protocol.Location
		if err := json.Unmarshal(raw, &loc); err != nil {
			return nil, fmt.Errorf("decoding location: %w", err)
		}
		return []protocol.Location{loc}, nil
	}
	var items []struct {
		protocol.Location
		TargetURI            protocol.DocumentURI `json:"targetUri"`
		TargetSelectionRange *protocol.Range      `json:"targetSelectionRange"`
		TargetRange          *protocol.Range      `json:"targetRange"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("decoding locations: %w", err)
	}
	out := make([]protocol.Location, 0, len(items))
	for _, it := range items {
		loc := it.Location
		if it.TargetURI != "" {
			loc.URI = it.TargetURI
			switch {
			case it.TargetSelectionRange != nil:
				loc.Range = *it.TargetSelectionRange
			case it.TargetRange != nil:
				loc.Range = *it.TargetRange
			}
		}
		loc.URI = normURI(loc.URI)
		out = append(out, loc)
	}
	return out, nil
}

// Definition returns where the symbol at pos in u is defined.
func (m *Manager) Definition(ctx context.Context, u protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	var raw json.RawMessage
	if err := m.request(ctx, u, "textDocument/definition", posParams(pos), &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw)
}

// References returns every reference to the symbol at pos in u, including
// its declaration.
func (m *Manager) References(ctx context.Context, u protocol.DocumentURI, pos protocol.Position) ([]protocol.Location, error) {
	var raw json.RawMessage
	params := func(u protocol.DocumentURI) any {
		return &protocol.ReferenceParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos},
			Context:                    protocol.ReferenceContext{IncludeDeclaration: true},
		}
	}
	if err := m.request(ctx, u, "textDocument/references", params, &raw); err != nil {
		return nil, err
	}
	return decodeLocations(raw)
}

// Hover returns the hover text for pos in u as markdown (or plain text,
// as the server sent it); "" when the server has nothing to show.
// MarkedString results are rendered as fenced code blocks.
func (m *Manager) Hover(ctx context.Context, u protocol.DocumentURI, pos protocol.Position) (string, error) {
	var raw json.RawMessage
	if err := m.request(ctx, u, "textDocument/hover", posParams(pos), &raw); err != nil {
		return "", err
	}
	if isNull(raw) {
		return "", nil
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("lsp: decoding hover: %w", err)
	}
	return hoverText(h.Contents)
}

// hoverText renders MarkupContent, MarkedString or []MarkedString.
func hoverText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return "", nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("lsp: decoding hover: %w", err)
		}
		return s, nil
	case '[':
		var parts []json.RawMessage
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("lsp: decoding hover: %w", err)
		}
		var out []string
		for _, p := range parts {
			s, err := hoverText(p)
			if err != nil {
				return "", err
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return strings.Join(out, "\n\n"), nil
	}
	var obj struct {
		Kind     string `json:"kind"`
		Language string `json:"language"`
		Value    string `json:"value"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("lsp: decoding hover: %w", err)
	}
	if obj.Kind == "" && obj.Language != "" {
		return "```" + obj.Language + "\n" + obj.Value + "\n```", nil
	}
	return obj.Value, nil
}

// Symbol is a document symbol in a stable, JSON-friendly shape. Servers
// that return hierarchical DocumentSymbols produce a tree through
// Children; servers that return flat SymbolInformation produce a flat list
// with Container set from containerName.
type Symbol struct {
	// Name is the symbol's name.
	Name string `json:"name"`
	// Detail is extra information such as a signature; may be empty.
	Detail string `json:"detail,omitempty"`
	// Kind is the LSP symbol kind in lower case: "function", "method",
	// "struct", "class", "variable", "constant", "field", ...
	Kind string `json:"kind"`
	// Container is the enclosing symbol's name (flat results only).
	Container string `json:"container,omitempty"`
	// Range spans the whole symbol, including its body.
	Range protocol.Range `json:"range"`
	// SelectionRange spans the symbol's name.
	SelectionRange protocol.Range `json:"selectionRange"`
	// Children are nested symbols (methods of a class, fields of a struct).
	Children []Symbol `json:"children,omitempty"`
}

// SymbolKindName returns the lower-case name of an LSP symbol kind
// ("function", "struct", ...), or "unknown".
func SymbolKindName(k protocol.SymbolKind) string {
	s := k.String()
	if s == "" || strings.HasPrefix(s, "SymbolKind(") {
		return "unknown"
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func convertSymbols(in []protocol.DocumentSymbol) []Symbol {
	if len(in) == 0 {
		return nil
	}
	out := make([]Symbol, len(in))
	for i, s := range in {
		out[i] = Symbol{
			Name: s.Name, Detail: s.Detail, Kind: SymbolKindName(s.Kind),
			Range: s.Range, SelectionRange: s.SelectionRange, Children: convertSymbols(s.Children),
		}
	}
	return out
}

// DocumentSymbols returns the symbols of document u (see Symbol).
func (m *Manager) DocumentSymbols(ctx context.Context, u protocol.DocumentURI) ([]Symbol, error) {
	var raw json.RawMessage
	params := func(u protocol.DocumentURI) any {
		return &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}
	}
	if err := m.request(ctx, u, "textDocument/documentSymbol", params, &raw); err != nil {
		return nil, err
	}
	if isNull(raw) {
		return nil, nil
	}
	var probe []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("lsp: decoding symbols: %w", err)
	}
	if len(probe) == 0 {
		return []Symbol{}, nil
	}
	if _, flat := probe[0]["location"]; flat {
		var infos []protocol.SymbolInformation
		if err := json.Unmarshal(raw, &infos); err != nil {
			return nil, fmt.Errorf("lsp: decoding symbols: %w", err)
		}
		out := make([]Symbol, len(infos))
		for i, s := range infos {
			out[i] = Symbol{Name: s.Name, Kind: SymbolKindName(s.Kind), Container: s.ContainerName,
				Range: s.Location.Range, SelectionRange: s.Location.Range}
		}
		return out, nil
	}
	var syms []protocol.DocumentSymbol
	if err := json.Unmarshal(raw, &syms); err != nil {
		return nil, fmt.Errorf("lsp: decoding symbols: %w", err)
	}
	return convertSymbols(syms), nil
}

// CodeActions returns the code actions available for rng in u. The
// cached diagnostics overlapping rng are sent as context, so quick fixes
// are offered. Bare Commands returned by a server become CodeActions with
// only Title and Command set.
func (m *Manager) CodeActions(ctx context.Context, u protocol.DocumentURI, rng protocol.Range) ([]protocol.CodeAction, error) {
	diags := []protocol.Diagnostic{}
	for _, d := range m.Diagnostics(u) {
		if overlaps(d.Range, rng) {
			diags = append(diags, d)
		}
	}
	params := func(u protocol.DocumentURI) any {
		return &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Range:        rng,
			Context:      protocol.CodeActionContext{Diagnostics: diags},
		}
	}
	var items []json.RawMessage
	if err := m.request(ctx, u, "textDocument/codeAction", params, &items); err != nil {
		return nil, err
	}
	out := make([]protocol.CodeAction, 0, len(items))
	for _, raw := range items {
		var probe struct {
			Title   string          `json:"title"`
			Command json.RawMessage `json:"command"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return nil, fmt.Errorf("lsp: decoding code action: %w", err)
		}
		if c := bytes.TrimSpace(probe.Command); len(c) > 0 && c[0] == '"' {
			var cmd protocol.Command
			if err := json.Unmarshal(raw, &cmd); err != nil {
				return nil, fmt.Errorf("lsp: decoding command: %w", err)
			}
			out = append(out, protocol.CodeAction{Title: cmd.Title, Command: &cmd})
			continue
		}
		var ca protocol.CodeAction
		if err := json.Unmarshal(raw, &ca); err != nil {
			// Keep what the caller needs to list it.
			m.log.Debug("lsp: partially decoded code action", "err", err)
			ca = protocol.CodeAction{Title: probe.Title}
		}
		out = append(out, ca)
	}
	return out, nil
}

func overlaps(a, b protocol.Range) bool {
	return !before(a.End, b.Start) && !before(b.End, a.Start)
}

func before(p, q protocol.Position) bool {
	return p.Line < q.Line || (p.Line == q.Line && p.Character < q.Character)
}

// Completion returns completion items at pos in u. triggerCharacter is the
// character just typed (e.g. "."), or "" for an explicit invocation. A bare
// item array from the server becomes a complete CompletionList.
func (m *Manager) Completion(ctx context.Context, u protocol.DocumentURI, pos protocol.Position, triggerCharacter string) (*protocol.CompletionList, error) {
	cctx := &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindInvoked}
	if triggerCharacter != "" {
		cctx = &protocol.CompletionContext{TriggerKind: protocol.CompletionTriggerKindTriggerCharacter, TriggerCharacter: triggerCharacter}
	}
	params := func(u protocol.DocumentURI) any {
		return &protocol.CompletionParams{
			TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: pos},
			Context:                    cctx,
		}
	}
	var raw json.RawMessage
	if err := m.request(ctx, u, "textDocument/completion", params, &raw); err != nil {
		return nil, err
	}
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	raw = bytes.TrimSpace(raw)
	if isNull(raw) {
		return list, nil
	}
	var err error
	if raw[0] == '[' {
		err = json.Unmarshal(raw, &list.Items)
	} else {
		err = json.Unmarshal(raw, list)
	}
	if err != nil {
		return nil, fmt.Errorf("lsp: decoding completion: %w", err)
	}
	if list.Items == nil {
		list.Items = []protocol.CompletionItem{}
	}
	return list, nil
}

// Formatting asks the server to format the whole document u (options: tab
// size 4, spaces; gofmt ignores them) and returns the edits; apply them
// with ApplyEdits.
func (m *Manager) Formatting(ctx context.Context, u protocol.DocumentURI) ([]protocol.TextEdit, error) {
	params := func(u protocol.DocumentURI) any {
		return &protocol.DocumentFormattingParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: u},
			Options:      protocol.FormattingOptions{TabSize: 4, InsertSpaces: true},
		}
	}
	var edits []protocol.TextEdit
	if err := m.request(ctx, u, "textDocument/formatting", params, &edits); err != nil {
		return nil, err
	}
	return edits, nil
}
