package shell

import "strings"

// editorPrograms declares editors and debuggers that run commands given
// on their command line: vim's -c/+/--cmd (":!cmd", ":w !cmd",
// ":call system()", ":py3 ..."), gdb's -ex ("shell cmd", "!cmd", "pipe",
// "python ...").
func editorPrograms() []program {
	return []program{
		{names: []string{"vim", "vi", "nvim", "gvim", "ex", "evim", "mvim"}, model: (*call).vim,
			examples: []example{ex("vim -c ':!rm -rf /x' -c q", "delete:r /x", "via rm vim -c"), ex("vim +'silent !rm -rf /x'", "delete:r /x"),
				ex("vim -c 'w /x/f' a", "write /x/f"), ex("vim -c 'call system(\"rm -rf /x\")'", "delete:r /x"),
				ex("vim -c 'set ts=4' -c wq f.go", "!delete", "!exec")}},
		{names: []string{"ed", "red"}, model: (*call).ed,
			examples: []example{ex("ed -s f <<< $'!rm -rf /x\\nq'", "delete:r /x", "read /home/u/proj/f"),
				ex("printf 'w !sh\\nq\\n' | ed -s f", "tag dynamic-exec"),
				ex("ed -s f <<< $'a\\n!rm -rf /x\\n.\\nw\\nq'", "!delete", "write /home/u/proj/f"),
				ex("red -s f <<< '!rm -rf /x'", "!delete")}},
		{names: []string{"gdb", "cgdb", "gdb-multiarch"}, model: (*call).gdb,
			examples: []example{ex("gdb -batch -ex 'shell rm -rf /x'", "delete:r /x", "via rm gdb -ex"), ex("gdb --eval-command='!rm -rf /x'", "delete:r /x"),
				ex("gdb -ex 'python import shutil; shutil.rmtree(\"/x\")'", "delete:r /x"), ex("gdb -batch -ex run -ex bt ./a.out", "!delete")}},
	}
}

// vim models vim's commands given on its command line.
func (k *call) vim() {
	args := k.args
	var edited []field
	exMode := k.name == "ex"
	var pending []field // the commands, judged once the edited files are known
	defer func() {
		k.edited = edited
		for _, c := range pending {
			k.exCmd(c, 0)
		}
		if exMode {
			k.exStdin() // ex mode reads its commands on stdin
		}
		if k.bufWrite {
			k.files(Write, edited, false) // :w, :wq, :x write the files being edited
		}
	}()
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		if f.known && len(v) > 2 && v[0] == '-' && v[1] != '-' && strings.Trim(v[1:], "esEnNbRZmMlAHFyXrLV") == "c" {
			// a cluster ending in c: ex -sc CMD, vim -esc CMD
			exMode = exMode || strings.ContainsAny(v, "eE")
			v = "-c"
		} else if f.known && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.Trim(v[1:], "esEnNbRZmMlAHFyXrLV") == "" && strings.ContainsAny(v, "eE") {
			exMode = true // -e, -es, -Es: ex mode, -s is silent there
			continue
		}
		switch {
		case !f.known || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+"):
			k.file(Read, f, false) // a file to edit
			edited = append(edited, f)
		case v == "--":
			k.files(Read, args[i+1:], false)
			edited = append(edited, args[i+1:]...)
			return
		case v == "-s" && exMode:
		case v == "-s" && i+1 < len(args):
			// -s FILE: keystrokes typed in normal mode; a line that types
			// ":" runs that ex command
			i++
			k.file(Read, args[i], false)
			if txt, ok := k.scriptText(args[i]); ok {
				for _, l := range strings.Split(txt, "\n") {
					if c, ok := strings.CutPrefix(strings.TrimLeft(l, "\x1b "), ":"); ok {
						pending = append(pending, lit(strings.TrimSuffix(c, "\r")))
					}
				}
			}
		case v == "-c" || v == "--cmd":
			if i+1 < len(args) {
				i++
				pending = append(pending, args[i])
			}
		case strings.HasPrefix(v, "+") && len(v) > 1:
			pending = append(pending, sub(f, v[1:]))
		case v == "-S":
			if i+1 < len(args) {
				i++
				k.file(Read, args[i], false)
				if txt, ok := k.scriptText(args[i]); ok {
					for _, l := range strings.Split(txt, "\n") {
						k.exCmd(lit(l), 0)
					}
				}
			}
		case v == "-W" || v == "-w":
			if i+1 < len(args) {
				i++
				if v == "-W" {
					k.file(Write, args[i], false)
				}
			}
		case v == "-s" || v == "-u" || v == "-U" || v == "-i" || v == "-T" || v == "-t" || v == "-q" || v == "--servername" ||
			v == "--remote-send" || v == "--remote-expr" || v == "--listen" || v == "--startuptime":
			i++
		}
	}
}

// maxExDepth bounds :execute of a literal inside ex commands.
const maxExDepth = 4

// exCmd judges one ex command line (commands separated by |).
func (k *call) exCmd(f field, depth int) {
	if !f.known {
		k.dynamicExec(k.name + " runs an editor command not known at check time")
		return
	}
	if depth > maxExDepth {
		return
	}
	s := f.val
	for s != "" {
		s = strings.TrimLeft(s, ": \t")
		// a range: %, ., $, numbers, marks, patterns
		for len(s) > 0 && strings.ContainsRune("%.$,;+-0123456789'<>", rune(s[0])) {
			if s[0] == '\'' && len(s) > 1 {
				s = s[1:]
			}
			s = s[1:]
		}
		s = strings.TrimLeft(s, " \t")
		// modifiers
		for {
			w, rest := exWord(s)
			switch strings.TrimSuffix(w, "!") {
			case "sil", "silent", "noautocmd", "noa", "keepalt", "unsilent", "uns", "verbose", "vert", "vertical", "tab", "topleft", "botright", "lockmarks", "keepjumps", "keepmarks", "keeppatterns", "noswapfile", "sandbox":
				if strings.TrimSuffix(w, "!") == "sandbox" {
					return // no shell commands in the sandbox
				}
				s = strings.TrimLeft(rest, " \t")
				continue
			}
			break
		}
		if strings.HasPrefix(s, "!") {
			k.nested(sub(f, strings.TrimLeft(s[1:], "!")), k.name+" -c", nil, false)
			return // ! takes the rest of the line, bars included
		}
		w, rest := exWord(s)
		rest = strings.TrimLeft(rest, " \t")
		name := strings.TrimSuffix(w, "!")
		next := ""
		bar := func() {
			if i := strings.IndexByte(rest, '|'); i >= 0 {
				rest, next = rest[:i], rest[i+1:]
			}
		}
		switch name {
		case "r", "re", "rea", "read", "w", "wr", "wri", "writ", "write", "wq", "x", "xi", "xit", "up", "update", "sav", "saveas", "wa", "wall", "wqa", "wqall", "xa", "xall":
			if strings.HasPrefix(rest, "!") {
				if strings.HasPrefix(name, "w") || name == "x" || name == "xi" || name == "xit" || name == "up" || name == "update" {
					// :w !cmd hands the buffer to cmd
					var file field
					if len(k.edited) > 0 {
						file = k.edited[0]
					}
					saved := k.c.stdin
					k.c.stdin = k.bufferInput(file)
					k.nested(sub(f, rest[1:]), k.name+" :w !", nil, false)
					k.c.stdin = saved
					return
				}
				k.nested(sub(f, rest[1:]), k.name+" -c", nil, false)
				return
			}
			bar()
			if t := strings.TrimSpace(strings.TrimPrefix(rest, ">>")); t != "" && !strings.HasPrefix(name, "r") {
				k.file(Write, sub(f, t), false)
			} else if t != "" {
				k.file(Read, sub(f, t), false)
			} else if !strings.HasPrefix(name, "r") {
				k.bufWrite = true
			}
		case "ter", "term", "termi", "termin", "termina", "terminal":
			for strings.HasPrefix(rest, "++") {
				_, rest = exWord(rest)
				rest = strings.TrimLeft(rest, " \t")
			}
			if rest != "" {
				k.nested(sub(f, rest), k.name+" :terminal", nil, false)
			}
			return
		case "py", "py3", "python", "python3", "pyx", "pythonx", "pydo", "py3do", "pyxdo", "pyf", "pyfile", "py3file":
			k.inlineCode(sub(f, rest), "python")
			return
		case "lua", "luado":
			k.inlineCode(sub(f, rest), "lua")
			return
		case "perl", "perldo":
			k.inlineCode(sub(f, rest), "perl")
			return
		case "rub", "ruby", "rubydo":
			k.inlineCode(sub(f, rest), "ruby")
			return
		case "exe", "exec", "execute":
			toks, ok := lexCode(rest, "vim")
			if ok && len(toks) == 1 && toks[0].kind == cStr && !toks[0].interp {
				k.exCmd(sub(f, toks[0].val), depth+1)
			} else if ok && len(toks) > 0 {
				k.dynamicExec(k.name + " executes an editor command built at run time")
			}
			return
		case "so", "sou", "sour", "sourc", "source":
			bar()
			if t := strings.TrimSpace(rest); t != "" {
				k.file(Read, sub(f, t), false)
			}
		default:
			bar()
			if strings.ContainsAny(rest, "(") {
				k.codeSinks(sub(f, rest), "vim", 0)
			}
		}
		s = next
	}
}

// exWord splits the command name off an ex command: letters, then an
// optional "!".
func exWord(s string) (string, string) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' && i > 0) {
		i++
	}
	if i < len(s) && s[i] == '!' && i > 0 {
		i++
	}
	return s[:i], s[i:]
}

// gdb models gdb's commands given on its command line and the program it
// runs (--args).
func (k *call) gdb() {
	args := k.args
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.known {
			continue
		}
		v := strings.TrimPrefix(f.val, "-")
		name, val, eq := strings.Cut(strings.TrimPrefix(v, "-"), "=")
		switch name {
		case "ex", "eval-command", "iex", "init-eval-command":
			if eq {
				k.gdbCmd(sub(f, val))
			} else if i+1 < len(args) {
				i++
				k.gdbCmd(args[i])
			}
		case "x", "command", "ix", "init-command":
			if !eq && i+1 < len(args) {
				i++
				f = args[i]
			} else {
				f = sub(f, val)
			}
			k.file(Read, f, false)
			if txt, ok := k.scriptText(f); ok {
				for _, l := range strings.Split(txt, "\n") {
					k.gdbCmd(lit(l))
				}
			}
		case "args":
			if i+1 < len(args) {
				k.inner(args[i+1:], "gdb --args", nil, nil)
			}
			k.gdbStdin()
			return
		case "p", "pid", "cd", "d", "directory", "s", "symbols", "e", "exec", "se", "c", "core", "tty", "data-directory", "D", "b", "l":
			if !eq && f.val != "-" && strings.HasPrefix(f.val, "-") {
				i++
			}
		}
	}
	k.gdbStdin()
}

// gdbStdin judges the commands gdb reads on stdin (gdb -batch < cmds).
func (k *call) gdbStdin() {
	scripts, unknown := k.editorStdin()
	if unknown != "" {
		k.dynamicExec(k.name + " runs " + unknown)
	}
	for _, sc := range scripts {
		for n, l := range strings.Split(sc, "\n") {
			if n >= maxEdLines {
				break
			}
			if strings.TrimSpace(l) != "" {
				k.gdbCmd(lit(l))
			}
		}
	}
}

// gdbCmd judges one gdb command.
func (k *call) gdbCmd(f field) {
	if !f.known {
		k.dynamicExec("gdb runs a command not known at check time")
		return
	}
	s := strings.TrimSpace(f.val)
	w, rest := exWord(s)
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(s, "!"):
		k.nested(sub(f, s[1:]), "gdb -ex", nil, false)
	case w == "shell" || w == "she" || w == "shel":
		k.nested(sub(f, rest), "gdb -ex", nil, false)
	case w == "pipe" || strings.HasPrefix(s, "|"):
		if i := strings.LastIndexByte(s, '|'); i >= 0 && i+1 < len(s) {
			k.nested(sub(f, s[i+1:]), "gdb pipe", nil, false)
		}
	case w == "python" || w == "py" || w == "pi" || w == "python-interactive":
		k.inlineCode(sub(f, rest), "python")
	case w == "guile" || w == "gu":
		k.dynamicExec("gdb runs guile code")
	case w == "call" || w == "print" || w == "p" || w == "output":
		k.codeSinks(sub(f, rest), "c", 0)
	}
}
