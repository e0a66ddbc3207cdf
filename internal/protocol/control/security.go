package control

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/policy/shell"
)

// resource is what a method reaches, as control.security's switches see
// it: the switches hold for every method that reaches the same resource,
// not only for the category that bears its name.
type resource int

const (
	resNone     resource = iota
	resFiles             // the workspace's files: read, written, searched, analysed
	resTerminal          // a shell, or a program started for the client
	resCommand           // the command registry
)

// resourceOf is the resource method reaches.
func resourceOf(method string) resource {
	cat, _, _ := strings.Cut(method, ".")
	switch {
	case method == "command.execute":
		return resCommand
	case cat == "terminal", method == "debug.startSession", method == "warden.killActiveTerminal":
		return resTerminal
	case cat == "fs", cat == "editor", cat == "search", cat == "git", method == "warden.revert",
		method == "state.getDiagnostics", method == "state.getSymbols", method == "state.findReferences",
		method == "state.goToDefinition", method == "state.getHover", method == "state.getCodeActions",
		method == "warden.definitionAtSelection", method == "warden.referencesAtSelection":
		return resFiles
	}
	return resNone
}

// allowed applies control.security to method: allowedMethodCategories and
// the resource switches. The door calls it for every client request and
// again for every method a command runs (command.execute, the MCP door's
// workspace.executeCommand), so no route around a switch exists.
func (s *Server) allowed(method string) error {
	sec := s.opts.Settings.Security
	cat, _, _ := strings.Cut(method, ".")
	if cat != "warden" && len(sec.AllowedMethodCategories) > 0 && !contains(sec.AllowedMethodCategories, cat) {
		return jsonrpc.Errorf(CodeFeatureDisabled, "feature disabled: the %s category is not in control.security.allowedMethodCategories", cat).With("category", cat)
	}
	switch resourceOf(method) {
	case resFiles:
		if !config.Enabled(sec.AllowFileSystemAccess) {
			return jsonrpc.Errorf(CodeFeatureDisabled, "feature disabled: %s reaches the workspace's files and file system access is off (control.security.allowFileSystemAccess)", method).With("method", method)
		}
	case resTerminal:
		if !config.Enabled(sec.AllowTerminalAccess) {
			return jsonrpc.Errorf(CodeFeatureDisabled, "feature disabled: %s starts or drives a program and terminal access is off (control.security.allowTerminalAccess)", method).With("method", method)
		}
	case resCommand:
		if !config.Enabled(sec.AllowCommandExecution) {
			return jsonrpc.Errorf(CodeFeatureDisabled, "feature disabled: command execution is off (control.security.allowCommandExecution)")
		}
	}
	return nil
}

// terminalAllowed is allowed for a method that opens a terminal.
func (c *call) terminalAllowed() error { return c.ws.srv.allowed("terminal.create") }

// restricted reports the control.security.restrictedPaths glob that abs
// (an absolute path) matches, if any.
func (w *workspace) restricted(abs string) (string, bool) {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		rel = abs
	}
	for _, g := range w.srv.opts.Settings.Security.RestrictedPaths {
		if ok, _ := doublestar.Match(g, filepath.ToSlash(rel)); ok {
			return g, true
		}
		if ok, _ := doublestar.Match(g, abs); ok {
			return g, true
		}
	}
	return "", false
}

// reachesRestricted reports the restricted glob a recursive operation over
// the directory abs would reach (a glob whose fixed start lies below abs).
func (w *workspace) reachesRestricted(abs string) (string, bool) {
	if g, ok := w.restricted(abs); ok {
		return g, true
	}
	for _, g := range w.srv.opts.Settings.Security.RestrictedPaths {
		base, _ := doublestar.SplitPattern(g)
		if base == "" || base == "." {
			return g, true // "**/.env" is reached from anywhere
		}
		if !filepath.IsAbs(base) {
			base = filepath.Join(w.root, filepath.FromSlash(base))
		}
		if base == abs || strings.HasPrefix(base, strings.TrimSuffix(abs, "/")+"/") {
			return g, true
		}
	}
	return "", false
}

// hide is the filter of listings and searches: restricted paths are not
// shown at all.
func (w *workspace) hide(abs string) bool {
	_, r := w.restricted(abs)
	return r
}

// checkCommand applies control.security to a command line about to run in
// a terminal (or a command id for command.execute): allowedCommands and
// restrictedCommands to every program it runs (globs on the program name
// or the whole line), and restrictedPaths to every file it reaches (a
// recursive operation over a directory reaches what is under it).
func (c *call) checkCommand(line, cwd string) error {
	sec := c.ws.srv.opts.Settings.Security
	if len(sec.AllowedCommands) == 0 && len(sec.RestrictedCommands) == 0 && len(sec.RestrictedPaths) == 0 {
		return nil
	}
	names := []string{}
	a, err := shell.Analyze(line, shell.Options{Cwd: cwd})
	if err == nil {
		for _, cm := range a.Commands {
			if cm.Name != "" {
				names = append(names, cm.Name)
			} else if cm.Dynamic {
				names = append(names, "$dynamic")
			}
		}
	} else {
		names = append(names, strings.Fields(line + " x")[0])
	}
	match := func(globs []string, name string) bool {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, name); ok {
				return true
			}
			if ok, _ := filepath.Match(g, strings.TrimSpace(line)); ok {
				return true
			}
		}
		return false
	}
	for _, n := range names {
		if len(sec.AllowedCommands) > 0 {
			if !match(sec.AllowedCommands, n) {
				return jsonrpc.Errorf(CodeCommandRestricted, "command restricted: %s is not in control.security.allowedCommands", n).With("command", line)
			}
			continue
		}
		if match(sec.RestrictedCommands, n) {
			return jsonrpc.Errorf(CodeCommandRestricted, "command restricted: %s is in control.security.restrictedCommands", n).With("command", line)
		}
	}
	if len(sec.RestrictedPaths) == 0 || a == nil {
		return nil
	}
	for _, cm := range a.Commands {
		for _, ef := range cm.Effects {
			if ef.Target == "" || !filepath.IsAbs(ef.Target) {
				continue
			}
			g, hit := c.ws.restricted(ef.Target)
			if !hit && ef.Recursive {
				g, hit = c.ws.reachesRestricted(ef.Target)
			}
			if hit {
				return jsonrpc.Errorf(CodeFileAccessDenied, "file access denied: %s reaches %s, which matches control.security.restrictedPaths %q", cm.Name, ef.Target, g).With("path", ef.Target).With("command", line)
			}
		}
	}
	return nil
}
