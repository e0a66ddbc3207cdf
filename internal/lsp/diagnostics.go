package lsp

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"go.lsp.dev/protocol"
)

// diagCache holds the latest publishDiagnostics per URI. seq orders
// document changes and publications so a waiter can ask for diagnostics
// newer than the document's last change.
type diagCache struct {
	mu      sync.Mutex
	seq     uint64
	entries map[protocol.DocumentURI]*diagEntry
	changed chan struct{} // closed and replaced on every update
}

type diagEntry struct {
	diags     []protocol.Diagnostic
	published uint64 // seq of the last publication (0: none)
	changed   uint64 // seq of the last didOpen/didChange
}

func (d *diagCache) init() {
	d.entries = make(map[protocol.DocumentURI]*diagEntry)
	d.changed = make(chan struct{})
}

func (d *diagCache) entry(u protocol.DocumentURI) *diagEntry {
	e, ok := d.entries[u]
	if !ok {
		e = &diagEntry{}
		d.entries[u] = e
	}
	return e
}

func (d *diagCache) publish(u protocol.DocumentURI, diags []protocol.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	e := d.entry(u)
	e.diags = diags
	e.published = d.seq
	close(d.changed)
	d.changed = make(chan struct{})
}

// touch records that u's content changed, so older diagnostics are stale.
func (d *diagCache) touch(u protocol.DocumentURI) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.seq++
	d.entry(u).changed = d.seq
}

// Diagnostics returns the latest diagnostics published for uri (nil when
// none have been). The slice is a copy.
func (m *Manager) Diagnostics(u protocol.DocumentURI) []protocol.Diagnostic {
	u = normURI(u)
	m.diags.mu.Lock()
	defer m.diags.mu.Unlock()
	if e, ok := m.diags.entries[u]; ok {
		return append([]protocol.Diagnostic(nil), e.diags...)
	}
	return nil
}

// AllDiagnostics returns the latest non-empty diagnostics of every URI.
func (m *Manager) AllDiagnostics() map[protocol.DocumentURI][]protocol.Diagnostic {
	m.diags.mu.Lock()
	defer m.diags.mu.Unlock()
	out := make(map[protocol.DocumentURI][]protocol.Diagnostic)
	for u, e := range m.diags.entries {
		if len(e.diags) > 0 {
			out[u] = append([]protocol.Diagnostic(nil), e.diags...)
		}
	}
	return out
}

// FileDiagnostic is one diagnostic with its document, for flat listings.
type FileDiagnostic struct {
	// URI is the document the diagnostic belongs to.
	URI protocol.DocumentURI `json:"uri"`
	protocol.Diagnostic
}

// DiagnosticList flattens AllDiagnostics, sorted by URI then position.
func (m *Manager) DiagnosticList() []FileDiagnostic {
	var out []FileDiagnostic
	for u, ds := range m.AllDiagnostics() {
		for _, d := range ds {
			out = append(out, FileDiagnostic{URI: u, Diagnostic: d})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.URI != b.URI {
			return a.URI < b.URI
		}
		if a.Range.Start.Line != b.Range.Start.Line {
			return a.Range.Start.Line < b.Range.Start.Line
		}
		return a.Range.Start.Character < b.Range.Start.Character
	})
	return out
}

// WaitDiagnostics waits until diagnostics for uri have been published after
// the document's last DidOpen/DidChange (any publication, for documents not
// opened through the Manager) and satisfy until (nil accepts any), then
// returns them. Servers may publish several times per change (gopls first
// reports parse errors, then type errors), so pass an until that looks for
// what you expect. It fails with ctx's error when ctx ends first.
func (m *Manager) WaitDiagnostics(ctx context.Context, u protocol.DocumentURI, until func([]protocol.Diagnostic) bool) ([]protocol.Diagnostic, error) {
	u = normURI(u)
	if err := m.Serves(u); err != nil {
		return nil, err // nothing will ever publish: no need to wait
	}
	for {
		m.diags.mu.Lock()
		e, ok := m.diags.entries[u]
		if ok && e.published > e.changed && (until == nil || until(e.diags)) {
			out := append([]protocol.Diagnostic(nil), e.diags...)
			m.diags.mu.Unlock()
			return out, nil
		}
		ch := m.diags.changed
		m.diags.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("lsp: waiting for diagnostics of %s: %w", u, ctx.Err())
		case <-m.done:
			return nil, ErrClosed
		}
	}
}

// SeverityName is a diagnostic severity as the doors show it: "error",
// "warning", "info" or "hint" (a missing severity counts as an error, as
// LSP clients treat it).
func SeverityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// Serves returns nil when a language server serves u: it is open on one,
// or one is configured for its language and its program is found. It
// fails with ErrNoServer or ErrNotInstalled otherwise, without starting
// anything.
func (m *Manager) Serves(u protocol.DocumentURI) error {
	u = normURI(u)
	m.mu.Lock()
	_, open := m.docs[u]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return ErrClosed
	case open:
		return nil
	}
	path, err := PathFromURI(u)
	if err != nil {
		return err
	}
	lang := LanguageID(path)
	cfg, ok := m.byLang[lang]
	if !ok {
		return fmt.Errorf("%w: %q (%s)", ErrNoServer, lang, path)
	}
	if _, err := m.opts.Locate(cfg.Command); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrNotInstalled, cfg.Command, err)
	}
	return nil
}
