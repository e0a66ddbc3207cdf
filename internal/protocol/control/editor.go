package control

import (
	"context"
	"fmt"
	"strings"

	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/lsp"
)

func editorMethods() map[string]method {
	return map[string]method{
		"editor.openFile":        editorOpenFile,
		"editor.closeFile":       editorCloseFile,
		"editor.getContent":      editorGetContent,
		"editor.setContent":      editorSetContent,
		"editor.insertText":      editorInsertText,
		"editor.replaceRange":    editorReplaceRange,
		"editor.deleteRange":     editorDeleteRange,
		"editor.setSelection":    editorSetSelection,
		"editor.revealLine":      editorRevealLine,
		"editor.getSelection":    editorGetSelection,
		"editor.getActiveFile":   editorGetActiveFile,
		"editor.getOpenFiles":    editorGetOpenFiles,
		"editor.getDocumentInfo": editorGetDocumentInfo,
		"editor.applyEdits":      editorApplyEdits,
		"editor.save":            editorSave,
		"editor.saveAll":         editorSaveAll,
		"editor.formatDocument":  editorFormatDocument,
		"editor.getCompletions":  editorGetCompletions,
	}
}

// open returns the document at abs, opening it from disk (a gated read)
// when it is not open yet. activate makes it the active document.
func (c *call) open(ctx context.Context, abs string, activate bool, column int) (editor.Snapshot, error) {
	ed := c.ws.ops.Editor()
	if s, err := ed.Get(abs); err == nil {
		if activate {
			return ed.Open(abs, s.LanguageID, s.Text, column), nil
		}
		return s, nil
	}
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}, false, denyFile); err != nil {
		return editor.Snapshot{}, err
	}
	b, err := c.p.FS().ReadFile(abs)
	if err != nil {
		return editor.Snapshot{}, fail(err, abs)
	}
	if activate {
		return ed.Open(abs, lsp.LanguageID(abs), string(b), column), nil
	}
	return ed.Load(abs, lsp.LanguageID(abs), string(b)), nil
}

func uri(abs string) string { return string(lsp.URIFromPath(abs)) }

func editorOpenFile(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path       string `json:"path"`
		Preview    *bool  `json:"preview"`
		ViewColumn int    `json:"viewColumn"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.ViewColumn < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: viewColumn %d (columns are numbered from 1)", p.ViewColumn)
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := c.open(ctx, abs, true, p.ViewColumn); err != nil {
		return nil, err
	}
	return map[string]string{"documentUri": uri(abs)}, nil
}

func editorCloseFile(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	return success{Success: c.ws.ops.Editor().Close(abs)}, nil
}

func editorGetContent(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	s, err := c.peek(ctx, abs)
	if err != nil {
		return nil, err
	}
	return map[string]string{"content": s.Text, "languageId": s.LanguageID}, nil
}

// peek is a gated read of the document at abs that changes no editor
// state: the buffer (with unsaved edits) when it is open, else the file
// on disk as it would open (version 1, not dirty), opening and activating
// nothing.
func (c *call) peek(ctx context.Context, abs string) (editor.Snapshot, error) {
	if err := c.gate(ctx, "read", map[string]any{"filePath": abs}, false, denyFile); err != nil {
		return editor.Snapshot{}, err
	}
	if s, err := c.ws.ops.Editor().Get(abs); err == nil {
		return s, nil
	}
	b, err := c.p.FS().ReadFile(abs)
	if err != nil {
		return editor.Snapshot{}, fail(err, abs)
	}
	text := string(b)
	return editor.Snapshot{Path: abs, LanguageID: lsp.LanguageID(abs), Text: text, Version: 1, LineCount: strings.Count(text, "\n") + 1}, nil
}

// edit gates an in-memory edit of abs (an "edit" of the file for the
// policy: it becomes a write on save) and opens it if needed.
func (c *call) edit(ctx context.Context, abs string) error {
	if err := c.gate(ctx, "edit", map[string]any{"filePath": abs}, false, denyFile); err != nil {
		return err
	}
	_, err := c.open(ctx, abs, false, 0)
	return err
}

func editorSetContent(ctx context.Context, c *call) (any, error) {
	abs, content, err := c.writeParams()
	if err != nil {
		return nil, err
	}
	if err := c.edit(ctx, abs); err != nil {
		return nil, err
	}
	if _, err := c.ws.ops.Editor().SetContent(abs, content); err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

type rangeParams struct {
	Path     string           `json:"path"`
	Position *editor.Position `json:"position"`
	Range    *editor.Range    `json:"range"`
	Text     *string          `json:"text"`
}

func (c *call) applyOne(ctx context.Context, needPos, needRange, needText bool) (any, error) {
	var p rangeParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	switch {
	case needPos && p.Position == nil:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: position is required")
	case needRange && p.Range == nil:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: range is required")
	case needText && p.Text == nil:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: text is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if err := c.edit(ctx, abs); err != nil {
		return nil, err
	}
	var e editor.Edit
	if p.Position != nil {
		e.Range = editor.Range{Start: *p.Position, End: *p.Position}
	} else {
		e.Range = *p.Range
	}
	if p.Text != nil {
		e.Text = *p.Text
	}
	if _, err := c.ws.ops.Editor().Apply(abs, []editor.Edit{e}); err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func editorInsertText(ctx context.Context, c *call) (any, error) {
	return c.applyOne(ctx, true, false, true)
}
func editorReplaceRange(ctx context.Context, c *call) (any, error) {
	return c.applyOne(ctx, false, true, true)
}
func editorDeleteRange(ctx context.Context, c *call) (any, error) {
	return c.applyOne(ctx, false, true, false)
}

func editorApplyEdits(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path  string        `json:"path"`
		Edits []editor.Edit `json:"edits"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Edits == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: edits is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if err := c.edit(ctx, abs); err != nil {
		return nil, err
	}
	if _, err := c.ws.ops.Editor().Apply(abs, p.Edits); err != nil {
		return nil, fail(err, abs)
	}
	return map[string]int{"applied": len(p.Edits)}, nil
}

func editorSetSelection(ctx context.Context, c *call) (any, error) {
	var p rangeParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Range == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: range is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := c.open(ctx, abs, true, 0); err != nil {
		return nil, err
	}
	if err := c.ws.ops.Editor().SetSelection(abs, *p.Range); err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func editorRevealLine(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path string `json:"path"`
		Line *int   `json:"line"`
		At   string `json:"at"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Line == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: line is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	if _, err := c.open(ctx, abs, true, 0); err != nil {
		return nil, err
	}
	if err := c.ws.ops.Editor().Reveal(abs, *p.Line, p.At, 40); err != nil {
		return nil, fail(err, abs)
	}
	return ok, nil
}

func editorGetSelection(ctx context.Context, c *call) (any, error) {
	r, txt, err := c.ws.ops.Editor().Selection()
	if err != nil {
		return nil, fail(err, "")
	}
	return map[string]any{"range": r, "text": txt}, nil
}

func editorGetActiveFile(ctx context.Context, c *call) (any, error) {
	s, err := c.ws.ops.Editor().Active()
	if err != nil {
		return nil, fail(err, "")
	}
	return map[string]string{"path": s.Path, "languageId": s.LanguageID}, nil
}

func editorGetOpenFiles(ctx context.Context, c *call) (any, error) {
	files := []string{}
	for _, s := range c.ws.ops.Editor().List() {
		if s.Shown { // a document loaded for a language feature has no tab
			files = append(files, s.Path)
		}
	}
	return map[string]any{"files": files}, nil
}

func editorGetDocumentInfo(ctx context.Context, c *call) (any, error) {
	_, abs, err := c.path()
	if err != nil {
		return nil, err
	}
	s, err := c.peek(ctx, abs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"uri": uri(abs), "languageId": s.LanguageID, "version": s.Version, "lineCount": s.LineCount, "isDirty": s.IsDirty}, nil
}

// target returns the path param, or the active document's path when it is
// omitted (save, formatDocument).
func (c *call) target() (string, error) {
	var p pathParams
	if err := c.params(&p); err != nil {
		return "", err
	}
	if p.Path == "" {
		s, err := c.ws.ops.Editor().Active()
		if err != nil {
			return "", fail(err, "")
		}
		return s.Path, nil
	}
	return c.abs(p.Path)
}

// save writes an open document through the sandbox (a gated write).
func (c *call) save(ctx context.Context, abs string) error {
	s, err := c.ws.ops.Editor().Get(abs)
	if err != nil {
		return fail(err, abs)
	}
	if err := c.gate(ctx, "write", map[string]any{"filePath": abs, "content": s.Text}, false, denyFile); err != nil {
		return err
	}
	err = c.p.FS().WriteFile(abs, []byte(s.Text))
	c.recordResult(ctx, "write", err)
	if err != nil {
		return fail(err, abs)
	}
	if _, err := c.ws.ops.Editor().MarkSaved(abs, s.Text); err != nil {
		return fail(err, abs)
	}
	return nil
}

func editorSave(ctx context.Context, c *call) (any, error) {
	abs, err := c.target()
	if err != nil {
		return nil, err
	}
	if err := c.save(ctx, abs); err != nil {
		return nil, err
	}
	return ok, nil
}

func editorSaveAll(ctx context.Context, c *call) (any, error) {
	for _, s := range c.ws.ops.Editor().List() {
		if !s.IsDirty {
			continue
		}
		if err := c.save(ctx, s.Path); err != nil {
			return nil, err
		}
	}
	return ok, nil
}

func editorFormatDocument(ctx context.Context, c *call) (any, error) {
	abs, err := c.target()
	if err != nil {
		return nil, err
	}
	if err := c.edit(ctx, abs); err != nil {
		return nil, err
	}
	s, err := c.ws.ops.Editor().Get(abs)
	if err != nil {
		return nil, fail(err, abs)
	}
	edits, err := c.ws.format(ctx, s)
	if err != nil {
		return nil, fail(err, abs)
	}
	if len(edits) > 0 {
		if _, err := c.ws.ops.Editor().Apply(abs, edits); err != nil {
			return nil, fail(fmt.Errorf("apply the formatter's edits: %w", err), abs)
		}
	}
	return ok, nil
}

func editorGetCompletions(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path             string           `json:"path"`
		Position         *editor.Position `json:"position"`
		TriggerCharacter string           `json:"triggerCharacter"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Position == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: position is required")
	}
	abs, err := c.abs(p.Path)
	if err != nil {
		return nil, err
	}
	s, err := c.open(ctx, abs, false, 0)
	if err != nil {
		return nil, err
	}
	if err := editor.CheckPosition(s.Text, *p.Position); err != nil {
		return nil, fail(err, abs)
	}
	return c.ws.completions(ctx, s, *p.Position, p.TriggerCharacter)
}
