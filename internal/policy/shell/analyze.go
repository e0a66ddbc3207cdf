package shell

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep Analyze bounded on hostile input.
const (
	// MaxDepth is how deeply nested shells (bash -c, eval, heredocs fed to
	// a shell, watch, ...) are re-parsed; deeper code is reported as a
	// TagDynamicExec finding instead of being analysed.
	MaxDepth = 8
	// MaxCommands caps the number of commands one analysis reports; past it
	// the analysis stops and adds a TagDynamicExec finding.
	MaxCommands = 2000

	maxFields    = 256  // fields one word may expand to (brace expansion)
	maxSteps     = 5000 // statements visited (loops are unrolled per literal item)
	maxLoopItems = 16   // literal for-loop items analysed one by one
	maxFindRoots = 8    // find starting points expanded for -exec
)

// Analyze parses src as a shell command line and reports every command that
// would run with its effects, tags and cross-command findings. It does no
// I/O. It returns an error only when src cannot be parsed.
func Analyze(src string, opts Options) (res *Analysis, err error) {
	defer func() {
		// a bug must not take the gate down: report it as an error, which
		// callers treat as "cannot analyse" (fail-closed)
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("shell: internal error analysing command line: %v", r)
		}
	}()
	f, err := parseShell(src)
	if err != nil {
		return nil, fmt.Errorf("shell: cannot parse command line: %w", err)
	}
	a := &analyzer{
		opts: opts,
		out:  &Analysis{Commands: []Command{}},
	}
	st := a.initialState()
	c := &ctx{src: src}
	a.top = st
	a.stmts(c, st, f.Stmts)
	a.runExitTraps(st)
	return a.out, nil
}

// parseShell parses src in the bash dialect, falling back to mksh, which
// accepts a few constructs bash parsing rejects.
func parseShell(src string) (*syntax.File, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err == nil {
		return f, nil
	}
	if f2, err2 := syntax.NewParser(syntax.Variant(syntax.LangMirBSDKorn)).Parse(strings.NewReader(src), ""); err2 == nil {
		return f2, nil
	}
	return nil, err
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	opts       Options
	out        *Analysis
	full       bool              // MaxCommands or maxSteps reached
	steps      int               // statements visited
	downloaded map[string]bool   // files written by curl/wget in this line
	wardenBins map[string]bool   // warden binaries built in this line (go build -o X ./cmd/warden)
	written    map[string]string // files written earlier in the line with known content (echo x > f.sh)
	// filled are the files written earlier in the line by a redirection
	// of output that carries reads (env > f, cat ~/.aws/credentials > x,
	// git diff > p): file -> the reads its content holds, so a network
	// program that sends the file sends them (see flow).
	filled map[string][]Effect
	// globFilled says a key of filled is a glob (split's PREFIX*)
	globFilled bool
	// diskScripts counts the scripts read from disk (runDisk)
	diskScripts int
	meta        []cmdMeta       // parallel to out.Commands
	forkBombs   map[string]bool // functions found to be fork bombs
	funcs       map[string]bool // names of functions defined so far
	// pipeOut is the output of each pipeline analysed so far, when known
	// (echo … | base64 -d), for $(…) of a pipeline.
	pipeOut map[*syntax.BinaryCmd]stdinInfo
	// links are the symlinks made earlier in the line (ln -s T L): L -> T,
	// both absolute. The file system outlives subshells, so they are not
	// part of the state.
	links map[string]string
	// copies are the files made earlier in the line as copies of others
	// (cp, mv, install, dd, a local rsync, a hard link): copy -> source,
	// both absolute. A copy holds what its source held, so a read of the
	// copy (or of a path below a copied directory) reads the source too
	// (see viaCopies).
	copies map[string]string
	// loading are the python modules being run from files the line wrote
	// (import m of an m.py written earlier), so one that imports itself ends
	loading map[string]bool
	// top is the line's own shell state, exitTraps the EXIT traps set in
	// it, run when the line ends (p6_deferred.go)
	top       *state
	exitTraps []exitTrap
	// dirty are the manifests (package.json, setup.py, …) changed in the
	// line in a way not known at check time (p6_build.go)
	dirty map[string]bool
	// aliases defined so far (alias ls='rm -rf ~'), and those being expanded
	aliases, aliasBusy map[string]string
	// carried are the reads whose content command substitutions (and
	// variables holding their output) put into the words being expanded;
	// the command the words belong to takes them (runOpts.carries).
	carried []Effect
	// gitRemotes are the remotes added (or re-pointed) earlier in the
	// line: name -> URL.
	gitRemotes map[string]string
	// npmScripts are the package.json scripts set in the line (npm pkg set
	// scripts.x=...): name -> code; "*" when one was set to an unknown value
	npmScripts map[string]field
	// hashed are the names hash -p pointed at a file: name -> file
	hashed map[string]string
	// funcDefs are the functions defined so far, with the context their
	// body's positions refer to; funcBusy those being run (no recursion)
	funcDefs map[string]funcDef
	funcBusy map[string]bool
}

// funcDef is a function's body and the context it was written in.
type funcDef struct {
	c    *ctx
	body *syntax.Stmt
}

// cmdMeta is what the analyser remembers about a reported command.
type cmdMeta struct {
	argsKnown bool      // every argument was known
	in        stdinInfo // what its standard input carried
	prints    *field    // the paths it prints, when that is a known set (find ROOT -name N)
	secrets   []string  // the secret-named variables expanded into its words or fed to its stdin
}

// ctx is the lexical context a piece of code is analysed in.
type ctx struct {
	src   string   // text that positions refer to
	outer *Span    // span of the outermost command when inside nested code
	via   []string // wrappers and nestings, outermost first
	depth int      // nested-shell depth
	stdin stdinInfo
}

// stdinInfo describes what a command's standard input carries.
type stdinInfo struct {
	remote  bool   // content fetched from the network
	literal bool   // content known: text
	text    string // literal content
	dynamic bool   // content unknown at check time (here-doc with expansions)
	// opaque is set when the content is the output of a program the
	// analyser cannot evaluate (python3 -c 'print(…)' |, bash < <(…)):
	// not known, though nothing in it is marked dynamic. A shell or an
	// interpreter reading its program from it runs code not known.
	opaque string
	// partial is the text printed by the commands of the stage whose
	// output is known, when the whole is not ((crontab -l; echo
	// '* * * * * job') | crontab -): what is surely in the content.
	partial  string
	pipeline *Span  // where the content was produced (for findings)
	what     string // human description of the source
	// paths is set when the content is a list of paths of a known shape:
	// find ROOT -name N prints files called N below ROOT (a field with
	// under and named set), and filters (grep, head, sort) keep a subset.
	paths *field
	// carries are the reads whose content flows in: what earlier stages of
	// the pipeline read (cat ~/.bash_history | curl -d @- …), or the
	// environment (env | …), so a network program at the end sends them.
	carries []Effect
	// secrets are the secret-named variables whose values flow in (echo
	// "$TOKEN" | …, <<< "$TOKEN").
	secrets []string
}

func (c *ctx) withVia(v string) *ctx {
	n := *c
	n.via = append(append(make([]string, 0, len(c.via)+1), c.via...), v)
	return &n
}

func (c *ctx) withStdin(s stdinInfo) *ctx {
	n := *c
	n.stdin = s
	return &n
}

// span is a byte range in ctx.src.
type span struct{ start, end int }

func (c *ctx) text(sp span) string {
	if sp.start < 0 || sp.end > len(c.src) || sp.start > sp.end {
		return ""
	}
	return c.src[sp.start:sp.end]
}

// mkSpan turns a local span into a Span of the top-level input.
func (c *ctx) mkSpan(sp span) Span {
	if c.outer != nil {
		return Span{Start: c.outer.Start, End: c.outer.End, Text: c.text(sp)}
	}
	return Span{Start: sp.start, End: sp.end, Text: c.text(sp)}
}

// outerFor returns the top-level span to use for code nested in sp.
func (c *ctx) outerFor(sp span) *Span {
	if c.outer != nil {
		return c.outer
	}
	s := c.mkSpan(sp)
	return &s
}

func off(p syntax.Pos) int {
	if !p.IsValid() {
		return 0
	}
	return int(p.Offset())
}

func nodeSpan(n syntax.Node) span {
	return span{off(n.Pos()), off(n.End())}
}

// stmtSpan is the span of a statement without its trailing ';' or '&'.
func stmtSpan(s *syntax.Stmt) span {
	sp := span{start: off(s.Pos())}
	end := sp.start
	if s.Cmd != nil {
		end = off(s.Cmd.End())
	}
	for _, r := range s.Redirs {
		if e := off(r.End()); e > end {
			end = e
		}
	}
	if end < sp.start {
		end = sp.start
	}
	sp.end = end
	return sp
}

// state is the shell state that flows through a command list.
type state struct {
	dir      string // "" when unknown
	dirWhy   string
	dirStack []string
	vars     map[string]variable
	posKnown bool    // positional parameters are known
	pos      []field // $0, $1, ...
	// dead is set once the shell has left (exit, or return in a function
	// body): code after it does not run in this state, and merging a dead
	// path changes nothing.
	dead bool
	// ctr is the container (or chroot) the shell runs in, nil on the host:
	// its paths are the container's, translated to the host's when the
	// commands are reported.
	ctr *container
	// branch is the git branch checked out earlier in the line (git
	// checkout/switch) in the repository at branchDir; "" when not known.
	branch, branchDir string
	// remote is the host the shell runs on when it is another machine
	// (ssh HOST CMD, ansible, pdsh): its commands carry the attr remote,
	// so the rules judge their paths as that machine's, not this one's.
	remote string
}

// variable is a shell variable as far as it is known.
type variable struct {
	f        field
	unset    bool // known to be unset
	exported bool
	carries  []Effect // reads whose content the value holds (x=$(cat f))
	// nameref is set for a name reference (declare -n r=HOME): ref is the
	// variable it stands for, "" until its first assignment names one.
	nameref bool
	ref     string
	// arr holds the elements of an indexed array assigned a list of known
	// shape (a=(rm -rf ~/x)); isArr marks one
	arr   []field
	isArr bool
}

func (a *analyzer) initialState() *state {
	st := &state{dir: cleanAbs(a.opts.Cwd), vars: map[string]variable{}}
	if st.dir == "" {
		st.dirWhy = "the starting directory is not known"
	}
	return st
}

func cleanAbs(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") {
		return ""
	}
	return path.Clean(p)
}

func (st *state) clone() *state {
	n := &state{dir: st.dir, dirWhy: st.dirWhy, posKnown: st.posKnown, pos: st.pos, dead: st.dead,
		ctr: st.ctr, branch: st.branch, branchDir: st.branchDir, remote: st.remote}
	n.dirStack = append([]string(nil), st.dirStack...)
	n.vars = make(map[string]variable, len(st.vars))
	for k, v := range st.vars {
		n.vars[k] = v
	}
	return n
}

// child is the state of a new shell process started from st: same
// directory, only exported variables (plus extra) known.
func (st *state) child(extra map[string]field) *state {
	n := &state{dir: st.dir, dirWhy: st.dirWhy, vars: map[string]variable{},
		ctr: st.ctr, branch: st.branch, branchDir: st.branchDir, remote: st.remote}
	for k, v := range st.vars {
		if v.exported {
			n.vars[k] = v
		}
	}
	for k, f := range extra {
		n.vars[k] = variable{f: f, exported: true}
	}
	return n
}

// merge folds the state of an alternative path into st: whatever differs
// becomes unknown.
func (st *state) merge(o *state) {
	if o.dead {
		return
	}
	if st.dead {
		*st = *o.clone()
		return
	}
	if st.dir != o.dir {
		if st.dir != "" {
			st.dirWhy = "the working directory depends on which branch ran"
		}
		st.dir = ""
	}
	if st.branch != o.branch || st.branchDir != o.branchDir {
		st.branch, st.branchDir = "", ""
	}
	for k, v := range o.vars {
		if w, ok := st.vars[k]; !ok || !sameVar(v, w) {
			st.vars[k] = variable{f: unknownField("variable $" + k + " depends on which branch ran"), exported: v.exported || w.exported}
		}
	}
	for k, w := range st.vars {
		if _, ok := o.vars[k]; !ok && !(w.unset) {
			st.vars[k] = variable{f: unknownField("variable $" + k + " depends on which branch ran"), exported: w.exported}
		}
	}
}

func sameVar(a, b variable) bool {
	if a.isArr != b.isArr || len(a.arr) != len(b.arr) {
		return false
	}
	for i := range a.arr {
		if a.arr[i].known != b.arr[i].known || a.arr[i].val != b.arr[i].val {
			return false
		}
	}
	return a.unset == b.unset && a.f.known == b.f.known && a.f.val == b.f.val && a.f.under == b.f.under && a.nameref == b.nameref && a.ref == b.ref
}

func (st *state) setDir(d, why string) {
	st.dir = d
	if d == "" {
		st.dirWhy = why
	}
}

// stmts analyses a statement list.
func (a *analyzer) stmts(c *ctx, st *state, list []*syntax.Stmt) {
	for _, s := range list {
		if a.full {
			return
		}
		a.stmt(c, st, s)
	}
}

func (a *analyzer) stmt(c *ctx, st *state, s *syntax.Stmt) {
	if a.full || s == nil {
		return
	}
	a.steps++
	if a.steps > maxSteps {
		a.full = true
		a.out.Findings = append(a.out.Findings, Finding{
			Tag:    TagDynamicExec,
			Reason: "the command line is too complex to analyse completely",
			Span:   c.mkSpan(stmtSpan(s)),
		})
		return
	}
	if s.Background || s.Coprocess || s.Disown {
		st = st.clone()
	}
	start := len(a.out.Commands)
	switch x := s.Cmd.(type) {
	case nil:
		a.redirectOnly(c, st, s)
		return
	case *syntax.CallExpr:
		a.callExpr(c, st, s, x)
		return
	case *syntax.Block:
		a.stmts(c, st, x.Stmts)
	case *syntax.Subshell:
		a.stmts(c, st.clone(), x.Stmts)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			a.pipeline(c, st, x)
		} else {
			// the next statement runs whether the list succeeded or not
			st.merge(a.andOr(c, st, x))
		}
	case *syntax.IfClause:
		a.ifClause(c, st, x)
	case *syntax.WhileClause:
		a.stmts(c, st, x.Cond)
		body := st.clone()
		a.stmts(c, body, x.Do)
		st.merge(body)
	case *syntax.ForClause:
		a.forClause(c, st, x)
	case *syntax.CaseClause:
		a.words(c, st, []*syntax.Word{x.Word})
		merged := st.clone()
		for _, it := range x.Items {
			a.substs(c, st, it)
			b := st.clone()
			// only the substitutions inside patterns were analysed above; the
			// body is analysed here.
			a.stmts(c, b, it.Stmts)
			merged.merge(b)
		}
		*st = *merged
	case *syntax.FuncDecl:
		a.funcDecl(c, st, s, x)
	case *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause:
		a.substs(c, st, x)
		a.arithVars(c, st, x)
	case *syntax.DeclClause:
		a.declClause(c, st, s, x)
		return
	case *syntax.TimeClause:
		if x.Stmt != nil {
			a.stmt(c.withVia("time"), st, x.Stmt)
		}
	case *syntax.CoprocClause:
		if x.Stmt != nil {
			a.stmt(c, st.clone(), x.Stmt)
		}
	case *syntax.TestDecl:
		if x.Body != nil {
			a.stmt(c, st.clone(), x.Body)
		}
	default:
		a.substs(c, st, x)
	}
	// redirections of a compound command apply to everything inside it
	if len(s.Redirs) > 0 {
		effs, tags, _, _ := a.redirs(c, st, s.Redirs)
		if len(effs) == 0 && len(tags) == 0 {
			return
		}
		if len(a.out.Commands) == start {
			a.bare(c, st, stmtSpan(s), effs, tags)
			return
		}
		for i := start; i < len(a.out.Commands); i++ {
			cm := &a.out.Commands[i]
			cm.Effects = append(cm.Effects, effs...)
			for _, t := range tags {
				cm.Tags = addTag(cm.Tags, t)
			}
		}
	}
}

// bare records a command that has no program (a lone redirection).
func (a *analyzer) bare(c *ctx, st *state, sp span, effs []Effect, tags []string) {
	cm := Command{Argv: []string{}, Dir: st.dir, Span: c.mkSpan(sp), Via: c.via, Effects: effs}
	for _, t := range tags {
		cm.Tags = addTag(cm.Tags, t)
	}
	a.add(st, cm, cmdMeta{})
}

// add reports a command that ran in state st; inside a container its
// paths are translated to the host's first.
func (a *analyzer) add(st *state, cm Command, m cmdMeta) bool {
	if a.full {
		return false
	}
	if st != nil && st.ctr != nil {
		st.ctr.hostCommand(&cm)
	}
	if len(a.out.Commands) >= MaxCommands {
		a.full = true
		a.out.Findings = append(a.out.Findings, Finding{
			Tag:    TagDynamicExec,
			Reason: fmt.Sprintf("the command line has more than %d commands; the rest was not analysed", MaxCommands),
			Span:   cm.Span,
		})
		return false
	}
	a.out.Commands = append(a.out.Commands, cm)
	a.meta = append(a.meta, m)
	return true
}

func (a *analyzer) finding(tag, reason string, sp Span) {
	for _, f := range a.out.Findings {
		if f.Tag == tag && f.Span == sp && f.Reason == reason {
			return
		}
	}
	a.out.Findings = append(a.out.Findings, Finding{Tag: tag, Reason: reason, Span: sp})
}

func (a *analyzer) redirectOnly(c *ctx, st *state, s *syntax.Stmt) {
	start := len(a.out.Commands)
	effs, tags, _, _ := a.redirs(c, st, s.Redirs)
	if len(effs) == 0 && len(tags) == 0 && len(a.out.Commands) > start {
		return
	}
	if len(effs) > 0 || len(tags) > 0 {
		a.bare(c, st, stmtSpan(s), effs, tags)
	}
}

// andOr analyses a && or || list. On return st is the state in which the
// list succeeded; the returned state is the one in which it failed. Code
// after "a && cd d &&" runs in d; code after "cd d ||" runs where cd
// failed, in the old directory.
func (a *analyzer) andOr(c *ctx, st *state, x *syntax.BinaryCmd) (fail *state) {
	if x.Op == syntax.AndStmt {
		fx := a.outcome(c, st, x.X)
		fy := a.outcome(c, st, x.Y)
		fx.merge(fy)
		return fx
	}
	fx := a.outcome(c, st, x.X) // st: X succeeded
	fy := a.outcome(c, fx, x.Y) // fx: X failed, then Y succeeded
	st.merge(fx)
	return fy
}

// outcome analyses s as the operand of a condition: st becomes the state
// in which s succeeded and the returned state the one in which it failed.
func (a *analyzer) outcome(c *ctx, st *state, s *syntax.Stmt) (fail *state) {
	if s == nil {
		return st.clone()
	}
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) &&
		!s.Background && !s.Coprocess && !s.Disown && len(s.Redirs) == 0 {
		fail = a.andOr(c, st, b)
	} else {
		var pre *state
		if changesDir(s) || changesBranch(s) {
			pre = st.clone()
		}
		a.stmt(c, st, s)
		fail = st.clone()
		if pre != nil && !st.dead {
			// a cd that fails leaves the directory as it was
			fail = pre
		}
	}
	if s.Negated {
		ok := *st
		*st = *fail
		*fail = ok
	}
	return fail
}

// changesDir reports whether s is a plain cd, pushd or popd.
func changesDir(s *syntax.Stmt) bool {
	x, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(x.Args) == 0 || s.Background || s.Coprocess || s.Disown {
		return false
	}
	switch x.Args[0].Lit() {
	case "cd", "pushd", "popd":
		return true
	}
	return false
}

// changesBranch reports whether s is a plain git command that can change
// the current branch (checkout, switch, branch -m): when it fails, the
// branch stays as it was.
func changesBranch(s *syntax.Stmt) bool {
	x, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(x.Args) < 2 || s.Background || s.Coprocess || s.Disown || x.Args[0].Lit() != "git" {
		return false
	}
	for _, w := range x.Args[1:] {
		switch w.Lit() {
		case "checkout", "switch", "branch":
			return true
		}
	}
	return false
}

// condList analyses the condition list of an if or elif like outcome.
func (a *analyzer) condList(c *ctx, st *state, list []*syntax.Stmt) (fail *state) {
	if len(list) == 0 {
		return st.clone()
	}
	a.stmts(c, st, list[:len(list)-1])
	return a.outcome(c, st, list[len(list)-1])
}

func (a *analyzer) ifClause(c *ctx, st *state, x *syntax.IfClause) {
	var ends []*state
	cur := st.clone()
	hasElse := false
	for cl := x; cl != nil; cl = cl.Else {
		if len(cl.Cond) == 0 && cl.Else == nil && cl != x {
			hasElse = true
			a.stmts(c, cur, cl.Then)
			ends = append(ends, cur)
			break
		}
		fail := a.condList(c, cur, cl.Cond)
		a.stmts(c, cur, cl.Then)
		ends = append(ends, cur)
		cur = fail
	}
	if !hasElse {
		ends = append(ends, cur) // no branch ran
	}
	res := ends[0]
	for _, e := range ends[1:] {
		res.merge(e)
	}
	*st = *res
}

func (a *analyzer) forClause(c *ctx, st *state, x *syntax.ForClause) {
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		name := ""
		if l.Name != nil {
			name = l.Name.Value
		}
		var items []field
		if l.InPos.IsValid() {
			items = a.words(c, st, l.Items)
		} else {
			items = []field{unknownField("the loop iterates over the positional parameters")}
		}
		allKnown := len(items) <= maxLoopItems
		for _, it := range items {
			if !it.known {
				allKnown = false
			}
		}
		merged := st.clone()
		if allKnown && len(items) > 0 {
			for _, it := range items {
				b := st.clone()
				b.vars[name] = variable{f: it}
				a.stmts(c, b, x.Do)
				merged.merge(b)
			}
		} else {
			b := st.clone()
			why := "loop variable $" + name + " takes values not known at check time"
			if len(items) > maxLoopItems {
				why = "loop variable $" + name + " takes too many values to analyse one by one"
			}
			for _, it := range items {
				if !it.known && it.reason != "" {
					why = it.reason
					break
				}
			}
			uf := unknownField(why)
			for _, it := range items {
				uf.remote = uf.remote || it.remote
			}
			b.vars[name] = variable{f: uf}
			a.stmts(c, b, x.Do)
			merged.merge(b)
		}
		*st = *merged
	case *syntax.CStyleLoop:
		a.substs(c, st, l)
		b := st.clone()
		a.stmts(c, b, x.Do)
		st.merge(b)
	default:
		b := st.clone()
		a.stmts(c, b, x.Do)
		st.merge(b)
	}
}

func (a *analyzer) funcDecl(c *ctx, st *state, s *syntax.Stmt, x *syntax.FuncDecl) {
	name := ""
	if x.Name != nil {
		name = x.Name.Value
	}
	if x.Body == nil {
		return
	}
	if a.funcs == nil {
		a.funcs = map[string]bool{}
	}
	a.funcs[name] = true
	if a.funcDefs == nil {
		a.funcDefs = map[string]funcDef{}
	}
	a.funcDefs[name] = funcDef{c: c, body: x.Body}
	start := len(a.out.Commands)
	b := st.clone()
	b.posKnown = false
	b.pos = nil
	a.stmt(c.withVia("function "+name), b, x.Body)
	if name != "" && isForkBomb(name, x.Body) {
		sp := c.mkSpan(stmtSpan(s))
		a.finding(TagForkBomb, "function "+name+" calls itself in a pipeline or in the background (fork bomb)", sp)
		if a.forkBombs == nil {
			a.forkBombs = map[string]bool{}
		}
		a.forkBombs[name] = true
		for i := start; i < len(a.out.Commands); i++ {
			a.out.Commands[i].Tags = addTag(a.out.Commands[i].Tags, TagForkBomb)
		}
		a.bare(c, st, stmtSpan(s), nil, []string{TagForkBomb})
		a.out.Commands[len(a.out.Commands)-1].Name = name
		a.out.Commands[len(a.out.Commands)-1].Argv = []string{name}
	}
}

// isForkBomb reports whether a function body calls the function itself
// in a pipeline or in the background.
func isForkBomb(name string, body *syntax.Stmt) bool {
	selfCalls, spawns := 0, false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background {
				spawns = true
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				spawns = true
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 && x.Args[0].Lit() == name {
				selfCalls++
			}
		}
		return true
	})
	return selfCalls > 0 && spawns
}

// substs analyses the command and process substitutions inside a node
// that has no effects of its own (arithmetic, tests).
func (a *analyzer) substs(c *ctx, st *state, n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			a.stmts(c.withVia("$()"), st.clone(), x.Stmts)
			return false
		case *syntax.ProcSubst:
			a.stmts(c.withVia(procVia(x)), st.clone(), x.Stmts)
			return false
		case *syntax.Stmt:
			if n != nil {
				return true
			}
		}
		return true
	})
}

func procVia(p *syntax.ProcSubst) string {
	if p.Op == syntax.CmdOut {
		return ">()"
	}
	return "<()"
}

// pipeline analyses a | b | c, each part in its own subshell, telling each
// part what its upstream produces.
func (a *analyzer) pipeline(c *ctx, st *state, x *syntax.BinaryCmd) {
	var parts []*syntax.Stmt
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Negated {
			flatten(b.X)
			flatten(b.Y)
			return
		}
		parts = append(parts, s)
	}
	flatten(x.X)
	flatten(x.Y)
	pipeSpan := c.mkSpan(nodeSpan(x))
	in := c.stdin
	var startBuf [8]int
	starts := startBuf[:0] // on the stack for the usual short pipeline
	for _, p := range parts {
		start := len(a.out.Commands)
		starts = append(starts, start)
		a.stmt(c.withStdin(in), st.clone(), p)
		next := stdinInfo{pipeline: &pipeSpan}
		next.carries = carriesOf(in.carries, a.out.Commands[start:])
		next.secrets = in.secrets
		for i := start; i < len(a.out.Commands); i++ {
			next.secrets = addSecrets(next.secrets, a.meta[i].secrets...)
		}
		if in.remote {
			next.remote, next.what = true, in.what
		}
		for i := start; i < len(a.out.Commands); i++ {
			cm := &a.out.Commands[i]
			if isFetcher(cm) {
				next.remote = true
				next.what = cm.Name
			}
		}
		if !next.remote {
			if txt, ok := literalOutput(a.out.Commands[start:], a.meta[start:], a.opts.Env); ok {
				next.literal, next.text = true, txt
			}
			next.paths = printedPaths(a.out.Commands[start:], a.meta[start:], in)
			if !next.literal {
				var whole bool
				next.partial, whole = partialOutput(a.out.Commands[start:], a.meta[start:], a.opts.Env)
				if whole {
					// { echo all:; printf '\t…\n'; }: every command prints known text
					next.literal, next.text, next.partial = true, next.partial, ""
				}
			}
			if !next.literal && next.paths == nil {
				next.what, next.dynamic = dynamicOutput(a.out.Commands[start:], a.meta[start:], in)
				if !next.dynamic && !catsFiles(a.out.Commands[start:]) && !printsOwnSetup(a.out.Commands[start:]) {
					next.opaque = "the output of " + stageName(a.out.Commands[start:])
				}
			}
		}
		in = next
	}
	a.secretToLogin(append(starts, len(a.out.Commands)))
	if in.literal || in.paths != nil {
		if a.pipeOut == nil {
			a.pipeOut = map[*syntax.BinaryCmd]stdinInfo{}
		}
		a.pipeOut[x] = in
	}
}

// partialOutput is the text the commands of a stage print that is known
// (echo and printf of known words), in order, when the stage has several;
// whole is set when every command of the stage is one of them, so the
// text is all the stage prints.
func partialOutput(cmds []Command, meta []cmdMeta, env map[string]string) (text string, whole bool) {
	if len(cmds) < 2 || len(cmds) > 16 {
		return "", false
	}
	var b strings.Builder
	whole = true
	for i := range cmds {
		if cmds[i].Name != "echo" && cmds[i].Name != "printf" || len(cmds[i].Via) != len(cmds[0].Via) {
			whole = false
			continue
		}
		if txt, ok := literalOutput(cmds[i:i+1], meta[i:i+1], env); ok && b.Len()+len(txt) <= maxLiteral {
			b.WriteString(txt)
		} else {
			whole = false
		}
	}
	return b.String(), whole
}

// catsFiles reports whether a pipeline stage only prints files (cat
// FILE...), which a shell reading it runs as it runs sh < FILE.
func catsFiles(cmds []Command) bool {
	if len(cmds) != 1 || cmds[0].Name != "cat" || len(cmds[0].Argv) < 2 {
		return false
	}
	for _, e := range cmds[0].Effects {
		if e.Kind != Read {
			return false
		}
	}
	return true
}

// printsOwnSetup reports whether a pipeline stage prints its own
// program's shell setup or completion script (pyenv init -, kubectl
// completion bash), which eval "$(…)" and source <(…) run as they are.
func printsOwnSetup(cmds []Command) bool {
	if len(cmds) != 1 || len(cmds[0].Argv) == 0 {
		return false
	}
	argv := cmds[0].Argv[1:]
	for _, a := range argv {
		if a == "completion" || a == "completions" || a == "--completion" || a == "--completions" {
			return true
		}
	}
	return setupPrinter(cmds[0].Name, strings.Join(argv, " "))
}

// stageName names the program of a pipeline stage for reasons.
func stageName(cmds []Command) string {
	if len(cmds) == 0 || cmds[0].Name == "" {
		return "a command"
	}
	return cmds[0].Name
}

// maxLiteral bounds the text literalOutput computes.
const maxLiteral = 64 << 10

// literalOutput returns what a stage that is a single command prints when
// that is known at check time: echo and printf of known words, and the
// filters that only re-encode known input (cat, base64 -d, xxd -r -p, rev),
// so `echo cm0gLXJmIH4= | base64 -d | sh` is the script `rm -rf ~`. mktemp
// prints a fresh name in the temp dir (TMPDIR, else /tmp).
func literalOutput(cmds []Command, meta []cmdMeta, env map[string]string) (string, bool) {
	if len(cmds) != 1 || len(meta) != 1 || !meta[0].argsKnown {
		return "", false
	}
	cm, in := cmds[0], meta[0].in
	args := cm.Argv[1:]
	out, ok := "", false
	switch cm.Name {
	case "echo":
		nl, esc := true, false
		for len(args) > 0 && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && args[0][0] == '-' {
			nl = nl && !strings.Contains(args[0], "n")
			esc = strings.Contains(args[0], "e") || esc && !strings.Contains(args[0], "E")
			args = args[1:]
		}
		out, ok = strings.Join(args, " "), true
		if esc {
			out = ansiC(out)
		}
		if nl {
			out += "\n"
		}
	case "printf":
		out, ok = printfOutput(args)
	case "cat", "rev", "base64", "xxd", "tr":
		if !in.literal {
			return "", false
		}
		out, ok = filterOutput(cm.Name, args, in.text)
	case "mktemp":
		out, ok = mktempName(args, env)
	case "dirname", "basename":
		// what they print is computed from their words alone
		out, ok = pathPartOutput(cm.Name, args)
	}
	if !ok || len(out) > maxLiteral {
		return "", false
	}
	return out, true
}

// printfOutput evaluates printf FORMAT [ARG...] for formats of %s, %b and %%.
func printfOutput(args []string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	format, rest := args[0], args[1:]
	var b strings.Builder
	for first := true; first || len(rest) > 0; first = false {
		used := false
		for i := 0; i < len(format); i++ {
			ch := format[i]
			if ch == '\\' && i+1 < len(format) {
				j := i + 2
				for j < len(format) && j < i+5 && format[j] >= '0' && format[j] <= '7' && format[i+1] >= '0' && format[i+1] <= '7' {
					j++
				}
				if format[i+1] == 'x' {
					for j < len(format) && j < i+4 && strings.IndexByte("0123456789abcdefABCDEF", format[j]) >= 0 {
						j++
					}
				}
				b.WriteString(ansiC(format[i:j]))
				i = j - 1
				continue
			}
			if ch != '%' {
				b.WriteByte(ch)
				continue
			}
			if i+1 >= len(format) {
				return "", false
			}
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's', 'b':
				v := ""
				if len(rest) > 0 {
					v, rest = rest[0], rest[1:]
				}
				used = true
				if format[i] == 'b' {
					v = ansiC(v)
				}
				b.WriteString(v)
			default:
				return "", false
			}
			if b.Len() > maxLiteral {
				return "", false
			}
		}
		if !used {
			break
		}
	}
	return b.String(), true
}

// filterOutput is the output of a re-encoding filter given known input.
func filterOutput(name string, args []string, in string) (string, bool) {
	if name == "tr" {
		return trOutput(args, in)
	}
	var flags, files []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
		} else {
			files = append(files, a)
		}
	}
	if len(files) > 0 && !(len(files) == 1 && files[0] == "-") {
		return "", false
	}
	has := func(short byte, long string) bool {
		for _, f := range flags {
			if f == long || (!strings.HasPrefix(f, "--") && strings.IndexByte(f[1:], short) >= 0) {
				return true
			}
		}
		return false
	}
	switch name {
	case "cat":
		if len(flags) > 0 {
			return "", false
		}
		return in, true
	case "rev":
		lines := strings.Split(strings.TrimSuffix(in, "\n"), "\n")
		for i, l := range lines {
			r := []rune(l)
			for x, y := 0, len(r)-1; x < y; x, y = x+1, y-1 {
				r[x], r[y] = r[y], r[x]
			}
			lines[i] = string(r)
		}
		return strings.Join(lines, "\n") + "\n", true
	case "base64":
		if !has('d', "--decode") && !has('D', "--decode") {
			return "", false
		}
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, in)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if b, err := enc.DecodeString(clean); err == nil {
				return string(b), true
			}
		}
	case "xxd":
		if !has('r', "-revert") || !(has('p', "-plain") || has('p', "-postscript")) {
			return "", false
		}
		clean := strings.Join(strings.Fields(in), "")
		if b, err := hex.DecodeString(clean); err == nil {
			return string(b), true
		}
	}
	return "", false
}

// mktempName is the name mktemp prints: a file in the temp dir (TMPDIR,
// else /tmp), in -p DIR, or where a template with a slash says.
func mktempName(args []string, env map[string]string) (string, bool) {
	dir, tmpl, explicit := "", "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-p" || a == "--tmpdir":
			if a == "-p" || (i+1 < len(args) && !strings.HasPrefix(args[i+1], "-")) {
				if i+1 >= len(args) {
					return "", false
				}
				i++
				dir, explicit = args[i], true
			}
		case strings.HasPrefix(a, "--tmpdir="):
			dir, explicit = a[len("--tmpdir="):], true
		case strings.HasPrefix(a, "--suffix="):
		case a == "-t":
		case strings.HasPrefix(a, "-"):
			if strings.Trim(a[1:], "dqut") != "" {
				return "", false
			}
		default:
			tmpl = a
		}
	}
	if tmpl == "" {
		tmpl = "tmp.XXXXXXXXXX"
	}
	if strings.Contains(tmpl, "/") && !explicit {
		return tmpl + "\n", true
	}
	if dir == "" {
		dir = env["TMPDIR"]
	}
	if dir == "" || !strings.HasPrefix(dir, "/") {
		dir = "/tmp"
	}
	return strings.TrimRight(dir, "/") + "/" + path.Base(tmpl) + "\n", true
}

// isFetcher reports whether a command prints content fetched from the
// network on its standard output.
func isFetcher(cm *Command) bool {
	switch cm.Name {
	case "curl", "wget", "fetch", "aria2c", "http", "https", "xh", "httpie", "lynx", "w3m", "links",
		"nc", "ncat", "netcat", "socat", "telnet", "ssh", "tftp", "ftp", "iwr", "Invoke-WebRequest":
		return true
	}
	return false
}

// trOutput is what tr SET1 SET2 (or tr -d SET1) makes of known input, for
// sets of ASCII characters, ranges (a-z), escapes and the classes
// [:lower:], [:upper:] and [:digit:]: rot13 (tr a-z n-za-m) and its kin
// are re-encodings as base64 is.
func trOutput(args []string, in string) (string, bool) {
	del := false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 {
		if args[0] != "-d" {
			return "", false // -c, -s, -t: not evaluated
		}
		del = true
		args = args[1:]
	}
	if del && len(args) != 1 || !del && len(args) != 2 {
		return "", false
	}
	s1, ok1 := trSet(args[0])
	if !ok1 || len(s1) == 0 {
		return "", false
	}
	var b strings.Builder
	if del {
		for i := 0; i < len(in); i++ {
			if strings.IndexByte(s1, in[i]) < 0 {
				b.WriteByte(in[i])
			}
		}
		return b.String(), true
	}
	s2, ok2 := trSet(args[1])
	if !ok2 || len(s2) == 0 {
		return "", false
	}
	var m [256]int16
	for i := range m {
		m[i] = -1
	}
	for i := 0; i < len(s1); i++ {
		c := s2[min(i, len(s2)-1)]
		m[s1[i]] = int16(c)
	}
	for i := 0; i < len(in); i++ {
		if m[in[i]] >= 0 {
			b.WriteByte(byte(m[in[i]]))
		} else {
			b.WriteByte(in[i])
		}
	}
	return b.String(), true
}

// trSet expands a tr set; false for what trOutput does not evaluate.
func trSet(s string) (string, bool) {
	s = strings.NewReplacer("[:lower:]", "a-z", "[:upper:]", "A-Z", "[:digit:]", "0-9").Replace(s)
	if strings.Contains(s, "[:") || strings.Contains(s, "[=") || strings.Contains(s, "*]") {
		return "", false
	}
	var raw []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return "", false
		}
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			default:
				c = s[i]
			}
		}
		raw = append(raw, c)
	}
	var out []byte
	for i := 0; i < len(raw); i++ {
		if i+2 < len(raw) && raw[i+1] == '-' {
			if raw[i] > raw[i+2] {
				return "", false
			}
			for c := int(raw[i]); c <= int(raw[i+2]); c++ {
				out = append(out, byte(c))
			}
			i += 2
			continue
		}
		out = append(out, raw[i])
	}
	return string(out), len(out) <= 256
}

// pathPartOutput is what dirname NAME... or basename NAME [SUFFIX] prints:
// computed from the words alone, so $(dirname ~/.bashrc) is the home dir.
func pathPartOutput(name string, args []string) (string, bool) {
	var ops []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if a != "-z" && a != "--zero" {
				return "", false // -a, -s SUFFIX: not worth following
			}
			return "", false
		}
		ops = append(ops, a)
	}
	switch {
	case name == "dirname" && len(ops) == 1:
		return path.Dir(ops[0]) + "\n", true
	case name == "basename" && (len(ops) == 1 || len(ops) == 2):
		b := path.Base(ops[0])
		if len(ops) == 2 && ops[1] != b {
			b = strings.TrimSuffix(b, ops[1])
		}
		return b + "\n", true
	}
	return "", false
}
