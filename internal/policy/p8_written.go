package policy

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// A file tool's write or edit of a file that tools run on their own puts
// commands where they will run later: npm runs package.json's lifecycle
// scripts on install (preinstall, install, postinstall, prepare, …) and
// its other scripts on npm run/test; make runs a Makefile's recipes. The
// commands written are judged as shell code run in the file's directory,
// as they would be if the agent ran them: a script that deletes the home
// is denied, one that pipes a download to a shell is remote code, "test":
// "jest" stays allowed. (Git hooks, CI and editor task files are judged
// by their paths: see the persistence rules.)

// npmLifecycle are the scripts npm runs without being asked by name.
var npmLifecycle = map[string]bool{
	"preinstall": true, "install": true, "postinstall": true, "prepare": true, "preprepare": true, "postprepare": true,
	"prepublish": true, "prepublishOnly": true, "prepack": true, "postpack": true, "dependencies": true,
}

// jsonPair finds "key": "value" pairs in a JSON fragment (an edit's new
// text), the value still JSON-escaped.
var jsonPair = regexp.MustCompile(`"([A-Za-z0-9:_.-]+)"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// maxWrittenScripts bounds the scripts of one written file that are
// analysed.
const maxWrittenScripts = 32

// writtenText returns the text a file tool's call puts into its file: a
// write's whole content, or the new text of an edit's replacements
// (whole reports which).
func writtenText(args map[string]any) (texts []string, whole bool) {
	for _, k := range []string{"content", "file_text", "text", "contents"} {
		if s, ok := args[k].(string); ok {
			return []string{s}, true
		}
	}
	for _, k := range []string{"newString", "new_string", "new_str", "newText", "new_text", "insert_text"} {
		if s, ok := args[k].(string); ok {
			texts = append(texts, s)
		}
	}
	if edits, ok := args["edits"].([]any); ok {
		for _, x := range edits {
			if m, ok := x.(map[string]any); ok {
				t, _ := writtenText(m)
				texts = append(texts, t...)
			}
		}
	}
	return texts, false
}

// writtenScripts returns the commands that the written text makes tools
// run from the file at p, each with a label naming where it is.
func writtenScripts(p string, texts []string, whole bool) (scripts, labels []string) {
	base := filepath.Base(p)
	switch {
	case base == "package.json":
		for _, t := range texts {
			if whole {
				var pkg struct {
					Scripts map[string]any `json:"scripts"`
				}
				if json.Unmarshal([]byte(t), &pkg) == nil {
					for name, v := range pkg.Scripts {
						if s, ok := v.(string); ok && len(scripts) < maxWrittenScripts {
							scripts = append(scripts, s)
							labels = append(labels, "package.json script "+name+": ")
						}
					}
					continue
				}
			}
			// an edit's fragment: the lifecycle scripts it adds
			for _, m := range jsonPair.FindAllStringSubmatch(t, maxWrittenScripts) {
				if !npmLifecycle[m[1]] && !whole {
					continue
				}
				var s string
				if json.Unmarshal([]byte(`"`+m[2]+`"`), &s) == nil && len(scripts) < maxWrittenScripts {
					scripts = append(scripts, s)
					labels = append(labels, "package.json script "+m[1]+": ")
				}
			}
		}
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || strings.HasSuffix(base, ".mk"):
		for _, t := range texts {
			for _, line := range strings.Split(t, "\n") {
				if !strings.HasPrefix(line, "\t") || len(scripts) >= maxWrittenScripts {
					continue
				}
				r := strings.TrimLeft(strings.TrimSpace(line), "@-+")
				if r == "" {
					continue
				}
				scripts = append(scripts, makeVars(r))
				labels = append(labels, base+" recipe: ")
			}
		}
	}
	return scripts, labels
}

// makeVar is a make variable reference: $(NAME) or ${NAME}.
var makeVar = regexp.MustCompile(`\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]`)

// makeVars turns a recipe line into the shell line make runs, as far as
// it can be known without the rest of the makefile: $$ is $, a variable
// whose default make knows is that default (RM is rm -f, CC cc), any
// other one the program its name says ($(GO) build is go build) — a
// variable's value is set elsewhere, and what runs is judged by its name.
func makeVars(line string) string {
	line = makeVar.ReplaceAllStringFunc(line, func(v string) string {
		name := makeVar.FindStringSubmatch(v)[1]
		switch name {
		case "RM":
			return "rm -f"
		case "CC":
			return "cc"
		case "CXX":
			return "c++"
		case "MAKE":
			return "make"
		case "SHELL":
			return "sh"
		}
		return strings.ToLower(name)
	})
	return strings.ReplaceAll(line, "$$", "$")
}

// judgeWrittenCode adds as subjects the commands a file tool's write or
// edit puts into a file tools run on their own.
func (e *eval) judgeWrittenCode(effs []shell.Effect) {
	n := &e.c
	if n.effK != kindWrite && n.effK != kindEdit {
		return
	}
	for _, ef := range effs {
		if ef.Kind != shell.Write || ef.Unknown || !filepath.IsAbs(ef.Target) {
			continue
		}
		texts, whole := writtenText(n.Args)
		scripts, labels := writtenScripts(ef.Target, texts, whole)
		for i, s := range scripts {
			e.analyseText(s, filepath.Dir(ef.Target), labels[i])
		}
		return
	}
}
