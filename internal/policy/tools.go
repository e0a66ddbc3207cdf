package policy

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// toolKind is what a tool does, whatever an agent calls it.
type toolKind int

const (
	kindOther toolKind = iota
	kindShell
	kindRead
	kindWrite
	kindEdit
	kindPatch
	kindList
	kindGlob
	kindGrep
	kindFetch
	kindMCP
)

// canonicalNames are the kinds' names for `tools:` patterns.
var canonicalNames = map[toolKind]string{
	kindShell: "bash", kindRead: "read", kindWrite: "write", kindEdit: "edit",
	kindPatch: "patch", kindList: "list", kindGlob: "glob", kindGrep: "grep",
	kindFetch: "webfetch", kindMCP: "mcp",
}

// toolKinds maps lower-cased tool names of the agents warden knows
// (OpenCode, Claude Code, Codex, Gemini CLI, warden's own) to kinds.
var toolKinds = map[string]toolKind{
	"bash": kindShell, "sh": kindShell, "shell": kindShell, "zsh": kindShell,
	"run_shell_command": kindShell, "exec_command": kindShell, "shell_command": kindShell,
	"local_shell": kindShell, "run_command": kindShell, "run_terminal_cmd": kindShell,
	"terminal": kindShell, "execute_command": kindShell, "exec": kindShell,
	"read": kindRead, "read_file": kindRead, "view": kindRead, "notebookread": kindRead,
	"read_many_files": kindRead,
	"write":           kindWrite, "write_file": kindWrite, "create": kindWrite, "create_file": kindWrite,
	"edit": kindEdit, "multiedit": kindEdit, "notebookedit": kindEdit, "replace": kindEdit,
	"str_replace": kindEdit, "str_replace_editor": kindEdit, "str_replace_based_edit_tool": kindEdit,
	"edit_file": kindEdit,
	"patch":     kindPatch, "apply_patch": kindPatch,
	"list": kindList, "ls": kindList, "list_directory": kindList, "list_dir": kindList,
	"glob": kindGlob, "find_files": kindGlob,
	"grep": kindGrep, "search_file_content": kindGrep,
	"webfetch": kindFetch, "web_fetch": kindFetch, "fetch": kindFetch,
}

// pathKeys are the argument names file tools put a path in.
var pathKeys = []string{"filePath", "file_path", "path", "notebook_path", "absolute_path", "filename", "file", "target_file", "dir_path", "directory", "source", "destination"}

// shellWorkdir is the directory a shell tool's call names for its command,
// "" when it names none.
func shellWorkdir(args map[string]any) string {
	for _, key := range workdirKeys {
		if wd, _ := args[key].(string); wd != "" {
			return wd
		}
	}
	return ""
}

// workdirKeys are the argument names shell tools put the directory the
// command runs in (OpenCode's and Codex's workdir, Gemini CLI's directory).
var workdirKeys = []string{"workdir", "cwd", "working_directory", "directory", "dir"}

// call is a call normalised for matching.
type call struct {
	Call
	tool  string // lower-cased tool name
	kind  toolKind
	effK  toolKind // the kind whose effects the call has (an MCP file tool's file kind)
	canon string   // canonical kind name ("" for unknown tools)
	input string   // command line, path or URL
	cwd   string   // absolute cwd, "" if unknown
	rawWS string   // effective workspace as given (cwd when Workspace is "")
	ws    string   // workspace for classification ("" if none or too broad)
	wsR   string   // ws after symlinks
}

func toolKindOf(name string, args map[string]any) toolKind {
	lower := strings.ToLower(name)
	if k, ok := toolKinds[lower]; ok {
		return k
	}
	if strings.HasPrefix(lower, "mcp__") {
		// An MCP tool that runs a command line is judged as a shell.
		if _, ok := args["command"].(string); ok && looksLikeShell(lower) {
			return kindShell
		}
		return kindMCP
	}
	if _, ok := args["command"]; ok && looksLikeShell(lower) {
		return kindShell
	}
	if _, ok := serverFileTool(lower); ok {
		return kindMCP
	}
	return kindOther
}

// serverFileTool is the file-tool kind of a tool named SERVER_TOOL after
// one of the filesystem MCP server's tools (OpenCode names MCP tools
// server_tool, without Claude Code's mcp__ prefix): filesystem_write_file
// writes like the write tool.
func serverFileTool(lower string) (toolKind, bool) {
	for name, k := range mcpServerFileTools {
		if len(lower) > len(name)+1 && strings.HasSuffix(lower, name) && lower[len(lower)-len(name)-1] == '_' {
			return k, true
		}
	}
	return kindOther, false
}

// mcpServerFileTools are the filesystem MCP server's tools, which other
// servers' tools are not named like.
var mcpServerFileTools = map[string]toolKind{
	"read_file": kindRead, "read_text_file": kindRead, "read_media_file": kindRead, "read_multiple_files": kindRead,
	"get_file_info": kindRead, "write_file": kindWrite, "edit_file": kindEdit, "create_directory": kindWrite,
	"move_file": kindWrite, "list_directory": kindList, "list_directory_with_sizes": kindList,
	"directory_tree": kindList, "search_files": kindGrep,
}

func looksLikeShell(name string) bool {
	for _, w := range []string{"bash", "shell", "terminal", "exec", "run_command", "execute_command"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// normalise fills in the call's kind, input, cwd and workspace. It does no
// I/O: symlinks are resolved by the caller.
func normalise(c Call) call {
	n := call{Call: c, tool: strings.ToLower(c.Tool)}
	n.kind = toolKindOf(c.Tool, c.Args)
	n.canon = canonicalNames[n.kind]
	n.effK = n.kind
	if n.kind == kindMCP {
		n.effK = mcpFileKind(n.tool)
	}
	ws := c.Workspace
	if ws != "" {
		if filepath.IsAbs(ws) {
			ws = filepath.Clean(ws)
		} else {
			ws = "" // a relative workspace says nothing
		}
	}
	cwd := c.Cwd
	switch {
	case cwd == "":
		cwd = ws
	case filepath.IsAbs(cwd):
		cwd = filepath.Clean(cwd)
	case ws != "":
		cwd = filepath.Join(ws, cwd)
	default:
		cwd = ""
	}
	if ws == "" {
		ws = cwd // unknown workspace: the cwd stands in for it
	}
	if n.kind == kindShell {
		// the directory the shell tool runs the command in is part of the call
		if wd := shellWorkdir(c.Args); wd != "" {
			switch {
			case filepath.IsAbs(wd):
				cwd = filepath.Clean(wd)
			case cwd != "" && !strings.HasPrefix(wd, "~"):
				cwd = filepath.Join(cwd, wd)
			default:
				cwd = "" // relative to nothing known, or in home (prepare places it)
			}
		}
	}
	n.cwd, n.rawWS, n.ws = cwd, ws, ws
	n.input = inputOf(n.effK, c.Args)
	return n
}

// mcpFileKind is the file-tool kind of an MCP tool whose own name is one of
// the file tools' names (the filesystem server's mcp__filesystem__read_file,
// mcp__fs__write_file, mcp__fetch__fetch, …): such a call has the effects of
// that file tool, so reading ~/.ssh/id_rsa through MCP is judged like the
// read tool. Other MCP tools (kindMCP) have no effects.
func mcpFileKind(tool string) toolKind {
	i := strings.LastIndex(tool, "__")
	if i < 0 {
		if k, ok := serverFileTool(tool); ok {
			return k
		}
		return kindMCP
	}
	name := tool[i+2:]
	if k, ok := mcpFileTools[name]; ok {
		return k
	}
	if k, ok := toolKinds[name]; ok && k != kindShell {
		return k
	}
	if k, ok := mcpServerFileTools[name]; ok {
		return k
	}
	return kindMCP
}

// mcpFileTools are file tools' names that only MCP servers use.
var mcpFileTools = map[string]toolKind{
	"read_text_file": kindRead, "read_media_file": kindRead, "read_multiple_files": kindRead,
	"get_file_info": kindRead, "write_text_file": kindWrite, "create_directory": kindWrite,
	"directory_tree": kindList, "list_directory_with_sizes": kindList, "search_files": kindGrep,
	"move_file": kindWrite,
}

// inputOf is the call's one-line input: command, path or URL.
func inputOf(k toolKind, args map[string]any) string {
	switch k {
	case kindShell:
		return commandOf(args)
	case kindFetch:
		s, _ := args["url"].(string)
		return s
	case kindPatch:
		for _, key := range []string{"patchText", "patch", "input"} {
			if s, ok := args[key].(string); ok {
				return s
			}
		}
		return ""
	}
	if p := pathArg(args); p != "" {
		return p
	}
	if ps := pathList(args); len(ps) > 0 {
		return strings.Join(ps, " ")
	}
	return ""
}

// commandOf returns a shell tool's command line. A command given as a list
// (Codex's ["bash","-lc","..."]) is quoted back into one line.
func commandOf(args map[string]any) string {
	for _, key := range []string{"command", "cmd", "script"} {
		switch v := args[key].(type) {
		case string:
			return v
		case []any:
			parts := make([]string, 0, len(v))
			for _, x := range v {
				s, _ := x.(string)
				parts = append(parts, shell.Quote(s))
			}
			return strings.Join(parts, " ")
		case []string:
			return shell.Join(v...)
		}
	}
	return ""
}

// pathArgs are every distinct path the call names under any path key: a
// tool reads the key it knows, which need not be the one warden would
// pick first, so each is judged (a decoy filePath beside file_path).
func pathArgs(args map[string]any) []string {
	var out []string
	for _, k := range pathKeys {
		if s, ok := args[k].(string); ok && s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func pathArg(args map[string]any) string {
	for _, k := range pathKeys {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

func pathList(args map[string]any) []string {
	var out []string
	if l, ok := args["paths"].([]any); ok {
		for _, x := range l {
			if s, ok := x.(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// absPath makes a tool's path absolute: "~" is the home dir, relative paths
// are against cwd. ok is false when that cannot be done.
func absPath(p, cwd, home string) (string, bool) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" {
			return "", false
		}
		p = home + p[1:]
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return "", false
		}
		p = cwd + "/" + p
	}
	// as the kernel resolves it: link/../x climbs from the link's target
	return shell.KernelPath(p, resolvePath), true
}

// fileEffects are the effects of a non-shell tool call.
func fileEffects(n *call, home string) []shell.Effect {
	mk := func(kind shell.Kind, p string, recursive bool) shell.Effect {
		if p == "" {
			return shell.Effect{Kind: kind, Unknown: true, Reason: "the tool call names no path", Recursive: recursive}
		}
		if strings.ContainsRune(p, 0) {
			// no file system takes it; what a tool makes of it is not known
			return shell.Effect{Kind: kind, Unknown: true, Reason: "the path holds a NUL byte", Recursive: recursive}
		}
		abs, ok := absPath(p, n.cwd, home)
		if !ok {
			return shell.Effect{Kind: kind, Unknown: true, Reason: "relative path " + p + " with no working directory", Recursive: recursive}
		}
		return shell.Effect{Kind: kind, Target: abs, Recursive: recursive}
	}
	args := n.Args
	switch n.effK {
	case kindRead:
		ps := append(pathArgs(args), pathList(args)...)
		if len(ps) == 0 {
			return []shell.Effect{mk(shell.Read, "", false)}
		}
		out := make([]shell.Effect, 0, len(ps))
		for _, p := range ps {
			out = append(out, mk(shell.Read, p, false))
		}
		return out
	case kindWrite, kindEdit:
		ps := pathArgs(args)
		if len(ps) == 0 {
			return []shell.Effect{mk(shell.Write, "", false)}
		}
		out := make([]shell.Effect, 0, len(ps))
		for _, p := range ps {
			out = append(out, mk(shell.Write, p, false))
		}
		return out
	case kindList:
		p := pathArg(args)
		if p == "" {
			p = n.cwd
		}
		return []shell.Effect{mk(shell.Read, p, false)}
	case kindGlob:
		p := pathArg(args)
		if p == "" {
			p = n.cwd
		}
		e := mk(shell.Read, p, false)
		if pat, _ := args["pattern"].(string); pat != "" && !e.Unknown {
			// the glob names files below the directory (a glob tool lists
			// names, so it reaches into a directory only by its pattern)
			if strings.HasPrefix(pat, "~/") || pat == "~" {
				if g, ok := absPath(pat, n.cwd, home); ok {
					pat = g
				}
			}
			if !filepath.IsAbs(pat) {
				pat = filepath.Join(e.Target, pat)
			}
			e.Glob = pat
			e.Meta = true
		}
		return []shell.Effect{e}
	case kindGrep:
		p := pathArg(args)
		if p == "" {
			p = n.cwd
		}
		return []shell.Effect{mk(shell.Read, p, true)}
	case kindPatch:
		effs := patchEffects(n.input, mk)
		if len(effs) == 0 {
			if p := pathArg(args); p != "" {
				return []shell.Effect{mk(shell.Write, p, false)}
			}
			return []shell.Effect{{Kind: shell.Write, Unknown: true, Reason: "the patch names no file warden can read"}}
		}
		return effs
	case kindFetch:
		u := n.input
		if strings.HasPrefix(u, "file://") {
			return []shell.Effect{mk(shell.Read, u, false)}
		}
		return []shell.Effect{{Kind: shell.Network, Target: u}}
	}
	return nil
}

// patchEffects reads the files a patch touches: the apply_patch format
// ("*** Update File: p") and unified diffs ("+++ b/p").
func patchEffects(text string, mk func(shell.Kind, string, bool) shell.Effect) []shell.Effect {
	var out []shell.Effect
	minus := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			out = append(out, mk(shell.Write, strings.TrimSpace(line[len("*** Add File: "):]), false))
		case strings.HasPrefix(line, "*** Update File: "):
			out = append(out, mk(shell.Write, strings.TrimSpace(line[len("*** Update File: "):]), false))
		case strings.HasPrefix(line, "*** Move to: "):
			out = append(out, mk(shell.Write, strings.TrimSpace(line[len("*** Move to: "):]), false))
		case strings.HasPrefix(line, "*** Delete File: "):
			out = append(out, mk(shell.Delete, strings.TrimSpace(line[len("*** Delete File: "):]), false))
		case strings.HasPrefix(line, "--- "):
			minus = diffPath(line[4:], "a/")
		case strings.HasPrefix(line, "+++ "):
			p := diffPath(line[4:], "b/")
			switch {
			case p != "/dev/null":
				out = append(out, mk(shell.Write, p, false))
			case minus != "" && minus != "/dev/null":
				out = append(out, mk(shell.Delete, minus, false))
			}
		}
	}
	return out
}

// diffPath is the path of a unified diff's ---/+++ line.
func diffPath(s, prefix string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimPrefix(s, prefix)
}
