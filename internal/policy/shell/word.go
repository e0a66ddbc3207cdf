package shell

import (
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
	"mvdan.cc/sh/v3/syntax"
)

// field is one word after expansion, as far as it can be known.
type field struct {
	val    string
	known  bool
	reason string // why the field is not known
	glob   bool   // contains unquoted glob characters
	subst  bool   // came (partly) from a command substitution
	remote bool   // came from a substitution that fetches from the network
	proc   bool   // is a process substitution (/dev/fd/N)
	under  bool   // stands for files under val (find's {})
	named  bool   // with under: val is ROOT/NAME, files called NAME anywhere below ROOT
	follow bool   // with under: the walk follows symlinks below ROOT (find -L)
	// sec is set when the field holds the value of a secret-named
	// variable, in whole or part
	sec *secretRef
	// tmpl is set when val is code in which ${__WARDEN_ARG} stands for
	// bind (xargs -I, find -exec sh -c '... {} ...').
	tmpl bool
	bind *field
	pos  int // byte offsets of the source word in ctx.src
	end  int
}

func unknownField(reason string) field {
	return field{reason: reason}
}

func lit(s string) field {
	return field{val: s, known: true}
}

// text is the field as shown in Argv: its value, or its source text when
// unknown.
func (f field) text(c *ctx) string {
	if f.known {
		return f.val
	}
	if t := c.text(span{f.pos, f.end}); t != "" {
		return t
	}
	return f.val
}

const argVar = "__WARDEN_ARG"

// builder accumulates one field during expansion.
type builder struct {
	sb     strings.Builder
	known  bool
	reason string
	glob   bool
	subst  bool
	remote bool
	proc   bool
	under  bool
	named  bool // from find's printed paths: files called NAME below ROOT
	quoted bool // had quotes or a non-empty literal: never dropped
	secret string
}

func (b *builder) copyFrom(o *builder) {
	b.sb.WriteString(o.sb.String())
	b.known, b.reason, b.glob, b.subst, b.remote, b.proc, b.under, b.named, b.quoted, b.secret =
		o.known, o.reason, o.glob, o.subst, o.remote, o.proc, o.under, o.named, o.quoted, o.secret
}

func (b *builder) taint(f field) {
	if !f.known {
		if b.known {
			b.reason = f.reason
		}
		b.known = false
	}
	b.subst = b.subst || f.subst
	b.remote = b.remote || f.remote
	if f.sec != nil {
		b.secret = f.sec.name
	}
	b.proc = b.proc || f.proc
	b.under = b.under || f.under
	if f.under && f.named {
		// find's printed paths: the name may be a pattern
		b.named = true
		b.glob = b.glob || f.glob
	}
}

// words expands a list of words into fields.
func (a *analyzer) words(c *ctx, st *state, ws []*syntax.Word) []field {
	var out []field
	for _, w := range ws {
		if w == nil {
			continue
		}
		out = append(out, a.word(c, st, w, false)...)
		if len(out) > maxFields*4 {
			break
		}
	}
	return out
}

// word expands one word; assign selects assignment rules (no splitting,
// no brace expansion).
func (a *analyzer) word(c *ctx, st *state, w *syntax.Word, assign bool) []field {
	sp := nodeSpan(w) // before SplitBraces: brace nodes may hold empty words
	if !assign {
		syntax.SplitBraces(w)
	}
	bs := []*builder{{known: true}}
	bs = a.parts(c, st, w.Parts, false, bs, !assign, true)
	out := make([]field, 0, len(bs))
	for _, b := range bs {
		if b.sb.Len() == 0 && !b.quoted && b.known {
			continue // unquoted empty expansion: no field
		}
		f := field{val: b.sb.String(), known: b.known, reason: b.reason, glob: b.glob, subst: b.subst,
			remote: b.remote, proc: b.proc, under: b.under, named: b.named, pos: sp.start, end: sp.end}
		if b.secret != "" {
			f.sec = &secretRef{name: b.secret, partial: f.val}
		}
		if !f.known {
			f.val = ""
		}
		out = append(out, f)
	}
	return out
}

// wordString expands a word in a context without splitting (here-strings,
// redirections, case subjects) and returns one field.
func (a *analyzer) wordString(c *ctx, st *state, w *syntax.Word) field {
	fs := a.word(c, st, w, true)
	if len(fs) == 0 {
		sp := nodeSpan(w)
		return field{known: true, pos: sp.start, end: sp.end}
	}
	return fs[0]
}

func (a *analyzer) parts(c *ctx, st *state, ps []syntax.WordPart, quoted bool, bs []*builder, split, first bool) []*builder {
	for i, p := range ps {
		atStart := first && i == 0
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if quoted {
				v = unescapeDQ(v)
			} else {
				var g bool
				if atStart && strings.HasPrefix(v, "~") {
					bs = a.tilde(st, v, bs)
					continue
				}
				v, g = unescapeLit(v)
				for _, b := range bs {
					b.glob = b.glob || g
				}
			}
			for _, b := range bs {
				b.sb.WriteString(v)
				if v != "" {
					b.quoted = true
				}
			}
		case *syntax.SglQuoted:
			v := x.Value
			if x.Dollar {
				v = ansiC(v)
			}
			for _, b := range bs {
				b.sb.WriteString(v)
				b.quoted = true
			}
		case *syntax.DblQuoted:
			for _, b := range bs {
				b.quoted = true
			}
			if len(x.Parts) == 1 {
				if pe, ok := x.Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && (pe.Param.Value == "@" || pe.Param.Value == "*") && pe.Exp == nil && !pe.Length && len(bs) == 1 {
					// "$@": one field per positional parameter
					vals := a.positional(st, pe.Param.Value == "*")
					bs = appendFields(bs, vals)
					continue
				}
			}
			bs = a.parts(c, st, x.Parts, true, bs, false, false)
		case *syntax.ParamExp:
			vals := a.param(c, st, x, quoted)
			if len(vals) > 1 && len(bs) == 1 && x.Index != nil {
				if !quoted && split {
					vals = splitFields(vals, ifsOf(st))
				}
				bs = appendFields(bs, vals) // "${a[@]}": one field per element
				continue
			}
			bs = appendExpansion(bs, vals, quoted || !split, ifsOf(st))
		case *syntax.CmdSubst:
			f := a.cmdSubst(c, st, x)
			bs = appendExpansion(bs, []field{f}, quoted || !split, ifsOf(st))
		case *syntax.ArithmExp:
			a.substs(c, st, x)
			a.arithVars(c, st, x)
			f := unknownField("arithmetic expansion is not evaluated")
			if v, ok := arith(x.X, st); ok {
				f = lit(strconv.Itoa(v))
			}
			for _, b := range bs {
				b.sb.WriteString(f.val)
				b.taint(f)
			}
		case *syntax.ProcSubst:
			start := len(a.out.Commands)
			a.stmts(c.withVia(procVia(x)), st.clone(), x.Stmts)
			f := unknownField("process substitution")
			f.proc = true
			for i := start; i < len(a.out.Commands); i++ {
				if isFetcher(&a.out.Commands[i]) {
					f.remote = true
				}
			}
			for _, b := range bs {
				b.sb.WriteString("/dev/fd/63")
				b.taint(f)
			}
		case *syntax.ExtGlob:
			for _, b := range bs {
				b.sb.WriteString(x.Op.String() + x.Pattern.Value + ")")
				b.glob = true
			}
		case *syntax.BraceExp:
			bs = a.brace(c, st, x, bs, atStart && !quoted)
		default:
			f := unknownField("unsupported word part")
			for _, b := range bs {
				b.taint(f)
			}
		}
	}
	return bs
}

func appendFields(bs []*builder, vals []field) []*builder {
	if len(vals) == 0 {
		return bs
	}
	b := bs[0]
	prefix := b.sb.String()
	out := []*builder{b}
	b.sb.WriteString(vals[0].val)
	b.taint(vals[0])
	for _, v := range vals[1:] {
		nb := &builder{known: true, quoted: true}
		nb.sb.WriteString(prefix)
		nb.sb.WriteString(v.val)
		nb.taint(v)
		out = append(out, nb)
	}
	return out
}

// ifsOf is the field separators in st: $IFS when it is known (IFS=, folds),
// else blank, tab and newline.
func ifsOf(st *state) string {
	if v, ok := st.vars["IFS"]; ok && v.f.known && !v.unset {
		return v.f.val
	}
	return " \t\n"
}

// appendExpansion appends expansion results, splitting unquoted known
// values on the characters of ifs.
func appendExpansion(bs []*builder, vals []field, noSplit bool, ifs string) []*builder {
	for vi, f := range vals {
		if vi > 0 && len(bs) == 1 {
			bs = append(bs, &builder{known: true})
		}
		if !noSplit && f.known && len(bs) == 1 && ifs != "" && strings.ContainsAny(f.val, ifs) {
			parts := strings.FieldsFunc(f.val, func(r rune) bool { return strings.ContainsRune(ifs, r) })
			b := bs[len(bs)-1]
			for j, p := range parts {
				if j > 0 {
					nb := &builder{known: true}
					bs = append(bs, nb)
					b = nb
				}
				b.sb.WriteString(p)
				b.taint(f)
				b.quoted = true
				if strings.ContainsAny(p, "*?[") {
					b.glob = true
				}
			}
			continue
		}
		for _, b := range bs {
			b.sb.WriteString(f.val)
			b.taint(f)
			if f.val != "" || !f.known {
				b.quoted = true
			}
			if !noSplit && f.known && strings.ContainsAny(f.val, "*?[") {
				b.glob = true
			}
		}
	}
	return bs
}

// brace expands {a,b}; at the start of a word each alternative is
// tilde-expanded, as bash does after brace expansion ({~,/tmp} is $HOME /tmp).
func (a *analyzer) brace(c *ctx, st *state, x *syntax.BraceExp, bs []*builder, atStart bool) []*builder {
	var alts [][]*builder
	if x.Sequence {
		seq, ok := braceSeq(x)
		if !ok {
			f := unknownField("brace sequence is too long to expand")
			for _, b := range bs {
				b.taint(f)
			}
			return bs
		}
		for _, s := range seq {
			alts = append(alts, []*builder{{known: true, quoted: true}})
			alts[len(alts)-1][0].sb.WriteString(s)
		}
	} else {
		for _, e := range x.Elems {
			nb := []*builder{{known: true, quoted: true}}
			if e != nil {
				nb = a.parts(c, st, e.Parts, false, nb, false, atStart)
			}
			alts = append(alts, nb)
		}
	}
	var out []*builder
	for _, b := range bs {
		for _, alt := range alts {
			for _, ab := range alt {
				if len(out) >= maxFields {
					return out
				}
				nb := &builder{}
				nb.copyFrom(b)
				nb.sb.WriteString(ab.sb.String())
				nb.taint(field{known: ab.known, reason: ab.reason, subst: ab.subst, remote: ab.remote})
				nb.glob = nb.glob || ab.glob
				nb.quoted = true
				out = append(out, nb)
			}
		}
	}
	if len(out) == 0 {
		return bs
	}
	return out
}

func braceSeq(x *syntax.BraceExp) ([]string, bool) {
	if len(x.Elems) < 2 {
		return nil, false
	}
	from, to := x.Elems[0].Lit(), x.Elems[1].Lit()
	incr := 1
	if len(x.Elems) > 2 {
		n, err := strconv.Atoi(x.Elems[2].Lit())
		if err != nil || n == 0 {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		incr = n
	}
	var out []string
	if a, err1 := strconv.Atoi(from); err1 == nil {
		b, err2 := strconv.Atoi(to)
		if err2 != nil {
			return nil, false
		}
		if d := b - a; d > maxFields || -d > maxFields {
			return nil, false
		}
		if a <= b {
			for i := a; i <= b; i += incr {
				out = append(out, strconv.Itoa(i))
			}
		} else {
			for i := a; i >= b; i -= incr {
				out = append(out, strconv.Itoa(i))
			}
		}
		return out, true
	}
	if len(from) == 1 && len(to) == 1 {
		a, b := int(from[0]), int(to[0])
		if a <= b {
			for i := a; i <= b; i += incr {
				out = append(out, string(rune(i)))
			}
		} else {
			for i := a; i >= b; i -= incr {
				out = append(out, string(rune(i)))
			}
		}
		return out, true
	}
	return nil, false
}

func (a *analyzer) tilde(st *state, v string, bs []*builder) []*builder {
	name, rest := v[1:], ""
	if i := strings.IndexByte(v, '/'); i >= 0 {
		name, rest = v[1:i], v[i:]
	}
	restU, g := unescapeLit(rest)
	var f field
	switch name {
	case "":
		f = a.lookup(st, "HOME")
	case "+":
		f = a.lookup(st, "PWD")
	case "-":
		f = a.lookup(st, "OLDPWD")
	default:
		f = a.userHome(st, name)
	}
	for _, b := range bs {
		b.sb.WriteString(f.val)
		b.taint(f)
		b.sb.WriteString(restU)
		b.glob = b.glob || g
		b.quoted = true
	}
	return bs
}

// userHome is ~name: /root for root, else a sibling of $HOME named name
// (/home/dana -> /home/bob, /Users/eve -> /Users/bob), the usual layout.
// Another user's home is never the workspace nor a temp dir, so guessing the
// layout can only place it among other users' files.
func (a *analyzer) userHome(st *state, name string) field {
	if name == "root" {
		return lit("/root")
	}
	h := a.lookup(st, "HOME")
	if !validUser(name) || !h.known || !strings.HasPrefix(h.val, "/") || h.val == "/" || path.Dir(h.val) == "/" && path.Base(h.val) == "root" {
		return unknownField("home directory of ~" + name + " is not known at check time")
	}
	return lit(path.Join(path.Dir(h.val), name))
}

func validUser(n string) bool {
	if n == "" || len(n) > 32 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// positional returns $@ (or $* joined).
func (a *analyzer) positional(st *state, star bool) []field {
	if !st.posKnown {
		return []field{unknownField("positional parameters are not known at check time")}
	}
	if len(st.pos) <= 1 {
		return nil
	}
	vals := st.pos[1:]
	if star {
		f := lit("")
		parts := make([]string, 0, len(vals))
		for _, v := range vals {
			parts = append(parts, v.val)
			if !v.known {
				f = v
			}
		}
		if f.known {
			f.val = strings.Join(parts, " ")
		}
		return []field{f}
	}
	return vals
}

// lookup returns the value of variable name.
func (a *analyzer) lookup(st *state, name string) field {
	name = derefName(st, name)
	if v, ok := st.vars[name]; ok {
		if v.unset {
			return lit("")
		}
		return v.f
	}
	own := st.ctr != nil && st.ctr.ownEnv
	switch name {
	case "HOME":
		if a.opts.Home != "" && !own {
			return lit(a.opts.Home)
		}
	case "PWD":
		if st.dir != "" {
			return lit(st.dir)
		}
		return unknownField(st.dirWhy)
	}
	if v, ok := a.opts.Env[name]; ok && !own {
		return lit(v)
	}
	if len(name) > 0 && name[0] >= '0' && name[0] <= '9' {
		if n, err := strconv.Atoi(name); err == nil && st.posKnown {
			if n < len(st.pos) {
				return st.pos[n]
			}
			return lit("")
		}
		return unknownField("positional parameter $" + name + " is not known at check time")
	}
	return unknownField("variable $" + name + " is not known at check time")
}

// isSet reports whether name is known to be set (true, true), known to be
// unset (false, true) or unknown.
func (a *analyzer) isSet(st *state, name string) (set, known bool) {
	name = derefName(st, name)
	if v, ok := st.vars[name]; ok {
		if v.unset {
			return false, true
		}
		if v.f.known {
			return true, true
		}
		return false, false
	}
	own := st.ctr != nil && st.ctr.ownEnv
	switch name {
	case "HOME":
		if a.opts.Home != "" && !own {
			return true, true
		}
	case "PWD":
		return true, true
	}
	if _, ok := a.opts.Env[name]; ok && !own {
		return true, true
	}
	if len(name) > 0 && name[0] >= '0' && name[0] <= '9' && st.posKnown {
		n, err := strconv.Atoi(name)
		return err == nil && n < len(st.pos), true
	}
	return false, false
}

// digitParams are the parameters bash always expands to a non-empty
// string of digits (a process id, a counter, a random number, a status);
// $! is not one (empty before the first background job).
var digitParams = map[string]bool{"$": true, "?": true, "RANDOM": true, "SRANDOM": true, "LINENO": true, "SECONDS": true,
	"BASHPID": true, "EPOCHSECONDS": true, "PPID": true, "UID": true, "EUID": true}

// digitsStandIn is the value a digit-only parameter is analysed as.
const digitsStandIn = "4242"

func (a *analyzer) param(c *ctx, st *state, x *syntax.ParamExp, quoted bool) []field {
	if x.Param == nil {
		return []field{unknownField("unsupported parameter expansion")}
	}
	name := derefName(st, x.Param.Value)
	if v, ok := st.vars[name]; ok && len(v.carries) > 0 && len(a.carried) < maxCarries {
		a.carried = append(a.carried, v.carries...)
	}
	switch {
	case x.Excl:
		// ${!x}: the variable x names, when x holds a known name
		if x.Index == nil && x.Names == 0 && x.Exp == nil && x.Slice == nil && x.Repl == nil && !x.Length {
			if t := refTarget(a.lookup(st, name)); t != "" {
				return a.param(c, st, &syntax.ParamExp{Param: &syntax.Lit{Value: t}}, quoted)
			}
		}
		return []field{unknownField("indirect expansion ${!" + name + "} is not known at check time")}
	case x.Index != nil:
		if vs, ok := a.arrayParam(st, name, x, quoted); ok {
			return vs
		}
		a.arithVars(c, st, &syntax.ArithmExp{X: x.Index})
		return []field{unknownField("array element ${" + name + "[...]} is not known at check time")}
	}
	a.promptExpand(c, st, x)
	switch name {
	case "@", "*":
		if x.Exp == nil && !x.Length {
			if quoted {
				return a.positional(st, true)
			}
			return a.positional(st, false)
		}
		return []field{unknownField("positional parameters are not known at check time")}
	case "?", "$", "!", "#", "-", "_", "RANDOM", "SRANDOM", "LINENO", "SECONDS", "BASHPID", "EPOCHREALTIME", "EPOCHSECONDS", "PPID", "UID", "EUID":
		if name == "#" && st.posKnown {
			return []field{lit(strconv.Itoa(max(len(st.pos)-1, 0)))}
		}
		// (assigning one seeds or resets it, or fails: still digits)
		if digitParams[name] && x.Exp == nil && x.Slice == nil && x.Repl == nil && len(x.Modifiers) == 0 && x.Names == 0 && !x.Length {
			// always a non-empty string of digits: a path built from it
			// (/tmp/scratch.$$) cannot leave its directory, so any
			// digits stand for it
			return []field{lit(digitsStandIn)}
		}
		if name == "PPID" || name == "UID" || name == "EUID" {
			break
		}
		return []field{unknownField("special parameter $" + name + " is not known at check time")}
	}
	v := a.lookup(st, name)
	if sv, ok := a.secretParam(st, name, x, v); ok {
		return []field{sv}
	}
	if x.Length {
		if v.known {
			return []field{lit(strconv.Itoa(utf8.RuneCountInString(v.val)))}
		}
		return []field{unknownField(v.reason)}
	}
	if x.Slice != nil && x.Repl == nil && len(x.Modifiers) == 0 && x.Names == 0 && v.known {
		// ${HOME:0:100}, ${x: -3}: a substring at known offsets
		if r, ok := slice(v.val, x.Slice, st); ok {
			return []field{lit(r)}
		}
	}
	if x.Slice != nil || x.Repl != nil || len(x.Modifiers) > 0 || x.Names != 0 {
		if x.Repl != nil && v.known {
			if r, ok := a.replace(c, st, v.val, x.Repl); ok {
				return []field{lit(r)}
			}
		}
		if v.known {
			return []field{unknownField("expansion of $" + name + " is not evaluated")}
		}
		return []field{v}
	}
	if x.Exp == nil {
		return []field{v}
	}
	set, known := a.isSet(st, name)
	empty := known && set && v.known && v.val == ""
	colon := false
	switch x.Exp.Op {
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull, syntax.AlternateUnsetOrNull, syntax.ErrorUnsetOrNull:
		colon = true
	}
	useWord := func() field {
		if x.Exp.Word == nil {
			return lit("")
		}
		return a.wordString(c, st, x.Exp.Word)
	}
	switch x.Exp.Op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
		// an unknown variable takes its default: the default is what a
		// fresh environment gives and is the value that matters most.
		if (known && set && !(colon && empty)) || (!known && v.known) {
			return []field{v}
		}
		d := useWord()
		if x.Exp.Op == syntax.AssignUnset || x.Exp.Op == syntax.AssignUnsetOrNull {
			st.vars[name] = variable{f: d}
		}
		return []field{d}
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		if known && (!set || (colon && empty)) {
			return []field{lit("")}
		}
		if known {
			return []field{useWord()}
		}
		return []field{unknownField("whether $" + name + " is set is not known at check time")}
	case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
		return []field{v}
	case syntax.RemSmallPrefix, syntax.RemLargePrefix, syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if !v.known {
			return []field{v}
		}
		pat := useWord()
		if !pat.known {
			return []field{unknownField(pat.reason)}
		}
		if r, ok := trim(v.val, pat.val, x.Exp.Op); ok {
			return []field{lit(r)}
		}
		return []field{unknownField("pattern removal on $" + name + " is not evaluated")}
	case syntax.UpperFirst, syntax.UpperAll, syntax.LowerFirst, syntax.LowerAll:
		if !v.known || v.val == "" {
			return []field{v}
		}
		switch x.Exp.Op {
		case syntax.UpperAll:
			return []field{lit(strings.ToUpper(v.val))}
		case syntax.LowerAll:
			return []field{lit(strings.ToLower(v.val))}
		case syntax.UpperFirst:
			return []field{lit(strings.ToUpper(v.val[:1]) + v.val[1:])}
		default:
			return []field{lit(strings.ToLower(v.val[:1]) + v.val[1:])}
		}
	}
	if v.known {
		return []field{unknownField("expansion of $" + name + " is not evaluated")}
	}
	return []field{v}
}

func (a *analyzer) replace(c *ctx, st *state, val string, r *syntax.Replace) (string, bool) {
	if r.Orig == nil {
		return "", false
	}
	o := a.wordString(c, st, r.Orig)
	w := lit("")
	if r.With != nil {
		w = a.wordString(c, st, r.With)
	}
	if !o.known || !w.known || o.val == "" || strings.ContainsAny(o.val, "*?[#%") {
		return "", false
	}
	if r.All {
		return strings.ReplaceAll(val, o.val, w.val), true
	}
	return strings.Replace(val, o.val, w.val, 1), true
}

// trim implements ${v#p}, ${v##p}, ${v%p} and ${v%%p}.
func trim(val, pat string, op syntax.ParExpOperator) (string, bool) {
	expr, err := pattern.Regexp(pat, pattern.EntireString)
	if err != nil {
		return "", false
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	n := len(val)
	switch op {
	case syntax.RemSmallPrefix:
		for i := 0; i <= n; i++ {
			if re.MatchString(val[:i]) {
				return val[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := n; i >= 0; i-- {
			if re.MatchString(val[:i]) {
				return val[i:], true
			}
		}
	case syntax.RemSmallSuffix:
		for i := n; i >= 0; i-- {
			if re.MatchString(val[i:]) {
				return val[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= n; i++ {
			if re.MatchString(val[i:]) {
				return val[:i], true
			}
		}
	}
	return val, true
}

// cmdSubst analyses $(...) and folds the few outputs that are known.
func (a *analyzer) cmdSubst(c *ctx, st *state, x *syntax.CmdSubst) field {
	start := len(a.out.Commands)
	sub := st.clone()
	a.stmts(c.withVia("$()"), sub, x.Stmts)
	if len(a.carried) < maxCarries {
		a.carried = carriesOf(a.carried, a.out.Commands[start:])
	}
	f := unknownField("output of command substitution is not known at check time")
	f.subst = true
	for i := start; i < len(a.out.Commands); i++ {
		if ss := a.meta[i].secrets; len(ss) > 0 && f.sec == nil {
			f.sec = &secretRef{name: ss[0]} // $(echo $TOKEN | base64)
		}
		if isFetcher(&a.out.Commands[i]) {
			f.remote = true
			f.reason = "output of command substitution comes from the network"
		}
	}
	if f.remote {
		return f
	}
	if out, ok := a.quietThenPrint(start, x); ok {
		return out // $(cd ~ && pwd), $(cd /x; echo y)
	}
	if len(x.Stmts) != 1 || !inputOnly(x.Stmts[0].Redirs) {
		return f
	}
	if b, ok := x.Stmts[0].Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		if out, ok := a.pipeOut[b]; ok && out.literal {
			return field{val: strings.TrimRight(out.text, "\n"), known: true, subst: true}
		}
		if out, ok := a.pipeOut[b]; ok && out.paths != nil {
			return substPaths(*out.paths)
		}
		return f
	}
	if len(a.out.Commands)-start != 1 {
		return f
	}
	cm, m := a.out.Commands[start], a.meta[start]
	if !m.argsKnown {
		return f
	}
	if m.prints != nil {
		return substPaths(*m.prints) // $(find ROOT -name N)
	}
	if cm.Name == "pwd" {
		if cm.Dir != "" {
			return field{val: cm.Dir, known: true, subst: true}
		}
		return f
	}
	if ce, ok := x.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(ce.Assigns) == 0 && len(cm.Via) == len(c.via)+1 {
		if d, ok := a.cacheDir(sub, cm.Argv); ok {
			d.subst = true
			return d // $(go env GOCACHE), $(pip cache dir)
		}
	}
	if out, ok := literalOutput(a.out.Commands[start:start+1], a.meta[start:start+1], a.opts.Env); ok {
		return field{val: strings.TrimRight(out, "\n"), known: true, subst: true}
	}
	if digitsOutput(cm.Argv) {
		return field{val: digitsStandIn, known: true, subst: true}
	}
	return f
}

// digitsOutput reports whether a command prints only digits (and the
// separators of its own format: - _ . :), never a slash: date +FORMAT of
// numeric fields, id -u/-g, nproc. A path built from its output
// (/tmp/run-$(date +%s).log) stays in its directory, as with $$.
func digitsOutput(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch argv[0] {
	case "nproc":
		return len(argv) == 1
	case "id":
		return len(argv) == 2 && (argv[1] == "-u" || argv[1] == "-g" || argv[1] == "-ru" || argv[1] == "-rg")
	case "date":
		if len(argv) < 2 {
			return false
		}
		fmtArg := ""
		for _, a := range argv[1:] {
			switch {
			case strings.HasPrefix(a, "+"):
				fmtArg = a[1:]
			case a == "-u" || a == "--utc" || a == "-R":
				if a == "-R" {
					return false
				}
			default:
				return false // -d STRING, -r FILE: other dates, same digits, but keep it simple
			}
		}
		if fmtArg == "" {
			return false
		}
		for i := 0; i < len(fmtArg); i++ {
			ch := fmtArg[i]
			if ch == '%' {
				i++
				if i >= len(fmtArg) || !strings.ContainsRune("YmdHMSsjuwyNeklFTRVGgCIq%", rune(fmtArg[i])) {
					return false
				}
				continue
			}
			if !(ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '-' || ch == '_' || ch == '.' || ch == ':') {
				return false
			}
		}
		return true
	}
	return false
}

// inputOnly reports whether redirections only feed stdin or silence stderr,
// so the command's output is still what $(...) captures.
func inputOnly(rs []*syntax.Redirect) bool {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		default:
			if r.N == nil || r.N.Value != "2" {
				return false
			}
		}
	}
	return true
}

// unescapeLit removes unquoted backslash escapes and reports unescaped
// glob characters.
func unescapeLit(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[") {
		return s, false
	}
	var b strings.Builder
	glob := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch == '\\' {
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		}
		if ch == '*' || ch == '?' || ch == '[' {
			glob = true
		}
		b.WriteByte(ch)
	}
	return b.String(), glob
}

// unescapeDQ removes the backslash escapes that double quotes honour.
func unescapeDQ(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				b.WriteByte(s[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the body of a $'...' string.
func ansiC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case '\\', '\'', '"', '?':
			b.WriteByte(ch)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			maxd := 2
			switch ch {
			case 'u':
				maxd = 4
			case 'U':
				maxd = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < maxd && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if ch == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		default:
			if ch >= '0' && ch <= '7' {
				j := i
				for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// arith evaluates simple literal arithmetic.
func arith(e syntax.ArithmExpr, st *state) (int, bool) {
	switch x := e.(type) {
	case *syntax.Word:
		s := x.Lit()
		if n, err := strconv.Atoi(s); err == nil {
			return n, true
		}
		if v, ok := st.vars[s]; ok && v.f.known {
			n, err := strconv.Atoi(v.f.val)
			return n, err == nil
		}
	case *syntax.ParenArithm:
		return arith(x.X, st)
	case *syntax.BinaryArithm:
		l, ok1 := arith(x.X, st)
		r, ok2 := arith(x.Y, st)
		if !ok1 || !ok2 {
			return 0, false
		}
		switch x.Op {
		case syntax.Add:
			return l + r, true
		case syntax.Sub:
			return l - r, true
		case syntax.Mul:
			return l * r, true
		case syntax.Quo:
			if r != 0 {
				return l / r, true
			}
		}
	}
	return 0, false
}

// slice evaluates ${v:offset:length} when the offsets are known numbers.
func slice(v string, sl *syntax.Slice, st *state) (string, bool) {
	if sl.Offset == nil {
		return "", false
	}
	off, ok := arith(sl.Offset, st)
	if !ok {
		return "", false
	}
	n := len(v)
	if off < 0 {
		off = max(n+off, 0)
	}
	if off > n {
		return "", true
	}
	end := n
	if sl.Length != nil {
		l, ok := arith(sl.Length, st)
		if !ok {
			return "", false
		}
		if l < 0 {
			end = max(n+l, off)
		} else {
			end = min(off+l, n)
		}
	}
	return v[off:end], true
}

// arrayParam expands an element or all the elements of a tracked array:
// ${a[@]}, ${a[*]}, ${a[1]}, ${#a[@]}.
func (a *analyzer) arrayParam(st *state, name string, x *syntax.ParamExp, quoted bool) ([]field, bool) {
	v, ok := st.vars[name]
	if !ok || !v.isArr || x.Exp != nil || x.Slice != nil || x.Repl != nil || x.Names != 0 || x.Excl {
		return nil, false
	}
	if w, ok := x.Index.(*syntax.Word); ok && len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && (l.Value == "@" || l.Value == "*") {
			if x.Length {
				return []field{lit(strconv.Itoa(len(v.arr)))}, true
			}
			if l.Value == "*" && quoted {
				return []field{joinFields(v.arr, ifsOf(st))}, true
			}
			return append([]field(nil), v.arr...), true
		}
	}
	i, ok := arith(x.Index, st)
	if !ok {
		return nil, false
	}
	if i < 0 {
		i += len(v.arr)
	}
	f := lit("")
	if i >= 0 && i < len(v.arr) {
		f = v.arr[i]
	}
	if x.Length {
		if !f.known {
			return nil, false
		}
		return []field{lit(strconv.Itoa(utf8.RuneCountInString(f.val)))}, true
	}
	return []field{f}, true
}

// joinFields joins fields with the first character of ifs, as "${a[*]}".
func joinFields(fs []field, ifs string) field {
	sep := ""
	if ifs != "" {
		sep = ifs[:1]
	}
	out := field{known: true}
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		if !f.known {
			return unknownField(f.reason)
		}
		parts = append(parts, f.val)
	}
	out.val = strings.Join(parts, sep)
	return out
}

// splitFields splits each known field on the characters of ifs, as an
// unquoted ${a[@]} is split.
func splitFields(fs []field, ifs string) []field {
	var out []field
	for _, f := range fs {
		if !f.known || ifs == "" || !strings.ContainsAny(f.val, ifs) {
			out = append(out, f)
			continue
		}
		for _, p := range strings.FieldsFunc(f.val, func(r rune) bool { return strings.ContainsRune(ifs, r) }) {
			g := f
			g.val = p
			out = append(out, g)
		}
	}
	return out
}

// quietThenPrint is the output of a command substitution whose commands
// print nothing but the last, which prints a known value: cd ~ && pwd
// prints the directory it moved to, cd x; echo y prints y.
func (a *analyzer) quietThenPrint(start int, x *syntax.CmdSubst) (field, bool) {
	cmds := a.out.Commands[start:]
	if len(cmds) < 2 || len(cmds) > 8 {
		return field{}, false
	}
	for _, s := range x.Stmts {
		if !inputOnly(s.Redirs) || s.Background {
			return field{}, false
		}
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && b.Op != syntax.AndStmt {
			return field{}, false // a pipe or ||: the output is not just the last command's
		}
	}
	for _, cm := range cmds[:len(cmds)-1] {
		switch cm.Name {
		case "cd", "export", "set", "shopt", "true", ":", "unset", "local", "umask":
		default:
			return field{}, false
		}
	}
	last, m := cmds[len(cmds)-1], a.meta[len(a.meta)-1]
	if last.Name == "pwd" && last.Dir != "" && len(last.Argv) == 1 {
		return field{val: last.Dir, known: true, subst: true}, true
	}
	if out, ok := literalOutput(cmds[len(cmds)-1:], []cmdMeta{m}, a.opts.Env); ok {
		return field{val: strings.TrimRight(out, "\n"), known: true, subst: true}, true
	}
	return field{}, false
}

// secretRef names the secret-named variable (GITHUB_TOKEN) whose value a
// field holds; partial is the field's text with the unknown parts left
// out (https://x.example/?k=), enough to see the host it goes to.
type secretRef struct {
	name, partial string
}

// secretName is the secret variable f holds, or "".
func (f field) secretName() string {
	if f.sec == nil {
		return ""
	}
	return f.sec.name
}
