package shell

import (
	"path"
	"path/filepath"
	"strings"
)

// TagSourcesDestroy marks a command that deletes, empties or shreds the
// project's source files in bulk, or irrecoverably: rm of a glob of source
// files (rm src/*.go), truncate or shred of source files (truncate -s0
// src/*.go, shred -u main.c), find -delete (or -exec rm) whose selection
// can take source files (find . -name '*.py' -delete, find . -type f
// -delete). Attrs: sources (the pattern or file). Issue 11 item 12: a
// person would want to confirm it, even inside the workspace.
const TagSourcesDestroy = "workspace.sources"

// sourceExts are the file extensions of source code (and of the scripts,
// schemas and configs written by hand next to it).
var sourceExts = map[string]bool{
	"go": true, "py": true, "pyi": true, "js": true, "mjs": true, "cjs": true, "ts": true, "mts": true, "cts": true,
	"tsx": true, "jsx": true, "vue": true, "svelte": true, "rs": true, "c": true, "h": true, "cc": true, "cpp": true,
	"cxx": true, "hpp": true, "hh": true, "hxx": true, "java": true, "kt": true, "kts": true, "scala": true,
	"groovy": true, "rb": true, "php": true, "swift": true, "m": true, "mm": true, "cs": true, "fs": true,
	"vb": true, "ex": true, "exs": true, "erl": true, "hs": true, "ml": true, "mli": true, "clj": true,
	"cljs": true, "lua": true, "pl": true, "pm": true, "r": true, "jl": true, "dart": true, "zig": true,
	"nim": true, "elm": true, "sh": true, "bash": true, "zsh": true, "sql": true, "proto": true, "tf": true,
	"md": true, "rst": true,
}

// sourceExtList is sourceExts as a list, for matching patterns against.
var sourceExtList = func() []string {
	l := make([]string, 0, len(sourceExts))
	for e := range sourceExts {
		l = append(l, e)
	}
	return l
}()

// isSourceName reports whether a file name, or a glob for file names, can
// name source files: its extension is a source extension (main.go,
// *.py), or a pattern that matches one (*.[ch], *.?s, *.*).
func isSourceName(name string) bool {
	if generated(name) {
		return false
	}
	name = path.Base(name)
	i := strings.LastIndexByte(name, '.')
	if i < 0 || i == len(name)-1 {
		return false
	}
	ext := strings.ToLower(name[i+1:])
	if sourceExts[ext] {
		return true
	}
	if !strings.ContainsAny(ext, "*?[") {
		return false
	}
	for _, e := range sourceExtList {
		if ok, err := filepath.Match(ext, e); ok || err != nil {
			return true
		}
	}
	return false
}

// generatedDirs are directory names that hold generated code, which its
// generator writes again.
var generatedDirs = map[string]bool{"gen": true, "generated": true, "__generated__": true, "mocks": true, "mock": true,
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true}

// generated reports whether a file name or pattern names generated code:
// below a generated dir (gen/*.go), or by a generator's marker in its name
// (*.pb.go, *_pb2.py, *_gen.go, *.gen.ts, *.generated.cs, *.g.dart,
// mock_*.go, *_mock.go, *.d.ts, *.min.js).
func generated(name string) bool {
	for _, seg := range strings.Split(path.Dir(name), "/") {
		if generatedDirs[seg] {
			return true
		}
	}
	b := strings.ToLower(path.Base(name))
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	// .d (TypeScript declarations) and .min (minified bundles) are emitted
	for _, m := range []string{".pb", "_pb2", "_pb2_grpc", "_grpc.pb", "_gen", ".gen", "-gen", ".generated", "_generated", ".g", "_mock", "_mocks", ".mock", ".d", ".min"} {
		if strings.HasSuffix(b, m) {
			return true
		}
	}
	return strings.HasPrefix(b, "mock_") || strings.HasPrefix(b, "zz_generated")
}

// sourcesGlob tags the call when one of its operands is a glob that names
// source files (rm src/*.go); with all, any source file counts, named or
// globbed (truncate and shred destroy what they are given beyond git's
// reach for uncommitted work, and shred beyond any recovery).
func (k *call) sourcesGlob(ops []field, all bool) {
	for _, o := range ops {
		// a pattern that reached the command unexpanded (for f in
		// src/*.go; do rm "$f") stands for the files it matched
		if !o.known || !(o.glob || all || strings.ContainsAny(o.val, "*?[")) {
			continue
		}
		if isSourceName(o.val) {
			k.tag(TagSourcesDestroy)
			k.attr("sources", o.val)
			return
		}
	}
}

// outputDirs are directory names that hold what a build or tool made and
// will make again: a find that deletes below one of them takes no source.
var outputDirs = map[string]bool{
	"build": true, "dist": true, "out": true, "target": true, "node_modules": true, "coverage": true,
	".cache": true, "__pycache__": true, ".pytest_cache": true, ".mypy_cache": true, ".ruff_cache": true,
	".next": true, ".nuxt": true, ".tox": true, ".nox": true, ".gradle": true, "tmp": true, "temp": true,
	".turbo": true, ".parcel-cache": true, "bin": true, "obj": true, "logs": true, "log": true,
}

// findTakesSources reports, for a find whose action deletes what it
// selects, whether the selection can take the project's source files,
// and what says so: no name test at all (find . -type f -delete), a name
// test that names sources (-name '*.go'), a negated or regex test (what it
// leaves out is not known). A root that is a build output dir, a selection
// of empty files or of directories only (find -delete removes only empty
// ones) takes none.
func findTakesSources(roots, expr []field, dirsOnly bool) (string, bool) {
	allOutput := len(roots) > 0
	for _, r := range roots {
		if !r.known || !outputDirs[path.Base(path.Clean(r.val))] {
			allOutput = false
		}
	}
	if allOutput {
		return "", false
	}
	names := 0
	for j := 0; j < len(expr); j++ {
		if !expr[j].known {
			return "a test not known at check time", true
		}
		switch v := expr[j].val; v {
		case "-empty":
			return "", false
		case "-type", "-xtype":
			if dirsOnly && j+1 < len(expr) && expr[j+1].known && expr[j+1].val == "d" {
				return "", false
			}
			j++
		case "!", "-not":
			return "a negated test (" + v + ")", true
		case "-regex", "-iregex":
			return "a regular expression (" + v + ")", true
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			names++
			if j+1 < len(expr) {
				j++
				n := expr[j]
				if !n.known || isSourceName(n.val) {
					return n.val, true
				}
				if b := path.Base(n.val); v != "-name" && v != "-iname" && !strings.Contains(b, ".") && strings.ContainsAny(b, "*?[") {
					return n.val, true // -path './src/*': everything below a dir
				}
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			for j+1 < len(expr) && !(expr[j+1].known && (expr[j+1].val == ";" || expr[j+1].val == "+")) {
				j++
			}
		}
	}
	if names == 0 {
		return "every file below the search root", true
	}
	return "", false
}

// findDestroys tags a find whose actions delete (or shred or empty) what
// it selects when the selection can take source files.
func (k *call) findDestroys(roots, expr []field) {
	deletes, dirsOnly := false, true
	for j := 0; j < len(expr); j++ {
		if !expr[j].known {
			continue
		}
		switch expr[j].val {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 < len(expr) && expr[j+1].known {
				switch path.Base(expr[j+1].val) {
				case "rm", "shred", "truncate", "unlink":
					deletes = true
					dirsOnly = false // rm -rf of a directory takes what is in it
				}
			}
		}
	}
	if !deletes {
		return
	}
	if what, ok := findTakesSources(roots, expr, dirsOnly); ok {
		k.tag(TagSourcesDestroy)
		k.attr("sources", what)
	}
}
