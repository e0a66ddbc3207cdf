package shell

import (
	"strings"
)

// Programs that run a command given in an option, a variable or a small
// language of their own (man -P, PAGER=, git grep -O, ext:: URLs, sqlite's
// .shell, less's !, a shell's ENV/BASH_ENV): the command is analysed as if
// it ran directly.

// programVars are variables whose value is a command line another program
// runs later: pagers, editors, browsers, less's input preprocessor.
var programVars = map[string]bool{
	"PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "PSQL_PAGER": true, "GH_PAGER": true,
	"BROWSER": true, "EDITOR": true, "VISUAL": true, "KUBE_EDITOR": true, "GH_EDITOR": true,
	"SUDO_EDITOR": true, "LESSOPEN": true, "LESSCLOSE": true,
}

// programVarCode is the command line a program variable's value runs:
// LESSOPEN's "|cmd %s" and "||cmd %s" forms are the command, with %s a
// file's name.
func programVarCode(name string, f field) field {
	if name == "LESSOPEN" || name == "LESSCLOSE" {
		v := strings.TrimLeft(f.val, "|-")
		v = strings.ReplaceAll(v, "%s", "file")
		return sub(f, v)
	}
	return f
}

// envCode judges what a command's own assignments make it run: a program
// variable set for it (MANPAGER='…' man ls, EDITOR=… crontab -e; git
// judges its own in gitEnv), and for a shell the startup code its
// variables name: ENV and BASH_ENV (a file the shell reads first) and
// PROMPT_COMMAND (code run before each prompt). Values not known at check
// time are left alone: they are the user's own settings passed on.
func (k *call) envCode() {
	if len(k.ro.env) == 0 {
		return
	}
	shell := isShell(k.name)
	for name, f := range k.ro.env {
		if shell && f.proc && (name == "ENV" || name == "BASH_ENV") {
			// BASH_ENV=<(…) bash -c …: the shell runs the substitution's
			// output first, as source <(…) does
			if f.remote {
				k.remoteExec(k.name + " runs startup code fetched from the network (" + name + ")")
			} else {
				k.procCode(f, "sh")
			}
			continue
		}
		if !f.known || strings.TrimSpace(f.val) == "" {
			continue
		}
		switch {
		case programVars[name] && k.name != "git":
			k.nested(programVarCode(name, f), name, nil, false)
		case shell && (name == "ENV" || name == "BASH_ENV"):
			// an interactive shell lives on with what the file defines
			// (a load, as source is); one that runs a command or script
			// and exits runs the file as a script first (bash FILE)
			run := k.name + " " + Quote(f.val)
			if k.interactiveShell() {
				run = ". " + Quote(f.val)
			}
			k.nested(sub(f, run), name, nil, false)
		case shell && name == "PROMPT_COMMAND":
			k.nested(f, name, nil, false)
		default:
			k.loadVar(name, f.val)
		}
	}
}

// programVar judges a program variable assigned or exported with a known
// value (export PAGER='…'): the code it names runs whenever a program that
// reads it runs later. It reports whether name is one.
func (a *analyzer) programVar(c *ctx, st *state, sp span, name string, code field) bool {
	if !programVars[name] && name != "ENV" && name != "BASH_ENV" {
		return false
	}
	if !code.known || strings.TrimSpace(code.val) == "" {
		return true
	}
	code = programVarCode(name, code)
	if name == "ENV" || name == "BASH_ENV" {
		code = sub(code, ". "+Quote(code.val))
	}
	a.run(c, st, []field{lit("eval"), code}, runOpts{sp: sp})
	return true
}

// man models man: -P/--pager CMD and the variables MANPAGER and PAGER
// name the pager it pipes the page through, -H/--html=BROWSER (and
// BROWSER) the browser it starts.
func (k *call) man() {
	p := parseOpts(k.args, spec{arg: "PMCLmSsepRETr", optArg: "H", long: []string{"pager", "manpath", "config-file", "locale", "systems", "sections", "extension", "preprocessor", "recode", "encoding", "troff-device", "prompt"}})
	pager := false
	for _, o := range p.all("P", "pager", "html", "H") {
		if o.known && o.val != "" {
			k.nested(o, "man -P", nil, false)
			pager = true
		}
	}
	if p.has("l", "local-file") {
		k.files(Read, p.ops, false)
	}
	if pager {
		return
	}
	for _, n := range []string{"MANPAGER", "PAGER"} {
		if _, own := k.ro.env[n]; own {
			continue // judged as the command's own assignment
		}
		if f, ok := k.envVar(n); ok && f.known && strings.TrimSpace(f.val) != "" {
			k.nested(f, "man "+n, nil, false)
			return
		}
	}
}

// lessCommands judges the commands less runs at start (+CMD, -+ and the
// LESS variable's +CMD): "!cmd" runs a shell command, "|Xcmd" pipes to
// one.
func (k *call) lessCommands() {
	var cmds []field
	for _, f := range k.args {
		if f.known && strings.HasPrefix(f.val, "+") && !strings.HasPrefix(f.val, "+-") {
			cmds = append(cmds, sub(f, f.val[1:]))
		}
	}
	if f, ok := k.envVar("LESS"); ok && f.known {
		// a +command runs to the end of the value
		v := " " + f.val
		if i := strings.Index(v, " +"); i >= 0 {
			cmds = append(cmds, sub(f, v[i+2:]))
		}
	}
	for _, c := range cmds {
		v := strings.TrimLeft(c.val, "+")
		switch {
		case strings.HasPrefix(v, "!"):
			k.nested(sub(c, v[1:]), k.name+" !", nil, false)
		case strings.HasPrefix(v, "|") && len(v) > 2:
			k.nested(sub(c, v[2:]), k.name+" |", nil, false)
		}
	}
}

// sqliteDot judges sqlite3's dot-commands that run programs: .shell and
// .system CMD, .output|.once '|CMD' (the output piped to CMD) and
// .import '|CMD' (its input read from CMD), in the statements it is
// given inline or on stdin.
func (k *call) sqliteDot() {
	p := parseOpts(k.args, spec{arg: "cs", long: []string{"cmd", "separator", "nullvalue", "newline", "init"}})
	var code []field
	for _, f := range append(p.all("c", "cmd"), p.ops[min(1, len(p.ops)):]...) {
		if f.known {
			code = append(code, f)
		}
	}
	for _, t := range k.stdinText() {
		code = append(code, lit(t))
	}
	for _, f := range p.all("init") {
		k.file(Read, f, false)
	}
	for _, c := range code {
		for _, line := range strings.Split(c.val, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, ".") {
				continue
			}
			cmd, rest, _ := strings.Cut(line[1:], " ")
			rest = strings.TrimSpace(rest)
			switch cmd {
			case "shell", "system", "sh":
				k.nested(sub(c, rest), "sqlite3 ."+cmd, nil, false)
			case "output", "once", "import", "excel":
				r := strings.Trim(rest, `'"`)
				if strings.HasPrefix(r, "|") {
					if cmd == "import" {
						r, _, _ = strings.Cut(strings.TrimSpace(rest), " ")
						r = strings.Trim(r, `'"`)
					}
					k.nested(sub(c, strings.TrimPrefix(r, "|")), "sqlite3 ."+cmd, nil, false)
				}
			}
		}
	}
}

// gitRunsMore judges the git commands that run a program named in their
// arguments beyond those gitRuns knows: git grep -O/--open-files-in-pager
// CMD (the matching files opened with CMD), and ext:: URLs (a remote
// helper that runs its command line: git clone 'ext::sh -c …'), in
// clone, fetch, pull, push, ls-remote, remote add, submodule add.
func (k *call) gitRunsMore(sc string, rest []field) {
	switch sc {
	case "grep":
		for i, f := range rest {
			if !f.known {
				continue
			}
			v := f.val
			switch {
			case strings.HasPrefix(v, "--open-files-in-pager="):
				k.nested(sub(f, v[len("--open-files-in-pager="):]), "git grep -O", nil, false)
			case strings.HasPrefix(v, "-O") && len(v) > 2:
				k.nested(sub(f, v[2:]), "git grep -O", nil, false)
			case v == "--" && i >= 0:
				return
			}
		}
	default:
		for _, f := range rest {
			if f.known && strings.HasPrefix(f.val, "ext::") {
				k.nested(sub(f, extCommand(f.val[len("ext::"):])), "git ext::", nil, false)
			}
		}
	}
}

// extCommand is the command line of git's ext:: remote helper: words are
// separated by spaces, "% " is a space inside a word and "%%" a percent
// sign; the other %-escapes (%s, %S, %G, %V) name parts of the request.
func extCommand(s string) string {
	var words []string
	var w strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '%' && i+1 < len(s) && s[i+1] == ' ':
			w.WriteByte(' ')
			i++
		case s[i] == '%' && i+1 < len(s) && s[i+1] == '%':
			w.WriteByte('%')
			i++
		case s[i] == ' ':
			if w.Len() > 0 {
				words = append(words, w.String())
				w.Reset()
			}
		default:
			w.WriteByte(s[i])
		}
	}
	if w.Len() > 0 {
		words = append(words, w.String())
	}
	return Join(words...)
}

// interactiveShell reports whether a shell call is interactive (-i).
func (k *call) interactiveShell() bool {
	for _, f := range k.args {
		if !f.known || !strings.HasPrefix(f.val, "-") || f.val == "--" {
			return false
		}
		if !strings.HasPrefix(f.val, "--") && strings.Contains(f.val, "i") || f.val == "--interactive" {
			return true
		}
	}
	return false
}

// shellStartup judges the files an interactive shell reads first:
// --rcfile/--init-file FILE is sourced.
func (k *call) shellStartup() {
	for i, f := range k.args {
		if !f.known {
			continue
		}
		switch {
		case (f.val == "--rcfile" || f.val == "--init-file") && i+1 < len(k.args) && k.args[i+1].known:
			k.nested(sub(k.args[i+1], ". "+Quote(k.args[i+1].val)), k.name+" "+f.val, nil, false)
		case !strings.HasPrefix(f.val, "-"):
			return
		}
	}
}

// pwshAsks: PowerShell code given inline is read only in part (its
// cmdlets as the programs that do the same); what it does beyond them is
// not known, so it asks at least.
func (k *call) pwshAsks() {
	for _, t := range k.cmd.Tags {
		if t == TagDynamicExec || t == TagRemoteExec {
			return
		}
	}
	for _, f := range k.args {
		if !f.known {
			continue
		}
		switch strings.ToLower(f.val) {
		case "-c", "-command", "--command", "-e", "-ec", "-encodedcommand", "-enc":
			k.dynamicExec(k.name + " runs PowerShell code, which warden reads only in part")
			return
		}
	}
}

// loadVar judges a variable set for a command that makes the interpreters
// it runs load code from a path (p6_load.go): a module search path
// (PYTHONPATH, NODE_PATH, RUBYLIB, PERL5LIB) whose entries are searched
// first, a startup file (PYTHONSTARTUP), or options given to every run
// (NODE_OPTIONS --require/--import/--loader FILE, RUBYOPT -rFILE,
// PERL5OPT -IDIR).
func (k *call) loadVar(name, val string) {
	switch name {
	case "PYTHONPATH", "NODE_PATH", "RUBYLIB", "PERL5LIB", "PERLLIB":
		for _, d := range strings.Split(val, ":") {
			if strings.HasPrefix(d, "/") {
				k.loadFile(d) // a relative entry is the project's
			}
		}
	case "PYTHONSTARTUP":
		k.loadFile(val)
	case "NODE_OPTIONS", "RUBYOPT", "PERL5OPT":
		ws := strings.Fields(val)
		for i := 0; i < len(ws); i++ {
			w := ws[i]
			opt, v, eq := strings.Cut(w, "=")
			switch {
			case opt == "--require" || opt == "-r" || opt == "--import" || opt == "--loader" || opt == "--experimental-loader":
				if !eq && i+1 < len(ws) {
					i++
					v = ws[i]
				}
			case strings.HasPrefix(w, "-r") || strings.HasPrefix(w, "-I") || strings.HasPrefix(w, "-M"):
				v = w[2:]
			default:
				continue
			}
			if strings.Contains(v, "/") {
				k.loadFile(v)
			}
		}
	}
}
