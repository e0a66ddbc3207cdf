package control

import (
	"errors"

	"github.com/warden-dev/warden/internal/debug"
	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/terminal"
	"github.com/warden-dev/warden/internal/wsfs"
)

func isEscape(err error) bool { return errors.Is(err, wsfs.ErrEscape) }

// classifyService maps the errors of the workspace services.
func classifyService(err error) (int, string, bool) {
	switch {
	case errors.Is(err, wsfs.ErrIsRoot), errors.Is(err, wsfs.ErrNotEmpty), errors.Is(err, wsfs.ErrIsDir), errors.Is(err, wsfs.ErrNotDir):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, lsp.ErrNoServer), errors.Is(err, lsp.ErrNotInstalled):
		return CodeFeatureDisabled, "no language server", true
	case errors.Is(err, terminal.ErrNotFound), errors.Is(err, terminal.ErrClosed):
		return CodeTerminalNotFound, "terminal not found", true
	case errors.Is(err, wsfs.ErrBadPattern):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, gitcli.ErrNoMatch):
		return CodeFileNotFound, "file not found", true
	case errors.Is(err, gitcli.ErrNoBranch):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, gitcli.ErrNothingStaged):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, gitcli.ErrBadRef), errors.Is(err, gitcli.ErrBadPath), errors.Is(err, gitcli.ErrNoPaths),
		errors.Is(err, search.ErrBadGlob), errors.Is(err, search.ErrBadQuery), errors.Is(err, search.ErrEmptyQuery),
		errors.Is(err, debug.ErrNoSession), errors.Is(err, debug.ErrUnsupportedType), errors.Is(err, debug.ErrInvalidArgument),
		errors.Is(err, debug.ErrSessionEnded):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, gitcli.ErrNotRepo):
		return jsonrpc.CodeInternalError, "not a git repository", true
	case errors.Is(err, wsfs.ErrNoWatcher), errors.Is(err, ops.ErrEnvRefused), errors.Is(err, ops.ErrTypedText),
		errors.Is(err, ops.ErrEditEmpty), errors.Is(err, ops.ErrEditSame), errors.Is(err, ops.ErrEditNotFound), errors.Is(err, ops.ErrEditAmbiguous):
		return jsonrpc.CodeInvalidParams, "invalid params", true
	case errors.Is(err, ops.ErrCannotConfine):
		return CodeFeatureDisabled, "feature disabled", true
	case errors.Is(err, ops.ErrOutside):
		return CodePathRestricted, "path restricted", true
	}
	return 0, "", false
}

// serviceHint is hint for the errors of the workspace services.
func serviceHint(err error) string {
	switch {
	case errors.Is(err, wsfs.ErrBadPattern):
		return "check its brackets and braces; patterns are globs such as **/*.go or src/{a,b}/*.ts"
	case errors.Is(err, gitcli.ErrNoMatch):
		return "paths are relative to the workspace root; git.status lists the changed files"
	case errors.Is(err, gitcli.ErrNoBranch):
		return "git.branches lists the branches; pass create: true to make a new one"
	case errors.Is(err, gitcli.ErrNothingStaged):
		return "stage changes with git.stage first"
	}
	return ""
}
