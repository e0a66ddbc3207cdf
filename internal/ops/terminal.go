package ops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/warden-dev/warden/internal/policy/shell"
	"github.com/warden-dev/warden/internal/terminal"
)

// ErrEnvRefused reports an environment variable a terminal may not be
// given: one that makes the shell or the tools it runs execute a command
// (or load code) that no gate would see.
var ErrEnvRefused = errors.New("environment variable refused")

// ErrTypedText reports text that cannot be typed into a terminal because
// warden could not judge what it would run (escape sequences, completion,
// history navigation).
var ErrTypedText = errors.New("text refused")

// refusedEnv are environment variables that run commands or load code on
// their own: the shell's hooks (PROMPT_COMMAND, PS0-PS4 with command
// substitution, BASH_ENV, ENV, exported functions), the dynamic loader,
// interpreters' start-up hooks, git's and other tools' command hooks, and
// the variables that move where ~, history and config files are.
var refusedEnv = []string{
	"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS",
	"IFS", "CDPATH", "GLOBIGNORE", "GCONV_PATH", "LOCPATH", "NLSPATH", "HOSTALIASES", "RESOLV_HOST_CONF", "MALLOC_CONF", "HISTFILE", "HISTCONTROL", "HOME", "ZDOTDIR", "INPUTRC", "PROMPT_DIRTRIM",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "SHELL", "TERMINFO",
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB", "PERLLIB",
	"RUBYOPT", "RUBYLIB", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS",
	"GOFLAGS", "CGO_CFLAGS", "CGO_LDFLAGS", "CC", "CXX", "GOTOOLCHAIN", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_SCRIPT_SHELL",
}

// refusedEnvPrefix are families of such variables.
var refusedEnvPrefix = []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_", "NPM_CONFIG_", "npm_config_"}

// CheckEnv judges the environment a client asks a terminal (or a command)
// to get. Variables that would run code on their own are refused, as is a
// PATH that differs from the daemon's by a directory the agent can write
// (the workspace, a temp dir) or a relative one. The error names the first
// refused variable and says why.
func (w *Workspace) CheckEnv(env map[string]string) error {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := env[k]
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(v, 0) {
			return fmt.Errorf("%w: %q is not a valid environment variable", ErrEnvRefused, k)
		}
		if k == "PATH" {
			if err := w.checkPath(v); err != nil {
				return err
			}
			continue
		}
		if slices.Contains(refusedEnv, k) {
			return fmt.Errorf("%w: %s runs code (or moves files) no gate would see; type the command into the terminal instead", ErrEnvRefused, k)
		}
		for _, p := range refusedEnvPrefix {
			if strings.HasPrefix(k, p) {
				return fmt.Errorf("%w: %s (%s*) changes what a program loads or runs; type the command into the terminal instead", ErrEnvRefused, k, p)
			}
		}
	}
	return nil
}

// checkPath refuses a PATH with a directory that is relative or that an
// agent could plant a program in, unless the daemon's own PATH has it too:
// one inside the workspace or a temp dir (symlinks resolved), or any
// directory this user may write (caches the sandbox opens, the home's
// bin directories).
func (w *Workspace) checkPath(v string) error {
	own := filepath.SplitList(os.Getenv("PATH"))
	for _, d := range filepath.SplitList(v) {
		if slices.Contains(own, d) {
			continue
		}
		if d == "" || !filepath.IsAbs(d) {
			return fmt.Errorf("%w: PATH holds the relative directory %q, where a program could be planted", ErrEnvRefused, d)
		}
		clean := filepath.Clean(d)
		if r, err := filepath.EvalSymlinks(clean); err == nil {
			clean = r
		}
		for _, wd := range []string{w.root, os.TempDir(), "/tmp", "/var/tmp", "/dev/shm"} {
			if clean == wd || strings.HasPrefix(clean, strings.TrimSuffix(wd, "/")+"/") {
				return fmt.Errorf("%w: PATH holds %s, a directory an agent can write: a program planted there would run in place of the one the policy judged", ErrEnvRefused, d)
			}
		}
		if syscall.Access(clean, 2 /* W_OK */) == nil {
			return fmt.Errorf("%w: PATH holds %s, a directory this user can write: a program planted there would run in place of the one the policy judged", ErrEnvRefused, d)
		}
	}
	return nil
}

// TerminalOptions describe a terminal to open.
type TerminalOptions struct {
	// Name is the client's label.
	Name string
	// Cwd is the absolute directory the shell starts in (inside the
	// workspace; "" means the root).
	Cwd string
	// Env is set in the shell's environment (judged by CheckEnv).
	Env map[string]string
}

// CreateTerminal opens a shell on a real PTY in the workspace, confined by
// the kernel sandbox when the Service has a Launcher. Its environment is
// judged (CheckEnv), warden's own variables for the workspace
// (Options.WorkspaceEnv) are added, and the start is gated as the shell command `cd CWD`
// with the environment in the record; what is typed into it later is gated
// by SendText.
func (w *Workspace) CreateTerminal(ctx context.Context, c Caller, o TerminalOptions) (*terminal.Terminal, error) {
	if o.Cwd == "" {
		o.Cwd = w.root
	}
	if err := w.CheckEnv(o.Env); err != nil {
		return nil, w.Refuse(ctx, c, o.Cwd, "bash", map[string]any{"command": "cd " + shell.Quote(o.Cwd), "env": o.Env}, "warden.terminal-env", err)
	}
	args := map[string]any{"command": "cd " + shell.Quote(o.Cwd), "description": "open a terminal " + o.Name}
	if len(o.Env) > 0 {
		args["env"] = o.Env
	}
	p, err := w.Gate(ctx, c, o.Cwd, "bash", args, false)
	if err != nil {
		return nil, err
	}
	return p.Terminals().Create(terminal.Options{Name: o.Name, Cwd: o.Cwd, Env: w.terminalVars(o.Env)})
}

// terminalVars is the environment a new terminal gets on top of the base:
// the client's (judged already), then warden's own for the workspace
// (Options.WorkspaceEnv), which win.
func (w *Workspace) terminalVars(client map[string]string) map[string]string {
	fn := w.svc.opts.WorkspaceEnv
	if fn == nil {
		return client
	}
	own := fn(w.root)
	if len(own) == 0 {
		return client
	}
	env := make(map[string]string, len(client)+len(own))
	maps.Copy(env, client)
	maps.Copy(env, own)
	return env
}

// lineBuffer is what was typed into a terminal since its last Enter.
type lineBuffer struct{ text []rune }

// SendText types text into terminal id. Nothing reaches the shell until
// Enter: text without a line end is kept, backspaces edit what is kept,
// and at Enter the whole assembled text (every complete line, joined) is
// judged as one bash command in the shell's current directory, then
// written at once. So a command split over several calls, or edited with
// backspaces, is judged as the shell will see it. Ctrl-C drops what is
// kept (and reaches the shell); other control characters and escape
// sequences (completion, history navigation) are refused. check, when
// set, is the door's own test of a complete command line
// (allowedCommands) in the directory the line runs in; it runs
// before the gate.
func (w *Workspace) SendText(ctx context.Context, c Caller, id, text string, addNewLine bool, check func(line, cwd string) error) error {
	t, err := w.terms.Get(id)
	if err != nil {
		return err
	}
	if addNewLine {
		text += "\r"
	}
	if !utf8.ValidString(text) {
		return w.Refuse(ctx, c, "", "bash", map[string]any{"terminalId": id}, "warden.typed-text", fmt.Errorf("%w: the text is not valid UTF-8", ErrTypedText))
	}
	w.mu.Lock()
	lb := w.lines[id]
	if lb == nil {
		lb = &lineBuffer{}
		w.lines[id] = lb
	}
	pending := slices.Clone(lb.text)
	w.mu.Unlock()

	var interrupt bool
	for _, r := range text {
		switch {
		case r == '\r' || r == '\n':
			pending = append(pending, '\n')
		case r == '\x7f' || r == '\b':
			if n := len(pending); n > 0 && pending[n-1] != '\n' {
				pending = pending[:n-1]
			}
		case r == '\x03':
			pending, interrupt = nil, true
		case r == '\x04' && len(pending) == 0:
			// Ctrl-D on an empty line: end of input, the shell exits
			w.mu.Lock()
			lb.text = nil
			w.mu.Unlock()
			return t.SendText("\x04", false)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			err := fmt.Errorf("%w: control character %U cannot be typed: warden judges the whole line at Enter, and the shell would change it (completion, history, escape sequences)", ErrTypedText, r)
			return w.Refuse(ctx, c, "", "bash", map[string]any{"command": text, "terminalId": id}, "warden.typed-text", err)
		default:
			pending = append(pending, r)
		}
	}
	if interrupt {
		w.mu.Lock()
		lb.text = nil
		w.mu.Unlock()
		if err := t.SendText("\x03", false); err != nil {
			return err
		}
		if len(pending) == 0 {
			return nil
		}
	}
	// complete is every line ended by Enter; the rest is kept
	cut := strings.LastIndexByte(string(pending), '\n')
	if cut < 0 {
		w.mu.Lock()
		lb.text = pending
		w.mu.Unlock()
		return nil
	}
	s := string(pending)
	complete, rest := s[:cut+1], s[cut+1:]
	if incomplete(complete) {
		// an open quote, a loop, a here-document: the shell would wait
		// for more too
		w.mu.Lock()
		lb.text = pending
		w.mu.Unlock()
		return nil
	}
	line := strings.TrimSuffix(complete, "\n")
	dir := t.Dir()
	if check != nil {
		if err := check(line, dir); err != nil {
			w.mu.Lock()
			lb.text = nil
			w.mu.Unlock()
			return w.Refuse(ctx, c, dir, "bash", map[string]any{"command": line, "terminalId": id}, "warden.door-settings", err)
		}
	}
	p, err := w.Gate(ctx, c, dir, "bash", map[string]any{"command": line, "terminalId": id}, true)
	if err != nil {
		// what was typed is dropped, as a shell drops a line on Ctrl-C
		w.mu.Lock()
		lb.text = nil
		w.mu.Unlock()
		return err
	}
	w.mu.Lock()
	lb.text = []rune(rest)
	w.mu.Unlock()
	t, err = p.Terminals().Get(id)
	if err == nil {
		err = t.SendText(strings.ReplaceAll(complete, "\n", "\r"), false)
	}
	w.Record(ctx, c, "bash", err)
	return err
}

// incomplete reports whether text is a shell program the shell would wait
// for more lines of: an open quote, block or here-document, or a last line
// that ends in an unescaped backslash (a line continuation: the shell joins
// the next line to it, so the two are one command).
func incomplete(text string) bool {
	line := strings.TrimSuffix(text, "\n")
	if n := len(line) - len(strings.TrimRight(line, `\`)); n%2 == 1 {
		return true
	}
	_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	return err != nil && syntax.IsIncomplete(err)
}
