package shell

import (
	"regexp"
	"strings"
)

// dbShellEscapes judges the shell escapes of database clients, in the
// statements they are given inline or on stdin: psql's \! CMD, \o |CMD,
// \g |CMD and COPY … PROGRAM 'CMD'; mysql's system CMD, \! CMD and
// --pager=CMD; duckdb's .shell/.sh/.system (as sqlite3's).
func (k *call) dbShellEscapes() {
	var code []string
	var inline []string
	switch k.name {
	case "psql":
		inline = []string{"c", "command"}
	case "mysql", "mariadb":
		inline = []string{"e", "execute"}
		for _, f := range k.args {
			if f.known && strings.HasPrefix(f.val, "--pager=") {
				k.nested(sub(f, f.val[len("--pager="):]), k.name+" --pager", nil, false)
			}
		}
	default:
		return
	}
	for i, f := range k.args {
		if !f.known {
			continue
		}
		for _, o := range inline {
			switch {
			case len(o) == 1 && f.val == "-"+o, len(o) > 1 && f.val == "--"+o:
				if i+1 < len(k.args) && k.args[i+1].known {
					code = append(code, k.args[i+1].val)
				}
			case len(o) == 1 && strings.HasPrefix(f.val, "-"+o) && !strings.HasPrefix(f.val, "--"):
				code = append(code, f.val[2:])
			case len(o) > 1 && strings.HasPrefix(f.val, "--"+o+"="):
				code = append(code, f.val[len(o)+3:])
			}
		}
	}
	code = append(code, k.stdinText()...)
	for _, c := range code {
		for _, line := range strings.Split(c, "\n") {
			for _, cmd := range shellEscapes(k.name, line) {
				k.nested(lit(cmd), k.name+" shell escape", nil, false)
			}
		}
	}
}

// copyProgram matches COPY … FROM|TO PROGRAM 'cmd'.
var copyProgram = regexp.MustCompile(`(?i)\bprogram\s+'((?:[^']|'')*)'`)

// shellEscapes returns the commands a line of a client's input runs.
func shellEscapes(client, line string) []string {
	t := strings.TrimSpace(line)
	var out []string
	switch client {
	case "psql":
		for _, part := range strings.Split(t, `\`)[1:] {
			switch {
			case strings.HasPrefix(part, "!"):
				out = append(out, strings.TrimSpace(part[1:]))
			case (strings.HasPrefix(part, "o ") || strings.HasPrefix(part, "g ") || strings.HasPrefix(part, "gx ")) && strings.Contains(part, "|"):
				out = append(out, strings.TrimSpace(part[strings.IndexByte(part, '|')+1:]))
			}
		}
		for _, m := range copyProgram.FindAllStringSubmatch(t, 4) {
			out = append(out, strings.ReplaceAll(m[1], "''", "'"))
		}
	default: // mysql, mariadb
		for _, st := range strings.Split(t, ";") {
			st = strings.TrimSpace(st)
			switch {
			case strings.HasPrefix(st, `\!`):
				out = append(out, strings.TrimSpace(st[2:]))
			case len(st) > 7 && strings.EqualFold(st[:7], "system "):
				out = append(out, strings.TrimSpace(st[7:]))
			}
		}
	}
	return out
}
