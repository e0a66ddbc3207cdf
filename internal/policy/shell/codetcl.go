package shell

import "strings"

// Tcl (tclsh, expect) and AppleScript (osascript) read differently from
// the C-like languages of code.go: a Tcl command is a list of words, and
// AppleScript runs shell commands with "do shell script".

// tclWord is one word of a Tcl command.
type tclWord struct {
	val    string
	known  bool // no $var or [cmd] substitution
	braced bool // {...}: a literal, often a script body
}

// maxTclCmds bounds the commands one Tcl program is read for.
const maxTclCmds = 512

// tclCommands splits Tcl code into commands of words, calling sub for the
// code of every [command substitution].
func tclCommands(src string, sub func(string)) [][]tclWord {
	var cmds [][]tclWord
	var cur []tclWord
	flush := func() {
		if len(cur) > 0 && len(cmds) < maxTclCmds {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n' || c == ';':
			flush()
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
		case c == '#' && len(cur) == 0:
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '{':
			e := matchBrace(src, i)
			cur = append(cur, tclWord{val: src[i+1 : max(e-1, i+1)], known: true, braced: true})
			i = e
		case c == '"':
			j := i + 1
			var b strings.Builder
			known := true
			for j < len(src) && src[j] != '"' {
				switch {
				case src[j] == '\\' && j+1 < len(src):
					j++
					switch src[j] {
					case 'n':
						b.WriteByte('\n')
					case 'r':
						b.WriteByte('\r')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(src[j])
					}
					j++
				case src[j] == '[':
					e := matchBrace(src, j)
					sub(src[j+1 : max(e-1, j+1)])
					known = false
					b.WriteString(codePH)
					j = e
				case src[j] == '$':
					known = false
					b.WriteString(codePH)
					j++
					if j < len(src) && src[j] == '{' {
						j = matchBrace(src, j)
					} else {
						for j < len(src) && (isIdentChar(src[j]) || src[j] == ':') {
							j++
						}
					}
				default:
					b.WriteByte(src[j])
					j++
				}
			}
			cur = append(cur, tclWord{val: b.String(), known: known})
			i = j + 1
		default:
			j := i
			var b strings.Builder
			known := true
			for j < len(src) && !strings.ContainsRune(" \t\r\n;", rune(src[j])) {
				switch src[j] {
				case '[':
					e := matchBrace(src, j)
					sub(src[j+1 : max(e-1, j+1)])
					known = false
					b.WriteString(codePH)
					j = e
					continue
				case '$':
					known = false
				case '\\':
					if j+1 < len(src) {
						j++
					}
				}
				b.WriteByte(src[j])
				j++
			}
			cur = append(cur, tclWord{val: b.String(), known: known})
			i = j
		}
	}
	flush()
	return cmds
}

// tclBodies are Tcl commands whose braced arguments are scripts.
var tclBodies = map[string]bool{"if": true, "elseif": true, "else": true, "while": true, "for": true, "foreach": true,
	"proc": true, "catch": true, "try": true, "after": true, "uplevel": true, "namespace": true, "expect": true,
	"expect_after": true, "expect_before": true, "interact": true, "switch": true, "then": true, "finally": true,
	"on": true, "trap": true, "timeout": true, "eof": true, "default": true}

// tclCode judges the Tcl (and expect) commands that run programs: exec,
// open "|cmd", spawn, system, eval, and send of text to a spawned shell.
func (k *call) tclCode(code field, src string, depth int) {
	if depth > maxCodeDepth {
		k.dynamicExec(k.name + ": nested code too deep to analyse")
		return
	}
	var subs []string
	cmds := tclCommands(src, func(s string) { subs = append(subs, s) })
	for _, s := range subs {
		k.tclCode(code, s, depth+1)
	}
	shellSpawned := false
	for _, w := range cmds {
		if len(w) == 0 || !w[0].known {
			continue
		}
		name := strings.TrimPrefix(w[0].val, "::")
		args := w[1:]
		switch name {
		case "exec", "spawn":
			for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") {
				stop := args[0].val == "--"
				args = args[1:]
				if stop {
					break
				}
			}
			if len(args) == 0 {
				continue
			}
			if name == "spawn" && args[0].known && isShell(lastPathPart(args[0].val)) && len(args) == 1 {
				shellSpawned = true
			}
			k.tclArgv(code, args, k.name+" "+name)
		case "system":
			k.tclShell(code, joinTcl(args), k.name+" system")
		case "open":
			if len(args) > 0 && strings.HasPrefix(strings.TrimSpace(args[0].val), "|") {
				a := args[0]
				a.val = strings.TrimPrefix(strings.TrimSpace(a.val), "|")
				if a.known && !a.braced {
					k.tclShell(code, a, k.name+" open |")
				} else {
					ws := tclCommands(a.val, func(string) {})
					if len(ws) == 1 {
						k.tclArgv(code, ws[0], k.name+" open |")
					} else {
						k.tclShell(code, a, k.name+" open |")
					}
				}
			}
		case "eval", "uplevel":
			if len(args) > 0 && name == "uplevel" && args[0].known && (strings.HasPrefix(args[0].val, "#") || isDigits(args[0].val)) {
				args = args[1:]
			}
			j := joinTcl(args)
			if !j.known {
				k.dynamicExec(k.name + " evaluates code computed at run time")
				continue
			}
			k.tclCode(code, j.val, depth+1)
		case "send", "exp_send":
			for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") {
				args = args[1:]
			}
			if shellSpawned && len(args) > 0 {
				t := args[0]
				t.val = strings.TrimRight(t.val, "\r\n")
				k.tclShell(code, t, k.name+" send")
			}
		case "file":
			if len(args) > 1 && args[0].known && args[0].val == "delete" {
				rec := false
				for _, a := range args[1:] {
					if a.known && a.val == "-force" {
						rec = true
						continue
					}
					if a.known && strings.HasPrefix(a.val, "-") {
						continue
					}
					k.file(Delete, k.tclField(code, a), rec)
				}
			}
		}
		if tclBodies[name] {
			for _, a := range args {
				if a.braced {
					k.tclCode(code, a.val, depth+1)
				}
			}
		}
	}
}

func lastPathPart(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func joinTcl(ws []tclWord) tclWord {
	out := tclWord{known: true}
	parts := make([]string, 0, len(ws))
	for _, w := range ws {
		parts = append(parts, w.val)
		out.known = out.known && w.known
	}
	out.val = strings.Join(parts, " ")
	return out
}

func (k *call) tclField(code field, w tclWord) field {
	if w.known {
		// Tcl expands ~ in file names; read it as the shell would
		return k.home(sub(plain(code), w.val))
	}
	f := plain(code)
	f.known, f.val, f.reason = false, "", "an argument "+k.name+" computes at run time"
	return f
}

func (k *call) tclArgv(code field, ws []tclWord, label string) {
	fs := make([]field, 0, len(ws))
	for _, w := range ws {
		if w.known && (w.val == "<" || w.val == ">" || w.val == "2>" || w.val == ">@" || w.val == "2>@" || w.val == "&") {
			break
		}
		fs = append(fs, k.tclField(code, w))
	}
	k.inner(fs, label, nil, nil)
}

func (k *call) tclShell(code field, w tclWord, label string) {
	v := codeVal{kind: 's', s: w.val, partial: !w.known}
	s := &codeScan{k: k, code: code, lang: "tcl", label: label}
	s.runShell(v, true, label)
}

// appleScript judges "do shell script" (and Terminal's "do script") in
// AppleScript given to osascript.
func (k *call) appleScript(code field) {
	toks, ok := lexCode(code.val, "applescript")
	if !ok {
		k.dynamicExec(k.name + " runs code too long to analyse")
		return
	}
	s := &codeScan{k: k, code: code, lang: "applescript", label: "osascript do shell script", vars: map[string]codeVal{}}
	for i := 0; i+1 < len(toks); i++ {
		if toks[i].kind != cIdent || toks[i].val != "do" {
			continue
		}
		j := i + 1
		if toks[j].kind == cIdent && toks[j].val == "shell" {
			j++
		}
		if j >= len(toks) || toks[j].kind != cIdent || toks[j].val != "script" {
			continue
		}
		e := j + 1
		for e < len(toks) && toks[e].kind != cEnd && !(toks[e].kind == cIdent && (toks[e].val == "with" || toks[e].val == "without" || toks[e].val == "in" || toks[e].val == "as" || toks[e].val == "user" || toks[e].val == "password" || toks[e].val == "altering")) {
			e++
		}
		for m := e; m+1 < len(toks) && toks[m].kind != cEnd; m++ {
			if toks[m].kind == cIdent && toks[m].val == "administrator" {
				k.privilege("root")
			}
		}
		s.runShell(s.eval(toks[j+1:e]), true, s.label)
		i = e - 1
	}
}
