package policy

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"cel.dev/cel-go/cel"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// analyzeFunc is the shell analyser (shell.Analyze; a seam for tests).
type analyzeFunc func(src string, opts shell.Options) (*shell.Analysis, error)

// Policy is a compiled, immutable rule set. It is safe for concurrent use.
type Policy struct {
	env     Env
	roots   *roots
	cel     *cel.Env
	rules   []Rule
	crules  []*crule
	def     Action
	analyze analyzeFunc
	// tests are the policy file's inline tests; testPolicy is what they run
	// against (the file's rules, compiled for the test env).
	tests      []Test
	testPolicy *Policy
	// sandbox is the file's sandbox section (sandbox.go).
	sandbox SandboxConfig
}

// DefaultAction is the effect applied when no rule matches.
func (p *Policy) DefaultAction() Action { return p.def }

// Rules returns the policy's rules in order (a copy).
func (p *Policy) Rules() []Rule { return append([]Rule(nil), p.rules...) }

// WithRules returns a new policy: this one plus rules (an overlay, e.g. the
// standing decisions of `warden approve --always`). The receiver is
// unchanged. The new policy's Tests are this policy's.
func (p *Policy) WithRules(rules ...Rule) (*Policy, error) {
	all := append(append([]Rule(nil), p.rules...), rules...)
	cr, err := compileRules(all, p.roots, p.cel)
	if err != nil {
		return nil, fmt.Errorf("overlay: %w", err)
	}
	np := *p
	np.rules, np.crules = all, cr
	if np.testPolicy == nil {
		np.testPolicy = p
	}
	return &np, nil
}

// subject is one thing rules are matched against: a command, a finding,
// or the call itself (file tools, unknown tools, empty command lines).
type subject struct {
	cmd   *shell.Command
	tags  []string
	attrs map[string]string
	span  string
	argv  string // joined argv, for argv regexes
	effs  []*effInfo
}

// effInfo is an effect with its target placed.
type effInfo struct {
	shell.Effect
	resolved string
	class    Class
	isPath   bool
	// protected: the effect reaches into one of warden's own dirs.
	protected bool
	// globPaths are what Glob expands to on the file system, once asked
	// (globDone); globOK is false when it could not be expanded.
	globPaths        []string
	globDone, globOK bool
	// attrsOnly: a read of one file's name and attributes (ls -l f,
	// stat f), not of its content nor of a directory's names.
	attrsOnly bool
}

// expanded returns what the effect's glob expands to, expanding it once.
func (ef *effInfo) expanded() ([]string, bool) {
	if !ef.globDone {
		ef.globPaths, ef.globOK = expandGlob(ef.Glob)
		ef.globDone = true
	}
	return ef.globPaths, ef.globOK
}

// unit is a subject with one of its effects (eff nil: the subject alone).
type unit struct {
	sub *subject
	eff *effInfo
}

// eval is the state of one decision.
type eval struct {
	p        *Policy
	c        call
	subjects []*subject
	units    []unit
	parseErr string
	all      bool // collect every match (Explain)
	found    []RuleMatch
	celCall  map[string]any
	// inputs caches, per rule condition, whether the call's input matches
	// its input patterns: the same for every unit of the call.
	inputs  map[*cmatch]bool
	celCmds []any
	celEffs []any
}

// Decide judges one call. It never panics: internal trouble is a deny
// with the reason (fail-closed). It does no I/O except resolving the
// symlinks of paths that exist. Safe for concurrent use.
func (p *Policy) Decide(c Call) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{Action: Deny, Rule: "warden.policy-error", Reason: fmt.Sprintf("blocked: the policy failed on this call (%v)", r)}
		}
	}()
	e := p.prepare(c, false)
	return e.decide()
}

func (p *Policy) prepare(c Call, all bool) *eval {
	e := &eval{p: p, c: normalise(c), all: all}
	n := &e.c
	if n.kind == kindShell && n.cwd == "" && p.roots.home != "" {
		// a workdir of ~ or ~/x is the home dir's
		if wd := shellWorkdir(c.Args); wd == "~" || strings.HasPrefix(wd, "~/") {
			n.cwd = filepath.Clean(p.roots.home + wd[1:])
		}
	}
	if n.ws != "" {
		if p.roots.broadWorkspace(n.ws) {
			n.ws = ""
		} else {
			n.wsR = resolvePath(n.ws)
			if p.roots.broadWorkspace(n.wsR) {
				n.ws = ""
			}
		}
	}
	switch n.kind {
	case kindShell:
		e.analyse()
	default:
		s := &subject{span: n.input}
		effs := fileEffects(n, p.roots.home)
		for _, ef := range effs {
			s.effs = append(s.effs, e.place(ef))
		}
		e.subjects = append(e.subjects, s)
		e.judgeWrittenCode(effs)
	}
	if len(e.subjects) == 0 {
		e.subjects = append(e.subjects, &subject{span: n.input})
	}
	for _, s := range e.subjects {
		if len(s.effs) == 0 {
			e.units = append(e.units, unit{sub: s})
			continue
		}
		for _, ef := range s.effs {
			e.units = append(e.units, unit{sub: s, eff: ef})
		}
	}
	return e
}

// analyse runs the shell analyser over the command line.
func (e *eval) analyse() {
	n := &e.c
	if strings.TrimSpace(n.input) == "" {
		return
	}
	e.analyseText(n.input, n.cwd, "")
	e.markWardenSignals()
}

// shellOpts are the analyser's options for code run in cwd.
func (e *eval) shellOpts(cwd string) shell.Options {
	opts := shell.Options{Cwd: cwd, Home: e.p.roots.home, Warden: e.p.roots.binaries, Resolve: resolvePath, IsDir: isDir,
		ReadFile: readScript, Workspace: e.c.wsR}
	if e.p.roots.home != "" || len(e.p.roots.temps) > 0 || len(e.p.roots.envVars) > 0 {
		opts.Env = map[string]string{}
		for k, v := range e.p.roots.envVars {
			opts.Env[k] = v
		}
		if e.p.roots.home != "" {
			opts.Env["HOME"] = e.p.roots.home
			// the XDG base directories the daemon was not given are their
			// defaults: the agent runs as the same user, and a path spelled
			// through them names the dirs its programs (and warden) use
			for v, d := range xdgDefaults {
				if _, ok := opts.Env[v]; !ok {
					opts.Env[v] = filepath.Join(e.p.roots.home, d)
				}
			}
		}
		// the first temp dir is the one mktemp and $TMPDIR use
		if len(e.p.roots.temps) > 0 {
			opts.Env["TMPDIR"] = e.p.roots.temps[0]
		}
	}
	return opts
}

// analyseText analyses src as shell code run in cwd and adds what it runs
// as subjects; label, when set, prefixes their spans (the file a tool
// wrote the code into).
func (e *eval) analyseText(src, cwd, label string) {
	an, err := e.p.safeAnalyze(src, e.shellOpts(cwd))
	if err != nil {
		e.parseErr = err.Error()
		e.subjects = append(e.subjects, &subject{tags: []string{TagParseError}, span: label + src})
		return
	}
	for i := range an.Commands {
		cm := &an.Commands[i]
		s := &subject{cmd: cm, tags: cm.Tags, attrs: normaliseAttrs(cm.Attrs), span: label + cm.Span.Text, argv: strings.Join(cm.Argv, " ")}
		for _, ef := range cm.Effects {
			s.effs = append(s.effs, e.place(ef))
			placed := s.effs[len(s.effs)-1]
			if ef.Follow {
				s.effs = append(s.effs, e.followLinks(placed)...)
			}
			if ef.Served {
				s.effs = append(s.effs, e.servedFiles(placed)...)
			}
		}
		e.subjects = append(e.subjects, s)
	}
	for _, f := range an.Findings {
		e.subjects = append(e.subjects, &subject{tags: []string{f.Tag}, span: label + f.Span.Text})
	}
}

// globNamesFiles reports whether a glob effect names the files it acts on
// (rm .claude/settings*.json, find ROOT -name N -delete), as opposed to
// trees below what it names (rm -rf /tmp/app-*) or names only: deletes and
// writes of files, and content reads of the files find selects
// (ROOT/**/NAME, handed to -exec).
func globNamesFiles(ef *effInfo) bool {
	switch {
	case ef.Kind == shell.Read:
		return !ef.Meta && strings.Contains(ef.Glob, "/**/")
	case ef.Kind == shell.Delete || ef.Kind == shell.Write:
		return !ef.Recursive || strings.Contains(ef.Glob, "/**/")
	}
	return false
}

// xdgDefaults are the XDG base directory variables and their defaults
// below the home directory.
var xdgDefaults = map[string]string{
	"XDG_DATA_HOME": ".local/share", "XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state", "XDG_CACHE_HOME": ".cache",
}

// TagParseError tags a command line the shell parser could not read.
const TagParseError = "parse-error"

func (p *Policy) safeAnalyze(src string, opts shell.Options) (a *shell.Analysis, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("the shell analyser failed: %v\n%s", r, debug.Stack())
		}
	}()
	a, err = p.analyze(src, opts)
	if err == nil && a == nil {
		err = fmt.Errorf("the shell analyser returned nothing")
	}
	return a, err
}

// normaliseAttrs turns git refspecs in "branch" into branch names
// ("+main" and "HEAD:refs/heads/main" give "main").
func normaliseAttrs(a map[string]string) map[string]string {
	b, ok := a["branch"]
	if !ok || b == "" {
		return a
	}
	parts := strings.Split(b, ",")
	changed := false
	for i, x := range parts {
		y := strings.TrimPrefix(strings.TrimSpace(x), "+")
		if j := strings.LastIndexByte(y, ':'); j >= 0 {
			y = y[j+1:]
		}
		y = strings.TrimPrefix(y, "refs/heads/")
		if y != x {
			parts[i], changed = y, true
		}
	}
	if !changed {
		return a
	}
	out := make(map[string]string, len(a))
	for k, v := range a {
		out[k] = v
	}
	out["branch"] = strings.Join(parts, ",")
	return out
}

// place classifies an effect's target.
func (e *eval) place(ef shell.Effect) *effInfo {
	info := &effInfo{Effect: ef}
	switch {
	case ef.Unknown:
		info.class = ClassUnknown
		return info
	case ef.Kind == shell.Network || ef.Kind == shell.Privilege:
		return info
	case ef.Target == "":
		if ef.Kind == shell.Delete || ef.Kind == shell.Write {
			info.class = ClassUnknown
			info.Unknown = true
			if info.Reason == "" {
				info.Reason = "the target is not known"
			}
		}
		return info
	case !filepath.IsAbs(ef.Target):
		if ef.Kind == shell.Exec {
			return info // a program looked up in PATH
		}
		if e.c.cwd == "" {
			info.class, info.Unknown = ClassUnknown, true
			info.Reason = "relative path " + ef.Target + " with no working directory"
			return info
		}
		info.Target = filepath.Join(e.c.cwd, ef.Target)
	}
	info.Target = filepath.Clean(info.Target)
	info.isPath = true
	r := e.p.roots
	info.resolved = resolvePath(info.Target)
	if ef.Link {
		// rm link removes the link where it is, not what it points to
		info.resolved = linkResolved(info.Target)
	}
	if procSelf(info.Target) {
		// /proc/self is the command's own process, not the one judging it
		info.resolved = info.Target
	}
	wsBoth := [2]string{e.c.ws, e.c.wsR}
	if e.c.ws == "" {
		wsBoth = [2]string{}
	}
	homeBoth := [2]string{r.home, r.homeR}
	lex := classify(info.Target, wsBoth, homeBoth, r.allTemp)
	res := classify(info.resolved, wsBoth, homeBoth, r.allTemp)
	info.class = lex
	if classRank(res) > classRank(lex) {
		info.class = res
	}
	// a walk that reads only names (find, du) may pass above warden's dirs
	info.protected = r.reachesProtected(info.Target, info.resolved, info.Recursive, info.Meta, info.Glob)
	if info.protected && ef.Kind == shell.Write && info.Recursive && info.Glob == "" {
		info.protected = r.writeReaches(info.Target, info.resolved)
	}
	// warden's own dirs stay closed even to names
	info.attrsOnly = ef.Kind == shell.Read && ef.Meta && !ef.Recursive && !info.protected && !isDir(info.resolved)
	return info
}

// RuleMatch is one rule matching one part of a call (Explain).
type RuleMatch struct {
	// Rule is the rule's id.
	Rule string `json:"rule"`
	// Effect is the rule's effect.
	Effect Action `json:"effect"`
	// Mode is enforce or audit.
	Mode Mode `json:"mode"`
	// Priority is the rule's priority.
	Priority int `json:"priority,omitempty"`
	// Reason is the rule's reason for this match.
	Reason string `json:"reason"`
	// Span is the command (or input) it matched.
	Span string `json:"span,omitempty"`
	// Target is the effect target it matched, if any.
	Target string `json:"target,omitempty"`
	// Decisive is set on the match that made the decision.
	Decisive bool `json:"decisive,omitempty"`
}

// outcome is the verdict for one unit.
type outcome struct {
	action Action
	rule   *crule
	u      unit
}

func severity(a Action) int {
	switch a {
	case Deny:
		return 2
	case Ask:
		return 1
	}
	return 0
}

// better reports whether rule a outranks rule b for the same unit.
func better(a, b *crule) bool {
	if a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if sa, sb := severity(a.Effect), severity(b.Effect); sa != sb {
		return sa > sb
	}
	return a.index < b.index
}

func (e *eval) decide() Decision {
	var best *outcome
	var audit []AuditHit
	var seenAudit map[string]bool
	for _, u := range e.units {
		var win *crule
		for _, r := range e.p.crules {
			if !e.matches(r, u) {
				continue
			}
			if r.Mode == Audit {
				if e.all {
					e.found = append(e.found, e.ruleMatch(r, u))
				}
				if !seenAudit[r.ID] {
					if seenAudit == nil {
						seenAudit = map[string]bool{}
					}
					seenAudit[r.ID] = true
					audit = append(audit, AuditHit{Rule: r.ID, Action: r.Effect, Reason: e.render(r, u)})
				}
				continue
			}
			if e.all {
				e.found = append(e.found, e.ruleMatch(r, u))
			}
			if win == nil || better(r, win) {
				win = r
			}
		}
		o := &outcome{action: e.p.def, rule: win, u: u}
		if win != nil {
			o.action = win.Effect
		}
		if best == nil || severity(o.action) > severity(best.action) ||
			(severity(o.action) == severity(best.action) && best.rule == nil && o.rule != nil) {
			best = o
		}
	}
	d := Decision{Action: e.p.def, Audit: audit}
	if best == nil || best.rule == nil {
		d.Reason = fmt.Sprintf("no rule matched; the policy's default is %s", e.p.def)
		if best != nil && e.p.def != Allow {
			e.fillCommand(&d, best.u)
		}
		return d
	}
	d.Action, d.Rule = best.action, best.rule.ID
	d.Reason = e.render(best.rule, best.u)
	e.fillCommand(&d, best.u)
	if e.all {
		for i := range e.found {
			m := &e.found[i]
			if m.Rule == d.Rule && m.Mode == Enforce && m.Span == best.u.sub.span && (best.u.eff == nil || m.Target == best.u.eff.Target) {
				m.Decisive = true
				break
			}
		}
	}
	return d
}

func (e *eval) fillCommand(d *Decision, u unit) {
	if u.sub.cmd != nil {
		d.Argv = append([]string(nil), u.sub.cmd.Argv...)
	}
	d.Span = u.sub.span
}

func (e *eval) ruleMatch(r *crule, u unit) RuleMatch {
	mode := r.Mode
	if mode == "" {
		mode = Enforce
	}
	m := RuleMatch{Rule: r.ID, Effect: r.Effect, Mode: mode, Priority: r.Priority, Reason: e.render(r, u), Span: u.sub.span}
	if u.eff != nil {
		m.Target = u.eff.Target
	}
	return m
}

// matches reports whether rule r matches unit u.
func (e *eval) matches(r *crule, u unit) bool {
	if !e.matchConds(&r.m, u, r.Effect != Allow) {
		return false
	}
	if r.except != nil && e.matchConds(r.except, u, false) {
		return false
	}
	if r.when != nil {
		return e.evalWhen(r, u)
	}
	return true
}

func anyText(ps []textPattern, s string) bool {
	for i := range ps {
		if ps[i].match(s) {
			return true
		}
	}
	return false
}

// globs: a glob effect matches a path pattern it can name (deny and ask
// rules' own conditions, not their exceptions).
func (e *eval) matchConds(m *cmatch, u unit, globs bool) bool {
	// cheap conditions first (names, tags, the effect's kind and class),
	// regexes and path patterns last: every condition must hold
	c := &e.c
	if m.tools != nil && !anyText(m.tools, c.tool) && (c.canon == "" || !anyText(m.tools, c.canon)) {
		return false
	}
	if m.sources != nil && !anyText(m.sources, strings.ToLower(c.Source)) {
		return false
	}
	if m.workspaces != nil || m.wsEmpty {
		ok := m.wsEmpty && c.rawWS == ""
		for i := 0; !ok && i < len(m.workspaces) && c.rawWS != ""; i++ {
			ok = m.workspaces[i].match(c.rawWS, "")
		}
		if !ok {
			return false
		}
	}
	s := u.sub
	if m.needCommand && s.cmd == nil {
		return false
	}
	ef := u.eff
	if m.needEffect {
		if ef == nil {
			return false
		}
		if m.effects != nil {
			ok := false
			for _, k := range m.effects {
				if k == ef.Kind {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		if m.targets != nil {
			ok := false
			for _, cl := range m.targets {
				if cl == ef.class {
					ok = true
					break
				}
			}
			if !ok {
				return false
			}
		}
		if m.recursive != nil && ef.Recursive != *m.recursive {
			return false
		}
		if m.protected != nil && ef.protected != *m.protected {
			return false
		}
	}
	if m.tags != nil {
		ok := false
		for _, t := range s.tags {
			if anyText(m.tags, t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if m.commands != nil && !anyText(m.commands, s.cmd.Name) {
		return false
	}
	for _, ac := range m.attrs {
		if !matchAttr(ac, s.attrs[ac.key]) {
			return false
		}
	}
	if m.args != nil {
		ok := false
		for _, a := range s.cmd.Argv[min(1, len(s.cmd.Argv)):] {
			if anyText(m.args, a) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if m.argv != nil {
		ok := false
		for i := range m.argv {
			if m.argv[i].match(s.argv) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if m.input != nil && !e.inputMatches(m) {
		return false
	}
	if m.paths != nil {
		if !m.needEffect || !ef.isPath {
			return false
		}
		if ef.attrsOnly {
			// ls -l, stat, du of one file read its name and attributes,
			// not its content: a secret's or a link's (ls -l key_link)
			// content is not read
			return false
		}
		ok := false
		for i := range m.paths {
			pp := &m.paths[i]
			if m.reach {
				if pp.reaches(ef) {
					ok = true
					break
				}
				continue
			}
			if pp.match(ef.Target, c.ws) || (ef.resolved != ef.Target && pp.match(ef.resolved, c.wsR)) {
				ok = true
				break
			}
			// a glob of files deleted or written (or read by what find
			// hands them to: ROOT/**/NAME) that can name a path a deny or
			// ask rule names is judged as naming it: rm
			// .claude/settings*.json, find
			// .claude -name 'settings*.json' -delete (whether or not the
			// files exist yet)
			if globs && ef.Glob != "" && globNamesFiles(ef) && pp.globNames(splitPath(ef.Glob)) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func matchAttr(ac attrCond, v string) bool {
	if v == "" {
		return ac.allowNil
	}
	for _, part := range strings.Split(v, ",") {
		if anyText(ac.values, part) {
			return true
		}
	}
	return false
}

// evalWhen runs a rule's CEL condition. An evaluation error counts as a
// match for deny and ask rules and as no match for allow rules
// (fail-closed).
func (e *eval) evalWhen(r *crule, u unit) bool {
	out, _, err := r.when.Eval(e.celVars(u))
	if err != nil {
		return r.Effect != Allow
	}
	b, ok := out.Value().(bool)
	if !ok {
		return r.Effect != Allow
	}
	return b
}

func (e *eval) celVars(u unit) map[string]any {
	if e.celCall == nil {
		c := &e.c
		args := map[string]any{}
		for k, v := range c.Args {
			args[k] = v
		}
		e.celCall = map[string]any{
			"tool": c.tool, "kind": c.canon, "args": args, "cwd": c.cwd, "workspace": c.rawWS,
			"session": c.Session, "source": c.Source, "input": c.input,
		}
		e.celCmds = make([]any, 0, len(e.subjects))
		e.celEffs = []any{}
		for _, s := range e.subjects {
			if s.cmd != nil {
				e.celCmds = append(e.celCmds, celCommand(s))
			}
			for _, ef := range s.effs {
				e.celEffs = append(e.celEffs, celEffect(ef))
			}
		}
	}
	r := e.p.roots
	vars := map[string]any{
		"call":     e.celCall,
		"commands": e.celCmds,
		"effects":  e.celEffs,
		"command":  celCommand(u.sub),
		"effect":   celEffect(u.eff),
		"env": map[string]any{
			"home": r.home, "temp_dirs": toAny(r.temps), "protected_dirs": toAny(r.protected),
			"warden_binaries": toAny(r.binaries), "policy_files": toAny(r.policyFiles),
		},
	}
	return vars
}

func toAny(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func celCommand(s *subject) map[string]any {
	m := map[string]any{
		"name": "", "argv": []any{}, "dir": "", "via": []any{}, "tags": toAny(s.tags),
		"attrs": map[string]any{}, "dynamic": false, "span": s.span,
	}
	if s.cmd != nil {
		m["name"] = s.cmd.Name
		m["argv"] = toAny(s.cmd.Argv)
		m["dir"] = s.cmd.Dir
		m["via"] = toAny(s.cmd.Via)
		m["dynamic"] = s.cmd.Dynamic
		attrs := map[string]any{}
		for k, v := range s.attrs {
			attrs[k] = v
		}
		m["attrs"] = attrs
	}
	return m
}

func celEffect(ef *effInfo) map[string]any {
	if ef == nil {
		return map[string]any{"kind": "", "target": "", "resolved": "", "class": "", "unknown": false, "reason": "", "recursive": false, "glob": "", "protected": false, "meta": false}
	}
	return map[string]any{
		"kind": string(ef.Kind), "target": ef.Target, "resolved": ef.resolved, "class": string(ef.class),
		"unknown": ef.Unknown, "reason": ef.Reason, "recursive": ef.Recursive, "glob": ef.Glob, "protected": ef.protected,
		"meta": ef.Meta,
	}
}

// render fills a rule's reason template for one unit.
func (e *eval) render(r *crule, u unit) string {
	if len(r.reason) == 0 {
		if r.Description != "" {
			return r.Description
		}
		return fmt.Sprintf("%s by rule %s", map[Action]string{Allow: "allowed", Deny: "denied", Ask: "needs approval"}[r.Effect], r.ID)
	}
	var b strings.Builder
	for _, part := range r.reason {
		if part.ph == "" {
			b.WriteString(part.text)
			continue
		}
		b.WriteString(e.placeholder(part.ph, r, u))
	}
	return b.String()
}

func (e *eval) placeholder(name string, r *crule, u unit) string {
	s := u.sub
	ef := u.eff
	switch name {
	case "target":
		if ef == nil {
			return ""
		}
		if ef.Unknown || ef.Target == "" {
			return "an unknown target"
		}
		return ef.Target
	case "resolved":
		if ef == nil {
			return ""
		}
		return ef.resolved
	case "class":
		if ef == nil {
			return ""
		}
		return string(ef.class)
	case "kind":
		if ef == nil {
			return ""
		}
		return string(ef.Kind)
	case "unknown":
		if ef == nil {
			return ""
		}
		return ef.Reason
	case "command":
		if s.cmd == nil {
			return e.c.tool
		}
		return s.cmd.Name
	case "argv":
		return s.argv
	case "span":
		return s.span
	case "tool":
		return e.c.Tool
	case "input":
		return e.c.input
	case "rule":
		return r.ID
	case "workspace":
		return e.c.rawWS
	case "tag":
		if len(s.tags) > 0 {
			return strings.Join(s.tags, ",")
		}
		return ""
	}
	if k, ok := strings.CutPrefix(name, "attr."); ok {
		return s.attrs[k]
	}
	return ""
}

// procSelf reports whether p is below /proc/self or /proc/thread-self,
// whose links resolve differently in the command's process.
func procSelf(p string) bool {
	for _, s := range []string{"/proc/self", "/proc/thread-self"} {
		if within(p, s) {
			return true
		}
	}
	return false
}

// inputMatches reports whether the call's input matches m's input
// patterns, computed once per call.
func (e *eval) inputMatches(m *cmatch) bool {
	if v, ok := e.inputs[m]; ok {
		return v
	}
	v := anyText(m.input, e.c.input)
	if e.inputs == nil {
		e.inputs = map[*cmatch]bool{}
	}
	e.inputs[m] = v
	return v
}
