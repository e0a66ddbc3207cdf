package shell

import "strings"

// Line editors read their commands on stdin: ed (and red, which refuses
// shell commands), ex, and vi/vim in ex mode (-e, -es). A script fed to
// them — a pipe, a here-document, a here-string, a file redirected in —
// runs the shell commands it names: ed's !cmd, r !cmd, w !cmd and e !cmd,
// and every ex command exCmd judges (:!cmd, :w !cmd, :r !cmd, :call
// system(), :py3 …). Text given to the append, insert and change commands
// (up to a line holding only ".") is text, not commands. A script not known
// at check time — the output of a program, a file that cannot be read —
// runs editor commands not known (dynamic: ask).

// maxEdLines bounds the lines of an editor script judged.
const maxEdLines = 4096

// editorStdin returns the scripts an editor reads on stdin: known text
// (a here-document, a here-string, echo piped in, a file the line wrote or
// one on disk redirected in). unknown says stdin carries commands not known
// at check time.
func (k *call) editorStdin() (scripts []string, unknown string) {
	in := k.c.stdin
	switch {
	case in.remote:
		return nil, "an editor script fetched from the network"
	case in.dynamic:
		return nil, "an editor script not known at check time: " + in.what
	case in.opaque != "" && !in.literal:
		return nil, "an editor script made by " + in.opaque
	case in.literal:
		scripts = append(scripts, in.text)
	}
	for _, e := range k.ro.effs {
		if e.Kind != Read || e.Target == "" {
			continue
		}
		if e.Unknown {
			return scripts, "an editor script from a file not known at check time"
		}
		if txt, ok := k.a.written[e.Target]; ok {
			scripts = append(scripts, txt)
			continue
		}
		if rd := k.a.opts.ReadFile; rd != nil && !isPseudoDevice(e.Target) && k.a.diskScripts < maxDiskScripts {
			k.a.diskScripts++
			b, err := rd(e.Target, maxScriptSize)
			switch {
			case err == nil && strings.IndexByte(string(b), 0) < 0:
				scripts = append(scripts, string(b))
			case err != nil && !isNotExist(err):
				return scripts, "an editor script in " + e.Target + " that cannot be read at check time"
			}
		}
	}
	return scripts, ""
}

// edLines calls cmd for each command line of an ed or ex script, skipping
// the text lines of append, insert and change.
func edLines(script string, cmd func(line string)) {
	text := false
	for n, l := range strings.Split(script, "\n") {
		if n >= maxEdLines {
			return
		}
		l = strings.TrimSuffix(l, "\r")
		if text {
			if l == "." {
				text = false
			}
			continue
		}
		cmd(l)
		text = edEntersText(l)
	}
}

// edEntersText reports whether an ed/ex command line enters text mode: a,
// i, c (ex: append, insert, change), after an optional address.
func edEntersText(l string) bool {
	s := strings.TrimLeft(l, ": \t")
	for len(s) > 0 && strings.ContainsRune("%.$,;+-0123456789'<>/?", rune(s[0])) {
		switch s[0] {
		case '/', '?':
			// a pattern address: up to the closing delimiter
			if j := strings.IndexByte(s[1:], s[0]); j >= 0 {
				s = s[j+2:]
				continue
			}
			return false
		case '\'':
			if len(s) > 1 {
				s = s[1:]
			}
		}
		s = s[1:]
	}
	w, rest := exWord(s)
	w = strings.TrimSuffix(w, "!")
	switch w {
	case "a", "i", "c", "append", "insert", "change":
		return strings.TrimSpace(rest) == ""
	}
	return false
}

// ed models ed and red: the file operand is read (and written by w), and
// the commands on stdin are judged.
func (k *call) ed() {
	p := parseOpts(k.args, spec{arg: "p", long: []string{"prompt"}})
	var file field
	if len(p.ops) > 0 {
		file = p.ops[0]
		if file.known && strings.HasPrefix(file.val, "!") {
			k.nested(sub(file, file.val[1:]), k.name+" !", nil, false) // ed '!cmd' edits cmd's output
			file = field{}
		} else {
			k.file(Read, file, false)
		}
	}
	scripts, unknown := k.editorStdin()
	if unknown != "" {
		k.dynamicExec(k.name + " runs " + unknown)
	}
	restricted := k.name == "red"
	for _, sc := range scripts {
		edLines(sc, func(l string) { k.edCmd(l, file, restricted) })
	}
}

// edCmd judges one ed command line.
func (k *call) edCmd(l string, file field, restricted bool) {
	s := strings.TrimLeft(l, " \t")
	// an address: numbers, marks, patterns, ranges
	for len(s) > 0 && strings.ContainsRune("%.$,;+-0123456789'/?^", rune(s[0])) {
		switch s[0] {
		case '/', '?':
			if j := strings.IndexByte(s[1:], s[0]); j >= 0 {
				s = s[j+2:]
				continue
			}
			return
		case '\'':
			if len(s) > 1 {
				s = s[1:]
			}
		}
		s = s[1:]
	}
	if s == "" {
		return
	}
	c, rest := s[0], strings.TrimLeft(s[1:], " \t")
	if c == '!' {
		if !restricted {
			k.nested(lit(s[1:]), k.name+" !", nil, false)
		}
		return
	}
	switch c {
	case 'w', 'W', 'r', 'e', 'E', 'f':
		if c == 'w' && strings.HasPrefix(rest, "q") {
			rest = strings.TrimLeft(rest[1:], " \t") // wq FILE
		}
		if strings.HasPrefix(rest, "!") {
			if restricted {
				return
			}
			if c == 'w' || c == 'W' {
				// w !cmd: cmd reads the buffer, the file being edited
				saved := k.c.stdin
				k.c.stdin = k.bufferInput(file)
				k.nested(lit(rest[1:]), k.name+" w !", nil, false)
				k.c.stdin = saved
				return
			}
			k.nested(lit(rest[1:]), k.name+" "+string(c)+" !", nil, false)
			return
		}
		switch {
		case c == 'f':
		case rest != "" && (c == 'w' || c == 'W'):
			k.file(Write, lit(rest), false)
		case rest != "":
			k.file(Read, lit(rest), false)
		case c == 'w' || c == 'W':
			if file.known {
				k.file(Write, file, false)
			}
		}
	}
}

// exStdin judges the ex commands an editor in ex mode reads on stdin.
func (k *call) exStdin() {
	scripts, unknown := k.editorStdin()
	if unknown != "" {
		k.dynamicExec(k.name + " runs " + unknown)
	}
	for _, sc := range scripts {
		edLines(sc, func(l string) {
			if strings.TrimSpace(l) != "" {
				k.exCmd(lit(l), 0)
			}
		})
	}
}

// bufferInput is what a command given the editor's buffer reads (ed's
// w !cmd): the file being edited, whose content flows in (its text when
// the line wrote it; otherwise text not known at check time).
func (k *call) bufferInput(file field) stdinInfo {
	in := stdinInfo{opaque: "the text of the file being edited", what: "the editor's buffer"}
	if !file.known {
		return in
	}
	if txt, ok := k.writtenText(file); ok {
		return stdinInfo{literal: true, text: txt, what: "the editor's buffer"}
	}
	if e, ok := k.a.target(k.st, Read, file, false); ok && !e.Unknown && e.Target != "" {
		in.carries = []Effect{{Kind: Read, Target: e.Target}}
	}
	return in
}

// clientScript judges the commands a file-transfer client (sftp, ftp,
// lftp, tftp) reads on stdin or from a batch file (sftp -b FILE): !cmd runs
// cmd in a local shell, and put/mput/append/reput send a local file to the
// server (a read of it, uploaded); get FILE LOCAL writes LOCAL.
func (k *call) clientScript(batch *field) {
	var scripts []string
	unknown := ""
	if batch != nil && !(batch.known && batch.val == "-") {
		if txt, ok := k.scriptText(*batch); ok {
			scripts = append(scripts, txt)
		} else if !batch.known {
			unknown = "a batch file not known at check time"
		}
	} else {
		scripts, unknown = k.editorStdin()
	}
	if unknown != "" {
		k.dynamicExec(k.name + " runs " + unknown)
	}
	for _, sc := range scripts {
		for n, l := range strings.Split(sc, "\n") {
			if n >= maxEdLines {
				break
			}
			l = strings.TrimSpace(strings.TrimLeft(l, "-@")) // sftp's -cmd and @cmd: ignore errors, quiet
			if rest, ok := strings.CutPrefix(l, "!"); ok {
				if strings.TrimSpace(rest) != "" {
					k.nested(lit(rest), k.name+" !", nil, false)
				}
				continue
			}
			fs := strings.Fields(l)
			if len(fs) < 2 {
				continue
			}
			switch fs[0] {
			case "put", "mput", "reput", "append", "send", "lput":
				for _, f := range fs[1:] {
					if strings.HasPrefix(f, "-") {
						continue
					}
					k.file(Read, k.home(lit(f)), false)
					k.tag(TagUpload)
					if fs[0] != "mput" {
						break // put LOCAL [REMOTE]
					}
				}
			case "get", "reget", "recv", "lget":
				if len(fs) > 2 && !strings.HasPrefix(fs[2], "-") {
					k.file(Write, k.home(lit(fs[2])), false)
				}
			}
		}
	}
}
