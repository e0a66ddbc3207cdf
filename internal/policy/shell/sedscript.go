package shell

import "strings"

// sedScript judges the commands of a sed script that run or write: e
// (run a command, or the pattern space), the e flag of s (run the
// pattern space after the substitution), w and W (write a file), r and R
// (read one).
func (k *call) sedScript(f field) {
	if !f.known {
		return
	}
	s := f.val
	sc := &codeScan{k: k, code: f, lang: "sed", label: "sed e"}
	restOfLine := func(i int) (string, int) {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return s[i:], len(s)
		}
		return s[i : i+j], i + j
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!':
			i++
			continue
		case c == '#':
			_, i = restOfLine(i)
			continue
		}
		// an address
		if n := sedAddr(s[i:]); n > 0 {
			i += n
			for i < len(s) && (s[i] == ' ' || s[i] == ',') {
				if s[i] == ',' {
					i++
					i += sedAddr(s[i:])
					continue
				}
				i++
			}
			continue
		}
		cmd := s[i]
		i++
		switch cmd {
		case 's', 'y':
			if i >= len(s) || s[i] == '\\' || s[i] == '\n' {
				return
			}
			d := s[i]
			pat, n := sedPart(s[i+1:], d)
			i += 1 + n
			repl, n := sedPart(s[i:], d)
			i += n
			if cmd == 'y' {
				continue
			}
			exec := false
			for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
				switch s[i] {
				case 'e':
					exec = true
					i++
				case 'w':
					var file string
					file, i = restOfLine(i + 1)
					k.sedFile(f, Write, file)
				default:
					i++
				}
			}
			if exec {
				sc.runShell(sedCommand(pat, repl), true, "sed s///e")
			}
		case 'e':
			line, n := restOfLine(i)
			i = n
			if strings.TrimSpace(line) == "" {
				k.dynamicExec("sed runs the text it reads as a command (e)")
				continue
			}
			sc.runShell(codeVal{kind: 's', s: strings.TrimSpace(line)}, true, "sed e")
		case 'w', 'W', 'r', 'R':
			var file string
			file, i = restOfLine(i)
			kind := Read
			if cmd == 'w' || cmd == 'W' {
				kind = Write
			}
			k.sedFile(f, kind, file)
		case 'a', 'i', 'c':
			// text to the end of the line, continued by a trailing backslash
			for {
				var line string
				line, i = restOfLine(i)
				if !strings.HasSuffix(line, "\\") || i >= len(s) {
					break
				}
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'q', 'Q', 'l', 'L':
			for i < len(s) && (s[i] == ' ' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case 'v':
			for i < len(s) && s[i] != ';' && s[i] != '\n' {
				i++
			}
		case 'z', 'F', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x':
		default:
			return // not a sed script this model reads
		}
	}
}

// sedFile adds a file effect for the file name of w, r and friends.
func (k *call) sedFile(f field, kind Kind, name string) {
	name = strings.TrimSpace(name)
	if name == "" || name == "/dev/stdout" || name == "/dev/stderr" {
		return
	}
	k.file(kind, sub(f, name), false)
}

// sedAddr returns the length of a sed address at the start of s: a line
// number (first~step), $, /regex/ or \cregexc with I and M flags.
func sedAddr(s string) int {
	i := 0
	switch {
	case s == "":
		return 0
	case s[0] >= '0' && s[0] <= '9':
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
			i++
		}
	case s[0] == '$':
		i = 1
	case s[0] == '+' || s[0] == '~':
		i = 1
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	case s[0] == '/' || s[0] == '\\' && len(s) > 1:
		d := byte('/')
		i = 1
		if s[0] == '\\' {
			d = s[1]
			i = 2
		}
		_, n := sedPart(s[i:], d)
		i += n
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
	}
	return i
}

// sedPart reads up to the unescaped delimiter d and returns the text
// (delimiter escapes removed) and the bytes consumed, delimiter included.
func sedPart(s string, d byte) (string, int) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			if s[i+1] == d {
				b.WriteByte(d)
			} else {
				b.WriteByte('\\')
				b.WriteByte(s[i+1])
			}
			i++
		case s[i] == d:
			return b.String(), i + 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), len(s)
}

// sedCommand is the command s///e runs: the pattern space after the
// substitution. A pattern that matches the whole line leaves the
// replacement; otherwise the rest of the line (not known) surrounds it.
func sedCommand(pat, repl string) codeVal {
	var b strings.Builder
	partial := false
	for i := 0; i < len(repl); i++ {
		switch {
		case repl[i] == '&':
			b.WriteString(codePH)
			partial = true
		case repl[i] == '\\' && i+1 < len(repl):
			i++
			switch c := repl[i]; {
			case c >= '0' && c <= '9':
				b.WriteString(codePH)
				partial = true
			case c == 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(c)
			}
		default:
			b.WriteByte(repl[i])
		}
	}
	cmd := b.String()
	switch pat {
	case ".*", "^.*$", "^.*", ".*$", "^.+$", ".+", "^.\\+$", ".\\+":
	case "^":
		cmd, partial = cmd+codePH, true
	case "$":
		cmd, partial = codePH+cmd, true
	default:
		cmd, partial = codePH+cmd+codePH, true
	}
	return codeVal{kind: 's', s: cmd, partial: partial}
}
