package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/search"
)

// tool is one tool the model may call: its description for the model, and
// how it runs as warden's operations (each of which passes the gate).
type tool struct {
	def provider.Tool
	// readOnly tools of one step may run side by side; the others run one
	// at a time, in the order the model gave them.
	readOnly bool
	run      func(ctx context.Context, t *toolCtx, args map[string]any) (string, error)
}

// toolCtx is what a tool call runs with.
type toolCtx struct {
	e      *Engine
	ws     *ops.Workspace
	caller ops.Caller
	h      *history
	call   provider.ToolCall
	// usage collects a subagent's tokens for the parent's turn
	usage *provider.Usage
}

func schema(props string, required ...string) json.RawMessage {
	req, _ := json.Marshal(required)
	return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `,"additionalProperties":false}`)
}

// errBadArgs is a call whose arguments do not fit the tool.
var errBadArgs = errors.New("invalid arguments")

// preGateError is a call refused before it reached the gate (arguments
// that do not fit the tool, a path outside the workspace): it is recorded
// as a refusal under Rule, like the policy's own denials.
type preGateError struct {
	Rule string
	Err  error
}

func (e *preGateError) Error() string { return e.Err.Error() }
func (e *preGateError) Unwrap() error { return e.Err }

func badArgs(err error) error {
	if err == nil {
		return nil
	}
	rule := "warden.agent-bad-arguments"
	if errors.Is(err, ops.ErrOutside) {
		rule = "warden.outside-workspace"
	}
	return &preGateError{Rule: rule, Err: err}
}

func str(args map[string]any, key string, required bool) (string, error) {
	s, err := rawStr(args, key, required)
	return s, badArgs(err)
}

func rawStr(args map[string]any, key string, required bool) (string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		if required {
			return "", fmt.Errorf("%w: %q is required", errBadArgs, key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%w: %q must be a string", errBadArgs, key)
	}
	if required && s == "" {
		return "", fmt.Errorf("%w: %q is empty", errBadArgs, key)
	}
	return s, nil
}

func boolArg(args map[string]any, key string) bool {
	b, _ := args[key].(bool)
	return b
}

func intArg(args map[string]any, key string) int {
	f, _ := args[key].(float64)
	return int(f)
}

// toolSet returns the tools of a session at depth (task only while a
// subagent may still nest). The two sets are built once (New); callers
// only read them.
func (e *Engine) toolSet(depth int) map[string]tool {
	return e.tools[e.withTask(depth)]
}

// toolDefs returns the definitions of toolSet(depth), in defs' order.
func (e *Engine) toolDefs(depth int) []provider.Tool {
	return e.defs[e.withTask(depth)]
}

// withTask is the index of a session's tool set at depth: 1 (with task)
// while a subagent may still nest.
func (e *Engine) withTask(depth int) int {
	if depth < e.opts.MaxDepth {
		return 1
	}
	return 0
}

// buildTools builds the tool set, with task or without.
func (e *Engine) buildTools(task bool) map[string]tool {
	ts := map[string]tool{
		"read": {readOnly: true, def: provider.Tool{Name: "read", Description: "Read a file of the workspace.",
			Schema: schema(`"path":{"type":"string","description":"file path, relative to the workspace"}`, "path")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				abs, err := t.path(a, "path")
				if err != nil {
					return "", err
				}
				b, err := t.ws.ReadFile(ctx, t.caller, abs)
				if err != nil {
					return "", err
				}
				return clip(string(b), 100000), nil
			}},
		"write": {def: provider.Tool{Name: "write", Description: "Create or replace a file of the workspace with content.",
			Schema: schema(`"path":{"type":"string"},"content":{"type":"string"}`, "path", "content")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				abs, err := t.path(a, "path")
				if err != nil {
					return "", err
				}
				content, err := str(a, "content", false)
				if err != nil {
					return "", err
				}
				if err := t.ws.WriteFile(ctx, t.caller, abs, []byte(content)); err != nil {
					return "", err
				}
				return fmt.Sprintf("wrote %d bytes to %s", len(content), t.ws.Rel(abs)), nil
			}},
		"edit": {def: provider.Tool{Name: "edit", Description: "Replace oldString with newString in a file. oldString must match the file exactly and occur once (or set replaceAll).",
			Schema: schema(`"path":{"type":"string"},"oldString":{"type":"string"},"newString":{"type":"string"},"replaceAll":{"type":"boolean"}`, "path", "oldString", "newString")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				abs, err := t.path(a, "path")
				if err != nil {
					return "", err
				}
				old, err := str(a, "oldString", true)
				if err != nil {
					return "", err
				}
				repl, err := str(a, "newString", false)
				if err != nil {
					return "", err
				}
				n, err := t.ws.EditFile(ctx, t.caller, abs, old, repl, boolArg(a, "replaceAll"))
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("replaced %d occurrence(s) in %s", n, t.ws.Rel(abs)), nil
			}},
		"list": {readOnly: true, def: provider.Tool{Name: "list", Description: "List a directory of the workspace (the root when path is empty).",
			Schema: schema(`"path":{"type":"string"},"recursive":{"type":"boolean"}`)},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				abs, err := t.optPath(a, "path")
				if err != nil {
					return "", err
				}
				entries, trunc, err := t.ws.List(ctx, t.caller, abs, boolArg(a, "recursive"), nil)
				if err != nil {
					return "", err
				}
				var b strings.Builder
				for _, en := range entries {
					suffix := ""
					if en.Type == "directory" {
						suffix = "/"
					}
					b.WriteString(en.Path + suffix + "\n")
				}
				if trunc {
					b.WriteString("[listing truncated]\n")
				}
				return b.String(), nil
			}},
		"glob": {readOnly: true, def: provider.Tool{Name: "glob", Description: "Find files whose workspace-relative path matches a glob (* within a name, ** across directories).",
			Schema: schema(`"pattern":{"type":"string"},"path":{"type":"string"}`, "pattern")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				pat, err := str(a, "pattern", true)
				if err != nil {
					return "", err
				}
				abs, err := t.optPath(a, "path")
				if err != nil {
					return "", err
				}
				entries, trunc, err := t.ws.List(ctx, t.caller, abs, true, nil)
				if err != nil {
					return "", err
				}
				var b strings.Builder
				for _, en := range entries {
					if en.Type != "directory" && globMatch(pat, en.Path) {
						b.WriteString(en.Path + "\n")
					}
				}
				if trunc {
					b.WriteString("[listing truncated]\n")
				}
				if b.Len() == 0 {
					return "no files match " + pat, nil
				}
				return b.String(), nil
			}},
		"grep": {readOnly: true, def: provider.Tool{Name: "grep", Description: "Search the workspace's files for a regular expression.",
			Schema: schema(`"pattern":{"type":"string"},"include":{"type":"string","description":"comma-separated globs"}`, "pattern")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				pat, err := str(a, "pattern", true)
				if err != nil {
					return "", err
				}
				inc, err := str(a, "include", false)
				if err != nil {
					return "", err
				}
				res, err := t.ws.Search(ctx, t.caller, pat, search.Options{UseRegex: true, CaseSensitive: true, Include: inc, MaxResults: 200}, nil)
				if err != nil {
					return "", err
				}
				out, _ := json.Marshal(res)
				return clip(string(out), 50000), nil
			}},
		"shell": {def: provider.Tool{Name: "shell", Description: "Run a bash command line in the workspace (confined by warden's sandbox) and return its output and exit code.",
			Schema: schema(`"command":{"type":"string"},"cwd":{"type":"string"}`, "command")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				cmd, err := str(a, "command", true)
				if err != nil {
					return "", err
				}
				cwd, err := t.optPath(a, "cwd")
				if err != nil {
					return "", err
				}
				res, err := t.ws.Exec(ctx, t.caller, cwd, cmd)
				if err != nil {
					return "", err
				}
				s := res.Output
				if res.Truncated {
					s += "\n[output truncated]"
				}
				return fmt.Sprintf("%s\n[exit code %d]", s, res.ExitCode), nil
			}},
		"git_status": {readOnly: true, def: provider.Tool{Name: "git_status", Description: "git status of the workspace.", Schema: schema(``)},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				st, err := t.ws.GitStatus(ctx, t.caller)
				if err != nil {
					return "", err
				}
				b, _ := json.Marshal(st)
				return string(b), nil
			}},
		"git_diff": {readOnly: true, def: provider.Tool{Name: "git_diff", Description: "git diff of the workspace (staged: the index).",
			Schema: schema(`"path":{"type":"string"},"staged":{"type":"boolean"}`)},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				rel, err := str(a, "path", false)
				if err != nil {
					return "", err
				}
				d, skipped, err := t.ws.GitDiff(ctx, t.caller, rel, boolArg(a, "staged"), nil)
				if err != nil {
					return "", err
				}
				if skipped > 0 {
					d += fmt.Sprintf("\n[%d file(s) left out: the policy does not let them be read]", skipped)
				}
				return clip(d, 100000), nil
			}},
		"git_log": {readOnly: true, def: provider.Tool{Name: "git_log", Description: "git log of the workspace, newest first.",
			Schema: schema(`"max":{"type":"integer"},"path":{"type":"string"}`)},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				rel, err := str(a, "path", false)
				if err != nil {
					return "", err
				}
				entries, err := t.ws.GitLog(ctx, t.caller, intArg(a, "max"), rel)
				if err != nil {
					return "", err
				}
				b, _ := json.Marshal(entries)
				return clip(string(b), 50000), nil
			}},
	}
	addSearchTools(ts)
	if task {
		ts["task"] = tool{def: provider.Tool{Name: "task", Description: "Hand a self-contained task to a subagent (a child session with the same tools and policy); returns its final answer.",
			Schema: schema(`"prompt":{"type":"string"},"description":{"type":"string"}`, "prompt")},
			run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
				prompt, err := str(a, "prompt", true)
				if err != nil {
					return "", err
				}
				return t.e.runSubagent(ctx, t, prompt)
			}}
	}
	return ts
}

// defs lists the tools' definitions in a stable order.
func defs(ts map[string]tool) []provider.Tool {
	order := []string{"read", "write", "edit", "list", "glob", "grep", "search", "symbol", "shell", "git_status", "git_diff", "git_log", "task"}
	var out []provider.Tool
	for _, n := range order {
		if t, ok := ts[n]; ok {
			out = append(out, t.def)
		}
	}
	return out
}

func (t *toolCtx) path(a map[string]any, key string) (string, error) {
	p, err := str(a, key, true)
	if err != nil {
		return "", err
	}
	abs, err := t.ws.Abs(p)
	return abs, badArgs(err)
}

func (t *toolCtx) optPath(a map[string]any, key string) (string, error) {
	p, err := str(a, key, false)
	if err != nil || p == "" {
		return t.ws.Root(), err
	}
	abs, err := t.ws.Abs(p)
	return abs, badArgs(err)
}

// globMatch matches a slash-separated relative path against pattern, where
// ** stands for any number of directories.
func globMatch(pattern, p string) bool {
	if !strings.Contains(pattern, "/") && !strings.Contains(pattern, "**") {
		ok, _ := path.Match(pattern, path.Base(p))
		return ok
	}
	return matchSegs(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func matchSegs(pat, segs []string) bool {
	// memo[i][j]: pat[i:] against segs[j:], 0 unknown, 1 no, 2 yes; a
	// table, so patterns with many ** stay linear in their size
	memo := make([][]uint8, len(pat)+1)
	for i := range memo {
		memo[i] = make([]uint8, len(segs)+1)
	}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if memo[i][j] != 0 {
			return memo[i][j] == 2
		}
		var ok bool
		switch {
		case i == len(pat):
			ok = j == len(segs)
		case pat[i] == "**":
			ok = match(i+1, j) || (j < len(segs) && match(i, j+1))
		case j < len(segs):
			m, _ := path.Match(pat[i], segs[j])
			ok = m && match(i+1, j+1)
		}
		memo[i][j] = 1
		if ok {
			memo[i][j] = 2
		}
		return ok
	}
	return match(0, 0)
}

// since formats how long a call ran, for its abort result.
func since(start time.Time) string {
	return fmt.Sprintf("%.1fs", time.Since(start).Seconds())
}
