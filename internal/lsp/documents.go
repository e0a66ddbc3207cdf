package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"
)

// DidOpen opens a document on the server for its language, starting the
// server in the background if it is not running (DidOpen does not wait for
// it). The Manager keeps the text so a restarted server gets the document
// again. It fails with ErrNoServer when no server handles languageID
// ("" means LanguageID(uri)) and ErrNotInstalled when the server's program
// is missing. Opening an already open document replaces it.
func (m *Manager) DidOpen(u protocol.DocumentURI, languageID string, version int32, text string) error {
	u = normURI(u)
	path, err := PathFromURI(u)
	if err != nil {
		return err
	}
	if languageID == "" {
		languageID = LanguageID(path)
	}
	c, err := m.clientFor(path, languageID)
	if err != nil {
		return err
	}
	m.mu.Lock()
	if prev, ok := m.docs[u]; ok && prev != c {
		m.mu.Unlock()
		if err := m.DidClose(u); err != nil {
			return err
		}
		m.mu.Lock()
	}
	m.docs[u] = c
	m.mu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	d := &document{uri: u, languageID: languageID, version: version, text: text}
	if _, reopen := c.docs[u]; reopen {
		_ = c.notifyLocked("textDocument/didClose", &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	c.docs[u] = d
	m.diags.touch(u)
	if err := c.notifyLocked("textDocument/didOpen", didOpenParams(d)); err != nil {
		return fmt.Errorf("lsp: didOpen %s: %w", u, err)
	}
	return nil
}

// openDoc returns the client and document record of an open document.
func (m *Manager) openDoc(u protocol.DocumentURI) (*client, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	c, ok := m.docs[u]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNotOpen, u)
	}
	return c, nil
}

// didChangeFullParams is protocol.DidChangeTextDocumentParams for full
// sync. protocol v0.12.0's TextDocumentContentChangeEvent always encodes a
// range (its Range is not a pointer), which servers read as an insertion at
// 0:0, so a whole-document change needs its own type.
type didChangeFullParams struct {
	TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []fullChange                             `json:"contentChanges"`
}

// fullChange is a TextDocumentContentChangeEvent without a range: the new
// text of the whole document.
type fullChange struct {
	Text string `json:"text"`
}

// DidChange replaces the whole text of an open document (full sync) at a
// new version.
func (m *Manager) DidChange(u protocol.DocumentURI, version int32, text string) error {
	u = normURI(u)
	c, err := m.openDoc(u)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[u]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotOpen, u)
	}
	d.version, d.text = version, text
	m.diags.touch(u)
	err = c.notifyLocked("textDocument/didChange", &didChangeFullParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: version},
		ContentChanges: []fullChange{{Text: text}},
	})
	if err != nil {
		return fmt.Errorf("lsp: didChange %s: %w", u, err)
	}
	return nil
}

// DidSave tells the server an open document was saved with text (the text
// also becomes the Manager's copy; pass "" to keep the current one).
func (m *Manager) DidSave(u protocol.DocumentURI, text string) error {
	u = normURI(u)
	c, err := m.openDoc(u)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.docs[u]
	if !ok {
		return fmt.Errorf("%w: %s", ErrNotOpen, u)
	}
	if text != "" {
		d.text = text
	}
	err = c.notifyLocked("textDocument/didSave", &protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u}, Text: text,
	})
	if err != nil {
		return fmt.Errorf("lsp: didSave %s: %w", u, err)
	}
	return nil
}

// DidClose closes an open document; the server then reads it from disk.
func (m *Manager) DidClose(u protocol.DocumentURI) error {
	u = normURI(u)
	c, err := m.openDoc(u)
	if err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.docs, u)
	m.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.docs, u)
	if c.inst == nil || !c.inst.alive() {
		return nil
	}
	if err := c.notifyLocked("textDocument/didClose", &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}}); err != nil {
		return fmt.Errorf("lsp: didClose %s: %w", u, err)
	}
	return nil
}

// OpenDocument describes a document open through the Manager.
type OpenDocument struct {
	// URI is the document's URI.
	URI protocol.DocumentURI `json:"uri"`
	// LanguageID is the LSP language identifier.
	LanguageID string `json:"languageId"`
	// Version is the last version sent.
	Version int32 `json:"version"`
}

// OpenDocuments lists the open documents in no particular order.
func (m *Manager) OpenDocuments() []OpenDocument {
	m.mu.Lock()
	cs := make(map[*client]bool)
	for _, c := range m.docs {
		cs[c] = true
	}
	m.mu.Unlock()
	var out []OpenDocument
	for c := range cs {
		c.mu.Lock()
		for _, d := range c.docs {
			out = append(out, OpenDocument{URI: d.uri, LanguageID: d.languageID, Version: d.version})
		}
		c.mu.Unlock()
	}
	return out
}
