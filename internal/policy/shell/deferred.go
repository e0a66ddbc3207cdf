package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Code bash runs that is not where a command would be: the text a
// process substitution prints to source or a shell, the value of a
// variable evaluated as arithmetic (a[$(cmd)] runs cmd), the value of a
// variable expanded as a prompt (${x@P}), a program found through a PATH
// or a hash entry the line set up.

// procCode judges a program reading its code from a process substitution
// (source <(cmd), bash <(cmd), python3 <(cmd)) as cmd piped into it.
func (k *call) procCode(f field, prog string) {
	t := strings.TrimSpace(k.c.text(span{f.pos, f.end}))
	if !strings.HasPrefix(t, "<(") || !strings.HasSuffix(t, ")") {
		k.eff(Effect{Kind: Exec, Reason: "process substitution"})
		return
	}
	inner := t[2 : len(t)-1]
	code := "{ " + inner + "\n} | " + prog
	if f, err := parseShell(inner); err == nil && len(f.Stmts) == 1 && !f.Stmts[0].Background && len(f.Stmts[0].Redirs) == 0 {
		code = inner + " | " + prog // one pipeline: its output as the pipeline analysis knows it
	}
	k.nested(lit(code), k.name+" <()", nil, false)
}

// maxArithHops bounds variables naming variables in arithmetic.
const maxArithHops = 4

// arithVars judges the variables an arithmetic context evaluates: bash
// evaluates a variable's value as an expression in turn, and an array
// subscript in it runs its command substitutions (v='a[$(cmd)]';
// $((v)) runs cmd).
func (a *analyzer) arithVars(c *ctx, st *state, n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
				a.arithWord(c, st, x.X, 0)
				a.arithWord(c, st, x.Y, 0)
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause:
			syntax.Walk(x, func(m syntax.Node) bool {
				switch w := m.(type) {
				case *syntax.CmdSubst, *syntax.ProcSubst:
					return false
				case *syntax.Word:
					a.arithWord(c, st, w, 0)
				}
				return true
			})
			return false
		}
		return true
	})
}

// arithWord judges one operand of arithmetic: a variable name ($v or v).
func (a *analyzer) arithWord(c *ctx, st *state, w syntax.Node, hops int) {
	name := ""
	switch x := w.(type) {
	case *syntax.Word:
		if l := x.Lit(); isVarName(l) {
			name = l
		} else if len(x.Parts) == 1 {
			if pe, ok := x.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Exp == nil && !pe.Excl && pe.Index == nil {
				name = pe.Param.Value
			}
		}
	}
	if name == "" {
		return
	}
	a.arithName(c, st, name, w, hops)
}

func (a *analyzer) arithName(c *ctx, st *state, name string, at syntax.Node, hops int) {
	if _, set := st.vars[name]; !set || hops > maxArithHops {
		return
	}
	v := a.lookup(st, name)
	if !v.known {
		return
	}
	val := strings.TrimSpace(v.val)
	switch {
	case strings.Contains(val, "$(") || strings.Contains(val, "`"):
		a.run(c, st, []field{lit("eval"), lit(": " + val)}, runOpts{sp: nodeSpan(at)})
	case isVarName(val):
		a.arithName(c, st, val, at, hops+1)
	}
}

func isVarName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// promptExpand judges ${x@P}: x's value expanded as a prompt, command
// substitutions included.
func (a *analyzer) promptExpand(c *ctx, st *state, x *syntax.ParamExp) {
	if x.Exp == nil || x.Exp.Op != syntax.OtherParamOps || x.Exp.Word == nil || x.Exp.Word.Lit() != "P" || x.Param == nil {
		return
	}
	v := a.lookup(st, x.Param.Value)
	if !v.known {
		if _, set := st.vars[x.Param.Value]; set {
			a.run(c, st, []field{lit("eval"), unknownField("${" + x.Param.Value + "@P} expands a prompt not known at check time")}, runOpts{sp: nodeSpan(x)})
		}
		return
	}
	if !strings.Contains(v.val, "$(") && !strings.Contains(v.val, "`") {
		return
	}
	code := `: "` + strings.ReplaceAll(strings.ReplaceAll(v.val, `\`, `\\`), `"`, `\"`) + `"`
	a.run(c, st, []field{lit("eval"), lit(code)}, runOpts{sp: nodeSpan(x)})
}

// pathProgram judges a program run by name when the line put a directory
// it wrote a file in on PATH (PATH=/tmp/b:$PATH ls), or hashed the name
// to a file (hash -p /tmp/x ls): what runs is that file. It reports
// whether it did.
func (k *call) pathProgram() bool {
	n := k.name
	if p, ok := k.a.hashed[n]; ok {
		f := lit(p)
		if _, written := k.writtenScript(f); !written && isSystemBin(p) && path.Base(p) != n {
			// hash -p /bin/rm ls: the name runs that program, with
			// these arguments, and is judged as it
			b := path.Base(p)
			k.name, k.cmd.Name = b, b
			k.cmd.Argv[0] = b
			k.attr("hashed-as", p)
			if m := programs.lookup(b); m != nil {
				m(k)
			} else {
				k.mentions()
			}
			return true
		}
		k.file(Exec, f, false)
		k.runWritten(f, "")
		return true
	}
	if len(k.a.written) == 0 {
		return false
	}
	pf, ok := k.envVar("PATH")
	if !ok {
		return false
	}
	if !pf.known {
		// a PATH partly unknown (/x:$PATH): a file of this name the line
		// wrote anywhere may be what runs
		for p := range k.a.written {
			if path.Base(p) == n {
				f := lit(p)
				k.file(Exec, f, false)
				k.runWritten(f, "")
				return true
			}
		}
		return false
	}
	for _, d := range strings.Split(pf.val, ":") {
		if !strings.HasPrefix(d, "/") && !strings.HasPrefix(d, "~") && !strings.HasPrefix(d, ".") {
			continue
		}
		if strings.HasPrefix(d, "~") && k.a.opts.Home != "" {
			d = k.a.opts.Home + d[1:]
		}
		f := lit(path.Join(d, n))
		if _, ok := k.writtenScript(f); ok {
			k.file(Exec, f, false)
			k.runWritten(f, "")
			return true
		}
	}
	return false
}

// hash models the hash builtin: hash -p FILE NAME makes NAME run FILE.
func (k *call) hash() {
	p := parseOpts(k.args, spec{arg: "p"})
	file, ok := p.get("p")
	if !ok || len(p.ops) == 0 {
		return
	}
	if k.a.hashed == nil {
		k.a.hashed = map[string]string{}
	}
	e, ok := k.a.target(k.st, Exec, k.home(file), false)
	for _, name := range p.ops {
		if !name.known {
			continue
		}
		if !ok || e.Unknown {
			k.dynamicExec("hash -p makes " + name.val + " run a file not known at check time")
			continue
		}
		k.a.hashed[name.val] = e.Target
		k.file(Exec, file, false)
		if _, written := k.writtenScript(k.home(file)); !written && !(isSystemBin(e.Target) && path.Base(e.Target) == name.val) {
			// NAME now runs a file the line did not write: what it holds,
			// and what NAME will do later, cannot be read here
			k.dynamicExec("hash -p makes " + name.val + " run " + e.Target + ", whose content is not known at check time")
		}
	}
}

// tee writes its stdin to its files; known text written to a file is
// remembered, as a redirection's is, for a script run later in the line.
func (k *call) tee() {
	p := parseOpts(k.args, spec{})
	k.files(Write, p.ops, false)
	k.stdinWrites(p.ops, p.has("a", "append"))
}

// stdinNames are the names by which a program opens its standard input.
var stdinNames = map[string]bool{"/dev/stdin": true, "/dev/fd/0": true, "/proc/self/fd/0": true}

// stdinWrites remembers, for a script run later in the line, what a
// program that copies its standard input into files (tee, sponge, cp
// /dev/stdin f, dd of=f) leaves in them: known text when stdin is literal
// (a here-string, echo piped in), otherwise that the content is not known.
func (k *call) stdinWrites(files []field, appendMode bool) {
	in := k.c.stdin
	for _, f := range files {
		e, ok := k.a.target(k.st, Write, k.home(f), false)
		if !ok || e.Unknown {
			continue
		}
		if len(in.carries) > 0 || len(k.a.filled) > 0 {
			k.a.fill(e.Target, in.carries, appendMode)
		}
		k.a.markDownloaded(e.Target, in.remote, appendMode)
		if !in.literal || appendMode {
			delete(k.a.written, e.Target)
			continue
		}
		if k.a.written == nil {
			k.a.written = map[string]string{}
		}
		k.a.written[e.Target] = in.text
	}
}

// dynamicOutput reports whether a pipeline stage prints text made at run
// time that a shell or interpreter reading it could not be judged by:
// echo or printf of values not known at check time, a decoder (base64
// -d, xxd -r, gunzip, openssl enc -d), or a filter passing such text on.
// A file's content (cat script.sh | sh) is not: it is judged as running
// that file would be.
func dynamicOutput(cmds []Command, meta []cmdMeta, in stdinInfo) (string, bool) {
	if len(cmds) != 1 || len(meta) != 1 {
		return "", false
	}
	cm := cmds[0]
	if own := meta[0].in; own.literal || own.dynamic {
		in = own // its own redirection or here-string
	}
	has := func(flags ...string) bool {
		for _, a := range cm.Argv[1:] {
			for _, f := range flags {
				if a == f || len(f) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:]) {
					return true
				}
			}
		}
		return false
	}
	switch cm.Name {
	case "echo", "printf":
		if !meta[0].argsKnown {
			return "text built from values not known at check time", true
		}
	case "base64", "base32", "basenc":
		if has("-d", "--decode", "-D") {
			return "decoded text", true
		}
	case "xxd":
		if has("-r") {
			return "decoded text", true
		}
	case "gunzip", "zcat", "bunzip2", "bzcat", "unxz", "xzcat", "zstdcat", "unzstd", "uudecode":
		return "decompressed text", true
	case "gzip", "bzip2", "xz", "zstd":
		if has("-d", "--decompress") {
			return "decompressed text", true
		}
	case "openssl":
		if has("-d", "-base64", "-a") {
			return "decoded text", true
		}
	case "rev", "tr", "sed", "awk", "cut", "perl", "python", "python3", "iconv", "dd":
		// a transformation of text: known input no longer says what comes out
		if in.dynamic {
			return in.what, true
		}
		if in.literal {
			return "text transformed by " + cm.Name, true
		}
	case "head", "tail", "cat", "tee", "sort", "uniq":
		if in.dynamic {
			return in.what, true
		}
	}
	return "", false
}
