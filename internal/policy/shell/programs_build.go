package shell

import (
	"encoding/json"
	"path"
	"strings"
)

// buildPrograms declares build tools whose recipes are shell code: make
// runs the recipes of its makefile, so a makefile written in the same line
// (or given on stdin, or by --eval) is judged as the commands it holds.
// A makefile that was there before is the project's own and is not read.
func buildPrograms() []program {
	return []program{
		{names: []string{"make", "gmake", "bmake", "remake"}, model: (*call).make,
			examples: []example{ex("make -f - <<'EOF'\nall:\n\trm -rf /x\nEOF", "delete:r /x", "via rm make recipe"),
				ex("printf 'x:\\n\\trm -rf /x\\n' > Makefile && make x", "delete:r /x"), ex("make -j4 test", "!delete", "!exec"),
				ex("make --eval='$(shell rm -rf /x)'", "delete:r /x")}},
	}
}

// TagMakeUnseen marks make run with a makefile (-f FILE) the line did not
// write: its recipes are not known at check time (Attrs: makefile).
const TagMakeUnseen = "make.unseen"

// make models make: -f FILE (or - for stdin), -C DIR, --eval TEXT.
func (k *call) make() {
	p := parseOpts(k.args, spec{arg: "fCEjlIoWO", long: []string{"file", "makefile", "directory", "eval", "jobs", "load-average",
		"include-dir", "old-file", "assume-old", "what-if", "new-file", "assume-new", "output-sync"}})
	st := k.st
	if d, ok := p.get("C", "directory"); ok {
		st = k.withDir(d)
	}
	for _, e := range p.all("E", "eval") {
		k.makefile(e, st)
	}
	files := p.all("f", "file", "makefile")
	if len(files) == 0 {
		for _, n := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if st.dir == "" {
				break
			}
			if txt, ok := k.a.written[path.Join(st.dir, n)]; ok {
				k.makefile(lit(txt), st)
				break
			}
		}
		return
	}
	for _, f := range files {
		if f.proc {
			// make -f <(…): the makefile is what the substitution prints
			if f.remote {
				k.remoteExec("make runs a makefile fetched from the network")
			} else {
				k.procCode(f, "make -f -")
			}
			continue
		}
		if f.known && (f.val == "-" || f.val == "/dev/stdin") {
			in := k.c.stdin
			switch {
			case in.remote:
				k.remoteExec("make runs a makefile fetched from the network")
			case in.literal:
				k.makefile(lit(in.text), st)
			case in.what == "file" && in.opaque == "":
				// make -f - < FILE: the makefile is FILE, judged as -f FILE
				for _, e := range k.ro.effs {
					if e.Kind == Read && !e.Unknown && e.Target != "" {
						if txt, ok := k.a.written[e.Target]; ok {
							k.makefile(lit(txt), st)
						} else {
							k.eff(Effect{Kind: Exec, Target: e.Target})
							k.tag(TagMakeUnseen)
							k.attr("makefile", e.Target)
						}
					}
				}
			default:
				if in.partial != "" {
					k.makefile(lit(in.partial), st) // what is surely in it
				}
				k.dynamicExec("make runs a makefile from stdin not known at check time")
			}
			continue
		}
		saved := k.st
		k.st = st
		txt, ok := k.writtenScript(f)
		if !ok {
			// a makefile the line did not write: the project's own when
			// it is in the workspace; elsewhere its recipes are not known
			// (TagMakeUnseen, which the policy asks about outside it)
			k.file(Exec, f, false)
			k.tag(TagMakeUnseen)
			k.attr("makefile", f.text(k.c))
		}
		k.st = saved
		if ok {
			k.makefile(lit(txt), st)
		}
	}
}

// makefile judges the recipes and $(shell ...) calls of makefile text.
func (k *call) makefile(text field, st *state) {
	if !text.known {
		k.dynamicExec("make reads a makefile not known at check time")
		return
	}
	var lines []string
	for _, l := range strings.Split(text.val, "\n") {
		if strings.HasPrefix(l, "\t") {
			l = strings.TrimLeft(l[1:], "@-+ \t")
			lines = append(lines, l)
		}
		for i := strings.Index(l, "$(shell "); i >= 0; i = strings.Index(l, "$(shell ") {
			e := matchBrace(l, i+1)
			lines = append(lines, l[i+len("$(shell "):max(e-1, i+len("$(shell "))])
			l = l[e:]
		}
	}
	if len(lines) == 0 {
		return
	}
	code, partial := makeExpand(strings.Join(lines, "\n"))
	f := lit(code)
	if partial {
		f.known, f.tmpl = false, true
		u := unknownField("a make variable")
		f.bind, f.reason = &u, u.reason
	}
	k.nestedIn(f, "make recipe", st)
}

// makeExpand turns recipe text into the shell code make hands to the
// shell: $$ is $, and make's own variables and functions are values not
// known at check time.
func makeExpand(s string) (string, bool) {
	var b strings.Builder
	partial := false
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch c := s[i+1]; {
		case c == '$':
			b.WriteByte('$')
			i++
		case c == '(' || c == '{':
			e := matchBrace(s, i+1)
			b.WriteString(codePH)
			partial = true
			i = e - 1
		default:
			b.WriteString(codePH)
			partial = true
			i++
		}
	}
	return b.String(), partial
}

// npmScripts records scripts set in the line (npm pkg set scripts.x=...,
// npm set-script x ..., a package.json written in the line) and judges
// those run (npm run x, npm test, the install lifecycle).
func (k *call) npmSetScripts(sc string, rest []field) {
	if k.a.npmScripts == nil {
		k.a.npmScripts = map[string]field{}
	}
	switch sc {
	case "pkg":
		if len(rest) == 0 || !rest[0].known || rest[0].val != "set" {
			return
		}
		for _, f := range rest[1:] {
			if !f.known {
				k.a.npmScripts["*"] = unknownField("a package.json setting not known at check time")
				continue
			}
			key, val, ok := strings.Cut(f.val, "=")
			if name, isScript := strings.CutPrefix(key, "scripts."); ok && isScript {
				k.a.npmScripts[name] = sub(f, val)
			}
		}
	case "set-script":
		if len(rest) >= 2 && rest[0].known {
			k.a.npmScripts[rest[0].val] = rest[1]
		}
	}
}

// npmRunScript judges a package.json script run by name, when the line
// set it.
func (k *call) npmRunScript(name string) {
	if f, ok := k.a.npmScripts[name]; ok {
		k.nested(f, k.name+" run "+name, nil, false)
		return
	}
	if f, ok := k.a.npmScripts["*"]; ok {
		k.dynamicExec(k.name + " runs a script set in the line to a value not known at check time: " + f.reason)
		return
	}
	if k.st.dir == "" {
		return
	}
	if txt, ok := k.a.written[path.Join(k.st.dir, "package.json")]; ok {
		var pj struct {
			Scripts map[string]string `json:"scripts"`
		}
		if err := json.Unmarshal([]byte(txt), &pj); err != nil {
			k.dynamicExec(k.name + " runs scripts of a package.json written in the line that cannot be read")
			return
		}
		for _, n := range []string{"pre" + name, name, "post" + name} {
			if code, ok := pj.Scripts[n]; ok {
				k.nested(lit(code), k.name+" run "+n, nil, false)
			}
		}
	}
}
