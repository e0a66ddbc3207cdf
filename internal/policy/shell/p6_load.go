package shell

import (
	"regexp"
	"strings"
)

// TagCodeLoad marks a command that loads code from a file into a running
// shell or interpreter — source/. of a script, python's exec(open(F)) or
// pickle.load of F, node's require(F) or eval(fs.readFileSync(F)), ruby's
// -r F and load F — with an exec effect on F: what runs is whatever F
// holds, which the line does not show. The policy asks when F is not the
// project's own (a temp dir, a path not known at check time).
const TagCodeLoad = "code.load"

// pyLoad matches python code that runs a file's content or unpickles it
// (unpickling runs code the pickle names).
var pyLoad = regexp.MustCompile(`\b(?:exec|eval)\s*\(\s*(?:compile\s*\(\s*)?(?:open|pathlib\.Path|Path)\b|\brunpy\.run_path\b|\b(?:c?[pP]ickle|marshal|dill|joblib|torch|shelve|cloudpickle)\.(?:loads?|open|Unpickler)\b|\bUnpickler\s*\(|\bSourceFileLoader\b|\bload_source\b|\bspec_from_file_location\b`)

// pyLoadPath matches python calls that load a module from a path given
// as a literal: runpy.run_path(P), SourceFileLoader(N, P),
// spec_from_file_location(N, P), imp.load_source(N, P).
var pyLoadPath = regexp.MustCompile(`\b(?:run_path|SourceFileLoader|spec_from_file_location|load_source)\s*\((?:\s*['"][^'"]*['"]\s*,)?\s*['"]([^'"]+)['"]`)

// jsLoad matches javascript that evaluates a file's content.
var jsLoad = regexp.MustCompile(`\b(?:eval|Function|runInThisContext|runInNewContext|runInContext|compileFunction|Script)\s*\([^)]*\breadFileSync\b|\beval\s*\(\s*(?:require\s*\(\s*['"](?:node:)?fs['"]\s*\)|fs)\.readFileSync\b`)

// jsRequire matches require/import of a file by path ('/x', './x', '../x').
var jsRequire = regexp.MustCompile(`\b(?:require|import)\s*\(\s*['"]((?:\.{1,2})?/[^'"]*)['"]\s*\)`)

// rbLoad matches ruby code that loads a file by path, or evaluates or
// unmarshals a file's content.
var rbLoad = regexp.MustCompile(`\b(?:load|require)\s*\(?\s*['"](/[^'"]*)['"]|\brequire_relative\s*\(?\s*['"]([^'"]*)['"]`)
var rbEval = regexp.MustCompile(`\b(?:eval|instance_eval|class_eval)\s*\(?\s*(?:File|IO)\.read\b|\bMarshal\.load\b|\bYAML\.unsafe_load\b`)

// plLoad matches perl code that runs a file by path (do FILE, require
// FILE).
var plLoad = regexp.MustCompile(`\b(?:do|require)\s*\(?\s*['"](/[^'"]*)['"]`)

// codeLoad tags loads of code from files (TagCodeLoad), adding the exec
// effect on each file loaded.
func (k *call) codeLoad() {
	n := k.name
	switch {
	case n == "source" || n == ".":
		if len(k.args) == 0 || !k.args[0].known || k.args[0].proc {
			return
		}
		e, ok := k.a.target(k.st, Exec, k.args[0], false)
		if !ok || e.Unknown {
			return
		}
		if _, wrote := k.a.written[e.Target]; wrote {
			return // written in the line with known content: judged by it
		}
		k.tag(TagCodeLoad)
		return
	case isPython(n):
		code := k.givenCode("c")
		if code != "" && pyLoad.MatchString(code) {
			k.loadsReads()
			for _, m := range pyLoadPath.FindAllStringSubmatch(code, 8) {
				k.loadFile(m[1])
			}
		}
	case n == "node" || n == "nodejs" || n == "bun":
		for _, r := range k.optValues("r", "require", "import") {
			if strings.Contains(r, "/") {
				k.loadFile(r)
			}
		}
		code := k.givenCode("ep")
		if jsLoad.MatchString(code) {
			k.loadsReads()
		}
		for _, m := range jsRequire.FindAllStringSubmatch(code, 8) {
			k.loadFile(m[1])
		}
	case n == "ruby":
		for _, d := range k.optValues("I") {
			if strings.HasPrefix(d, "/") {
				k.loadFile(d) // a relative include dir is the project's
			}
		}
		for _, r := range k.optValues("r", "require") {
			if strings.Contains(r, "/") {
				k.loadFile(r)
			}
		}
		code := k.givenCode("e")
		if code == "" {
			return
		}
		if rbEval.MatchString(code) {
			k.loadsReads()
		}
		for _, m := range rbLoad.FindAllStringSubmatch(code, 8) {
			k.loadFile(m[1] + m[2])
		}
	case n == "perl":
		for _, d := range k.optValues("I") {
			if strings.HasPrefix(d, "/") {
				k.loadFile(d) // a relative include dir is the project's
			}
		}
		code := k.givenCode("eE")
		for _, m := range plLoad.FindAllStringSubmatch(code, 8) {
			k.loadFile(m[1])
		}
	}
}

// loadsReads marks the files the call reads, or runs from its code
// (runpy.run_path, exec(open(F))), as code it loads.
func (k *call) loadsReads() {
	var targets []string
	for _, e := range k.cmd.Effects {
		if (e.Kind == Read || e.Kind == Exec) && !e.Unknown && strings.HasPrefix(e.Target, "/") && !e.Meta {
			targets = append(targets, e.Target)
		}
	}
	for _, t := range targets {
		k.eff(Effect{Kind: Exec, Target: t})
	}
	if len(targets) > 0 {
		k.tag(TagCodeLoad)
	}
}

// loadFile marks the file p (relative to the call's directory) as code
// the call loads.
func (k *call) loadFile(p string) {
	if p == "" {
		return
	}
	e, ok := k.a.target(k.st, Exec, lit(p), false)
	if !ok || e.Unknown || e.Target == "" {
		return
	}
	if _, wrote := k.a.written[e.Target]; wrote {
		return
	}
	k.eff(e)
	k.tag(TagCodeLoad)
}

// givenCode is the code given to an interpreter by one of the short
// options in opts (-c, -e, -p) or --eval/--print, or "".
func (k *call) givenCode(opts string) string {
	args := k.args
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.known || len(f.val) < 2 || f.val[0] != '-' {
			return ""
		}
		v := f.val
		if v == "--eval" || v == "--print" || v == "--command" {
			if i+1 < len(args) && args[i+1].known {
				return args[i+1].val
			}
			return ""
		}
		if c, ok := strings.CutPrefix(v, "--eval="); ok {
			return c
		}
		if strings.HasPrefix(v, "--") {
			continue
		}
		if j := strings.IndexAny(v[1:], opts); j >= 0 {
			if rest := v[j+2:]; rest != "" {
				return rest
			}
			if i+1 < len(args) && args[i+1].known {
				return args[i+1].val
			}
			return ""
		}
	}
	return ""
}

// optValues are the values of an interpreter's options before its code
// or script: -rVALUE, -r VALUE, --require VALUE, --require=VALUE.
func (k *call) optValues(short string, long ...string) []string {
	var out []string
	args := k.args
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.known || len(f.val) < 2 || f.val[0] != '-' {
			break
		}
		v := f.val
		if strings.HasPrefix(v, "--") {
			name, val, eq := strings.Cut(v[2:], "=")
			if contains(long, name) {
				if eq {
					out = append(out, val)
				} else if i+1 < len(args) && args[i+1].known {
					i++
					out = append(out, args[i].val)
				}
			}
			continue
		}
		if strings.HasPrefix(v, "-"+short) {
			if len(v) > 2 {
				out = append(out, v[2:])
			} else if i+1 < len(args) && args[i+1].known {
				i++
				out = append(out, args[i].val)
			}
			continue
		}
		if strings.ContainsAny(v[1:], "ecpE") {
			i++ // the code: what follows is its arguments
		}
	}
	return out
}
