package shell

import "strings"

// The models of programs that run their arguments as a command, now or
// later, here or in another namespace, session or terminal: what they run
// is judged as if it ran directly (systemd-run --user rm -rf ~ is rm -rf ~).
// They are declared in programs_runners.go.

// nsenter runs a command in the namespaces of another process; those of
// pid 1 are the host's, as root.
func (k *call) nsenter() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "tSGrwe", long: []string{"target", "setuid", "setgid", "root", "wd", "env"}, stop: true})
	if t, ok := p.get("t", "target"); ok && t.known && t.val == "1" {
		k.privilege("root")
	}
	k.inner(p.ops, "nsenter", nil, nil)
}

// entr runs its command (or, with -s, shell code) when files change.
func (k *call) entr() {
	k.wrapper = true
	p := parseOpts(k.args, spec{stop: true})
	if p.has("s") && len(p.ops) > 0 {
		k.nested(p.ops[0], "entr -s", nil, false)
		return
	}
	k.inner(p.ops, "entr", nil, nil)
}

// direnvExec is direnv exec DIR CMD: CMD in DIR with its .envrc loaded.
func (k *call) direnvExec() {
	if len(k.args) >= 2 && k.args[0].known && k.args[0].val == "exec" {
		k.wrapper = true
		k.inner(k.args[2:], "direnv exec", k.withDir(k.args[1]), nil)
	}
}

// machinectl shell runs a command in a machine (the host: .host) as root.
func (k *call) machinectl() {
	if len(k.args) > 0 && k.args[0].known && k.args[0].val == "shell" {
		p := parseOpts(k.args[1:], spec{arg: "EpMH", long: []string{"setenv", "uid", "property", "machine", "host"}, stop: true})
		k.privilege("root")
		if len(p.ops) > 1 {
			k.inner(p.ops[1:], "machinectl shell", nil, nil)
		}
	}
}

// scriptCmd models script(1): -c runs a command in a pseudo-terminal; the
// operand is the typescript it writes.
func (k *call) scriptCmd() {
	k.wrapper = true
	p := parseOpts(k.args, spec{arg: "cEIOBTm", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}})
	for _, f := range p.all("I", "O", "B", "T", "log-in", "log-out", "log-io", "log-timing") {
		k.file(Write, f, false)
	}
	if len(p.ops) > 0 {
		k.file(Write, p.ops[0], false)
	}
	if c, ok := p.get("c", "command"); ok {
		k.nested(c, "script -c", nil, false)
	}
}

// atCmd models at and batch: the commands come from -f FILE or stdin and
// run later.
func (k *call) atCmd() {
	p := parseOpts(k.args, spec{arg: "fqtM", long: []string{"file", "queue"}})
	if p.has("l", "d", "r", "c", "V") {
		return
	}
	k.eff(Effect{Kind: Exec, Reason: "commands scheduled with " + k.name})
	if f, ok := p.get("f", "file"); ok {
		k.script(f, false)
		k.runScript(f, "sh")
		return
	}
	k.stdinCode(true)
}

// tmuxSpecs are the options of tmux's commands that run a shell command.
var tmuxSpecs = map[string]spec{
	"new-session":    {arg: "cefFnstxy"},
	"new-window":     {arg: "cefFnt"},
	"split-window":   {arg: "celFtp"},
	"respawn-pane":   {arg: "cet"},
	"respawn-window": {arg: "cet"},
	"run-shell":      {arg: "cdt"},
	"display-popup":  {arg: "bcdehsStTwxy"},
	"send-keys":      {arg: "Nt"},
	"if-shell":       {arg: "t"},
	"pipe-pane":      {arg: "t"},
}

var tmuxAliases = map[string]string{"new": "new-session", "neww": "new-window", "splitw": "split-window",
	"respawnp": "respawn-pane", "respawnw": "respawn-window", "run": "run-shell", "popup": "display-popup",
	"send": "send-keys", "if": "if-shell", "pipep": "pipe-pane"}

// tmux models the tmux commands that run shell commands: new-session,
// new-window, split-window, respawn-*, run-shell, display-popup, if-shell,
// pipe-pane, and send-keys of a line ending with Enter.
func (k *call) tmux() {
	p := parseOpts(k.args, spec{arg: "cfLST", stop: true})
	if c, ok := p.get("c"); ok {
		k.nested(c, "tmux -c", nil, false)
	}
	// commands are separated by ";" arguments
	var cmds [][]field
	var cur []field
	for _, f := range p.ops {
		if f.known && (f.val == ";" || f.val == `\;`) {
			cmds = append(cmds, cur)
			cur = nil
			continue
		}
		if f.known && strings.HasSuffix(f.val, `\;`) && len(f.val) > 2 {
			cur = append(cur, sub(f, strings.TrimSuffix(f.val, `\;`)))
			cmds = append(cmds, cur)
			cur = nil
			continue
		}
		cur = append(cur, f)
	}
	cmds = append(cmds, cur)
	for _, c := range cmds {
		if len(c) == 0 || !c[0].known {
			continue
		}
		name := c[0].val
		if a, ok := tmuxAliases[name]; ok {
			name = a
		}
		s, ok := tmuxSpecs[name]
		if !ok {
			continue
		}
		s.stop = true
		cp := parseOpts(c[1:], s)
		label := "tmux " + name
		switch name {
		case "send-keys":
			k.tmuxKeys(cp.ops, cp.has("l"), label)
		case "if-shell":
			if len(cp.ops) > 0 && !cp.has("F") {
				k.nested(cp.ops[0], label, nil, false)
			}
			for _, o := range cp.ops[min(1, len(cp.ops)):] {
				k.tmux2(o, label)
			}
		case "pipe-pane":
			if len(cp.ops) > 0 {
				k.nested(joinCode(cp.ops), label, nil, false)
			}
		default:
			if len(cp.ops) == 0 {
				continue
			}
			var st *state
			if d, ok := cp.get("c"); ok && name != "run-shell" {
				st = k.withDir(d)
			}
			if len(cp.ops) == 1 {
				k.nestedIn(cp.ops[0], label, st)
			} else {
				k.inner(cp.ops, label, st, nil)
			}
		}
	}
}

// tmux2 judges a tmux command given as one argument (if-shell's branches).
func (k *call) tmux2(f field, label string) {
	if !f.known {
		k.dynamicExec(label + " runs a tmux command not known at check time")
		return
	}
	words := strings.Fields(f.val)
	if len(words) == 0 {
		return
	}
	argv := []field{lit("tmux")}
	for _, w := range words {
		argv = append(argv, sub(f, w))
	}
	k.inner(argv, label, nil, nil)
}

// nestedIn is nested code run in state st (a new window's directory).
func (k *call) nestedIn(code field, label string, st *state) {
	if st == nil {
		k.nested(code, label, nil, false)
		return
	}
	saved := k.st
	k.st = st
	k.nested(code, label, nil, false)
	k.st = saved
}

// tmuxKeys judges keys typed into a pane: the text typed before Enter is a
// command line run by the pane's shell.
func (k *call) tmuxKeys(keys []field, literal bool, label string) {
	var b strings.Builder
	known := true
	for _, f := range keys {
		if !f.known {
			known = false
			b.WriteString(codePH)
			continue
		}
		switch v := f.val; {
		case !literal && (v == "Enter" || v == "C-m" || v == "KPEnter" || v == "^M" || v == "C-j"):
			k.typedLine(b.String(), known, label)
			b.Reset()
			known = true
		case !literal && (v == "Space"):
			b.WriteByte(' ')
		case !literal && (v == "Tab" || v == "C-c" || v == "C-d" || v == "Escape" || strings.HasPrefix(v, "C-") || strings.HasPrefix(v, "M-")):
		default:
			b.WriteString(v)
		}
	}
	rest := b.String()
	if i := strings.LastIndexAny(rest, "\n\r"); i >= 0 {
		k.typedLine(rest[:i], known, label)
	}
}

// typedLine judges a line typed into a shell.
func (k *call) typedLine(line string, known bool, label string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	f := lit(line)
	if !known {
		f.known, f.tmpl = false, true
		u := unknownField("keys not known at check time")
		f.bind, f.reason = &u, u.reason
	}
	k.nested(f, label, nil, false)
}

// screen models GNU screen: the operand is a command run in a new window;
// -X sends a screen command to a session (stuff types text, exec and
// screen run a program).
func (k *call) screen() {
	p := parseOpts(k.args, spec{arg: "cehpsStT", long: []string{"Logfile"}, stop: true})
	if p.has("X") {
		if len(p.ops) == 0 || !p.ops[0].known {
			return
		}
		label := "screen -X " + p.ops[0].val
		switch p.ops[0].val {
		case "stuff":
			if len(p.ops) > 1 {
				t := p.ops[1]
				if t.known {
					v := strings.NewReplacer(`^M`, "\n", `\r`, "\n", `\n`, "\n", "\r", "\n", `^J`, "\n").Replace(t.val)
					k.typedLine(strings.TrimRight(v, "\n"), true, label)
				} else {
					k.dynamicExec(label + " types text not known at check time")
				}
			}
		case "exec", "screen":
			ops := p.ops[1:]
			for len(ops) > 0 && ops[0].known && (strings.HasPrefix(ops[0].val, "-") || strings.Trim(ops[0].val, ".!:|") == "") {
				ops = ops[1:]
			}
			k.inner(ops, label, nil, nil)
		}
		return
	}
	if p.has("ls", "list", "wipe", "r", "R", "x", "v", "version") {
		return // sessions that exist: nothing new runs
	}
	k.inner(p.ops, "screen", nil, nil)
}

// expect models expect: -c code, a script file, or code on stdin, all Tcl.
func (k *call) expect() {
	p := parseOpts(k.args, spec{arg: "cfD"})
	codes := p.all("c")
	for _, c := range codes {
		k.eff(Effect{Kind: Exec, Reason: "inline code (expect)"})
		if !c.known {
			k.dynamicExec("expect runs code not known at check time: " + orDefault(c.reason, "dynamic"))
			continue
		}
		k.tclCode(c, c.val, 0)
	}
	if f, ok := p.get("f"); ok {
		k.script(f, false)
		k.runScript(f, "expect")
		return
	}
	if len(p.ops) > 0 && !(p.ops[0].known && p.ops[0].val == "-") {
		k.script(p.ops[0], false)
		k.runScript(p.ops[0], "expect")
		return
	}
	if len(codes) == 0 {
		k.stdinCode(false)
		if in := k.c.stdin; in.literal && !in.remote {
			k.tclCode(lit(in.text), in.text, 0)
		}
	}
}

// sg runs a command with another group: sg GROUP -c CMD, or sg GROUP CMD.
func (k *call) sg() {
	k.wrapper = true
	if len(k.args) < 2 {
		return
	}
	rest := k.args[1:]
	if rest[0].known && rest[0].val == "-c" && len(rest) > 1 {
		k.nested(rest[1], "sg -c", nil, false)
		return
	}
	k.nested(joinCode(rest), "sg", nil, false)
}

// perf runs the command of perf record, stat, trace.
func (k *call) perf() {
	k.wrapper = true
	if len(k.args) == 0 || !k.args[0].known {
		return
	}
	switch k.args[0].val {
	case "record", "stat", "trace", "c2c", "mem", "sched", "kvm", "lock":
		p := parseOpts(k.args[1:], spec{arg: "eoCptFcm", long: []string{"event", "output", "cpu", "pid", "tid", "freq", "call-graph", "cgroup", "mmap-pages", "filter", "delay", "repeat", "field-separator"}, stop: true})
		for _, o := range p.all("o", "output") {
			k.file(Write, o, false)
		}
		k.inner(p.ops, "perf "+k.args[0].val, nil, nil)
	}
}

// bwrap models bubblewrap: its options take zero, one or two values; the
// command follows them.
func (k *call) bwrap() {
	k.wrapper = true
	two := map[string]bool{"--bind": true, "--bind-try": true, "--dev-bind": true, "--dev-bind-try": true, "--ro-bind": true,
		"--ro-bind-try": true, "--symlink": true, "--setenv": true, "--file": true, "--bind-data": true, "--ro-bind-data": true,
		"--chmod": true, "--overlay-src": false}
	one := map[string]bool{"--args": true, "--unsetenv": true, "--lock-file": true, "--sync-fd": true, "--uid": true, "--gid": true,
		"--hostname": true, "--chdir": true, "--remount-ro": true, "--exec-label": true, "--file-label": true, "--proc": true,
		"--dev": true, "--tmpfs": true, "--mqueue": true, "--dir": true, "--seccomp": true, "--add-seccomp-fd": true,
		"--block-fd": true, "--userns-block-fd": true, "--info-fd": true, "--json-status-fd": true, "--cap-add": true,
		"--cap-drop": true, "--perms": true, "--size": true, "--userns": true, "--userns2": true, "--pidns": true,
		"--overlay-src": true, "--tmp-overlay": true, "--ro-overlay": true, "--argv0": true}
	args := k.args
	i := 0
	for i < len(args) && args[i].known && strings.HasPrefix(args[i].val, "--") {
		v := args[i].val
		i++
		if v == "--" {
			break
		}
		switch {
		case two[v]:
			if (v == "--bind" || v == "--dev-bind" || v == "--bind-try" || v == "--dev-bind-try") && i+1 < len(args) {
				// a writable bind: the sandboxed command can change the source
				k.file(Write, args[i], true)
			}
			i += 2
		case v == "--overlay":
			i += 3
		case one[v]:
			i++
		}
	}
	if i < len(args) {
		k.inner(args[i:], "bwrap", nil, nil)
	}
}
