package shell

import (
	"fmt"
	"strings"
)

// A program is what warden knows about one program, or about a family of
// programs that behave alike: the names it answers to, the model that
// turns a call's arguments into effects and tags, and examples of what the
// model reports. Program knowledge is data: each family is declared in its
// own file (programs_fs.go, programs_net.go, ...) and gathered into one
// registry; the examples are run as tests (TestProgramExamples), in the
// style of Codex execpolicy's should_match.
type program struct {
	// names are the normalised program names (basenames) it answers to.
	names []string
	// model applies the effects of one call.
	model func(k *call)
	// examples say what the model reports for some calls.
	examples []example
}

// An example is a command line and what its analysis must show, in the
// notation of the package's tests ("delete:r /home/u/proj/build",
// "tag publish", "!net", "read ?"), analysed in /home/u/proj with home
// /home/u.
type example struct {
	in   string
	want []string
}

// ex makes an example.
func ex(in string, want ...string) example { return example{in: in, want: want} }

// A matcher gives the model of programs known by a pattern of names
// (python3.12, mkfs.ext4, sha256sum) rather than by a list.
type matcher struct {
	what     string
	match    func(name string) bool
	model    func(k *call)
	examples []example
}

// registry holds every program model by name. It is built once, when the
// package is loaded, and only read afterwards.
type registry struct {
	byName   map[string]*program
	all      []*program
	matchers []matcher
}

// programs is the registry of the program families warden knows. It is
// filled by init (the models refer back to the analyser, which consults
// the registry, so it cannot be a variable's initial value) and never
// changed afterwards.
var programs *registry

func init() {
	programs = newRegistry(
		[][]program{
			builtinPrograms(),
			wrapperPrograms(),
			fsPrograms(),
			readPrograms(),
			diskPrograms(),
			netPrograms(),
			interpPrograms(),
			vcsPrograms(),
			pkgPrograms(),
			cloudPrograms(),
			sysPrograms(),
			runnerPrograms(),
			editorPrograms(),
			buildPrograms(),
			dbPrograms(),
			appDataPrograms(),
			remotePrograms(),
			releasePrograms(),
			exposePrograms(),
			foreignPrograms(),
			p6Programs(),
			channelPrograms(),
			transformPrograms(),
		},
		patternPrograms(),
	)
}

// newRegistry gathers program families; a name declared twice is a
// programming error and panics when the package loads.
func newRegistry(families [][]program, matchers []matcher) *registry {
	r := &registry{byName: map[string]*program{}, matchers: matchers}
	for _, fam := range families {
		for i := range fam {
			p := &fam[i]
			if p.model == nil || len(p.names) == 0 {
				panic(fmt.Sprintf("shell: program %v has no model or no name", p.names))
			}
			for _, n := range p.names {
				if _, dup := r.byName[n]; dup {
					panic("shell: program " + n + " is declared twice")
				}
				r.byName[n] = p
			}
			r.all = append(r.all, p)
		}
	}
	return r
}

// lookup returns the model of the program named n, or nil.
func (r *registry) lookup(n string) func(k *call) {
	for _, m := range r.matchers {
		if m.match(n) {
			return m.model
		}
	}
	if p := r.byName[n]; p != nil {
		return p.model
	}
	return nil
}

// patternPrograms declares the programs known by a pattern of names.
func patternPrograms() []matcher {
	return []matcher{
		{what: "shells", match: isShell, model: (*call).shell,
			examples: []example{ex("bash -c 'rm -rf /x'", "delete:r /x", "via rm bash -c")}},
		{what: "python", match: isPython, model: func(k *call) { k.interp("c", "m", "WX", "python"); k.webServer() },
			examples: []example{ex("python3.12 script.py", "exec /home/u/proj/script.py"),
				ex("python3 -m http.server 8000 --directory ~", "read:r /home/u", "net 0.0.0.0:8000"),
				ex("cd ~ && python -m http.server", "read:r /home/u"),
				ex("python3 -m http.server -d dist", "read:r /home/u/proj/dist")}},
		{what: "file system makers", match: isMkfs, model: (*call).format,
			examples: []example{ex("mkfs.ext4 /dev/sdb1", "tag fs.format", "write /dev/sdb1")}},
		{what: "checksums", match: isChecksum, model: func(k *call) { k.reader(spec{arg: "c"}, 0, false) },
			examples: []example{ex("sha256sum -c SUMS", "read /home/u/proj/SUMS"), ex("b2sum a", "read /home/u/proj/a")}},
	}
}

func isMkfs(n string) bool {
	return strings.HasPrefix(n, "mkfs") || n == "mke2fs" || n == "mkswap" || n == "mkdosfs" || n == "mkntfs" || n == "mkexfatfs" || n == "newfs"
}

func isChecksum(n string) bool {
	return strings.HasPrefix(n, "sha") && strings.HasSuffix(n, "sum") || n == "md5sum" || n == "b2sum" || n == "cksum" || n == "sum"
}

// model applies the effect model of the program k runs.
func (a *analyzer) model(k *call) {
	n := k.name
	if v, ok := a.aliases[n]; ok && a.aliasBusy[n] == "" && !a.funcs[n] && len(k.cmd.Via) == len(k.c.via) {
		k.expandAlias(n, v)
		return
	}
	switch {
	case n == "":
		return
	case k.isWarden():
		k.warden()
		return
	case k.argv[0].known && strings.Contains(k.argv[0].val, "/") && k.runScript(k.argv[0], ""):
		return // a script written earlier in the line, run by its path
	}
	k.envCode()
	if !strings.Contains(k.argv[0].val, "/") && k.pathProgram() {
		return // a file the line wrote, found through PATH or hash -p
	}
	if fd, ok := a.funcDefs[n]; ok && !strings.Contains(k.argv[0].val, "/") {
		k.funcCall(fd)
		return
	}
	if m := programs.lookup(n); m != nil {
		m(k)
		k.after()
		return
	}
	k.mentions()
	k.implicitFiles() // pytest, jest, nox, tox, …: the files they run from their directory
}

// inert is the model of programs that take names without reading or
// changing what they name (echo, test, which, ...).
func inert(*call) {}

// reads is the model of programs whose operands are files they read.
func reads(s spec) func(k *call) {
	return func(k *call) { k.reader(s, 0, false) }
}

// walks is the model of programs that walk the trees they are given.
func walks(s spec) func(k *call) {
	return func(k *call) { k.reader(s, 0, true) }
}

// interpreter is the model of a language interpreter: codeOpts are the
// short options that take inline code (-c, -e), modOpts those that take a
// module to run (-m), argOpts those that take another value; lang names
// the language ("" for the program's own name).
func interpreter(codeOpts, modOpts, argOpts, lang string) func(k *call) {
	return func(k *call) {
		l := lang
		if l == "" {
			l = k.name
		}
		k.interp(codeOpts, modOpts, argOpts, l)
	}
}

// tags is the model of programs whose every call is one tagged operation.
func tags(tag string) func(k *call) {
	return func(k *call) { k.tag(tag) }
}

// wraps is the model of wrappers that run their first operand after
// options (s), skipping skip more operands (timeout's duration).
func wraps(s spec, skip int) func(k *call) {
	return func(k *call) { k.simpleWrapper(s, skip) }
}

func reasonIf(c bool, r string) string {
	if c {
		return r
	}
	return ""
}

func hasArg(args []field, vals ...string) bool {
	for _, f := range args {
		if f.known && contains(vals, f.val) {
			return true
		}
	}
	return false
}

// subcommand returns the first operand after global options.
func (k *call) subcommand(s spec) string {
	s.stop = true
	p := parseOpts(k.args, s)
	if len(p.ops) == 0 || !p.ops[0].known {
		return ""
	}
	return p.ops[0].val
}

// funcCall runs a function defined earlier in the line with its arguments
// as the positional parameters, in the caller's shell: f() { rm -rf
// "$1"; }; f ~/Documents deletes ~/Documents. (The body was judged when
// it was defined, with parameters not known.) A function does not run
// itself again here.
func (k *call) funcCall(fd funcDef) {
	a, name := k.a, k.name
	if a.funcBusy[name] || len(k.args) == 0 {
		return
	}
	st, args := k.st, k.args
	k.later = append(k.later, func() {
		if a.funcBusy == nil {
			a.funcBusy = map[string]bool{}
		}
		a.funcBusy[name] = true
		defer delete(a.funcBusy, name)
		pos, known := st.pos, st.posKnown
		st.pos, st.posKnown = append([]field{lit(name)}, args...), true
		a.stmt(fd.c.withVia("function "+name), st, fd.body)
		st.pos, st.posKnown = pos, known
	})
}
