package control

import (
	"errors"
	"fmt"

	"github.com/warden-dev/warden/internal/debug"
	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/terminal"
	"github.com/warden-dev/warden/internal/wsfs"
)

// services are the mechanisms behind the methods of one workspace.
type services struct {
	fs     *wsfs.FS
	editor *editor.Editor
	lsp    *lsp.Manager
	terms  *terminal.Manager
	git    *gitcli.Repo
	debug  *debug.Manager
}

func newServices(w *workspace) (*services, error) {
	f, err := wsfs.Open(w.root)
	if err != nil {
		return nil, fmt.Errorf("open workspace file system: %w", err)
	}
	s := &services{fs: f, editor: editor.New()}
	root := w.root
	s.lsp = lsp.NewManager(lsp.Options{
		Logger: w.srv.log.With("workspace", root),
		Locate: w.srv.opts.Locate,
		// one server per language for the whole workspace
		Root: func(string, string) string { return root },
	})
	s.editor.Listen(lspSync{m: s.lsp, log: w.srv.log})
	s.terms = newTerminals(w)
	s.git = &gitcli.Repo{Dir: root, Logger: w.srv.log}
	s.debug = newDebugger(w)
	return s, nil
}

func (s *services) close() {
	_ = s.debug.Close()
	_ = s.terms.Close()
	_ = s.lsp.Close()
	_ = s.fs.Close()
}

func isEscape(err error) bool { return errors.Is(err, wsfs.ErrEscape) }

// classifyService maps the errors of the workspace services.
func classifyService(err error) (int, string, bool) {
	switch {
	case errors.Is(err, wsfs.ErrIsRoot), errors.Is(err, wsfs.ErrNotEmpty), errors.Is(err, wsfs.ErrIsDir), errors.Is(err, wsfs.ErrNotDir):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, lsp.ErrNoServer), errors.Is(err, lsp.ErrNotInstalled):
		return jsonrpc.CodeFeatureDisabled, "no language server", true
	case errors.Is(err, terminal.ErrNotFound), errors.Is(err, terminal.ErrClosed):
		return jsonrpc.CodeTerminalNotFound, "terminal not found", true
	case errors.Is(err, gitcli.ErrBadRef), errors.Is(err, gitcli.ErrBadPath), errors.Is(err, gitcli.ErrNoPaths),
		errors.Is(err, search.ErrBadGlob), errors.Is(err, search.ErrBadQuery), errors.Is(err, search.ErrEmptyQuery),
		errors.Is(err, debug.ErrNoSession), errors.Is(err, debug.ErrUnsupportedType), errors.Is(err, debug.ErrInvalidArgument),
		errors.Is(err, debug.ErrSessionEnded):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, gitcli.ErrNotRepo):
		return jsonrpc.CodeInternalError, "not a git repository", true
	case errors.Is(err, wsfs.ErrNoWatcher):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	}
	return 0, "", false
}
