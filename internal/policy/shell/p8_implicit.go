package shell

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// Test runners and build tools run files of the working directory as
// code without being given them: pytest imports conftest.py, jest and
// vitest load their config modules, cargo compiles and runs build.rs, pip
// install . runs setup.py, direnv sources .envrc, nox, invoke and fab
// import their Python task files, rake loads the Rakefile, tox runs the
// commands of tox.ini, go generate runs the //go:generate lines of the
// package's files. A file of these the line wrote with known content is
// judged as the code it is, in its own language.

// implicitFile is a file a tool runs from its directory, and the language
// of its code ("sh" for a shell script, "tox" for tox.ini's commands,
// "rust" for build.rs).
type implicitFile struct {
	names []string
	lang  string
}

// implicitRunners are, by program, the files it runs from its directory.
var implicitRunners = map[string]implicitFile{
	"pytest":     {[]string{"conftest.py"}, "python"},
	"py.test":    {[]string{"conftest.py"}, "python"},
	"jest":       {[]string{"jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "babel.config.js", "jest.setup.js"}, "node"},
	"vitest":     {[]string{"vitest.config.js", "vitest.config.ts", "vitest.config.mjs", "vitest.config.mts", "vite.config.js", "vite.config.ts", "vite.config.mjs"}, "node"},
	"vite":       {[]string{"vite.config.js", "vite.config.ts", "vite.config.mjs"}, "node"},
	"mocha":      {[]string{".mocharc.js", ".mocharc.cjs"}, "node"},
	"playwright": {[]string{"playwright.config.js", "playwright.config.ts"}, "node"},
	"webpack":    {[]string{"webpack.config.js", "webpack.config.mjs", "webpack.config.ts"}, "node"},
	"eslint":     {[]string{"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", ".eslintrc.js", ".eslintrc.cjs"}, "node"},
	"gulp":       {[]string{"gulpfile.js", "gulpfile.mjs"}, "node"},
	"grunt":      {[]string{"Gruntfile.js"}, "node"},
	"nox":        {[]string{"noxfile.py"}, "python"},
	"invoke":     {[]string{"tasks.py"}, "python"},
	"inv":        {[]string{"tasks.py"}, "python"},
	"fab":        {[]string{"fabfile.py"}, "python"},
	"rake":       {[]string{"Rakefile", "rakefile", "Rakefile.rb"}, "ruby"},
	"direnv":     {[]string{".envrc"}, "sh"},
	"tox":        {[]string{"tox.ini"}, "tox"},
}

// implicitFiles judges the files the call's program runs from its
// directory that the line wrote.
func (k *call) implicitFiles() {
	if len(k.a.written) == 0 || k.st.dir == "" {
		return
	}
	sc := ""
	if ws := k.words(); len(ws) > 0 {
		sc = ws[0]
	}
	r, ok := implicitRunners[k.name]
	switch {
	case ok:
	case k.name == "cargo" && (sc == "build" || sc == "test" || sc == "run" || sc == "check" || sc == "install" || sc == "bench" || sc == "clippy" || sc == "doc"):
		r = implicitFile{[]string{"build.rs"}, "rust"}
	case (k.name == "pip" || k.name == "pip3" || k.name == "uv") && k.installsLocal():
		r = implicitFile{[]string{"setup.py"}, "python"}
	case isPython(k.name) && hasArg(k.args, "pytest"):
		r = implicitRunners["pytest"] // python -m pytest
	case isPython(k.name) && hasArg(k.args, "build"):
		r = implicitFile{[]string{"setup.py"}, "python"} // python -m build
	case k.name == "go" && sc == "generate":
		k.goGenerate()
		return
	default:
		return
	}
	for _, n := range r.names {
		p := path.Join(k.st.dir, n)
		txt, ok := k.a.written[p]
		if !ok && r.lang == "python" && n == "conftest.py" {
			// pytest imports every conftest.py below where it starts
			for _, wp := range k.writtenBelow(k.st.dir) {
				if path.Base(wp) == n {
					p, txt, ok = wp, k.a.written[wp], true
					break
				}
			}
		}
		if !ok {
			continue
		}
		label := k.name + " runs " + n
		switch r.lang {
		case "sh":
			k.nested(lit(txt), label, nil, false)
		case "tox":
			for _, c := range toxCommands(txt) {
				k.nested(lit(c), label, nil, false)
			}
		case "rust":
			k.writtenCode(lit(p), rustLang)
		default:
			k.inlineCode(lit(txt), r.lang)
		}
	}
}

// installsLocal reports whether a pip install builds a project from a
// local directory (pip install ., -e ., ./pkg), which runs its setup.py.
func (k *call) installsLocal() bool {
	for _, f := range k.args {
		if f.known && (f.val == "." || f.val == ".." || strings.HasPrefix(f.val, "./") || strings.HasPrefix(f.val, "../") ||
			f.val == "-e" || f.val == "--editable" || strings.HasPrefix(f.val, "--editable=")) {
			return true
		}
	}
	return false
}

// writtenBelow returns the paths the line wrote below dir, sorted.
func (k *call) writtenBelow(dir string) []string {
	var out []string
	for p := range k.a.written {
		if strings.HasPrefix(p, dir+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// toxKey is a tox.ini key whose value is commands.
var toxKey = regexp.MustCompile(`^\s*(?:commands(?:_pre|_post)?)\s*=\s*(.*)$`)

// toxCommands returns the commands of a tox.ini's commands keys: the
// key's value and the indented lines that continue it.
func toxCommands(ini string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(ini, "\n") {
		if m := toxKey.FindStringSubmatch(line); m != nil {
			in = true
			if c := strings.TrimSpace(m[1]); c != "" {
				out = append(out, toxSubst(c))
			}
			continue
		}
		if in && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && strings.TrimSpace(line) != "" {
			out = append(out, toxSubst(strings.TrimSpace(line)))
			continue
		}
		in = false
	}
	return out
}

// toxSubst turns tox's {env:NAME} and {env:NAME:default} into $NAME, and
// {posargs} into nothing.
func toxSubst(c string) string {
	c = strings.ReplaceAll(c, "{posargs}", "")
	return toxEnv.ReplaceAllString(c, "$$$1")
}

var toxEnv = regexp.MustCompile(`\{env:([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}`)

// goGenerateLine is a //go:generate directive.
var goGenerateLine = regexp.MustCompile(`(?m)^//go:generate[ \t]+(.+)$`)

// goGenerate judges go generate's directives in the .go files the line
// wrote below the directory: each runs as a command.
func (k *call) goGenerate() {
	for _, p := range k.writtenBelow(k.st.dir) {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		for _, m := range goGenerateLine.FindAllStringSubmatch(k.a.written[p], 16) {
			k.nested(lit(m[1]), "go generate in "+path.Base(p), nil, false)
		}
	}
}
