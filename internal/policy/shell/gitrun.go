package shell

import (
	"strconv"
	"strings"
)

// git runs commands it is given in many places besides -c: environment
// variables (GIT_SSH_COMMAND, GIT_PAGER, GIT_EXTERNAL_DIFF, the editor and
// askpass programs, GIT_CONFIG_* settings) and subcommands that run a
// command of the caller's (rebase --exec, bisect run, submodule foreach,
// filter-branch's filters, difftool --extcmd). Each is judged as the code
// it is.

// gitEnvCode are variables whose value git runs as shell code.
var gitEnvCode = []string{"GIT_SSH_COMMAND", "GIT_PAGER", "PAGER", "GIT_EDITOR", "EDITOR", "VISUAL",
	"GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND"}

// gitEnv judges the variables of the call's environment that git runs.
func (k *call) gitEnv() {
	for _, name := range gitEnvCode {
		f, ok := k.envVar(name)
		if !ok {
			continue
		}
		if f.known && strings.TrimSpace(f.val) == "" {
			continue
		}
		k.nested(f, "git "+name, nil, false)
		if strings.HasSuffix(name, "EDITOR") || name == "VISUAL" {
			k.todoExecs(f, "git "+name)
		}
	}
	if f, ok := k.envVar("GIT_SSH"); ok {
		// a program, not a command line
		k.inner([]field{f}, "git GIT_SSH", nil, nil)
	}
	if n, ok := k.envVar("GIT_CONFIG_COUNT"); ok && n.known {
		c, _ := strconv.Atoi(n.val)
		for i := 0; i < c && i < 64; i++ {
			key, ok1 := k.envVar("GIT_CONFIG_KEY_" + strconv.Itoa(i))
			val, ok2 := k.envVar("GIT_CONFIG_VALUE_" + strconv.Itoa(i))
			if ok1 && ok2 && key.known {
				kv := val
				if val.known {
					kv = sub(val, key.val+"="+val.val)
				}
				k.gitConfigCode(kv)
			}
		}
	}
	if f, ok := k.envVar("GIT_CONFIG_PARAMETERS"); ok && f.known {
		// 'key'='value' 'key2'='value2'
		for _, kv := range gitConfigParams(f.val) {
			k.gitConfigCode(sub(f, kv))
		}
	}
}

// gitConfigParams splits GIT_CONFIG_PARAMETERS into key=value pairs.
func gitConfigParams(s string) []string {
	var out []string
	var b strings.Builder
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inQ = !inQ
		case c == ' ' && !inQ:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// gitRuns judges the subcommands that run a command of the caller's.
func (k *call) gitRuns(sc string, rest []field) {
	switch sc {
	case "rebase":
		for i := 0; i < len(rest); i++ {
			f := rest[i]
			if !f.known {
				continue
			}
			switch {
			case f.val == "--exec" || f.val == "-x":
				if i+1 < len(rest) {
					i++
					k.nested(rest[i], "git rebase --exec", nil, false)
				}
			case strings.HasPrefix(f.val, "--exec="):
				k.nested(sub(f, f.val[len("--exec="):]), "git rebase --exec", nil, false)
			case strings.HasPrefix(f.val, "-x") && len(f.val) > 2:
				k.nested(sub(f, f.val[2:]), "git rebase --exec", nil, false)
			}
		}
	case "bisect":
		if len(rest) > 1 && rest[0].known && rest[0].val == "run" {
			k.inner(rest[1:], "git bisect run", nil, nil)
		}
	case "submodule":
		p := parseOpts(rest, spec{})
		if len(p.ops) > 1 && p.ops[0].known && p.ops[0].val == "foreach" {
			code := joinCode(p.ops[1:])
			if len(p.ops) == 2 {
				code = p.ops[1]
			}
			k.nested(code, "git submodule foreach", nil, false)
		}
	case "filter-branch":
		for i := 0; i+1 < len(rest); i++ {
			if f := rest[i]; f.known && strings.HasPrefix(f.val, "--") && strings.HasSuffix(f.val, "-filter") {
				i++
				k.nested(rest[i], "git filter-branch "+f.val, nil, false)
			}
		}
	case "difftool", "mergetool":
		for i := 0; i < len(rest); i++ {
			f := rest[i]
			if !f.known {
				continue
			}
			switch {
			case (f.val == "-x" || f.val == "--extcmd") && i+1 < len(rest):
				i++
				k.nested(rest[i], "git "+sc+" --extcmd", nil, false)
			case strings.HasPrefix(f.val, "--extcmd="):
				k.nested(sub(f, f.val[len("--extcmd="):]), "git "+sc+" --extcmd", nil, false)
			}
		}
	case "for-each-repo", "worktree":
	}
}

// todoExecs judges the commands an editor command writes into a rebase
// todo list: git rebase -i hands its todo to the sequence editor (or the
// editor), and runs each "exec CMD" (or "x CMD") line in it with the
// shell. An editor given as a command line that carries such a line in its
// text (sed -i '1i exec rm -rf ~/x', a printf or echo of one) makes git
// run that command: it is judged as itself.
func (k *call) todoExecs(editor field, via string) {
	if !editor.known {
		return
	}
	v := editor.val
	for i := 0; i < len(v); {
		j := todoExecAt(v, i)
		if j < 0 {
			return
		}
		end := j
		for end < len(v) && v[end] != '\n' && v[end] != '\'' && v[end] != '"' && !(v[end] == '\\' && end+1 < len(v) && v[end+1] == 'n') {
			end++
		}
		if cmd := strings.TrimSpace(v[j:end]); cmd != "" {
			k.nested(sub(editor, cmd), via+" rebase todo exec", nil, false)
		}
		i = end
	}
}

// todoExecAt returns the index just after the next "exec " or "x " that
// starts a todo line in s at or after from (at the start, or after a
// newline, a quote, an escaped newline or a sed insert/append/change
// command), or -1.
func todoExecAt(s string, from int) int {
	for i := from; i < len(s); i++ {
		var w int
		switch {
		case strings.HasPrefix(s[i:], "exec ") || strings.HasPrefix(s[i:], "exec\t"):
			w = 5
		case strings.HasPrefix(s[i:], "x "):
			w = 2
		default:
			continue
		}
		if i == 0 || todoLineStart(s[:i]) {
			return i + w
		}
	}
	return -1
}

// todoLineStart reports whether what precedes a word makes it the start of
// a line git reads: a newline (real or \n), a quote, or a sed a/i/c
// command (1i exec …, $a\ exec …).
func todoLineStart(before string) bool {
	b := strings.TrimRight(before, " \t")
	if b == "" {
		return true
	}
	switch c := b[len(b)-1]; {
	case c == '\n', c == '\'', c == '"':
		return true
	case strings.HasSuffix(b, "\\n"), strings.HasSuffix(b, "\\"):
		return true
	case c == 'i' || c == 'a' || c == 'c':
		// sed's insert/append/change after an address: 1i, $a, /re/c
		p := b[:len(b)-1]
		return p == "" || strings.HasSuffix(p, "'") || strings.HasSuffix(p, "\"") || strings.HasSuffix(p, " ") ||
			strings.TrimRight(p, "0123456789$/,") != p
	}
	return false
}
