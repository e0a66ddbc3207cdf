package shell

import (
	"path"
	"strings"
)

// privilege records running as another user.
func (k *call) privilege(user string) {
	if user == "" {
		user = "root"
	}
	k.eff(Effect{Kind: Privilege, Target: user})
	k.tag(TagPrivilege)
	k.attr("user", user)
}

func (k *call) sudo() {
	p := parseOpts(k.args, spec{arg: "CDgpRrTtUu", long: []string{"user", "group", "chdir", "prompt", "role", "type",
		"other-user", "command-timeout", "close-from", "chroot", "host"}, stop: true})
	user := "root"
	if u, ok := p.get("u", "user"); ok {
		user = u.text(k.c)
	}
	k.privilege(user)
	// sudo -l enumerates what this user may run as root (and asks for the
	// password to do it): a probe of privilege, asked like the rest
	if p.has("l", "list") && len(p.ops) == 0 {
		k.attr("runs", "list")
		return
	}
	if p.has("v", "validate", "k", "reset-timestamp", "K", "remove-timestamp", "V", "version", "h", "help") && len(p.ops) == 0 {
		k.attr("runs", "nothing")
		return
	}
	env, ops := k.leadingAssignments(p.ops)
	p.ops = ops
	k.privilegeProbe(ops)
	if p.has("e", "edit") {
		k.files(Write, p.ops, false)
		return
	}
	var st *state
	if d, ok := p.get("D", "chdir"); ok {
		st = k.withDir(d)
	} else if p.has("i", "login") {
		st = k.st.clone()
		st.setDir("", "sudo -i starts in the target user's home directory")
	}
	if len(p.ops) == 0 && p.has("s", "shell", "i", "login") {
		k.attr("shell", "interactive")
		// the root shell reads its commands from stdin: sudo -s <<< 'cmd'
		saved := k.st
		if st != nil {
			k.st = st
		}
		k.stdinCode(true)
		k.st = saved
	}
	k.inner(p.ops, "sudo", st, env)
}

// systemdRunSpec is systemd-run's options: those that take a value.
var systemdRunSpec = spec{arg: "upEHMG", long: []string{"unit", "property", "description", "slice",
	"setenv", "uid", "gid", "nice", "host", "machine", "working-directory", "on-active", "on-boot", "on-startup",
	"on-unit-active", "on-unit-inactive", "on-calendar", "on-clock-change", "on-timezone-change", "timer-property",
	"path-property", "socket-property", "service-type", "json", "expand-environment"}}

// systemdRun runs its command as a transient unit. Of the system manager
// (no --user) the unit runs as root, or as --uid / -p User=, which a
// user who is not root gets through polkit, as with pkexec: privilege.
func (k *call) systemdRun() {
	k.wrapper = true
	s := systemdRunSpec
	s.stop = true
	p := parseOpts(k.args, s)
	if !p.has("user") {
		user := "root"
		if u, ok := p.get("uid"); ok {
			user = u.text(k.c)
		}
		for _, o := range p.all("p", "property") {
			if v := o.text(k.c); strings.HasPrefix(v, "User=") {
				user = v[len("User="):]
			}
		}
		k.privilege(user)
	}
	k.inner(p.ops, k.name, nil, nil)
}

// leadingAssignments splits the NAME=value words that sudo, doas and
// pkexec take before the command (the command's environment: sudo
// EDITOR='tee -a' visudo) from the command itself.
func (k *call) leadingAssignments(ops []field) (map[string]field, []field) {
	var env map[string]field
	for len(ops) > 0 {
		f := ops[0]
		name, ok := assignName(f.text(k.c))
		if !ok {
			break
		}
		if env == nil {
			env = map[string]field{}
		}
		if f.known {
			_, val, _ := strings.Cut(f.val, "=")
			env[name] = sub(f, val)
		} else {
			env[name] = unknownField("variable $" + name + " is set to a value not known at check time")
		}
		ops = ops[1:]
	}
	return env, ops
}

// privilegeProbe marks a privileged call that runs nothing but a probe
// (sudo -n true: "may I use sudo without a password?"): it changes
// nothing as root, so the privilege rule lets it through (attr runs=nothing).
func (k *call) privilegeProbe(ops []field) {
	if len(ops) == 0 {
		return
	}
	if f := ops[0]; f.known && (f.val == "true" || f.val == ":" || f.val == "false" || f.val == "/bin/true" || f.val == "/usr/bin/true") && len(ops) == 1 {
		k.attr("runs", "nothing")
	}
}

func (k *call) doas() {
	p := parseOpts(k.args, spec{arg: "uC", stop: true})
	user := "root"
	if u, ok := p.get("u"); ok {
		user = u.text(k.c)
	}
	k.privilege(user)
	if len(p.ops) == 0 && p.has("s") {
		k.stdinCode(true) // the shell reads its commands from stdin
	}
	env, ops := k.leadingAssignments(p.ops)
	k.privilegeProbe(ops)
	k.inner(ops, k.name, nil, env)
}

func (k *call) pkexec() {
	p := parseOpts(k.args, spec{long: []string{"user"}, stop: true})
	user := "root"
	if u, ok := p.get("user", "u"); ok {
		user = u.text(k.c)
	}
	k.privilege(user)
	env, ops := k.leadingAssignments(p.ops)
	k.privilegeProbe(ops)
	k.inner(ops, k.name, nil, env)
}

func (k *call) su() {
	p := parseOpts(k.args, spec{arg: "cgGsw", long: []string{"command", "group", "supp-group", "shell", "session-command", "whitelist-environment"}})
	user := "root"
	var ops []field
	for _, o := range p.ops {
		if o.known && o.val == "-" {
			continue
		}
		ops = append(ops, o)
	}
	if len(ops) > 0 {
		user = ops[0].text(k.c)
	}
	k.privilege(user)
	if code, ok := p.get("c", "command", "session-command"); ok {
		k.nested(code, "su -c", nil, false)
	} else {
		k.stdinCode(true) // the login shell reads its commands from stdin
	}
}

func (k *call) runuser() {
	p := parseOpts(k.args, spec{arg: "ugGcsw", long: []string{"user", "group", "supp-group", "command", "shell", "session-command"}, stop: true})
	if u, ok := p.get("u", "user"); ok {
		k.privilege(u.text(k.c))
		k.inner(p.ops, "runuser", nil, nil)
		return
	}
	user := "root"
	if len(p.ops) > 0 {
		user = p.ops[0].text(k.c)
	}
	k.privilege(user)
	if code, ok := p.get("c", "command", "session-command"); ok {
		k.nested(code, "runuser -c", nil, false)
	}
}

func (k *call) env() {
	k.wrapper = true
	args := k.args
	env := map[string]field{}
	var st *state
	i := 0
	takeNext := func() (field, bool) {
		if i+1 < len(args) {
			i++
			return args[i], true
		}
		return field{}, false
	}
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known {
			// NAME=$UNKNOWN is still an assignment, not the command
			if name, ok := assignName(f.text(k.c)); ok {
				env[name] = unknownField("variable $" + name + " is set to a value not known at check time")
				continue
			}
			break
		}
		switch {
		case v == "-" || v == "--":
			if v == "--" {
				i++
			}
			break loop
		case v == "-C" || v == "--chdir":
			if d, ok := takeNext(); ok {
				st = k.withDir(d)
			}
		case strings.HasPrefix(v, "--chdir="):
			st = k.withDir(sub(f, v[len("--chdir="):]))
		case v == "-u" || v == "--unset":
			takeNext()
		case v == "-S" || v == "--split-string" || strings.HasPrefix(v, "--split-string=") || (strings.HasPrefix(v, "-S") && len(v) > 2):
			var s field
			switch {
			case strings.HasPrefix(v, "--split-string="):
				s = sub(f, v[len("--split-string="):])
			case len(v) > 2 && v[1] == 'S':
				s = sub(f, v[2:])
			default:
				s, _ = takeNext()
			}
			rest := args[i+1:]
			if code := joinCode(rest); s.known && code.known {
				// env -S splits its string with quotes, escapes and
				// ${VAR}; read it as the shell would, which is a little
				// broader (it also expands ~)
				words := make([]string, 0, len(rest))
				for _, r := range rest {
					words = append(words, r.val)
				}
				c := sub(s, strings.TrimSpace(s.val+" "+Join(words...)))
				k.ro.env = mergeEnv(k.ro.env, env)
				k.nestedIn(c, "env -S", st)
				return
			}
			var words []field
			if s.known {
				for _, w := range strings.Fields(s.val) {
					words = append(words, sub(s, w))
				}
			} else {
				words = append(words, s)
			}
			k.inner(append(words, rest...), "env", st, env)
			return
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1:
			if j := strings.IndexAny(v, "Cu"); j > 0 {
				val := v[j+1:]
				if val == "" {
					if d, ok := takeNext(); ok && v[j] == 'C' {
						st = k.withDir(d)
					}
				} else if v[j] == 'C' {
					st = k.withDir(sub(f, val))
				}
			}
		case strings.Contains(v, "=") && !strings.HasPrefix(v, "="):
			name, val, _ := strings.Cut(v, "=")
			env[name] = sub(f, val)
		default:
			break loop
		}
	}
	if i >= len(args) {
		return
	}
	k.inner(args[i:], "env", st, env)
}

// assignName returns NAME when s starts with "NAME=" for a valid shell
// variable name.
func assignName(s string) (string, bool) {
	name, _, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return "", false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "", false
		}
	}
	return name, true
}

// simpleWrapper unwraps programs whose options are followed by a command.
func (k *call) simpleWrapper(s spec, skip int) {
	k.wrapper = true
	s.stop = true
	p := parseOpts(k.args, s)
	ops := p.ops
	if skip > len(ops) {
		return
	}
	k.inner(ops[skip:], k.name, nil, nil)
}

func (k *call) commandBuiltin() {
	k.wrapper = true
	p := parseOpts(k.args, spec{stop: true})
	if p.has("v", "V") {
		return
	}
	k.inner(p.ops, k.name, nil, nil)
}

func (k *call) timeCmd() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "fo", long: []string{"format", "output"}, stop: true})
	if o, ok := p.get("o", "output"); ok {
		k.file(Write, o, false)
	}
	k.inner(p.ops, "time", nil, nil)
}

func (k *call) ionice() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}, stop: true})
	if p.has("p", "P", "u", "pid", "pgid", "uid") {
		return
	}
	k.inner(p.ops, "ionice", nil, nil)
}

func (k *call) chrt() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}, stop: true})
	if p.has("p", "pid", "m", "max") || len(p.ops) < 2 {
		return
	}
	k.inner(p.ops[1:], "chrt", nil, nil)
}

func (k *call) taskset() {
	k.wrapper = true
	p := parseOpts(k.args, spec{stop: true})
	if p.has("p", "pid") || len(p.ops) < 2 {
		return
	}
	k.inner(p.ops[1:], "taskset", nil, nil)
}

func (k *call) flock() {
	k.wrapper = true
	s := spec{arg: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}, stop: true}
	p := parseOpts(k.args, s)
	if len(p.ops) == 0 {
		return
	}
	if code, ok := p.get("c", "command"); ok {
		k.nested(code, "flock -c", nil, false)
		return
	}
	rest := parseOpts(p.ops[1:], s)
	if code, ok := rest.get("c", "command"); ok {
		k.nested(code, "flock -c", nil, false)
		return
	}
	k.inner(rest.ops, "flock", nil, nil)
}

func (k *call) traceCmd() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "eopPsuEaXSObIUlnxFL", long: []string{"output", "attach", "user", "env", "string-limit", "trace", "signal", "status"}, stop: true})
	for _, o := range p.all("o", "output") {
		k.file(Write, o, false)
	}
	if p.has("p", "attach") {
		k.tag(TagProcessAttach) // reads and steers a running process
		return
	}
	k.inner(p.ops, k.name, nil, nil)
}

func (k *call) chroot() {
	p := parseOpts(k.args, spec{long: []string{"userspec", "groups"}, stop: true})
	if len(p.ops) == 0 {
		return
	}
	k.tag(TagPrivilege)
	if e, ok := k.a.target(k.st, Privilege, p.ops[0], false); ok {
		k.eff(e)
	}
	cmd := p.ops[1:]
	if len(cmd) == 0 {
		cmd = []field{lit("sh"), lit("-i")} // chroot DIR runs $SHELL -i
	}
	k.inner(cmd, "chroot", k.chrootState(p.ops[0]), nil)
}

// joinCode joins words into a shell command string.
func joinCode(fs []field) field {
	out := field{known: true}
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		if !f.known {
			out = f
			out.known = false
			return out
		}
		parts = append(parts, f.val)
	}
	out.val = strings.Join(parts, " ")
	return out
}

func (k *call) watch() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "nq", optArg: "d", long: []string{"interval", "equexit"}, stop: true})
	if len(p.ops) == 0 {
		return
	}
	if p.has("x", "exec") {
		k.inner(p.ops, "watch", nil, nil)
		return
	}
	k.nested(joinCode(p.ops), "watch", nil, false)
}

func (k *call) xargs() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "adEILnPs", optArg: "eil", long: []string{"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}, stop: true})
	src := unknownField("arguments come from stdin")
	src.remote = k.c.stdin.remote
	if ss := k.c.stdin.secrets; len(ss) > 0 {
		src.sec = &secretRef{name: ss[0]} // echo "$TOKEN" | xargs -I{} curl -H "X: {}" …
	}
	if ps := k.c.stdin.paths; ps != nil {
		// find ROOT -name N | xargs cmd: cmd gets files called N below ROOT
		src = *ps
	}
	if af, ok := p.get("a", "arg-file"); ok {
		k.file(Read, af, false)
		src = unknownField("arguments come from file " + af.text(k.c))
	}
	repl := ""
	if r, ok := p.get("I"); ok {
		repl = r.val
	}
	for _, o := range p.opts {
		if o.name == "i" || o.name == "replace" {
			repl = "{}"
			if o.has && o.val.val != "" {
				repl = o.val.val
			}
		}
	}
	cmd := p.ops
	if len(cmd) == 0 {
		return // echo
	}
	// the command's stdin is not xargs' stdin
	saved := k.c
	k.c = k.c.withStdin(stdinInfo{})
	defer func() { k.c = saved }()
	if in := saved.stdin; in.literal && !p.has("a", "arg-file") {
		// known input (echo ~ | xargs rm -rf, <<< "$HOME"): its items are
		// the arguments
		items := xargsItems(in.text, repl != "" || p.has("d", "delimiter", "L"), p.has("0"))
		if len(items) > 0 && len(items) <= maxLoopItems {
			if repl == "" {
				argv := append([]field(nil), cmd...)
				for _, it := range items {
					f := lit(it)
					f.pos, f.end = cmd[len(cmd)-1].end, cmd[len(cmd)-1].end
					argv = append(argv, f)
				}
				k.inner(argv, "xargs", nil, nil)
				return
			}
			for _, it := range items {
				argv := make([]field, len(cmd))
				for i, f := range cmd {
					argv[i] = f
					if f.known && strings.Contains(f.val, repl) {
						argv[i].val = strings.ReplaceAll(f.val, repl, it)
					}
				}
				k.inner(argv, "xargs", nil, nil)
			}
			return
		}
	}
	k.inner(k.substArgs(cmd, repl, src), "xargs", nil, nil)
}

// xargsItems splits xargs' input into items: lines (with -I, -d or -L),
// NUL-separated (-0), else blank-separated words with simple quotes.
func xargsItems(text string, lines, nul bool) []string {
	switch {
	case nul:
		return strings.FieldsFunc(text, func(r rune) bool { return r == 0 })
	case lines:
		var out []string
		for _, l := range strings.Split(text, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	var out []string
	for _, w := range strings.Fields(text) {
		out = append(out, strings.Trim(w, `"'`))
	}
	return out
}

// substArgs replaces repl in the words of cmd by the value bind (appended
// as an extra argument when repl is "").
func (k *call) substArgs(cmd []field, repl string, bind field) []field {
	out := make([]field, 0, len(cmd)+1)
	for _, f := range cmd {
		if repl != "" && f.known && strings.Contains(f.val, repl) {
			if f.val == repl {
				b := bind
				b.pos, b.end = f.pos, f.end
				out = append(out, b)
				continue
			}
			t := f
			t.val = strings.ReplaceAll(f.val, repl, "${"+argVar+"}")
			t.known = false
			t.tmpl = true
			bc := bind
			t.bind = &bc
			t.reason = bind.reason
			t.under = bind.under
			if bind.sec != nil {
				t.sec = &secretRef{name: bind.sec.name, partial: strings.ReplaceAll(f.val, repl, "")}
			}
			out = append(out, t)
			continue
		}
		out = append(out, f)
	}
	if repl == "" {
		b := bind
		if len(cmd) > 0 {
			b.pos, b.end = cmd[len(cmd)-1].end, cmd[len(cmd)-1].end
		}
		if !b.known && b.val == "" {
			b.val = "{stdin}"
		}
		out = append(out, b)
	}
	return out
}

func (k *call) parallel() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "jSadEIinNLPX", long: []string{"jobs", "sshlogin", "arg-file", "colsep", "delimiter", "delay", "timeout",
		"joblog", "results", "tmpdir", "halt", "retries", "env", "tag-string", "max-args", "max-replace-args", "memfree", "load", "workdir", "basefile"}, stop: true})
	var cmd, items []field
	sep := ""
	for i, f := range p.ops {
		if f.known && (f.val == ":::" || f.val == "::::" || f.val == ":::+" || f.val == "::::+") {
			sep = f.val
			cmd = p.ops[:i]
			items = p.ops[i+1:]
			break
		}
	}
	if sep == "" {
		cmd = p.ops
	}
	if len(cmd) == 0 {
		return
	}
	code := joinCode(cmd)
	if !code.known {
		k.nested(code, "parallel", nil, false)
		return
	}
	tmpl := code.val
	replaced := false
	for _, r := range []string{"{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{1}", "{2}"} {
		if strings.Contains(tmpl, r) {
			tmpl = strings.ReplaceAll(tmpl, r, "${"+argVar+"}")
			replaced = true
		}
	}
	if !replaced {
		tmpl += " ${" + argVar + "}"
	}
	var binds []field
	switch {
	case strings.HasPrefix(sep, ":::") && !strings.HasPrefix(sep, "::::") && len(items) > 0 && len(items) <= maxLoopItems:
		binds = items
	case strings.HasPrefix(sep, "::::"):
		k.files(Read, items, false)
		binds = []field{unknownField("arguments come from files")}
	default:
		u := unknownField("arguments come from stdin")
		u.remote = k.c.stdin.remote
		binds = []field{u}
	}
	for _, b := range binds {
		bc := b
		k.nested(field{val: tmpl, tmpl: true, bind: &bc, reason: b.reason}, "parallel", nil, false)
	}
}

func (k *call) find() {
	args := k.args
	i := 0
	for i < len(args) && args[i].known {
		v := args[i].val
		if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") {
			i++
			continue
		}
		if v == "-D" { // -D debugopts: a flag with a value (which may be missing)
			i = min(i+2, len(args))
			continue
		}
		break
	}
	var roots []field
	for i < len(args) {
		v := args[i]
		if v.known && (strings.HasPrefix(v.val, "-") || v.val == "(" || v.val == "!" || v.val == ")" || v.val == ",") {
			break
		}
		roots = append(roots, v)
		i++
	}
	if len(roots) == 0 {
		r := lit(".")
		r.pos, r.end = k.argv[0].end, k.argv[0].end
		roots = []field{r}
	}
	for _, r := range roots {
		// find's own walk reads names and attributes, not contents
		if e, ok := k.a.target(k.st, Read, r, true); ok {
			e.Meta = true
			k.eff(e)
		}
	}
	if len(roots) > maxFindRoots {
		roots = roots[:maxFindRoots]
	}
	expr := args[i:]
	k.findDestroys(roots, expr)
	name := findName(expr)
	if len(roots) == 1 && roots[0].known && findPrints(expr) {
		rb := roots[0]
		if name != "" {
			rb = sub(rb, path.Join(rb.val, name))
			rb.glob = strings.ContainsAny(name, "*?[")
			rb.named = true
		}
		rb.under = true
		rb.follow = k.findFollows()
		k.meta.prints = &rb
	}
	for j := 0; j < len(expr); j++ {
		if !expr[j].known {
			continue
		}
		v := expr[j].val
		switch v {
		case "-delete":
			k.files(Delete, roots, true)
			if name != "" {
				// and, by name, the files it selects below each root
				for _, r := range roots {
					if r.known {
						rb := sub(r, path.Join(r.val, "**", name))
						rb.glob = true
						k.file(Delete, rb, false)
					}
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j++
			start := j
			for j < len(expr) && !(expr[j].known && (expr[j].val == ";" || expr[j].val == "+")) {
				j++
			}
			cmd := expr[start:min(j, len(expr))]
			if len(cmd) == 0 {
				continue
			}
			for _, r := range roots {
				rb := r
				if name != "" && r.known {
					// what -exec gets are files called name under the root
					rb = sub(r, path.Join(r.val, name))
					rb.glob = strings.ContainsAny(name, "*?[")
					rb.named = true
				}
				rb.under = true
				rb.follow = k.findFollows()
				var st *state
				if v == "-execdir" || v == "-okdir" {
					st = k.withDir(r)
				}
				k.inner(k.substArgs(cmd, "{}", rb), "find "+v, st, nil)
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if j+1 < len(expr) {
				j++
				k.file(Write, expr[j], false)
			}
			if v == "-fprintf" {
				j++
			}
		case "-name", "-iname", "-path", "-ipath", "-regex", "-iregex", "-type", "-xtype", "-size", "-mtime", "-mmin",
			"-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-user", "-group", "-perm", "-maxdepth", "-mindepth",
			"-printf", "-wholename", "-iwholename", "-lname", "-ilname", "-inum", "-links", "-uid", "-gid", "-samefile",
			"-used", "-fstype", "-context", "-regextype", "-files0-from", "-newermt", "-newerct", "-newerat":
			j++
		}
	}
}

// findName returns the one -name/-iname pattern of a find expression that
// has no alternatives (-o, ","), or "" when there is none or several.
func findName(expr []field) string {
	name, n := "", 0
	for j := 0; j < len(expr); j++ {
		if !expr[j].known {
			continue
		}
		switch expr[j].val {
		case "-o", "-or", ",", "!", "-not":
			return ""
		case "-name", "-iname":
			n++
			if j+1 < len(expr) && expr[j+1].known && !strings.Contains(expr[j+1].val, "/") {
				name = expr[j+1].val
			}
			j++
		}
	}
	if n != 1 {
		return ""
	}
	return name
}

func (k *call) busybox() {
	k.wrapper = true
	args := k.args
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") {
		args = args[1:]
	}
	k.inner(args, k.name, nil, nil)
}

// npx runs a package's binary: npx, bunx, pnpx, pnpm dlx, yarn dlx.
func (k *call) npx(args []field, label string) {
	k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
	p := parseOpts(args, spec{arg: "pc", long: []string{"package", "call"}, stop: true})
	if code, ok := p.get("c", "call"); ok {
		k.nested(code, label+" -c", nil, false)
		return
	}
	if len(p.ops) == 0 {
		return
	}
	pkg := p.ops[0]
	if pkg.known {
		n := pkg.val
		if strings.HasPrefix(n, "@") {
			if i := strings.IndexByte(n, '/'); i > 0 {
				n = n[i+1:]
			}
		}
		if i := strings.IndexByte(n, '@'); i > 0 {
			n = n[:i]
		}
		pkg = sub(pkg, n)
		k.eff(Effect{Kind: Exec, Target: n})
	}
	argv := append([]field{pkg}, p.ops[1:]...)
	k.inner(argv, label, nil, nil)
}
