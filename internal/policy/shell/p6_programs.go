package shell

import (
	"path"
	"strings"
)

// p6Programs declares programs that print names rather than read what
// they name.
func p6Programs() []program {
	return []program{
		// readlink and realpath print a path: they read the link (its
		// name), not the content of what it leads to, so
		// readlink -f key_link reads no key; what they print is the
		// operand's path, which a later read through $(…) follows.
		{names: []string{"readlink", "realpath"}, model: (*call).pathPrinter,
			examples: []example{ex("readlink -f key_link", "!read"), ex("realpath ~/.ssh/id_rsa", "!read"),
				ex("cat \"$(readlink -f ~/.ssh/id_rsa)\"", "read /home/u/.ssh/id_rsa")}},
		// programs that find or stop processes by the port they hold: what
		// holds warden's ports is warden (the policy knows its ports)
		{names: []string{"fuser"}, model: (*call).fuser,
			examples: []example{ex("fuser -k 37123/tcp", "tag process.signal", "attr port=37123"), ex("fuser 8080/tcp", "tag process.find", "!tag process.signal"),
				ex("fuser -k -n tcp 19876", "attr port=19876"), ex("fuser -km /mnt/x", "tag process.signal", "attr pid=?")}},
		{names: []string{"lsof"}, model: (*call).lsof,
			examples: []example{ex("lsof -t -i :37123", "tag process.find", "attr port=37123"), ex("lsof -ti tcp:8080", "attr port=8080"),
				ex("lsof -iTCP:5432 -sTCP:LISTEN", "attr port=5432"), ex("lsof -p 12", "!tag process.find")}},
		{names: []string{"ss"}, model: (*call).ss,
			examples: []example{ex("ss -K dport = :37123", "tag process.signal", "attr port=37123"), ex("ss -tlnp", "!tag process.signal"),
				ex("ss -K '( sport = :19876 )'", "attr port=19876")}},
		{names: []string{"man"}, model: (*call).man,
			examples: []example{ex("man -P 'rm -rf ~' ls", "delete:r /home/u", "via rm man -P"), ex("MANPAGER='sh -c \"rm -rf ~\"' man ls", "delete:r /home/u"),
				ex("man --pager=less git", "!delete"), ex("man -l ./doc/x.1", "read /home/u/proj/doc/x.1")}},
		// installers of git hooks: code that runs on every commit
		{names: []string{"husky", "pre-commit", "lefthook", "simple-git-hooks", "overcommit"}, model: func(k *call) {
			k.mentions()
			k.remoteChange()
		}, examples: []example{ex("npx husky init", "tag hooks.install"), ex("pre-commit install", "tag hooks.install"),
			ex("pre-commit run --all-files", "!tag hooks.install"), ex("lefthook install", "tag hooks.install")}},
		// compilers: what a source the line wrote does, the program built
		// from it does
		{names: []string{"gcc", "cc", "clang", "g++", "c++", "clang++", "tcc", "rustc"}, model: (*call).compiler,
			examples: []example{ex("gcc -x c - <<< 'int main(){system(\"rm -rf ~\");}'", "delete:r /home/u"),
				ex("echo 'int main(){return 0;}' > m.c && cc m.c -o m", "write /home/u/proj/m", "!tag dynamic-exec"),
				ex("gcc -O2 -o hello hello.c", "read /home/u/proj/hello.c", "write /home/u/proj/hello", "!tag dynamic-exec")}},
		// 7-Zip: a/u add files (recursively, following symlinks unless
		// -snl) to the archive; x/e extract into -oDIR
		{names: []string{"7z", "7za", "7zz", "7zr"}, model: (*call).sevenZip,
			examples: []example{ex("7z a /tmp/a.7z .", "write /tmp/a.7z", "read:r /home/u/proj"), ex("7z x a.7z -oout", "read /home/u/proj/a.7z", "write:r /home/u/proj/out"),
				ex("7z l a.7z", "read /home/u/proj/a.7z", "!write")}},
		{names: []string{"kill-port"}, model: func(k *call) {
			var ports []string
			for _, o := range parseOpts(k.args, spec{arg: "m", long: []string{"method"}}).ops {
				if o.known {
					ports = append(ports, strings.Split(o.val, ",")...)
				}
			}
			k.portSignal(TagSignal, ports)
		}, examples: []example{ex("kill-port 37123", "tag process.signal", "attr port=37123")}},
	}
}

// portSignal tags k as signalling (or looking up) the processes that hold
// the given ports (attr port, comma-separated; "?" when not known).
func (k *call) portSignal(tag string, ports []string) {
	var out []string
	for _, p := range ports {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !isDigits(p) {
			p = "?"
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return
	}
	k.tag(tag)
	k.attr("port", strings.Join(out, ","))
}

// portOf is the port an address names (:37123, tcp:8080, @127.0.0.1:80,
// TCP@host:443, 8080/tcp), or "".
func portOf(v string) string {
	if i := strings.IndexByte(v, '/'); i > 0 && isDigits(v[:i]) {
		return v[:i] // fuser's PORT/tcp
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		p := v[i+1:]
		if j := strings.IndexAny(p, "-,"); j > 0 {
			p = p[:j] // a range or list: its first port
		}
		if isDigits(p) {
			return p
		}
		if p == "" || strings.ContainsAny(p, "$`") {
			return "?"
		}
	}
	return ""
}

// fuser models fuser: NAME... are files, mounts or PORT/PROTO (or, with
// -n PROTO, ports); -k kills the processes using them, else it prints
// their pids.
func (k *call) fuser() {
	k.mentions() // the files and mounts it looks at
	p := parseOpts(k.args, spec{arg: "n", long: []string{"namespace"}})
	tag := TagProcessFind
	if p.has("k", "kill") {
		tag = TagSignal
	}
	ns, _ := p.get("n", "namespace")
	var ports []string
	other := false
	for _, o := range p.ops {
		switch {
		case !o.known:
			ports = append(ports, "?")
		case ns.known && (ns.val == "tcp" || ns.val == "udp") && isDigits(o.val):
			ports = append(ports, o.val)
		case portOf(o.val) != "" && strings.Contains(o.val, "/"):
			ports = append(ports, portOf(o.val))
		default:
			other = true
		}
	}
	if len(ports) > 0 {
		k.portSignal(tag, ports)
	} else if other && tag == TagSignal {
		k.tag(TagSignal)
		k.attr("pid", "?")
	}
}

// lsof models lsof's network selection (-i [PROTO][@HOST][:PORT]): it
// prints the processes holding those ports (-t: their pids only).
func (k *call) lsof() {
	k.mentions() // the files it looks at
	var ports []string
	for i := 0; i < len(k.args); i++ {
		f := k.args[i]
		if !f.known || !strings.HasPrefix(f.val, "-") {
			continue
		}
		v := f.val
		j := strings.IndexByte(v, 'i')
		if j < 0 || strings.HasPrefix(v, "--") {
			continue
		}
		addr := v[j+1:]
		if addr == "" && i+1 < len(k.args) && !strings.HasPrefix(k.args[i+1].val, "-") {
			i++
			if !k.args[i].known {
				ports = append(ports, "?")
				continue
			}
			addr = k.args[i].val
		}
		if pt := portOf(addr); pt != "" {
			ports = append(ports, pt)
		}
	}
	k.portSignal(TagProcessFind, ports)
}

// ss models ss -K (--kill): it closes the sockets its filter selects,
// cutting the connections of the process that holds them.
func (k *call) ss() {
	kill := false
	for _, f := range k.args {
		if f.known && (f.val == "--kill" || strings.HasPrefix(f.val, "-") && !strings.HasPrefix(f.val, "--") && strings.Contains(f.val, "K")) {
			kill = true
		}
	}
	if !kill {
		return
	}
	var ports []string
	for _, f := range k.args {
		if !f.known {
			continue
		}
		for _, w := range strings.Fields(f.val) {
			if pt := portOf(w); pt != "" && strings.HasPrefix(strings.TrimLeft(w, "("), ":") || pt != "" && strings.Contains(w, "]:") {
				ports = append(ports, pt)
			}
		}
	}
	if len(ports) == 0 {
		k.tag(TagSignal)
		k.attr("pid", "?")
		return
	}
	k.portSignal(TagSignal, ports)
}

// pathPrinter is the model of readlink and realpath: nothing is read;
// with one operand, what the call prints is that path (the file a read of
// it through $(…) reads, symlinks followed as the reader's own read
// follows them).
func (k *call) pathPrinter() {
	p := parseOpts(k.args, spec{arg: "", long: []string{"relative-to", "relative-base"}})
	if len(p.ops) != 1 || !p.ops[0].known || p.ops[0].glob || p.has("relative-to", "relative-base") {
		return
	}
	v := p.ops[0].val
	if !strings.HasPrefix(v, "/") {
		if k.st.dir == "" {
			return
		}
		v = path.Join(k.st.dir, v)
	}
	f := sub(p.ops[0], v)
	k.meta.prints = &f
}

// after runs once a program's model has run: the judgements that hold
// across the families (a program's output that names files).
func (k *call) after() {
	switch n := k.name; {
	case n == "git":
		k.gitPrintsFiles()
		if sc, rest, ok := k.gitSub(); ok {
			k.gitRunsMore(sc, rest)
			k.gitReads(sc, rest)
		}
	case n == "go":
		if ws := k.words(); len(ws) > 0 && ws[0] == "run" {
			k.goRunWritten(k.args)
		}
	case n == "gh" || n == "aws" || n == "gsutil" || n == "gcloud" || n == "az" || n == "rclone":
		k.remoteChange()
	case n == "less" || n == "more":
		k.lessCommands()
	case n == "sqlite3" || n == "duckdb":
		k.sqliteDot()
	case n == "psql" || n == "mysql" || n == "mariadb":
		k.dbShellEscapes()
	case n == "pwsh" || n == "powershell" || n == "pwsh.exe" || n == "powershell.exe":
		k.pwshAsks()
	case isShell(n):
		k.shellStartup()
	}
	k.follows()
	k.runsDirtyManifest()
	k.implicitFiles()
	k.noteManifests()
	switch n := k.name; {
	case n == "source" || n == "." || isPython(n) || n == "node" || n == "nodejs" || n == "bun" || n == "ruby" || n == "perl":
		k.codeLoad()
	}
}

// gitSub is a git call's subcommand and the words after it, past git's
// global options.
func (k *call) gitSub() (string, []field, bool) {
	args := k.args
	i := 0
	for i < len(args) && args[i].known && strings.HasPrefix(args[i].val, "-") {
		switch args[i].val {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--exec-path":
			i++
		}
		i++
	}
	if i >= len(args) || !args[i].known {
		return "", nil, false
	}
	return args[i].val, args[i+1:], true
}

// gitPrintsFiles records that a git command prints names of files of the
// work tree below the current directory — git ls-files, git diff
// --name-only/--name-status, git grep -l, git ls-tree --name-only — so
// what it hands on (perl -pi … $(git ls-files '*.go'), | xargs sed -i) is
// a file below that directory, as find ROOT -name N prints.
func (k *call) gitPrintsFiles() {
	if k.meta.prints != nil {
		return
	}
	args := k.args
	i := 0
	for i < len(args) && args[i].known && strings.HasPrefix(args[i].val, "-") {
		switch args[i].val {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env":
			return // another directory or configuration: leave it unknown
		}
		i++
	}
	if i >= len(args) || !args[i].known {
		return
	}
	rest := args[i+1:]
	has := func(names ...string) bool {
		for _, f := range rest {
			if f.known && contains(names, f.val) {
				return true
			}
		}
		return false
	}
	switch args[i].val {
	case "ls-files":
		if has("--error-unmatch", "--with-tree", "-s", "--stage", "--debug") {
			return
		}
	case "diff", "show", "log":
		if !has("--name-only", "--name-status") || has("--no-index") {
			return
		}
	case "grep":
		if !has("-l", "--files-with-matches", "--name-only", "-L", "--files-without-match") {
			return
		}
	default:
		return
	}
	k.printsUnder(nil)
}

// sevenZip models 7-Zip's commands: a/u/d/rn change the archive (a and u
// read the files named, recursively: directories are walked, and symlinks
// followed unless -snl), x/e extract it into -oDIR (the current
// directory by default), l/t read it.
func (k *call) sevenZip() {
	var ops []field
	out, snl := field{}, false
	for _, f := range k.args {
		switch {
		case f.known && strings.HasPrefix(f.val, "-o") && len(f.val) > 2:
			out = sub(f, f.val[2:])
		case f.known && f.val == "-snl":
			snl = true
		case f.known && strings.HasPrefix(f.val, "-"):
		default:
			ops = append(ops, f)
		}
	}
	if len(ops) < 2 || !ops[0].known {
		return
	}
	archive := ops[1]
	switch ops[0].val {
	case "a", "u":
		k.file(Write, archive, false)
		mark := len(k.cmd.Effects)
		k.files(Read, ops[2:], true)
		if !snl {
			for i := mark; i < len(k.cmd.Effects); i++ {
				if e := &k.cmd.Effects[i]; e.Kind == Read && !e.Unknown {
					e.Follow = true
				}
			}
		}
	case "d", "rn":
		k.file(Write, archive, false)
	case "x", "e":
		k.file(Read, archive, false)
		if !out.known && out.val == "" {
			out = lit(".")
		}
		k.file(Write, out, true)
	default:
		k.file(Read, archive, false)
	}
}
