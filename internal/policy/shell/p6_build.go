package shell

import (
	"path"
	"regexp"
	"strings"
)

// Code built and run in the same line: a program compiled from source the
// line wrote (a here-string, a file written by echo or a here-document)
// does what its source says, and an installer run over a manifest the
// line changed runs the scripts the change may have added.

// Languages compiled from source the line may show, read as foreignCode
// reads languages warden has no lexer for: the strings handed to what
// runs programs are command lines, the paths next to deleting or writing
// words are deleted or written, and anything touching files, programs or
// the network asks.
var (
	cLang    = &foreignLang{lang: "C", quotes: `"`}
	goLang   = &foreignLang{lang: "Go", quotes: "\"`"}
	rustLang = &foreignLang{lang: "Rust", quotes: `"`}
)

// compiler models C, C++ and Rust compilers: -o OUT is written, the
// sources are read, and a source the line wrote (or fed on stdin with -)
// is judged by its content.
func (k *call) compiler() {
	p := parseOpts(k.args, spec{arg: "oxIlLDUWfmOgsBebT", optArg: "", long: []string{"out-dir", "target", "edition", "crate-type", "crate-name", "emit", "cfg", "cap-lints"}})
	for _, o := range p.all("o") {
		k.file(Write, o, false)
	}
	lang := cLang
	if k.name == "rustc" {
		lang = rustLang
	}
	for _, f := range p.ops {
		if f.known && f.val == "-" {
			for _, t := range k.stdinText() {
				k.foreignCode(lit(t), lang)
			}
			continue
		}
		k.file(Read, f, false)
		k.writtenCode(f, lang)
	}
}

// writtenCode judges the file f as code of lang when the line wrote it
// with known content.
func (k *call) writtenCode(f field, lang *foreignLang) {
	if !f.known {
		return
	}
	e, ok := k.a.target(k.st, Read, f, false)
	if !ok || e.Unknown {
		return
	}
	if src, ok := k.a.written[e.Target]; ok {
		if lang == rustLang {
			// Command::new("rm").arg("-rf").arg("/x"): one argv
			src = strings.ReplaceAll(rustArgChain.ReplaceAllString(src, `", "`), "Command::new(", "Command(")
		}
		k.foreignCode(lit(src), lang)
	}
}

// rustArgChain joins the literals of a std::process::Command builder
// chain (.arg("a").arg("b"), .args(["a", "b"])) into one argv.
var rustArgChain = regexp.MustCompile(`"\s*\)\s*\.args?\(\s*(?:\[|&\[|vec!\[)?\s*"`)

// goRunWritten judges go run of .go files the line wrote.
func (k *call) goRunWritten(rest []field) {
	for _, f := range rest {
		if f.known && strings.HasSuffix(f.val, ".go") {
			k.writtenCode(f, goLang)
		}
	}
}

// manifests are the files whose content decides what an installer or a
// build runs: lifecycle scripts, setup code, recipes.
var manifests = map[string]bool{"package.json": true, "setup.py": true, "setup.cfg": true, "pyproject.toml": true,
	"Makefile": true, "makefile": true, "GNUmakefile": true, "build.rs": true, "Cargo.toml": true, ".npmrc": true,
	"binding.gyp": true, "composer.json": true, "Gemfile": true, "Rakefile": true}

// noteManifests records the manifests a command changed in a way whose
// content is not known (sed -i, jq … > f, mv of a file over it): a later
// installer or build in the line runs what they now say.
func (k *call) noteManifests() {
	for _, es := range [][]Effect{k.cmd.Effects, k.ro.effs} {
		for _, e := range es {
			if e.Kind != Write || e.Unknown || !manifests[path.Base(e.Target)] {
				continue
			}
			if _, known := k.a.written[e.Target]; known {
				continue // written with known content: judged by it
			}
			if k.a.dirty == nil {
				k.a.dirty = map[string]bool{}
			}
			k.a.dirty[e.Target] = true
		}
	}
}

// runsDirtyManifest asks when an installer or build runs over a manifest
// the line changed in a way not known at check time: npm install and its
// kin run package.json's lifecycle scripts, pip install . runs setup.py,
// make runs the Makefile, cargo build runs build.rs.
func (k *call) runsDirtyManifest() {
	if len(k.a.dirty) == 0 || k.st.dir == "" {
		return
	}
	var names []string
	sc := ""
	if ws := k.words(); len(ws) > 0 {
		sc = ws[0]
	}
	switch k.name {
	case "npm", "pnpm", "yarn", "bun", "cnpm":
		switch sc {
		case "", "install", "i", "ci", "add", "rebuild", "run", "run-script", "test", "start", "build", "pack", "publish", "exec", "x":
			names = []string{"package.json", ".npmrc", "binding.gyp"}
		}
	case "pip", "pip3", "uv", "pipx", "poetry", "pdm", "hatch":
		names = []string{"setup.py", "setup.cfg", "pyproject.toml"}
	case "make", "gmake":
		names = []string{"Makefile", "makefile", "GNUmakefile"}
	case "cargo":
		names = []string{"build.rs", "Cargo.toml"}
	case "composer":
		names = []string{"composer.json"}
	case "bundle", "rake":
		names = []string{"Gemfile", "Rakefile"}
	default:
		if isPython(k.name) && sc == "setup.py" {
			names = []string{"setup.py"}
		}
	}
	for _, n := range names {
		if p := path.Join(k.st.dir, n); k.a.dirty[p] {
			k.dynamicExec(k.name + " runs what " + n + " says, which this line changed in a way warden cannot read")
			return
		}
	}
}
