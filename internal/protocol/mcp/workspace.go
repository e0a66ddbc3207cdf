package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/wsfs"
)

// errOutside reports a path outside the workspace.
var errOutside = errors.New("path is outside the workspace")

// resolvePath turns a tool's path argument (relative to root, absolute, or a
// file:// URI) into an absolute, cleaned path inside root. It is lexical: the
// sandbox of wsfs refuses what crosses a symlink out of the workspace.
func resolvePath(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("path is required")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: %w %s", p, errOutside, root)
	}
	return p, nil
}

// relPath is abs relative to root (abs when it is not below root).
func relPath(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return r
}

// workspace holds the services of one workspace root, shared by every MCP
// session working in it.
type workspace struct {
	root string
	fs   *wsfs.FS
	git  *gitcli.Repo
	lsp  *lsp.Manager

	mu   sync.Mutex
	docs map[protocol.DocumentURI]*doc // documents opened on the language servers
}

// doc is the version and text last sent to the language servers.
type doc struct {
	version int32
	text    string
}

// workspace returns (creating on first use) the services of root.
func (s *Server) workspace(root string) (*workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("warden is shutting down")
	}
	if w, ok := s.workspaces[root]; ok {
		return w, nil
	}
	f, err := wsfs.Open(root)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", root, err)
	}
	log := s.log.With("workspace", root)
	w := &workspace{
		root: root,
		fs:   f,
		git:  &gitcli.Repo{Dir: root, Logger: log},
		lsp: lsp.NewManager(lsp.Options{
			Logger: log,
			Locate: s.opts.Locate,
			// one server per language for the whole workspace
			Root: func(string, string) string { return root },
		}),
		docs: map[protocol.DocumentURI]*doc{},
	}
	s.workspaces[root] = w
	return w, nil
}

// forget closes and drops the services of root (after workspace.delete).
func (s *Server) forget(root string) {
	s.mu.Lock()
	w := s.workspaces[root]
	delete(s.workspaces, root)
	delete(s.active, root)
	s.mu.Unlock()
	if w != nil {
		if err := w.close(); err != nil {
			s.log.Warn("close deleted workspace", "workspace", root, "err", err)
		}
	}
}

func (w *workspace) close() error {
	var errs []error
	if err := w.lsp.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: language servers: %w", w.root, err))
	}
	if err := w.fs.Close(); err != nil {
		errs = append(errs, fmt.Errorf("workspace %s: file system: %w", w.root, err))
	}
	return errors.Join(errs...)
}

// sync opens abs on its language server with its current content on disk
// (text), or sends the new content when it changed since the last call.
func (w *workspace) sync(abs, text string) (protocol.DocumentURI, error) {
	u := lsp.URIFromPath(abs)
	w.mu.Lock()
	defer w.mu.Unlock()
	d, ok := w.docs[u]
	switch {
	case !ok:
		if err := w.lsp.DidOpen(u, lsp.LanguageID(abs), 1, text); err != nil {
			return u, fmt.Errorf("open %s on its language server: %w", abs, err)
		}
		w.docs[u] = &doc{version: 1, text: text}
	case d.text != text:
		if err := w.lsp.DidChange(u, d.version+1, text); err != nil {
			return u, fmt.Errorf("update %s on its language server: %w", abs, err)
		}
		d.version++
		d.text = text
	}
	return u, nil
}

// waitDiagnostics waits for the diagnostics of u after its last change.
func (w *workspace) waitDiagnostics(ctx context.Context, u protocol.DocumentURI) ([]protocol.Diagnostic, error) {
	ds, err := w.lsp.WaitDiagnostics(ctx, u, nil)
	if err != nil {
		if errors.Is(err, lsp.ErrNoServer) {
			return nil, err
		}
		// the server published nothing new in time: what it said last
		return w.lsp.Diagnostics(u), nil
	}
	return ds, nil
}
