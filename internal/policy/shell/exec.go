package shell

import (
	"net/url"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// runOpts carry what a statement adds to the command it runs.
type runOpts struct {
	sp   span
	env  map[string]field // per-command assignments (VAR=x cmd, env VAR=x)
	effs []Effect         // effects of the statement's redirections
	tags []string
	// carries are the reads whose content the command's words hold
	// (through $(…) or variables set from one): see flow.
	carries []Effect
}

// call is one command being analysed.
type call struct {
	a       *analyzer
	c       *ctx
	st      *state
	argv    []field
	args    []field // argv[1:]
	name    string
	ro      runOpts
	cmd     Command
	meta    cmdMeta
	later   []func()
	wrapper bool // a pure wrapper: dropped when it has no effects of its own
	// bufWrite is set when an editor's commands write the files it edits
	// (vim -c wq, ex -sc '%d|x')
	bufWrite bool
	// edited are the files an editor edits: its buffer, which :w !cmd
	// hands to cmd
	edited []field
	// codeOps are the operands given after an interpreter's inline code
	// (python3 -c CODE a b: sys.argv[1:]), and codeVars the variables
	// set for it from the command line (awk -v f=…), which the code reads
	// as values (see codeargs.go)
	codeOps  []field
	codeVars map[string]field
}

func (a *analyzer) callExpr(c *ctx, st *state, s *syntax.Stmt, ce *syntax.CallExpr) {
	mark := len(a.carried)
	defer func() { a.carried = a.carried[:min(mark, len(a.carried))] }()
	if len(ce.Args) == 0 {
		for _, as := range ce.Assigns {
			a.assign(c, st, as, false)
			if len(a.carried) > mark && as.Name != nil {
				if v, ok := st.vars[as.Name.Value]; ok {
					v.carries = append([]Effect(nil), a.carried[mark:]...)
					st.vars[as.Name.Value] = v
				}
				a.carried = a.carried[:mark]
			}
			a.hookVar(c, st, s, as)
		}
		a.redirectOnly(c, st, s)
		return
	}
	var env map[string]field
	for _, as := range ce.Assigns {
		if as.Name == nil {
			continue
		}
		if env == nil {
			env = map[string]field{}
		}
		env[as.Name.Value] = a.assignValue(c, st, as)
	}
	argv := a.words(c, st, ce.Args)
	effs, tags, in, hasIn := a.redirs(c, st, s.Redirs)
	cc := c
	if hasIn {
		cc = c.withStdin(in)
	}
	start := len(a.out.Commands)
	var carries []Effect
	if len(a.carried) > mark {
		carries = append(carries, a.carried[mark:]...)
	}
	a.run(cc, st, argv, runOpts{sp: stmtSpan(s), env: env, effs: effs, tags: tags, carries: carries})
	a.recordWritten(st, s.Redirs, start)
}

func (a *analyzer) assignValue(c *ctx, st *state, as *syntax.Assign) field {
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				a.word(c, st, e.Value, true)
			}
		}
		return unknownField("array variable $" + as.Name.Value + " is not tracked")
	}
	if as.Index != nil {
		a.substs(c, st, as.Index)
	}
	if as.Value == nil {
		return lit("")
	}
	f := a.wordString(c, st, as.Value)
	if as.Index != nil {
		return unknownField("array variable $" + as.Name.Value + " is not tracked")
	}
	return f
}

func (a *analyzer) assign(c *ctx, st *state, as *syntax.Assign, exported bool) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	if as.Array != nil && as.Index == nil {
		if a.assignArray(c, st, as, exported) {
			return
		}
	}
	f := a.assignValue(c, st, as)
	if v, ok := st.vars[name]; ok && v.nameref {
		if v.ref == "" {
			// the first assignment to a name reference names its variable
			v.ref = refTarget(f)
			if v.ref == "" {
				v.nameref, v.f = false, unknownField("the variable a name reference stands for is not known at check time")
			}
			st.vars[name] = v
			return
		}
		name = derefName(st, name) // r=/x assigns the variable r stands for
	}
	if as.Append {
		old := a.lookup(st, name)
		if old.known && f.known {
			f = field{val: old.val + f.val, known: true}
		} else if f.known {
			f = old
		}
	}
	old, had := st.vars[name]
	st.vars[name] = variable{f: f, exported: exported || (had && old.exported)}
}

// hookVar judges an assignment to a variable whose value the shell runs
// later on its own: PROMPT_COMMAND (code run before every prompt) as that
// code, and the prompts PS0-PS4 (expanded, command substitutions
// included, each time they are shown) as the double-quoted word they are.
// Setting one is running what it holds, as if by eval.
func (a *analyzer) hookVar(c *ctx, st *state, s *syntax.Stmt, as *syntax.Assign) {
	if as.Name == nil || as.Naked {
		return
	}
	name := as.Name.Value
	code := a.lookup(st, name)
	if as.Append && as.Value != nil {
		// what was there before was judged when it was set (or is the
		// user's own); the part added is what is new
		code = a.wordString(c, st, as.Value)
		if code.known {
			code.val = strings.TrimLeft(code.val, "; \t\n") // "; next" joins the old value
		}
	}
	if a.programVar(c, st, stmtSpan(s), name, code) {
		return
	}
	switch name {
	case "PROMPT_COMMAND":
	case "PS0", "PS1", "PS2", "PS3", "PS4":
		if code.known {
			code = lit(`: "` + strings.ReplaceAll(strings.ReplaceAll(code.val, `\`, `\\`), `"`, `\"`) + `"`)
		}
	default:
		return
	}
	if as.Array != nil {
		code = unknownField("$" + as.Name.Value + " set as an array")
	}
	a.run(c, st, []field{lit("eval"), code}, runOpts{sp: stmtSpan(s)})
}

func (a *analyzer) declClause(c *ctx, st *state, s *syntax.Stmt, x *syntax.DeclClause) {
	variant := ""
	if x.Variant != nil {
		variant = x.Variant.Value
	}
	exported := variant == "export"
	nameref := false
	argv := []string{variant}
	for _, as := range x.Args {
		if as.Name == nil && as.Value != nil {
			o := a.wordString(c, st, as.Value)
			argv = append(argv, o.val)
			if strings.HasPrefix(o.val, "-") && strings.Contains(o.val, "x") {
				exported = true
			}
			if strings.HasPrefix(o.val, "-") && !strings.HasPrefix(o.val, "--") && strings.Contains(o.val, "n") && variant != "export" {
				nameref = true // declare -n, local -n, typeset -n: a name reference
			}
			if variant == "export" && o.val == "-n" {
				exported = false
			}
		}
	}
	for _, as := range x.Args {
		if as.Name == nil {
			continue
		}
		argv = append(argv, c.text(nodeSpan(as)))
		if nameref {
			a.declareRef(c, st, as)
			continue
		}
		if as.Naked {
			if v, ok := st.vars[as.Name.Value]; ok {
				v.exported = v.exported || exported
				st.vars[as.Name.Value] = v
			} else if variant == "local" || variant == "declare" || variant == "typeset" {
				st.vars[as.Name.Value] = variable{f: lit(""), exported: exported}
			} else if exported {
				st.vars[as.Name.Value] = variable{f: a.lookup(st, as.Name.Value), exported: true}
			}
			continue
		}
		a.assign(c, st, as, exported)
		a.hookVar(c, st, s, as)
	}
	effs, tags, _, _ := a.redirs(c, st, s.Redirs)
	cm := Command{Name: variant, Argv: argv, Dir: st.dir, Span: c.mkSpan(stmtSpan(s)), Via: c.via, Effects: effs}
	for _, t := range tags {
		cm.Tags = addTag(cm.Tags, t)
	}
	start := len(a.out.Commands)
	a.add(st, cm, cmdMeta{argsKnown: true})
	a.recordWritten(st, s.Redirs, start) // export -p > f holds the environment
}

// redirs evaluates redirections: their file effects, tags, and what
// standard input carries.
func (a *analyzer) redirs(c *ctx, st *state, rs []*syntax.Redirect) (effs []Effect, tags []string, in stdinInfo, hasIn bool) {
	for _, r := range rs {
		if r == nil {
			continue
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			hasIn = true
			in = a.hdoc(c, st, r)
			continue
		case syntax.WordHdoc:
			hasIn = true
			if r.Word == nil {
				continue
			}
			f := a.wordString(c, st, r.Word)
			in = stdinInfo{what: "here-string"}
			if n := f.secretName(); n != "" {
				in.secrets = []string{n}
			}
			switch {
			case f.remote:
				in.remote = true
			case f.known:
				in.literal, in.text = true, f.val+"\n"
			default:
				in.dynamic = true
				in.what = f.reason
			}
			continue
		}
		if r.Word == nil {
			continue
		}
		f := a.wordString(c, st, r.Word)
		switch r.Op {
		case syntax.RdrIn:
			hasIn = true
			in = stdinInfo{what: "file"}
			if f.proc && f.remote {
				in.remote = true
				in.what = "process substitution"
			} else if f.proc {
				in.opaque = "the output of a process substitution"
			}
			if e, ok := a.target(st, Read, f, false); ok {
				effs = append(effs, e)
			}
		case syntax.DplIn:
			// <&N duplicates a descriptor
		case syntax.DplOut:
			if f.known && (isDigits(f.val) || f.val == "-" || isDigits(strings.TrimSuffix(f.val, "-"))) {
				continue
			}
			effs, tags = a.appendWrite(st, effs, tags, f)
		case syntax.RdrInOut:
			if e, ok := a.target(st, Read, f, false); ok {
				effs = append(effs, e)
			}
			effs, tags = a.appendWrite(st, effs, tags, f)
		default: // >, >>, >|, &>, &>>
			effs, tags = a.appendWrite(st, effs, tags, f)
		}
	}
	return effs, tags, in, hasIn
}

func (a *analyzer) appendWrite(st *state, effs []Effect, tags []string, f field) ([]Effect, []string) {
	e, ok := a.target(st, Write, f, false)
	if !ok {
		return effs, tags
	}
	if isDiskDevice(e.Target) {
		tags = addTag(tags, TagDiskWrite)
	}
	return append(effs, e), tags
}

// hdoc returns what a here-document feeds to standard input.
func (a *analyzer) hdoc(c *ctx, st *state, r *syntax.Redirect) stdinInfo {
	in := stdinInfo{what: "here-document"}
	if r.Hdoc == nil {
		in.literal = true
		return in
	}
	quoted := r.Word == nil
	if r.Word != nil {
		for _, p := range r.Word.Parts {
			switch x := p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				quoted = true
			case *syntax.Lit:
				if strings.Contains(x.Value, "\\") {
					quoted = true
				}
			}
		}
	}
	if quoted {
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
		in.literal, in.text = true, b.String()
		return in
	}
	bs := []*builder{{known: true}}
	bs = a.parts(c, st, r.Hdoc.Parts, true, bs, false, false)
	b := bs[0]
	if b.secret != "" {
		in.secrets = []string{b.secret}
	}
	switch {
	case b.remote:
		in.remote = true
	case b.known:
		in.literal, in.text = true, b.sb.String()
	default:
		in.dynamic = true
		in.what = "here-document with " + b.reason
	}
	return in
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// target resolves a field into a file effect. ok is false when the field
// names no file (empty, "-", pseudo devices, process substitutions).
func (a *analyzer) target(st *state, kind Kind, f field, rec bool) (Effect, bool) {
	e := Effect{Kind: kind, Recursive: rec}
	if f.proc {
		return e, false
	}
	if f.tmpl && f.bind != nil {
		if g, ok := tmplGlob(f); ok && kind == Read {
			// a read is judged on the names it can reach; a delete or
			// write stays unknown (the item may climb out with "..")
			f = g
		} else {
			f = *f.bind
		}
	}
	if !f.known {
		e.Unknown = true
		e.Reason = f.reason
		if e.Reason == "" {
			e.Reason = "target is not known at check time"
		}
		return e, true
	}
	v := f.val
	if v == "" || v == "-" {
		return e, false
	}
	if f.under {
		e.Recursive = true
		e.Follow = f.follow
	}
	globRest := ""
	if f.glob {
		d := globDir(v)
		e.Reason = "glob " + v + " is not expanded; its directory is used"
		globRest = strings.TrimPrefix(v[len(d):], "/")
		v = d
		if v == "" {
			v = "."
		}
	}
	raw := v
	if !strings.HasPrefix(v, "/") {
		if st.dir == "" {
			e.Unknown = true
			e.Reason = "relative path " + v + " in an unknown directory: " + st.dirWhy
			return e, true
		}
		raw = st.dir + "/" + v
	}
	// /proc/self/root, /proc/self/cwd, /dev/fd/N/…: as the kernel takes them
	raw, ok := ProcPath(raw, st.dir)
	if !ok {
		e.Unknown, e.Reason = true, raw
		return e, true
	}
	abs := a.physical(raw)
	if len(a.links) > 0 {
		// a path below a link goes through it; so does a read of the
		// link itself (cat link reads the target; rm and ln act on the link)
		abs = a.throughLinks(abs, f.glob || strings.HasSuffix(v, "/") || strings.HasSuffix(v, "/.") || kind == Read)
	}
	if isPseudoDevice(abs) {
		return e, false
	}
	if strings.HasPrefix(abs, "/dev/tcp/") || strings.HasPrefix(abs, "/dev/udp/") {
		hp := strings.SplitN(abs[len("/dev/tcp/"):], "/", 2)
		e = Effect{Kind: Network, Target: strings.Join(hp, ":")}
		return e, true
	}
	e.Target = abs
	switch {
	case f.under && f.named && globRest != "":
		e.Glob = path.Join(abs, "**", globRest)
	case f.under && f.named:
		e.Glob = path.Join(path.Dir(abs), "**", path.Base(abs))
	case globRest != "":
		e.Glob = path.Join(abs, globRest)
	}
	return e, true
}

// tmplGlob is a path template whose item is not known (xargs -I{} cat
// ~/.ssh/{} with ls's output unknown) as the glob of the names it can
// take: the directory before the item is known, so ~/.ssh/* is what it
// reaches. ok is false when no directory is known before the item.
func tmplGlob(f field) (field, bool) {
	if f.bind.known || f.bind.remote {
		return field{}, false
	}
	marker := "${" + argVar + "}"
	i := strings.Index(f.val, marker)
	if i <= 0 || !strings.Contains(f.val[:i], "/") || strings.ContainsAny(f.val[:i], "$`") {
		return field{}, false
	}
	rest := f.val[i+len(marker):]
	if strings.ContainsAny(rest, "$`") {
		return field{}, false
	}
	g := f
	g.val, g.known, g.glob, g.tmpl, g.bind, g.reason = f.val[:i]+"*"+rest, true, true, false, nil, ""
	return g, true
}

// physical cleans the absolute path raw as the kernel resolves it (see
// KernelPath), with Options.Resolve.
func (a *analyzer) physical(raw string) string {
	return KernelPath(raw, a.opts.Resolve)
}

// KernelPath cleans the absolute path raw as the kernel resolves it: a ".."
// that follows a named component climbs from where that component really
// is (its symlink's target), which only resolve can know; without resolve
// (nil) the path is cleaned lexically. The last component is kept as
// written (rm of a link removes the link), unless it is "." or "..".
func KernelPath(raw string, resolve func(string) string) string {
	if resolve == nil || !climbsAfterName(raw) {
		return path.Clean(raw)
	}
	dir, base := path.Split(raw)
	if base == ".." || base == "." || base == "" {
		return path.Clean(resolve(raw)) // the whole path names a directory
	}
	return path.Join(resolve(dir), base)
}

// climbsAfterName reports whether p has a ".." component after a component
// that is a name (not "." or ".."), the case lexical cleaning gets wrong
// when that name is a symlink.
func climbsAfterName(p string) bool {
	named := false
	for p != "" {
		var c string
		c, p, _ = strings.Cut(p, "/")
		switch c {
		case "", ".":
		case "..":
			if named {
				return true
			}
		default:
			named = true
		}
	}
	return false
}

// throughLinks follows the symlinks made earlier in the line: a path below
// a link (or the link itself, when into says the path goes into it, as
// x/ and x/* do) is the same path below the link's target.
func (a *analyzer) throughLinks(abs string, into bool) string {
	for range maxLinkHops {
		best := ""
		for l := range a.links {
			if (strings.HasPrefix(abs, l+"/") || abs == l && into) && len(l) > len(best) {
				best = l
			}
		}
		if best == "" {
			return abs
		}
		t := a.links[best]
		delete(a.links, best) // a loop ends here
		abs = path.Clean(t + abs[len(best):])
		defer func(l, t string) { a.links[l] = t }(best, t)
	}
	return abs
}

const maxLinkHops = 8

// globDir returns the directory part of a glob before its first pattern.
func globDir(v string) string {
	i := strings.IndexAny(v, "*?[")
	if i < 0 {
		return v
	}
	j := strings.LastIndexByte(v[:i], '/')
	if j < 0 {
		return ""
	}
	if j == 0 {
		return "/"
	}
	return v[:j]
}

func isPseudoDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout",
		"/dev/stderr", "/dev/tty", "/dev/full", "/dev/ptmx", "/dev/console":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/pts/") ||
		strings.HasPrefix(p, "/proc/self/fd/")
}

// isDiskDevice reports whether p is a block device or raw memory.
func isDiskDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") {
		return false
	}
	n := p[len("/dev/"):]
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "dm-",
		"md", "loop", "sr", "nbd", "zd", "zram", "mem", "kmem", "port", "root", "block/", "by-", "ubd", "fd0", "bcache", "rbd"} {
		if strings.HasPrefix(n, pre) {
			return true
		}
	}
	// /dev/<vg>/<lv> style LVM names
	return strings.Count(n, "/") == 1 && !strings.HasPrefix(n, "shm/") && !strings.HasPrefix(n, "pts/") &&
		!strings.HasPrefix(n, "fd/") && !strings.HasPrefix(n, "mqueue/") && !strings.HasPrefix(n, "net/") &&
		!strings.HasPrefix(n, "input/") && !strings.HasPrefix(n, "snd/") && !strings.HasPrefix(n, "dri/")
}

func addTag(tags []string, t string) []string {
	for _, x := range tags {
		if x == t {
			return tags
		}
	}
	return append(tags, t)
}

// run analyses one command given its expanded argv.
func (a *analyzer) run(c *ctx, st *state, argv []field, ro runOpts) {
	if a.full {
		return
	}
	if len(argv) == 0 {
		if len(ro.effs) > 0 || len(ro.tags) > 0 {
			a.bare(c, st, ro.sp, ro.effs, ro.tags)
		}
		return
	}
	if f := argv[0]; f.known && f.glob && isGlobName(f.val) {
		if a.globProgram(c, st, argv, ro) {
			return
		}
	}
	k := a.newCall(c, st, argv, ro)
	a.model(k)
	k.toolPreloads()
	k.carryWrites()
	k.secretPrint()
	k.flow()
	k.secretEnv()
	a.finish(k)
}

func (a *analyzer) newCall(c *ctx, st *state, argv []field, ro runOpts) *call {
	k := &call{a: a, c: c, st: st, argv: argv, args: argv[1:], ro: ro}
	f := argv[0]
	k.meta.argsKnown = true
	k.meta.in = c.stdin
	av := make([]string, len(argv))
	for i, x := range argv {
		av[i] = x.text(c)
		if !x.known {
			k.meta.argsKnown = false
		}
	}
	k.cmd = Command{Argv: av, Dir: st.dir, Span: c.mkSpan(ro.sp), Via: c.via}
	k.cmd.Effects = append(k.cmd.Effects, ro.effs...)
	if len(a.copies) > 0 {
		for _, e := range ro.effs {
			if e.Kind == Read && !e.Unknown && e.Target != "" {
				k.cmd.Effects = append(k.cmd.Effects, a.viaCopies(e)...)
			}
		}
	}
	if st.remote != "" {
		k.attr("remote", st.remote)
	}
	for _, t := range ro.tags {
		k.tag(t)
	}
	if !f.known {
		k.cmd.Dynamic = true
		k.tag(TagDynamicCommand)
		k.attr("reason", f.reason)
		if f.remote {
			k.tag(TagRemoteExec)
			a.finding(TagRemoteExec, "the program to run comes from the network", k.cmd.Span)
		}
		return k
	}
	name := f.val
	if strings.Contains(name, "/") {
		if !isSystemBin(name) {
			k.file(Exec, f, false)
			if e, ok := a.target(st, Exec, f, false); ok && !e.Unknown && a.downloaded[e.Target] {
				k.remoteExec("runs " + e.Target + ", which was downloaded earlier in the command line")
			}
		}
		name = path.Base(name)
	}
	if f.subst {
		k.cmd.Dynamic = true
		k.tag(TagDynamicCommand)
		k.attr("reason", "the program name comes from a command substitution")
	}
	if a.forkBombs[name] {
		k.tag(TagForkBomb)
	}
	k.name = name
	k.cmd.Name = name
	k.cmd.Argv[0] = name
	return k
}

// isGlobName reports whether a program name is a glob pattern (r?, r[m],
// /???/r?), not just a name with a bracket like [ or [[.
func isGlobName(n string) bool {
	if _, err := path.Match(n, ""); err != nil {
		return false
	}
	return strings.ContainsAny(n, "*?") || strings.Contains(n, "[") && strings.Contains(n, "]")
}

// globPrograms are the programs a glob in a program name is matched
// against: the ones that can wreck or leak something.
var globPrograms = []string{"rm", "rmdir", "unlink", "shred", "mv", "cp", "dd", "chmod", "chown", "chgrp", "ln",
	"truncate", "tee", "find", "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node",
	"curl", "wget", "nc", "scp", "rsync", "tar", "git", "kill", "mkfs", "wipefs", "shutdown", "reboot", "sudo",
	"env", "xargs", "cat", "base64", "crontab", "eval"}

// globProgram analyses a command whose program name is a glob
// (/???/r? -rf /) as each program the glob can name; a glob that names
// none of them is a program not known at check time. It reports false
// when the caller should go on as usual.
func (a *analyzer) globProgram(c *ctx, st *state, argv []field, ro runOpts) bool {
	pat := path.Base(argv[0].val)
	var hits []string
	for _, n := range globPrograms {
		if ok, _ := path.Match(pat, n); ok {
			hits = append(hits, n)
		}
	}
	if len(hits) == 0 {
		f := argv[0]
		f.known, f.reason = false, "the program name is the glob "+argv[0].val
		av := append([]field{f}, argv[1:]...)
		k := a.newCall(c, st, av, ro)
		a.finish(k)
		return true
	}
	for _, n := range hits {
		av := append([]field(nil), argv...)
		av[0].val, av[0].glob = n, false
		a.run(c, st.clone(), av, ro)
	}
	return true
}

func isSystemBin(p string) bool {
	d := path.Dir(p)
	switch d {
	case "/bin", "/usr/bin", "/sbin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/opt/homebrew/bin", "/usr/libexec":
		return true
	}
	return false
}

func (a *analyzer) finish(k *call) {
	keep := !k.wrapper || len(k.cmd.Effects) > 0 || len(k.cmd.Tags) > 0 || printsEnv(&k.cmd) // env alone prints the environment
	if keep {
		if !a.add(k.st, k.cmd, k.meta) {
			return
		}
	}
	for _, f := range k.later {
		if a.full {
			return
		}
		f()
	}
}

// --- helpers used by program models ---

// keepsContent are programs whose writes change a file's metadata, not
// its content.
var keepsContent = map[string]bool{"chmod": true, "chown": true, "chgrp": true, "touch": true, "chattr": true, "setfacl": true}

func (k *call) eff(e Effect) {
	if (e.Kind == Write || e.Kind == Delete) && len(k.a.written) > 0 && !keepsContent[k.name] {
		// a file changed by a program no longer holds what was written
		if e.Unknown {
			k.a.written = nil
		} else {
			delete(k.a.written, e.Target)
		}
	}
	for _, x := range k.cmd.Effects {
		if x == e {
			return
		}
	}
	k.cmd.Effects = append(k.cmd.Effects, e)
	if len(k.a.copies) > 0 && !e.Unknown && e.Target != "" {
		switch e.Kind {
		case Read:
		copies:
			for _, c := range k.a.viaCopies(e) {
				for _, x := range k.cmd.Effects {
					if x.Kind == Read && x.Target == c.Target {
						continue copies
					}
				}
				k.cmd.Effects = append(k.cmd.Effects, c)
			}
		case Write:
			if !keepsContent[k.name] {
				delete(k.a.copies, e.Target) // it holds something else now
			}
		}
	}
}

// file adds a file effect on f.
func (k *call) file(kind Kind, f field, rec bool) {
	e, ok := k.a.target(k.st, kind, f, rec)
	if !ok {
		return
	}
	if kind == Write && isDiskDevice(e.Target) {
		k.tag(TagDiskWrite)
	}
	k.eff(e)
}

func (k *call) files(kind Kind, fs []field, rec bool) {
	for _, f := range fs {
		k.file(kind, f, rec)
	}
}

// net adds a Network effect on a URL or host.
func (k *call) net(f field) {
	if !f.known {
		k.eff(Effect{Kind: Network, Unknown: true, Reason: orDefault(f.reason, "address is not known at check time")})
		return
	}
	if f.val == "" {
		return
	}
	if p, ok := fileURL(f.val); ok {
		// file:///path is a read of the file, not the network
		k.file(Read, sub(f, p), false)
		return
	}
	k.eff(Effect{Kind: Network, Target: f.val})
}

// fileURL returns the path of a file:// URL (file:///etc/passwd,
// file://localhost/etc/passwd).
func fileURL(v string) (string, bool) {
	if len(v) < 7 || !strings.EqualFold(v[:7], "file://") {
		return "", false
	}
	rest := v[7:]
	if strings.HasPrefix(strings.ToLower(rest), "localhost/") {
		rest = rest[len("localhost"):]
	}
	if !strings.HasPrefix(rest, "/") {
		return "", false
	}
	if p, err := url.PathUnescape(rest); err == nil {
		rest = p
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (k *call) tag(t string) {
	k.cmd.Tags = addTag(k.cmd.Tags, t)
}

func (k *call) attr(key, val string) {
	if k.cmd.Attrs == nil {
		k.cmd.Attrs = map[string]string{}
	}
	k.cmd.Attrs[key] = val
}

func (k *call) remoteExec(reason string) {
	k.tag(TagRemoteExec)
	sp := k.cmd.Span
	if k.c.stdin.remote && k.c.stdin.pipeline != nil && k.c.outer == nil {
		sp = *k.c.stdin.pipeline
	}
	k.a.finding(TagRemoteExec, reason, sp)
}

func (k *call) dynamicExec(reason string) {
	k.tag(TagDynamicExec)
	k.a.finding(TagDynamicExec, reason, k.cmd.Span)
}

// innerSpan is the span of an inner command given its argv.
func innerSpan(argv []field, outer span) span {
	if len(argv) == 0 {
		return outer
	}
	sp := span{argv[0].pos, argv[len(argv)-1].end}
	if sp.end < sp.start || sp.start < outer.start || sp.end > outer.end {
		return outer
	}
	return sp
}

// inner schedules the analysis of a wrapped command.
func (k *call) inner(argv []field, via string, st *state, env map[string]field) {
	if len(argv) == 0 {
		return
	}
	if st == nil {
		st = k.st
	}
	c := k.c.withVia(via)
	ro := runOpts{sp: innerSpan(argv, k.ro.sp), env: mergeEnv(k.ro.env, env)}
	k.later = append(k.later, func() { k.a.run(c, st, argv, ro) })
}

func mergeEnv(a, b map[string]field) map[string]field {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	m := make(map[string]field, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// withDir returns a copy of the state whose directory is f (resolved).
func (k *call) withDir(f field) *state {
	st := k.st.clone()
	if e, ok := k.a.target(k.st, Read, f, false); ok && !e.Unknown {
		st.dir = e.Target
	} else {
		st.setDir("", "directory "+f.text(k.c)+" is not known at check time")
	}
	return st
}

// nested schedules the analysis of shell code given as a string. With
// same set (eval, source of literal), the code runs in the current shell
// state; otherwise in a child shell whose positional parameters are pos.
func (k *call) nested(code field, label string, pos []field, same bool) {
	if !code.known && !code.tmpl {
		if code.remote {
			k.remoteExec(label + " runs code fetched from the network")
		} else {
			k.dynamicExec(label + " runs code not known at check time: " + orDefault(code.reason, "dynamic content"))
		}
		return
	}
	if k.c.depth+1 > MaxDepth {
		k.dynamicExec(label + ": nested shells are too deep to analyse")
		return
	}
	f, err := parseShell(code.val)
	if err != nil {
		k.dynamicExec(label + " runs code that cannot be parsed: " + err.Error())
		return
	}
	c := &ctx{src: code.val, outer: k.c.outerFor(k.ro.sp), depth: k.c.depth + 1, stdin: k.c.stdin}
	c.via = append(append(make([]string, 0, len(k.c.via)+1), k.c.via...), label)
	cur := k.st // the state now: nestedIn may lend the call another one
	k.later = append(k.later, func() {
		st := cur
		if !same {
			st = cur.child(k.ro.env)
			st.posKnown = pos != nil
			st.pos = pos
		}
		if code.tmpl && code.bind != nil {
			st.vars[argVar] = variable{f: *code.bind}
		}
		k.a.stmts(c, st, f.Stmts)
	})
}

// declareRef declares a name reference (declare -n r=HOME): expansions of
// r are expansions of HOME, assignments to r assign HOME. Without a value
// (declare -n r) the first assignment names the variable.
func (a *analyzer) declareRef(c *ctx, st *state, as *syntax.Assign) {
	name := as.Name.Value
	if as.Naked || as.Value == nil {
		st.vars[name] = variable{nameref: true}
		return
	}
	f := a.assignValue(c, st, as)
	if t := refTarget(f); t != "" && t != name {
		st.vars[name] = variable{nameref: true, ref: t}
		return
	}
	st.vars[name] = variable{f: unknownField("the variable the name reference $" + name + " stands for is not known at check time")}
}

// refTarget is the variable name a name reference is given, or "".
func refTarget(f field) string {
	if !f.known || f.val == "" {
		return ""
	}
	for i, r := range f.val {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return ""
		}
	}
	return f.val
}

// derefName follows name references from name to the variable they stand
// for (a few steps at most: bash refuses loops).
func derefName(st *state, name string) string {
	for range 8 {
		v, ok := st.vars[name]
		if !ok || !v.nameref || v.ref == "" {
			return name
		}
		name = v.ref
	}
	return name
}

// maxArray bounds the elements of an array the analyser tracks.
const maxArray = 256

// assignArray assigns an indexed array from a list (a=(rm -rf ~/x),
// a+=(y)): its elements are expanded as words are, so "${a[@]}" later is
// those words. A list with explicit indexes or too many elements is not
// tracked. It reports whether it assigned.
func (a *analyzer) assignArray(c *ctx, st *state, as *syntax.Assign, exported bool) bool {
	name := derefName(st, as.Name.Value)
	var elems []field
	if old, ok := st.vars[name]; ok && as.Append {
		if !old.isArr {
			return false
		}
		elems = append(elems, old.arr...)
	}
	for _, e := range as.Array.Elems {
		if e.Index != nil || e.Value == nil {
			return false
		}
		elems = append(elems, a.word(c, st, e.Value, false)...)
		if len(elems) > maxArray {
			return false
		}
	}
	first := lit("")
	if len(elems) > 0 {
		first = elems[0]
	}
	old, had := st.vars[name]
	st.vars[name] = variable{f: first, arr: elems, isArr: true, exported: exported || had && old.exported}
	return true
}
