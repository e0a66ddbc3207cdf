package shell

import (
	"path"
	"strings"
)

// Code loaded before the program. An interpreter runs code it is told to
// load before the program it was given: a non-interactive bash sources
// $BASH_ENV (sh and an interactive shell $ENV), node loads its -r/--require,
// --import and --loader modules and those NODE_OPTIONS names, ruby its -r
// files and RUBYOPT's, and python -m NAME runs NAME.py from the current
// directory or $PYTHONPATH, as import NAME in -c code does. Each such file
// is run: a script the line wrote is judged by its content (BASH_ENV=/tmp/x
// bash -c true after echo 'rm -rf ~' > /tmp/x is rm -rf ~), as running it
// by name is.

// preloads judges the files interpreter lang loads before its program;
// opts are the options before the program.
func (k *call) preloads(lang string, opts []field) {
	var files []field
	env := func(name string) (field, bool) {
		f, ok := k.envVar(name)
		return f, ok && f.known && f.val != ""
	}
	switch lang {
	case "sh":
		for _, n := range []string{"BASH_ENV", "ENV"} {
			if f, ok := env(n); ok {
				files = append(files, f)
			}
		}
	case "node":
		files = append(files, optValues(opts, "r", []string{"require", "import", "loader", "experimental-loader"})...)
		if f, ok := env("NODE_OPTIONS"); ok {
			files = append(files, optValues(splitWords(f), "r", []string{"require", "import", "loader", "experimental-loader"})...)
		}
	case "ruby":
		files = append(files, optValues(opts, "r", nil)...)
		if f, ok := env("RUBYOPT"); ok {
			files = append(files, optValues(splitWords(f), "r", nil)...)
		}
	case "python":
		if m := optValues(opts, "m", nil); len(m) > 0 && m[0].known && len(k.a.written) > 0 {
			k.pythonModule(m[0].val)
		}
	}
	for _, f := range files {
		if !f.known || f.val == "" {
			continue
		}
		k.file(Exec, f, false)
		k.runWritten(f, lang)
		k.runWritten(sub(f, f.val+".js"), lang) // node -r ./x loads x.js
	}
}

// pythonModule runs the module python would import for name when the line
// wrote it: NAME.py (or NAME/__init__.py, NAME/__main__.py) in the current
// directory or an entry of a $PYTHONPATH the line set.
func (k *call) pythonModule(name string) {
	if k.a.loading[name] || len(k.a.loading) >= maxLoopItems {
		return // a module that imports itself
	}
	if k.a.loading == nil {
		k.a.loading = map[string]bool{}
	}
	k.a.loading[name] = true
	defer delete(k.a.loading, name)
	rel := strings.ReplaceAll(name, ".", "/")
	dirs := []string{"."}
	if pp, ok := k.envVar("PYTHONPATH"); ok && pp.known {
		dirs = append(dirs, strings.Split(pp.val, ":")...)
	}
	for _, d := range dirs {
		if d == "" {
			d = "."
		}
		for _, c := range []string{rel + ".py", rel + "/__init__.py", rel + "/__main__.py"} {
			if k.runWritten(lit(path.Join(d, c)), "python") {
				return
			}
		}
	}
}

// optValues returns the values of a short option letter (-rX, -r X) and of
// long options (--require X, --require=X) among words.
func optValues(words []field, short string, long []string) []field {
	var out []field
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.known || len(w.val) < 2 || w.val[0] != '-' {
			continue
		}
		if strings.HasPrefix(w.val, "--") {
			name, val, eq := strings.Cut(w.val[2:], "=")
			if !contains(long, name) {
				continue
			}
			if eq {
				out = append(out, sub(w, val))
			} else if i+1 < len(words) {
				i++
				out = append(out, words[i])
			}
			continue
		}
		if short != "" && w.val[1:2] == short {
			if len(w.val) > 2 {
				out = append(out, sub(w, w.val[2:]))
			} else if i+1 < len(words) {
				i++
				out = append(out, words[i])
			}
		}
	}
	return out
}

// splitWords splits a known value on blanks, as the program splits an
// options variable (NODE_OPTIONS, RUBYOPT).
func splitWords(f field) []field {
	var out []field
	for _, w := range strings.Fields(f.val) {
		out = append(out, sub(f, strings.Trim(w, `"'`)))
	}
	return out
}

// nodeTools are programs that are node underneath: NODE_OPTIONS' modules
// load in them too.
var nodeTools = map[string]bool{"npm": true, "npx": true, "yarn": true, "pnpm": true, "corepack": true, "tsx": true, "ts-node": true,
	"jest": true, "vitest": true, "next": true, "vite": true, "eslint": true, "tsc": true, "webpack": true, "nodemon": true, "pm2": true}

// toolPreloads judges what NODE_OPTIONS makes a node-based tool load.
func (k *call) toolPreloads() {
	if nodeTools[k.name] {
		if _, ok := k.envVar("NODE_OPTIONS"); ok {
			k.preloads("node", nil)
		}
	}
}
