package shell

import (
	"path"
	"strings"
)

// This file models one-line programs handed to an interpreter (python -c,
// perl -e, ruby -e, node -e, php -r). It does not parse those languages; it
// reads their string literals and the calls they are arguments of, which is
// enough for the one-liners agents write:
//
//   - a literal passed to a function that runs a shell command (system,
//     os.popen, subprocess.run, execSync, backticks ...) is analysed as shell
//     code, so perl -e 'system("rm -rf ~")' is rm -rf ~;
//   - a list of literals passed to one (subprocess.run(["rm", "-rf", "/"]))
//     is analysed as that argv;
//   - a literal that looks like a path and is an argument of a file
//     operation (open, read_text, readFileSync, rmtree, unlink, writeFile,
//     copy ...) is that operation's target.
//
// Code the model does not recognise adds nothing beyond the Exec effect
// every inline program has: a literal that is merely printed is not a read.

// Bounds on the inline code analysed (the scan is quadratic in the worst
// case); longer code is reported as dynamic, which makes destructive
// policies ask.
const (
	maxInlineCode     = 32 << 10
	maxInlineLiterals = 256
)

// literal is one string literal of inline code.
type literal struct {
	val        string
	start, end int  // offsets of the quotes in the code
	quote      byte // ', " or `
}

// quoted reads the string literal whose opening quote is code[i]: its
// value (escapes \n and \t decoded, any other escaped byte kept as
// itself), the offset of its closing quote, and false when it is not
// closed.
func quoted(code string, i int) (val string, end int, ok bool) {
	q := code[i]
	var b strings.Builder
	j := i + 1
	for ; j < len(code) && code[j] != q; j++ {
		if code[j] == '\\' && j+1 < len(code) {
			j++
			switch code[j] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(code[j])
			}
			continue
		}
		b.WriteByte(code[j])
	}
	if j >= len(code) {
		return "", j, false
	}
	return b.String(), j, true
}

// scanLiterals returns the string literals of code in order. Escapes are
// decoded for \\, \', \", \n and \t; interpolation is kept as text.
func scanLiterals(code string) []literal {
	var out []literal
	for i := 0; i < len(code); i++ {
		q := code[i]
		if q != '\'' && q != '"' && q != '`' {
			if q == '#' && (i == 0 || code[i-1] == ' ' || code[i-1] == '\n' || code[i-1] == ';') {
				// a comment in python, perl, ruby: skip to the end of the line
				for i < len(code) && code[i] != '\n' {
					i++
				}
			}
			continue
		}
		val, j, ok := quoted(code, i)
		if !ok {
			break // unterminated
		}
		out = append(out, literal{val: val, start: i, end: j, quote: q})
		i = j
	}
	return out
}

// enclosingCalls returns the names of the calls whose argument list
// contains offset at in code, innermost first ("open", "shutil.rmtree").
// Brackets inside string literals are skipped.
func enclosingCalls(code string, lits []literal, at int) []string {
	var names []string
	depth := 0
	li := len(lits) - 1
	for i := at - 1; i >= 0; i-- {
		for li >= 0 && lits[li].start >= at {
			li--
		}
		if li >= 0 && i <= lits[li].end && i >= lits[li].start {
			i = lits[li].start
			li--
			continue
		}
		switch code[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth > 0 {
				depth--
			}
		case '(':
			if depth > 0 {
				depth--
				continue
			}
			names = append(names, identBefore(code, i))
		}
	}
	return names
}

// identBefore returns the dotted identifier that ends right before offset i
// (spaces skipped).
func identBefore(code string, i int) string {
	j := i
	for j > 0 && code[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 {
		c := code[k-1]
		if c == '_' || c == '.' || c == ':' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			k--
			continue
		}
		break
	}
	return code[k:j]
}

// lastName is the last component of a dotted name: "os.system" -> "system".
func lastName(n string) string {
	if i := strings.LastIndexAny(n, ".:"); i >= 0 {
		return n[i+1:]
	}
	return n
}

// shellRunners run their (first) string argument as a shell command.
var shellRunners = map[string]bool{
	"system": true, "popen": true, "exec": true, "execSync": true, "spawnSync": true, "spawn": true, "execFileSync": true,
	"check_output": true, "check_call": true, "call": true, "run": true, "Popen": true, "getoutput": true,
	"getstatusoutput": true, "shell_exec": true, "passthru": true, "proc_open": true, "capture2": true,
	"capture2e": true, "capture3": true, "qx": true, "readpipe": true, "execSync_": true,
}

// fileOps map a call name to what it does with its path arguments.
var fileOps = map[string]Kind{
	// reads
	"open": Read, "fopen": Read, "read_text": Read, "read_bytes": Read, "readFile": Read, "readFileSync": Read,
	"file_get_contents": Read, "readfile": Read, "read": Read, "readlines": Read, "slurp": Read, "load": Read,
	"loadtxt": Read, "createReadStream": Read, "foreach": Read, "binread": Read, "file": Read,
	"sysopen": Read, "read_file": Read, "read_lines": Read, "read_binary": Read,
	// sockets and databases opened by path: what listens on them is reached
	"connect": Read, "createConnection": Read,
	// writes
	"writeFile": Write, "writeFileSync": Write, "appendFile": Write, "appendFileSync": Write, "write_text": Write,
	"write_bytes": Write, "file_put_contents": Write, "createWriteStream": Write, "binwrite": Write,
	"mkdir": Write, "makedirs": Write, "mkdirSync": Write, "mkdir_p": Write, "chmod": Write, "chmodSync": Write,
	"symlink": Write, "symlinkSync": Write, "truncate": Write,
	// deletes
	"rmtree": Delete, "remove": Delete, "unlink": Delete, "unlinkSync": Delete, "rmdir": Delete, "rmdirSync": Delete,
	"removedirs": Delete, "rm": Delete, "rmSync": Delete, "rm_rf": Delete, "rm_r": Delete, "rm_f": Delete,
	"remove_dir_all": Delete, "remove_file": Delete, "delete": Delete, "remove_tree": Delete, "rmdir_p": Delete,
	"remove_entry": Delete, "remove_entry_secure": Delete, "removeSync": Delete,
	"writeTextFile": Write, "writeTextFileSync": Write, "readTextFile": Read, "readTextFileSync": Read,
	// copies and moves: handled by position
	"copy": Write, "copyfile": Write, "copy2": Write, "copytree": Write, "copyFile": Write, "copyFileSync": Write,
	"cp": Write, "cp_r": Write, "move": Write, "rename": Write, "renameSync": Write, "mv": Write, "cpSync": Write,
}

// qualifiedOps are file operations known by their full name (Ruby's
// File.write; a bare write is a method on an open file).
var qualifiedOps = map[string]Kind{
	"File.write": Write, "IO.write": Write, "File.read": Read, "IO.read": Read, "File.readlines": Read,
	"IO.readlines": Read, "File.delete": Delete, "File.unlink": Delete, "Dir.rmdir": Delete, "Dir.delete": Delete,
	"FileUtils.rm_rf": Delete, "FileUtils.rm_r": Delete, "FileUtils.rm": Delete, "FileUtils.remove_dir": Delete,
	"os.Remove": Delete, "os.RemoveAll": Delete, "os.ReadFile": Read, "os.WriteFile": Write,
	"UNIXSocket.new": Read, "UNIXSocket.open": Read, "Bun.write": Write, "Bun.file": Read,
}

// recursiveOps operate on whole trees.
var recursiveOps = map[string]bool{
	"rmtree": true, "rm_rf": true, "rm_r": true, "remove_dir_all": true, "remove_tree": true, "copytree": true,
	"cp_r": true, "rmSync": true, "cpSync": true, "removedirs": true, "rmdir_p": true, "remove_dir": true,
	"RemoveAll": true, "removeSync": true,
}

// twoPathOps read their first path and write the second.
var twoPathOps = map[string]bool{
	"copy": true, "copyfile": true, "copy2": true, "copytree": true, "copyFile": true, "copyFileSync": true,
	"cp": true, "cp_r": true, "move": true, "rename": true, "renameSync": true, "mv": true, "cpSync": true,
}

// pathMethods are methods called on a path object built from a literal
// (Path('x').read_text(), File.new('x').read).
var pathMethods = map[string]Kind{
	"read_text": Read, "read_bytes": Read, "open": Read, "read": Read, "readlines": Read,
	"write_text": Write, "write_bytes": Write, "touch": Write, "mkdir": Write, "chmod": Write,
	"unlink": Delete, "rmdir": Delete, "rmtree": Delete,
}

// inlineCode models the inline program code given to interpreter lang.
func (k *call) inlineCode(code field, lang string) {
	k.inlineCodeDepth(code, lang, 0)
}

// inlineCodeDepth models inline code found depth evaluations deep (a
// literal given to exec or eval of the same language).
func (k *call) inlineCodeDepth(code field, lang string, depth int) {
	if !code.known {
		return
	}
	src := code.val
	if len(src) > maxInlineCode {
		k.dynamicExec(k.name + " runs inline code too long to analyse")
		return
	}
	lits := scanLiterals(src)
	if len(lits) > maxInlineLiterals {
		k.dynamicExec(k.name + " runs inline code with too many strings to analyse")
		return
	}
	sc := k.codeSinks(code, lang, depth)
	if sc != nil && sc.lang == "python" && len(k.a.written) > 0 {
		for _, m := range sc.imports {
			k.pythonModule(m) // import m of an m.py the line wrote
		}
	}
	k.codeSecretEnv(src)
	k.codeCredStores(src)
	if k.codeSends(src, sc) {
		// the files it opens, recorded below, may be what it sends
		defer k.codeUploads(src, len(k.cmd.Effects))
	}
	backticksRun := lang == "perl" || lang == "ruby" || lang == "php"
	usedAsMode := map[int]bool{}
	for i, l := range lits {
		if l.quote == '`' && backticksRun {
			continue // a command: judged by codeSinks
		}
		calls := enclosingCalls(src, lits, l.start)
		bare := false
		if len(calls) == 0 {
			// perl and ruby call without parentheses: system "rm -rf ~"
			n := identBefore(src, l.start)
			if n == "" {
				continue
			}
			calls, bare = []string{n}, true
		}
		inner := lastName(calls[0])
		if lang == "python" && (inner == "exec" || inner == "eval") {
			continue // python's exec runs python, not a shell
		}
		// a shell command: system("..."), subprocess.run("...", shell=True),
		// judged by codeSinks
		if shellRunners[inner] && (bare || firstArg(src, lits, l)) {
			continue
		}
		if shellRunners[inner] && inList(src, l) {
			continue // part of an argv list handled with its first element
		}
		if usedAsMode[i] || !looksLikePath(l.val) {
			continue
		}
		if key := strings.TrimSuffix(identBefore(src, l.start), ":"); key == "socketPath" || strings.HasSuffix(key, ".socketPath") {
			// node's http.request({socketPath: "/x/y.sock"}) talks to a Unix socket
			k.file(Read, sub(plain(code), l.val), false)
			continue
		}
		kind, name, ok := fileOp(src, lits, l, calls)
		if !ok {
			continue
		}
		if name == "open" || name == "fopen" {
			if m, mi := openMode(src, lits, i); m != "" {
				usedAsMode[mi] = true
				if strings.ContainsAny(m, "wax+>") {
					kind = Write
				}
			}
		}
		if !twoPathOps[name] && !bare && !firstArg(src, lits, l) && !(lang == "perl" && (name == "open" || name == "sysopen")) {
			continue // content, flags or encodings, not the path
		}
		if twoPathOps[name] && !firstArg(src, lits, l) {
			kind = Write
		} else if twoPathOps[name] {
			kind = Read
		}
		v := l.val
		if lang == "perl" && (name == "open" || name == "sysopen") {
			// two-argument open: the mode is part of the name (">file")
			t := strings.TrimLeft(v, "+<>| ")
			if t != v {
				if strings.ContainsAny(v[:len(v)-len(t)], ">+") {
					kind = Write
				}
				v = t
			}
		}
		if strings.HasPrefix(v, "~") && k.a.opts.Home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
			v = path.Join(k.a.opts.Home, v[1:])
		}
		k.file(kind, sub(plain(code), v), recursiveOps[name])
	}
}

// plain is f without the expansion flags of the word the code came from.
func plain(f field) field {
	f.glob, f.under, f.tmpl, f.bind, f.proc = false, false, false, nil, false
	return f
}

// fileOp finds the file operation a path literal is an argument of: the
// innermost recognised enclosing call, or a method called on the path
// object the literal builds (Path('x').read_text()).
func fileOp(src string, lits []literal, l literal, calls []string) (Kind, string, bool) {
	for n, c := range calls {
		name := lastName(c)
		if kind, ok := qualifiedOps[c]; ok {
			return kind, name, true
		}
		if n == 0 {
			if m := methodAfter(src, lits, l); m != "" {
				if kind, ok := pathMethods[m]; ok {
					return kind, m, true
				}
			}
		}
		if kind, ok := fileOps[name]; ok {
			// "read" and "load" are file operations only as functions of a
			// module (File.read, json.load takes a file object): skip bare
			// methods on other objects
			return kind, name, true
		}
	}
	return "", "", false
}

// methodAfter returns the method called on the result of the call that
// directly encloses literal l: "read_text" in Path('x').read_text().
func methodAfter(src string, lits []literal, l literal) string {
	depth := 0
	for i := l.end + 1; i < len(src); i++ {
		if skip := litAt(lits, i); skip >= 0 {
			i = skip
			continue
		}
		switch src[i] {
		case '(', '[', '{':
			depth++
		case ']', '}':
			depth--
		case ')':
			if depth > 0 {
				depth--
				continue
			}
			// follow the method chain: Path('x').expanduser().read_text()
			j := i + 1
			for j < len(src) && src[j] == '.' {
				k := j + 1
				for k < len(src) && (src[k] == '_' || src[k] >= 'a' && src[k] <= 'z' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= '0' && src[k] <= '9') {
					k++
				}
				m := src[j+1 : k]
				if _, ok := pathMethods[m]; ok {
					return m
				}
				if k >= len(src) || src[k] != '(' {
					return ""
				}
				d := 0
				for j = k; j < len(src); j++ {
					if e := litAt(lits, j); e >= 0 {
						j = e
						continue
					}
					if src[j] == '(' {
						d++
					} else if src[j] == ')' {
						d--
						if d == 0 {
							break
						}
					}
				}
				j++
			}
			return ""
		}
	}
	return ""
}

// litAt returns the end of the literal starting at offset i, or -1.
func litAt(lits []literal, i int) int {
	for _, l := range lits {
		if l.start == i {
			return l.end
		}
	}
	return -1
}

// firstArg reports whether literal l is the first argument of the call
// (or the first element of the list) it is directly in.
func firstArg(src string, lits []literal, l literal) bool {
	j := l.start
	for j > 0 && src[j-1] == ' ' {
		j--
	}
	return j > 0 && (src[j-1] == '(' || src[j-1] == '[')
}

// inList reports whether l is an element of a [...] list.
func inList(src string, l literal) bool {
	j := l.start
	for j > 0 && src[j-1] == ' ' {
		j--
	}
	return j > 0 && (src[j-1] == ',' || src[j-1] == '[')
}

// openMode returns the mode argument of the open call whose path literal
// is lits[i] ("w", "a", ">", "r") and its index, or "".
func openMode(src string, lits []literal, i int) (string, int) {
	for n := i + 1; n < len(lits) && n <= i+2; n++ {
		between := strings.TrimSpace(src[lits[n-1].end+1 : lits[n].start])
		if between != "," && !strings.HasSuffix(between, "mode=") && !strings.HasSuffix(between, "flag:") {
			break
		}
		m := lits[n].val
		if m != "" && strings.Trim(m, "rwabtx+U<>|") == "" {
			return m, n
		}
	}
	// perl: open(my $fh, '>', 'file') puts the mode before the path
	if i > 0 {
		between := strings.TrimSpace(src[lits[i-1].end+1 : lits[i].start])
		m := lits[i-1].val
		if between == "," && m != "" && strings.Trim(m, "<>+|") == "" {
			return m, i - 1
		}
	}
	// perl two-argument open: open(F, ">file")
	return "", -1
}

// looksLikePath reports whether a literal is plausibly a file path.
func looksLikePath(v string) bool {
	if v == "" || len(v) > 4096 || strings.ContainsAny(v, "\n\t") || strings.Contains(v, "://") {
		return false
	}
	if strings.Trim(v, "rwabtx+U<>|") == "" {
		return false // a mode
	}
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || strings.HasPrefix(v, ".") ||
		strings.Contains(v, "/") || strings.Contains(v, ".") || !strings.Contains(v, " ")
}
