package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Tags for warden's own controls and for signals to processes.
const (
	// TagWardenAdmin marks a warden subcommand that changes what warden
	// does: approve, deny, install, uninstall, policy changes, workspace
	// and agent control, starting or stopping the daemon (Attrs: action,
	// the subcommand path, e.g. "approve", "workspace add").
	TagWardenAdmin = "warden.admin"
	// TagSignal marks a command that sends a signal to, or stops,
	// processes or services (kill, pkill, killall, systemctl stop, ...).
	// Attrs: pid (comma-separated pids as written; "?" for one not known
	// at check time), process (comma-separated names, patterns or service
	// units), match (exact, regex, or full: the pattern is searched in
	// the whole command line), icase ("true" for a case-insensitive
	// pattern).
	TagSignal = "process.signal"
	// TagProcessFind marks a command that looks processes up by name and
	// prints their pids (pgrep, pidof): its output is often given to kill.
	// Attrs: process, match, icase as for TagSignal.
	TagProcessFind = "process.find"
	// TagAgentUnhooked marks starting a coding agent in a way that drops
	// the hooks warden installed in its settings (claude --settings,
	// --setting-sources, CLAUDE_CONFIG_DIR). Attrs: agent, how.
	TagAgentUnhooked = "agent.unhooked"
)

// WardenName is the program name of warden's own CLI.
const WardenName = "warden"

// isWarden reports whether the program k runs is warden: by name, or by
// one of the paths of its binaries (Options.Warden).
func (k *call) isWarden() bool {
	if k.name == WardenName {
		return true
	}
	f := k.argv[0]
	if !f.known || !strings.Contains(f.val, "/") {
		return false
	}
	e, ok := k.a.target(k.st, Exec, f, false)
	if !ok || e.Unknown {
		return false
	}
	return k.wardenPath(e.Target)
}

// wardenPath reports whether the absolute path p is a warden binary: one
// of Options.Warden, one named warden, or one built, copied or linked from
// warden earlier in the line.
func (k *call) wardenPath(p string) bool {
	if len(k.a.links) > 0 {
		p = k.a.throughLinks(p, true)
	}
	if path.Base(p) == WardenName || k.a.wardenBins[p] {
		return true
	}
	for _, b := range k.a.opts.Warden {
		if path.Clean(b) == p {
			return true
		}
	}
	return false
}

// copiedWarden records that cp/mv/install of a warden binary src made dest
// (or dest/NAME, for a directory) warden too.
func (k *call) copiedWarden(src, dest field) {
	s, ok := k.a.target(k.st, Read, k.home(src), false)
	if !ok || s.Unknown || !k.wardenPath(s.Target) {
		return
	}
	d, ok := k.a.target(k.st, Write, k.home(dest), false)
	if !ok || d.Unknown {
		return
	}
	if k.a.wardenBins == nil {
		k.a.wardenBins = map[string]bool{}
	}
	k.a.wardenBins[d.Target] = true
	k.a.wardenBins[path.Join(d.Target, path.Base(s.Target))] = true
}

// wardenReadOnly are warden's subcommands that only show things, and
// their read-only subcommands ("" is the command alone). Everything else
// changes what warden does (fail-closed: a subcommand added later is an
// admin one until it is listed here).
var wardenReadOnly = map[string][]string{
	"":           {""},
	"help":       {"*"}, // any
	"completion": {"*"},
	"hook":       {"*"}, // what the installed hooks run: it asks the daemon, like the agent's own calls
	"version":    {""},
	"status":     {""},
	"doctor":     {""},
	// approvals lists the queue; --watch answers it (wardenWatches)
	"approvals":   {""},
	"events":      {"", "export"}, // not import or prune
	"sessions":    {"", "show"},
	"policy":      {"", "check", "default", "eval", "explain", "test", "rules"},
	"workspace":   {"", "list", "ls"},
	"agents":      {"", "list", "ls", "status"},
	"sandbox":     {"explain", "check", "profile"},
	"credentials": {"", "list", "ls"},
	"index":       {"", "status", "search"},
	"control":     {"", "methods"},
}

// wardenValueFlags are warden's options that take a value (global ones
// and those of the subcommands that have subcommands of their own), so
// their values are not taken for subcommands.
var wardenValueFlags = []string{"data-dir", "config", "w", "workspace", "policy", "cwd", "home", "tool", "call", "since", "session", "limit"}

// warden models warden's own CLI. Subcommands that change what warden
// does are tagged TagWardenAdmin (attr action); the read-only ones are
// nothing. With --data-dir (or WARDEN_DATA_DIR set in the line) an admin
// subcommand acts on that dir's daemon instead of the one the person
// runs: it is a write of that dir, judged by where the dir is. "warden
// sandbox [-w DIR] [--] CMD" runs CMD, judged as CMD.
func (k *call) warden() {
	args := k.args
	var dataDir *field
	var words []field
	isSandbox := func() bool { return len(words) == 1 && words[0].known && words[0].val == "sandbox" }
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.known && f.val == "--" {
			if isSandbox() {
				k.sandboxRun(args[i+1:])
				return
			}
			break // the rest are arguments (policy explain -- CMD)
		}
		if f.known && (f.val == "--help" || f.val == "-h") && !isSandbox() {
			return // cobra prints the command's help and runs nothing
		}
		if f.known && strings.HasPrefix(f.val, "-") && len(f.val) > 1 {
			name, val, eq := strings.Cut(strings.TrimLeft(f.val, "-"), "=")
			takes := contains(wardenValueFlags, name)
			if name == "data-dir" {
				switch {
				case eq:
					d := sub(f, val)
					dataDir = &d
				case i+1 < len(args):
					d := args[i+1]
					dataDir = &d
				}
			}
			if takes && !eq {
				i++
			}
			continue
		}
		if isSandbox() && !(f.known && isSandboxSub(f.val)) {
			k.sandboxRun(args[i:])
			return
		}
		words = append(words, f)
	}
	sc, sc2 := "", ""
	if dataDir == nil {
		if d, ok := k.envVar("WARDEN_DATA_DIR"); ok {
			dataDir = &d
		}
	}
	if len(words) > 0 {
		if !words[0].known {
			k.wardenAdmin("(a subcommand not known at check time)", dataDir)
			return
		}
		sc = words[0].val
	}
	if len(words) > 1 && words[1].known {
		sc2 = words[1].val
	}
	subs, ok := wardenReadOnly[sc]
	switch {
	case k.wardenChanges(sc, sc2, words):
		// read-only by name, but this call changes something
	case ok && contains(subs, "*"), ok && contains(subs, sc2) && (len(words) < 2 || words[1].known):
		// read-only: it shows what the daemon of that data dir lets it
		return
	case sc == "sandbox" && len(words) == 1:
		return // warden sandbox alone prints its usage
	}
	action := sc
	switch {
	case len(words) > 1 && !words[1].known:
		action += " (a subcommand not known at check time)"
	case sc2 != "" && len(wardenReadOnly[sc]) > 0:
		action += " " + sc2 // workspace add, policy revoke, agents stop
	}
	k.wardenAdmin(action, dataDir)
}

// sandboxRun models "warden sandbox -- CMD": CMD runs (confined), and is
// judged as CMD.
func (k *call) sandboxRun(cmd []field) {
	k.wrapper = true
	k.inner(cmd, "warden sandbox", nil, nil)
}

func isSandboxSub(v string) bool {
	return contains(wardenReadOnly["sandbox"], v)
}

// wardenAdmin tags an admin subcommand. With an explicit --data-dir the
// command acts on that dir's daemon, not the person's: it is a write of
// that dir, judged by where it is (warden's own dir: denied; a test
// daemon's dir in the temp dir: allowed).
func (k *call) wardenAdmin(action string, dataDir *field) {
	if dataDir != nil {
		k.wardenData(dataDir)
		return
	}
	k.tag(TagWardenAdmin)
	k.attr("action", action)
}

// wardenData is the effect of changing the daemon of dataDir: a write of
// its data dir.
func (k *call) wardenData(dataDir *field) {
	k.file(Write, k.home(*dataDir), true)
}

// goBuildValued are go build flags that take a value.
var goBuildValued = []string{"C", "exec", "tags", "ldflags", "gcflags", "asmflags", "gccgoflags", "mod", "modfile", "overlay",
	"pkgdir", "toolexec", "buildmode", "compiler", "installsuffix", "p", "pgo", "covermode", "coverpkg", "o"}

// goBuild models where go build and go install write programs: go build
// -o OUT writes OUT; go install of warden's own main package writes
// warden into $GOBIN (else $GOPATH/bin, else ~/go/bin), replacing the
// binary the installed hooks may run. Other packages' installs are not
// modelled as writes (tools in ~/go/bin are everyday work).
func (k *call) goBuild() {
	sc := k.args[0].val
	args := k.args[1:]
	var pkgs []field
	var out *field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.known && strings.HasPrefix(f.val, "-") && len(f.val) > 1 {
			name, val, eq := strings.Cut(strings.TrimLeft(f.val, "-"), "=")
			if name == "o" && sc == "build" {
				switch {
				case eq:
					o := k.home(sub(f, val))
					out = &o
				case i+1 < len(args):
					o := k.home(args[i+1])
					out = &o
				}
				if out != nil {
					k.file(Write, *out, false)
				}
			}
			if !eq && contains(goBuildValued, name) {
				i++
			}
			continue
		}
		pkgs = append(pkgs, f)
	}
	for _, p := range pkgs {
		if !p.known {
			continue
		}
		v := p.val
		if at := strings.LastIndexByte(v, '@'); at > 0 {
			v = v[:at]
		}
		if path.Base(strings.TrimSuffix(v, "/")) != WardenName {
			continue
		}
		switch {
		case sc == "install":
			k.file(Write, k.home(sub(p, path.Join(k.goBin(), WardenName))), false)
		case out != nil:
			// the program built is warden, whatever it is called: running
			// it later in the line is running warden
			if e, ok := k.a.target(k.st, Exec, *out, false); ok && !e.Unknown {
				if k.a.wardenBins == nil {
					k.a.wardenBins = map[string]bool{}
				}
				k.a.wardenBins[e.Target] = true
			}
		}
	}
}

// envVar returns the value of an environment variable set for this
// command (VAR=x cmd, env VAR=x cmd) or earlier in the line (export VAR=x).
func (k *call) envVar(name string) (field, bool) {
	if f, ok := k.ro.env[name]; ok {
		return f, true
	}
	if _, ok := k.st.vars[name]; ok {
		return k.a.lookup(k.st, name), true
	}
	return field{}, false
}

// goBin is where go install puts programs: $GOBIN, else $GOPATH/bin,
// else ~/go/bin.
func (k *call) goBin() string {
	get := k.envVar
	if f, ok := get("GOBIN"); ok && f.known && f.val != "" {
		return f.val
	}
	if f, ok := get("GOPATH"); ok && f.known && f.val != "" {
		return path.Join(strings.Split(f.val, ":")[0], "bin")
	}
	return "~/go/bin"
}

// goRun models "go run [build flags] PKG [ARGS]": it executes PKG; when
// PKG is warden's own main package (its last element is "warden", as in
// ./cmd/warden or github.com/…/cmd/warden@latest) the program is warden
// with ARGS, so "go run ./cmd/warden approve X" is "warden approve X".
func (k *call) goRun() {
	valued := goBuildValued
	args := k.args[1:]
	i := 0
	for i < len(args) {
		f := args[i]
		if !f.known || !strings.HasPrefix(f.val, "-") {
			break
		}
		name, _, eq := strings.Cut(strings.TrimLeft(f.val, "-"), "=")
		i++
		if !eq && contains(valued, name) {
			i++
		}
	}
	if i >= len(args) {
		return
	}
	pkg := args[i]
	if !pkg.known {
		k.eff(Effect{Kind: Exec, Unknown: true, Reason: orDefault(pkg.reason, "the package is not known at check time")})
		return
	}
	p := pkg.val
	if at := strings.LastIndexByte(p, '@'); at > 0 {
		p = p[:at]
	}
	k.eff(Effect{Kind: Exec, Target: p})
	if strings.HasSuffix(p, ".go") {
		return
	}
	if p == "." || p == "./" || p == ".." {
		if k.st.dir == "" {
			return
		}
		p = path.Join(k.st.dir, p)
	}
	// the built program is named after the package (its last element);
	// warden's own main package is warden
	if path.Base(strings.TrimSuffix(p, "/")) != WardenName {
		return
	}
	argv := append([]field{sub(pkg, WardenName)}, args[i+1:]...)
	k.inner(argv, "go run", nil, nil)
}

// signal tags k as sending a signal (TagSignal) or looking processes up
// (TagProcessFind) with the given targets. Values not known at check time
// are "?".
func (k *call) signal(tag string, pids, procs []field, match string, icase bool) {
	k.tag(tag)
	join := func(fs []field) string {
		var out []string
		for _, f := range fs {
			if f.known {
				out = append(out, f.val)
			} else {
				out = append(out, "?")
			}
		}
		return strings.Join(out, ",")
	}
	if len(pids) > 0 {
		k.attr("pid", join(pids))
	}
	if len(procs) > 0 {
		k.attr("process", join(procs))
		k.attr("match", match)
		if icase {
			k.attr("icase", "true")
		}
	}
}

// kill models kill PID... and kill -SIG PID...: what it signals are its
// operands (pids, -PGID, -1 for every process, %job). The first -X is
// the signal; a -N after it is a process group (kill -9 -1).
func (k *call) kill() {
	var pids []field
	sig := false
	for i := 0; i < len(k.args); i++ {
		f := k.args[i]
		v := f.val
		switch {
		case !f.known:
			pids = append(pids, f)
		case v == "--":
			pids = append(pids, k.args[i+1:]...)
			i = len(k.args)
		case v == "-l" || v == "-L" || v == "--list" || v == "--table":
			return // lists signal names
		case v == "-s" || v == "-n" || v == "--signal":
			i++
			sig = true
		case strings.HasPrefix(v, "-") && len(v) > 1 && !sig:
			sig = true
		default:
			pids = append(pids, f)
		}
	}
	k.signal(TagSignal, pids, nil, "", false)
}

// pkill models pkill and pgrep: the processes are those whose name (or
// with -f whole command line) matches the pattern, a regex; -x makes it
// exact. pkill -F FILE reads the pids from FILE.
func (k *call) pkill() {
	p := parseOpts(k.args, spec{arg: "gGPsStuUF", long: []string{"signal", "group", "parent", "session", "terminal", "euid", "uid", "pidfile", "ns", "nslist", "pgroup", "runstates", "env", "cgroup"}, num: true})
	for _, f := range p.all("F", "pidfile") {
		k.file(Read, k.home(f), false)
	}
	match := "regex"
	if p.has("f", "full") {
		match = "full"
	} else if p.has("x", "exact") {
		match = "exact"
	}
	icase := p.has("i", "ignore-case")
	ops := p.ops
	tag := TagSignal
	if k.name == "pgrep" || k.name == "pidwait" {
		tag = TagProcessFind
	}
	if len(ops) == 0 {
		return
	}
	k.signal(tag, nil, ops, match, icase)
}

// killall models killall NAME...: exact process names (-r: regexes).
func (k *call) killall() {
	p := parseOpts(k.args, spec{arg: "sunoyZ", long: []string{"signal", "user", "ns", "older-than", "younger-than", "context"}, num: true})
	if p.has("l", "list", "V", "version") {
		return
	}
	match := "exact"
	if p.has("r", "regexp") {
		match = "regex"
	}
	if len(p.ops) == 0 {
		return
	}
	k.signal(TagSignal, nil, p.ops, match, p.has("I", "ignore-case"))
}

// pidof models pidof NAME...: it prints the pids of the named programs.
func (k *call) pidof() {
	p := parseOpts(k.args, spec{arg: "o"})
	if len(p.ops) > 0 {
		k.signal(TagProcessFind, nil, p.ops, "exact", false)
	}
}

// serviceStop models stopping or signalling a service: systemctl
// stop|kill|restart|disable|mask UNIT..., service UNIT stop,
// launchctl stop|kill|remove|unload|bootout LABEL.
func (k *call) serviceStop() {
	switch k.name {
	case "systemctl":
		p := parseOpts(k.args, spec{arg: "tspPHMnos", long: []string{"type", "state", "property", "host", "machine", "signal", "kill-whom", "kill-value", "root", "lines", "output", "job-mode", "what", "boot-loader-entry", "reboot-argument", "timestamp", "image", "drop-in", "when", "message"}})
		if len(p.ops) < 2 || !p.ops[0].known {
			return
		}
		switch p.ops[0].val {
		case "stop", "kill", "restart", "try-restart", "reload-or-restart", "try-reload-or-restart", "disable", "mask", "freeze", "clean", "revert":
			k.signal(TagSignal, nil, p.ops[1:], "unit", false)
		}
	case "service":
		if len(k.args) >= 2 && k.args[1].known {
			switch k.args[1].val {
			case "stop", "restart", "force-reload", "force-stop":
				k.signal(TagSignal, nil, k.args[:1], "unit", false)
			}
		}
	case "launchctl":
		if len(k.args) >= 2 && k.args[0].known {
			switch k.args[0].val {
			case "stop", "kill", "remove", "unload", "bootout", "disable":
				k.signal(TagSignal, nil, k.args[1:], "unit", false)
			}
		}
	}
}

// maxWritten bounds the content kept of files written in the line.
const maxWritten = 64 << 10

// recordWritten remembers what a command that printed known text wrote
// through its output redirections (echo 'rm -rf ~' > x.sh, cat > x.sh
// <<'EOF' ... EOF), so a script written then run in the same line is
// judged by its content. A write whose content is not known forgets the
// file.
func (a *analyzer) recordWritten(st *state, rs []*syntax.Redirect, start int) {
	for _, r := range rs {
		if r == nil || r.Word == nil {
			continue
		}
		app := false
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll:
		case syntax.AppOut, syntax.AppAll:
			app = true
		default:
			continue
		}
		v := a.plainWord(st, r.Word)
		if v == "" {
			if len(a.written) > 0 {
				a.written = nil // an unknown file was written: forget them all
			}
			continue
		}
		if a.opts.Home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
			v = a.opts.Home + v[1:]
		}
		e, ok := a.target(st, Write, lit(v), false)
		if !ok || e.Unknown {
			continue
		}
		if !app {
			delete(a.copies, e.Target) // overwritten: no longer a copy
		}
		a.recordFilled(e.Target, app, start)
		a.recordDownloaded(e.Target, app, start)
		txt, known := "", false
		if start < len(a.out.Commands) {
			txt, known = literalOutput(a.out.Commands[start:], a.meta[start:], a.opts.Env)
		}
		if !known {
			delete(a.written, e.Target)
			continue
		}
		if a.written == nil {
			a.written = map[string]string{}
		}
		if old, had := a.written[e.Target]; app && had {
			txt = old + txt
		}
		if len(txt) > maxWritten {
			delete(a.written, e.Target)
			continue
		}
		a.written[e.Target] = txt
	}
}

// plainWord is the value of a word made of literal text and plain
// expansions of variables known in st ($f, "$d/run.sh", ${f}), evaluated
// without running anything; "" when it has any other part or a variable
// not known.
func (a *analyzer) plainWord(st *state, w *syntax.Word) string {
	if v := w.Lit(); v != "" {
		return v
	}
	var b strings.Builder
	var add func(parts []syntax.WordPart) bool
	add = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if !add(x.Parts) {
					return false
				}
			case *syntax.ParamExp:
				if x.Param == nil || x.Excl || x.Length || x.Index != nil || x.Exp != nil || x.Slice != nil || x.Repl != nil || x.Names != 0 || len(x.Modifiers) > 0 {
					return false
				}
				f := a.lookup(st, x.Param.Value)
				if !f.known || f.val == "" {
					return false
				}
				b.WriteString(f.val)
			default:
				return false
			}
		}
		return true
	}
	if !add(w.Parts) {
		return ""
	}
	return b.String()
}

// writtenScript returns the content of the script file f when it was
// written earlier in the line with known content.
func (k *call) writtenScript(f field) (string, bool) {
	if len(k.a.written) == 0 || !f.known {
		return "", false
	}
	e, ok := k.a.target(k.st, Read, k.home(f), false)
	if !ok || e.Unknown {
		return "", false
	}
	txt, ok := k.a.written[e.Target]
	return txt, ok
}

// runWritten analyses a script written earlier in the line as the code it
// is: shell code, or (by its #! line) another interpreter's. It reports
// whether f was such a script.
func (k *call) runWritten(f field, lang string) bool {
	txt, ok := k.writtenScript(f)
	if !ok {
		return false
	}
	k.runText(txt, f, lang)
	return true
}

// runText analyses txt, the content of script f, as code of lang (its #!
// line's language when lang is "", shell code when it names none).
func (k *call) runText(txt string, f field, lang string) {
	if lang == "" && strings.HasPrefix(txt, "#!") {
		first, _, _ := strings.Cut(txt, "\n")
		for _, l := range []string{"python", "node", "perl", "ruby", "php"} {
			if strings.Contains(first, l) {
				lang = l
				break
			}
		}
	}
	if lang != "" && lang != "sh" {
		k.inlineCode(lit(txt), lang)
		return
	}
	k.nested(lit(txt), k.name+" "+f.val, []field{f}, false)
}

// printedPaths returns the set of paths a pipeline stage prints when it is
// known: find's files (cmdMeta.prints), or a filter that only passes some
// of its input lines on (grep, head, sort, ...) of such a list.
func printedPaths(cmds []Command, meta []cmdMeta, in stdinInfo) *field {
	if len(cmds) != 1 || len(meta) != 1 {
		return nil
	}
	if meta[0].prints != nil {
		return meta[0].prints
	}
	switch cmds[0].Name {
	case "grep", "egrep", "fgrep", "head", "tail", "sort", "uniq", "shuf", "cat", "tee":
		return in.paths
	}
	return nil
}

// findPrints reports whether a find expression prints the paths it finds
// and nothing else (no action, -print or -print0).
func findPrints(expr []field) bool {
	for _, f := range expr {
		if !f.known {
			return false
		}
		switch f.val {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-printf", "-fprint", "-fprint0", "-fprintf", "-fls", "-ls", "-quit":
			return false
		}
	}
	return true
}

// substPaths is the field $(...) gives for a known set of printed paths.
func substPaths(p field) field {
	p.subst = true
	return p
}

// claude models starting Claude Code: settings given on the command line
// (--settings, which can set disableAllHooks), a choice of setting sources
// that can leave the user's settings (where warden's hooks are) out, or
// another config dir (CLAUDE_CONFIG_DIR) start it without warden's hooks.
func (k *call) claude() {
	for _, f := range k.args {
		if !f.known {
			continue
		}
		name, _, _ := strings.Cut(f.val, "=")
		switch name {
		case "--settings", "--setting-sources":
			k.tag(TagAgentUnhooked)
			k.attr("agent", "claude")
			k.attr("how", name)
			return
		}
	}
	if _, ok := k.envVar("CLAUDE_CONFIG_DIR"); ok {
		k.tag(TagAgentUnhooked)
		k.attr("agent", "claude")
		k.attr("how", "CLAUDE_CONFIG_DIR")
	}
}

// recordDownloaded marks file as downloaded when the commands from start
// on, whose output fills it, fetch from the network (curl URL > f.sh; bash
// f.sh runs what came down, as curl -o f.sh does), and forgets the mark
// when the file is overwritten with other output.
func (a *analyzer) recordDownloaded(file string, app bool, start int) {
	fetched := false
	for i := start; i < len(a.out.Commands); i++ {
		if isFetcher(&a.out.Commands[i]) {
			fetched = true
			break
		}
	}
	a.markDownloaded(file, fetched, app)
}

// markDownloaded records whether file now holds content fetched from the
// network; appending keeps an earlier mark.
func (a *analyzer) markDownloaded(file string, fetched, app bool) {
	switch {
	case fetched:
		if a.downloaded == nil {
			a.downloaded = map[string]bool{}
		}
		a.downloaded[file] = true
	case !app:
		delete(a.downloaded, file)
	}
}

// recordFilled remembers what the output of the commands from start on
// carries into file (env > f: the environment; cat ~/.aws/credentials > x:
// that file), or forgets it when the new content carries nothing.
func (a *analyzer) recordFilled(file string, app bool, start int) {
	var carries []Effect
	if start < len(a.out.Commands) && outputCarries(a.out.Commands[start:]) {
		carries = carriesOf(nil, a.out.Commands[start:])
		if len(a.filled) > 0 {
			// cat e > f: f holds what e held (env > e earlier)
			for _, c := range carries[:len(carries):len(carries)] {
				if c.Target != file {
					carries = append(carries, a.filledOf(c)...)
				}
			}
		}
	}
	a.fill(file, carries, app)
}

// fill records that file now holds the reads carries (after what it held
// when app), or forgets it when it holds none.
func (a *analyzer) fill(file string, carries []Effect, app bool) {
	if app {
		carries = append(append([]Effect(nil), carries...), a.filled[file]...)
	}
	if len(carries) == 0 {
		delete(a.filled, file)
		return
	}
	if a.filled == nil {
		a.filled = map[string][]Effect{}
	}
	if strings.ContainsAny(file, "*?[") {
		a.globFilled = true
	}
	a.filled[file] = carries[:min(len(carries), maxCarries)]
}
