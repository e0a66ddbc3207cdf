package ops

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/lsp"
)

// MaxReadBytes is the largest file sent to a language server for a read.
const MaxReadBytes = 10 << 20

// ErrNotText reports a file that is not UTF-8 text.
var ErrNotText = errors.New("not a UTF-8 text file")

// ErrTooLarge reports a file over MaxReadBytes.
var ErrTooLarge = errors.New("file too large")

// ReadText reads the text file abs (at most MaxReadBytes of UTF-8),
// judged as a "read" of it.
func (w *Workspace) ReadText(ctx context.Context, c Caller, abs string) (string, error) {
	p, err := w.Gate(ctx, c, "", "read", map[string]any{"filePath": abs}, false)
	if err != nil {
		return "", err
	}
	return readText(p, abs)
}

func readText(p Permit, abs string) (string, error) {
	info, err := p.FS().Stat(abs)
	if err != nil {
		return "", err
	}
	if info.IsDir {
		return "", fmt.Errorf("%s: is a directory", abs)
	}
	if info.Size > MaxReadBytes {
		return "", fmt.Errorf("%s: %w: %d bytes is more than %d", abs, ErrTooLarge, info.Size, MaxReadBytes)
	}
	b, err := p.FS().ReadFile(abs)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s: %w (%d bytes)", abs, ErrNotText, len(b))
	}
	return string(b), nil
}

// Document judges a "read" of the file abs and brings its language server
// up to date with it: the editor's text when the file is open in the
// headless editor (unsaved edits included), else its content on disk. It
// returns the document's URI for language-server requests.
func (w *Workspace) Document(ctx context.Context, c Caller, abs string) (protocol.DocumentURI, error) {
	p, err := w.Gate(ctx, c, "", "read", map[string]any{"filePath": abs}, false)
	if err != nil {
		return "", err
	}
	u := lsp.URIFromPath(abs)
	if w.editor.IsOpen(abs) {
		return u, nil // the editor keeps the server in step (lspSync)
	}
	text, err := readText(p, abs)
	if err != nil {
		return u, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	d, ok := w.shadow[u]
	switch {
	case !ok:
		if err := w.lsp.DidOpen(u, lsp.LanguageID(abs), 1, text); err != nil {
			return u, fmt.Errorf("open %s on its language server: %w", abs, err)
		}
		w.shadow[u] = &shadowDoc{version: 1, text: text}
	case d.text != text:
		if err := w.lsp.DidChange(u, d.version+1, text); err != nil {
			return u, fmt.Errorf("update %s on its language server: %w", abs, err)
		}
		d.version++
		d.text = text
	}
	return u, nil
}

// WaitDiagnostics waits (within ctx) for the diagnostics of u after its
// last change; when the server publishes nothing new in time, it returns
// what the server said last.
func (w *Workspace) WaitDiagnostics(ctx context.Context, u protocol.DocumentURI) ([]protocol.Diagnostic, error) {
	ds, err := w.lsp.WaitDiagnostics(ctx, u, nil)
	if err != nil {
		if errors.Is(err, lsp.ErrNoServer) || errors.Is(err, lsp.ErrNotInstalled) {
			return nil, err
		}
		return w.lsp.Diagnostics(u), nil
	}
	return ds, nil
}
