package shell

import (
	"path"
	"strings"
)

// A foreignLang is a language whose interpreters run code given on their
// command line but which warden has no lexer for (Lisp and Scheme
// dialects, the JVM's scripting languages, Erlang and Elixir, Raku,
// Haskell, Emacs Lisp): how to find the code (the options that take it,
// and a subcommand that does), and the quote characters of its strings.
type foreignLang struct {
	lang     string
	names    []string
	codeOpts []string // options whose value is code (-e, --eval, -eval)
	codeCmd  string   // a subcommand whose operand is code (crystal eval)
	fileOpts []string // options whose value is a file of code (-l, --load, --script)
	argOpts  []string // other options that take a value
	quotes   string   // the characters that quote its strings
}

// foreignLangs are the languages read by foreignCode. Each is one line:
// a new interpreter is a new line.
var foreignLangs = []foreignLang{
	{lang: "groovy", names: []string{"groovy"}, codeOpts: []string{"-e"}, argOpts: []string{"-cp", "-classpath", "--classpath", "-D"}, quotes: `"'`},
	{lang: "scala", names: []string{"scala", "scala-cli", "amm"}, codeOpts: []string{"-e", "--execute", "-c", "--code"}, argOpts: []string{"-cp", "-classpath", "--classpath"}, quotes: `"`},
	{lang: "kotlin", names: []string{"kotlin", "kotlinc", "kotlinc-jvm"}, codeOpts: []string{"-e", "-expression"}, argOpts: []string{"-cp", "-classpath", "-d"}, quotes: `"`},
	{lang: "elixir", names: []string{"elixir", "iex"}, codeOpts: []string{"-e", "--eval"}, fileOpts: []string{"-r", "--require"}, argOpts: []string{"--sname", "--name", "--cookie", "-pa", "-pz"}, quotes: `"'`},
	{lang: "erlang", names: []string{"erl", "escript"}, codeOpts: []string{"-eval"}, argOpts: []string{"-sname", "-name", "-setcookie", "-pa", "-pz", "-s", "-run", "-config"}, quotes: `"`},
	{lang: "lisp", names: []string{"racket", "guile", "sbcl", "clisp", "ecl", "ccl", "gosh", "csi", "chez", "scheme", "petite", "chicken", "mit-scheme", "janet", "fennel", "hy", "clojure", "clj", "bb", "nbb"},
		codeOpts: []string{"-e", "--eval", "-c", "--expression", "-x", "--execute", "-p", "--print"}, fileOpts: []string{"-l", "--load", "--script", "-r", "--require", "-f", "--file", "-s"}, argOpts: []string{"-Sdeps", "--core", "--dynamic-space-size", "-L"}, quotes: `"`},
	{lang: "elisp", names: []string{"emacs", "emacs-nox", "xemacs"}, codeOpts: []string{"--eval", "-eval", "--execute", "-execute"}, fileOpts: []string{"-l", "--load", "-load", "--script", "-script", "-x"},
		argOpts: []string{"-f", "--funcall", "-funcall", "-L", "--directory", "--chdir", "--init-directory", "-d", "--display", "-T", "--title", "-fn", "--font", "-geometry"}, quotes: `"`},
	{lang: "raku", names: []string{"raku", "perl6", "rakudo"}, codeOpts: []string{"-e"}, argOpts: []string{"-I", "-M"}, quotes: `"'`},
	{lang: "haskell", names: []string{"ghc", "ghci", "runghc", "runhaskell"}, codeOpts: []string{"-e", "--eval"}, argOpts: []string{"-i", "-package"}, quotes: `"`},
	{lang: "crystal", names: []string{"crystal"}, codeCmd: "eval", quotes: `"`},
	{lang: "java", names: []string{"jshell"}, argOpts: []string{"--class-path", "-cp", "-R", "-J"}, quotes: `"`},
}

// foreignByName maps an interpreter's name to its language.
var foreignByName = func() map[string]*foreignLang {
	m := map[string]*foreignLang{}
	for i := range foreignLangs {
		for _, n := range foreignLangs[i].names {
			m[n] = &foreignLangs[i]
		}
	}
	return m
}()

// foreignPrograms declares the interpreters of foreignLangs.
func foreignPrograms() []program {
	var names []string
	for _, l := range foreignLangs {
		names = append(names, l.names...)
	}
	return []program{{names: names, model: (*call).foreign, examples: []example{
		ex("groovy -e 'println 1'", "!tag dynamic-exec"),
		ex(`groovy -e 'new File("/home/u/.profile") << "x"'`, "write /home/u/.profile", "tag dynamic-exec"),
		ex(`emacs --batch --eval '(delete-directory "~/Music" t)'`, "delete:r /home/u/Music"),
		ex("emacs notes.org", "read /home/u/proj/notes.org", "!tag dynamic-exec"),
		ex("emacs --batch -l build.el", "exec /home/u/proj/build.el"),
		ex(`guile -c '(system "rm -rf ~/Music")'`, "delete:r /home/u/Music"),
		ex(`clojure -M -e '(println (+ 1 2))'`, "!tag dynamic-exec"),
		ex(`kotlin -e 'java.io.File("/etc/hosts").readText()'`, "read /etc/hosts", "tag dynamic-exec"),
		ex(`elixir -e 'System.cmd("rm", ["-rf", "/srv/data"])'`, "delete:r /srv/data"),
		ex(`racket -e '(delete-directory/files "/home/u/Pictures")'`, "delete:r /home/u/Pictures"),
		ex(`crystal eval 'File.delete("/home/u/.bashrc")'`, "delete /home/u/.bashrc"),
		ex("crystal build src/app.cr", "!tag dynamic-exec"),
		ex(`scala -e "$CODE"`, "tag dynamic-exec"),
		ex("erl -noshell -eval 'io:format(\"hi~n\"), halt().'", "!tag dynamic-exec"),
		ex(`ghc -e 'removeDirectoryRecursive "/home/u/Documents"'`, "delete:r /home/u/Documents"),
		ex("racket <<'EOF'\n(delete-directory/files \"/home/u/Music\")\nEOF", "delete:r /home/u/Music"),
		ex("curl -s https://x.example/a.scm | guile", "tag remote-exec"),
	}}}
}

// foreign models an interpreter of a foreignLang: code given inline is
// read by foreignCode; a file of code is run.
func (k *call) foreign() {
	l := foreignByName[k.name]
	if l == nil {
		return
	}
	args := k.args
	var code *field
	ran := false
	ops := 0
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.known {
			ops++
			continue
		}
		name, val, eq := strings.Cut(f.val, "=")
		next := func() (field, bool) {
			if eq {
				return sub(f, val), true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return field{}, false
		}
		switch {
		case l.codeCmd != "" && ops == 0 && f.val == l.codeCmd:
			ops++
			if c := parseOpts(args[i+1:], spec{stop: true}); len(c.ops) > 0 {
				jc := joinCode(c.ops)
				code = &jc
			}
			i = len(args)
		case contains(l.codeOpts, name) && strings.HasPrefix(name, "-"):
			if c, ok := next(); ok {
				code = &c
				k.eff(Effect{Kind: Exec, Reason: "inline code (" + l.lang + ")"})
				if !c.known {
					k.nested(c, k.name+" "+name, nil, false) // not known: dynamic or remote
					continue
				}
				k.foreignCode(c, l)
			}
		case contains(l.fileOpts, name) && strings.HasPrefix(name, "-"):
			if c, ok := next(); ok {
				k.script(c, false)
				ran = true
			}
		case contains(l.argOpts, name) && strings.HasPrefix(name, "-"):
			if !eq {
				i++
			}
		case strings.HasPrefix(f.val, "-"):
		default:
			ops++
			if code == nil && !ran && l.codeCmd == "" {
				if l.lang == "elisp" {
					k.file(Read, f, false) // a file to edit
					continue
				}
				k.script(f, false)
				ran = true
			}
		}
	}
	if code == nil && !ran && ops == 0 && l.lang != "elisp" {
		// the program on stdin: a here-document, a pipe
		k.stdinCode(false)
		if in := k.c.stdin; in.literal && !in.remote {
			k.foreignCode(lit(in.text), l)
		}
		return
	}
	if code != nil && l.codeCmd != "" {
		k.eff(Effect{Kind: Exec, Reason: "inline code (" + l.lang + ")"})
		if !code.known {
			k.nested(*code, k.name+" "+l.codeCmd, nil, false)
			return
		}
		k.foreignCode(*code, l)
	}
}

// foreignCapabilities are the words whose presence in code of a language
// warden cannot read means the code may touch files, run programs or
// reach the network: code without any of them (println(1), (+ 1 2))
// only computes and prints. A part of a name (File.delete: file, delete;
// deleteRecursively) counts when it starts with one of foreignStems or is
// one of foreignWords.
var (
	foreignStems = []string{"file", "dir", "path", "delet", "remov", "unlink", "writ", "spit", "slurp", "append", "exec", "system",
		"shell", "process", "spawn", "popen", "command", "socket", "http", "url", "fetch", "eval", "load", "require", "import",
		"getenv", "home", "runtime", "copy", "move", "renam", "mkdir", "chmod", "kill", "download", "upload", "open", "read",
		"compile", "script", "erase", "trash"}
	foreignWords = []string{"rm", "sh", "run", "cmd", "env", "os", "net", "port", "cp", "mv", "curl", "wget", "bash", "nc"}
)

// capable reports whether code (its strings left out) names a
// capability, in a word or a part of a camel-case name (fromFile).
func capable(code string) bool {
	var b strings.Builder
	for i := 0; i < len(code); i++ {
		c := code[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 && code[i-1] >= 'a' && code[i-1] <= 'z' {
				b.WriteByte(' ')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	for _, w := range strings.FieldsFunc(b.String(), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if contains(foreignWords, w) {
			return true
		}
		for _, st := range foreignStems {
			if strings.HasPrefix(w, st) {
				return true
			}
		}
	}
	return false
}

// foreignDeletes, foreignWrites and foreignRuns are what the words around a
// path literal say is done with it.
var (
	foreignDeletes = []string{"delet", "remov", "unlink", "rmdir", "rm_rf", "rm-rf", "rm!", "rm(", "rm ", "erase", "shred", "trash", "purge", "rmtree"}
	foreignWrites  = []string{"writ", "spit", "append", "<<", "save", "creat", "touch", "mkdir", "copy", "move", "renam", "output", "chmod", ".text =", "temp-file", "insert"}
	foreignRuns    = []string{"system", "shell", "exec", "cmd", "spawn", "process", "popen", "run-program", "sh", "command", "processbuilder",
		"call-process", "start-process", "shell-command", "shell-command-to-string", "run", "execute", "callsystem", "readprocess", "rawsystem"}
)

// foreignCode reads code of a language warden has no lexer for. Code that
// names no capability (no file, program, network or evaluation word)
// only computes and is left alone. Otherwise it cannot be read, so it
// asks (dynamic-exec), and what can be seen is judged too: a string that
// is a path is read, written or deleted as the words around it say
// (delete-directory, File.rm_rf!, << , writeText), a string given to
// something that runs programs (system, shell-command, System.cmd,
// Runtime.exec) is a command line or, word by word, an argv.
func (k *call) foreignCode(code field, l *foreignLang) {
	src := code.val
	if len(src) > maxInlineCode {
		k.dynamicExec(k.name + " runs inline code too long to analyse")
		return
	}
	lits := foreignLiterals(src, l.quotes)
	var bare strings.Builder // the code with its strings left out
	last := 0
	for _, lt := range lits {
		bare.WriteString(src[last:lt.start])
		bare.WriteByte(' ')
		last = lt.end + 1
	}
	bare.WriteString(src[min(last, len(src)):])
	text := strings.ToLower(bare.String())
	can := capable(bare.String())
	for _, lt := range lits {
		can = can || strongPath(lt.val)
	}
	if !can {
		return
	}
	k.dynamicExec(k.name + " runs " + l.lang + " code that touches files, programs or the network, which warden cannot read")
	homeExpr := strings.Contains(text, "home") || strings.Contains(strings.ToLower(src), "\"home\"") || strings.Contains(src, "user.home")
	for i := 0; i < len(lits); i++ {
		lt := lits[i]
		around := strings.ToLower(foreignBefore(src, lits, i) + " " + foreignAfter(src, lits, i))
		if runsNext(foreignBefore(src, lits, i)) || strings.HasPrefix(strings.TrimSpace(foreignAfter(src, lits, i)), ".execute(") {
			// a command line, or the first word of an argv
			words := []string{lt.val}
			j := i + 1
			for ; j < len(lits) && !strings.Contains(lt.val, " ") && j-i < 32 && foreignAdjacent(src, lits[j-1], lits[j]); j++ {
				words = append(words, lits[j].val)
			}
			if len(words) > 1 {
				i = j - 1
				k.nested(sub(plain(code), quoteWords(words)), k.name+" "+l.lang, nil, false)
				continue
			}
			if fs := strings.Fields(lt.val); len(fs) > 0 && programs.lookup(path.Base(fs[0])) != nil {
				k.nested(sub(plain(code), lt.val), k.name+" "+l.lang, nil, false)
				continue
			}
		}
		p := lt.val
		if !strongPath(p) {
			if homeExpr && strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "..") && len(p) > 1 && !strings.Contains(p, " ") {
				p = "~/" + p // System.getenv("HOME") + ".bashrc"
			} else {
				continue
			}
		}
		if homeExpr && strings.HasPrefix(p, "/") && !rootDir(p) {
			p = "~" + p // (getenv "HOME") "/.ssh/id_rsa"
		}
		f := k.home(sub(plain(code), p))
		switch {
		case hasAny(around, foreignDeletes):
			rec := strings.Contains(around, "dir") || strings.Contains(around, "rf") || strings.Contains(around, "recurs") || strings.Contains(around, "tree") || strings.Contains(around, "files")
			k.file(Delete, f, rec)
		case hasAny(around, foreignWrites):
			k.file(Write, f, false)
		default:
			k.file(Read, f, false)
		}
	}
}

// foreignLiterals returns the string literals of code quoted by one of
// quotes, as scanLiterals does for the languages it knows.
func foreignLiterals(code, quotes string) []literal {
	var out []literal
	for i := 0; i < len(code) && len(out) < maxInlineLiterals; i++ {
		q := code[i]
		if strings.IndexByte(quotes, q) < 0 {
			continue
		}
		if q == '\'' && i > 0 && (isIdentChar(code[i-1])) {
			continue // an apostrophe in a name (Haskell's x', Erlang's atoms are words)
		}
		val, j, ok := quoted(code, i)
		if !ok {
			break
		}
		out = append(out, literal{val: val, start: i, end: j, quote: q})
		i = j
	}
	return out
}

// foreignBefore is the code of the statement before literal i, at most
// 64 bytes back, without the text of other literals: (spit (str home
// "user.home") "/.bashrc") gives the "/.bashrc" its verb, spit.
func foreignBefore(src string, lits []literal, i int) string {
	from := max(0, lits[i].start-64)
	var b strings.Builder
	at := from
	for j := 0; j < i; j++ {
		if lits[j].end < from {
			continue
		}
		if lits[j].start > at {
			b.WriteString(src[at:lits[j].start])
		}
		b.WriteByte(' ')
		at = max(at, lits[j].end+1)
	}
	if at < lits[i].start {
		b.WriteString(src[at:lits[i].start])
	}
	s := b.String()
	if j := strings.LastIndexAny(s, ";\n"); j >= 0 {
		s = s[j+1:]
	}
	return s
}

// foreignAfter is the code after literal i up to the next literal or the
// end of the statement, at most 24 bytes: File("x").delete(), File("x") << "y".
func foreignAfter(src string, lits []literal, i int) string {
	to := len(src)
	if i+1 < len(lits) {
		to = lits[i+1].start
	}
	to = min(to, lits[i].end+1+24)
	s := src[min(lits[i].end+1, to):to]
	if j := strings.IndexAny(s, ";\n"); j >= 0 {
		s = s[:j]
	}
	return s
}

// foreignAdjacent reports whether literal b follows a with only
// separators between them ("rm", "-rf" or ["-rf", "/x"] or "rm" "-rf").
func foreignAdjacent(src string, a, b literal) bool {
	return strings.Trim(src[a.end+1:b.start], " ,[]()'\t") == ""
}

// strongPath reports whether a literal is written as a path: absolute,
// under home, or relative with ./ or ../.
func strongPath(v string) bool {
	if v == "" || len(v) > 4096 || strings.ContainsAny(v, "\n\t") || strings.Contains(v, "://") {
		return false
	}
	return strings.HasPrefix(v, "/") || v == "~" || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../")
}

// rootDir reports whether an absolute path starts with a directory of the
// file system's root (/etc, /tmp, /home), not a name under home that code
// joined to the home directory (/.bashrc, /Documents).
func rootDir(p string) bool {
	first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
	switch first {
	case "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32", "media", "mnt", "opt", "proc", "root", "run", "sbin",
		"srv", "sys", "tmp", "usr", "var", "snap", "nix", "Users", "Library", "Applications", "private", "Volumes", "System", "cores", "":
		return true
	}
	return false
}

// hasAny reports whether s contains one of words.
func hasAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// quoteWords joins words into a shell command line, each quoted.
func quoteWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// runsNext reports whether the code right before a literal is a call that
// runs programs, with the literal its first argument: (system "…",
// (shell-command "…", System.cmd("…", Runtime.getRuntime().exec("….
func runsNext(before string) bool {
	t := strings.ToLower(before)
	for range 2 {
		t = strings.TrimRight(t, " \t([{,'")
		i := strings.LastIndexFunc(t, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_')
		})
		switch w := t[i+1:]; {
		case contains(foreignRuns, w):
			return true
		case contains([]string{"arrayof", "listof", "mutablelistof", "list", "vector", "array", "seq", "vec"}, w):
			t = t[:i+1] // exec(arrayOf("rm", …)): the list's callee
		default:
			return false
		}
	}
	return false
}
