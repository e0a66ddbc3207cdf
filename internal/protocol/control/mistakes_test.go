package control_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core/coretest"
)

// Every param the spec marks required is -32602 naming it when missing,
// before anything is looked up or touched.
func TestRequiredParams(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	write(t, e.root, "a.txt", "one\n")
	c := e.authed()
	pos := map[string]int{"line": 0, "character": 0}
	rng := map[string]any{"start": pos, "end": pos}
	cases := []struct {
		method string
		params map[string]any // complete
	}{
		{"editor.openFile", map[string]any{"path": "a.txt"}},
		{"editor.closeFile", map[string]any{"path": "a.txt"}},
		{"editor.getContent", map[string]any{"path": "a.txt"}},
		{"editor.setContent", map[string]any{"path": "a.txt", "content": "x"}},
		{"editor.insertText", map[string]any{"path": "a.txt", "position": pos, "text": "x"}},
		{"editor.replaceRange", map[string]any{"path": "a.txt", "range": rng, "text": "x"}},
		{"editor.deleteRange", map[string]any{"path": "a.txt", "range": rng}},
		{"editor.setSelection", map[string]any{"path": "a.txt", "range": rng}},
		{"editor.revealLine", map[string]any{"path": "a.txt", "line": 0}},
		{"editor.getDocumentInfo", map[string]any{"path": "a.txt"}},
		{"editor.applyEdits", map[string]any{"path": "a.txt", "edits": []any{}}},
		{"editor.getCompletions", map[string]any{"path": "a.txt", "position": pos}},
		{"fs.readFile", map[string]any{"path": "a.txt"}},
		{"fs.writeFile", map[string]any{"path": "a.txt", "content": "x"}},
		{"fs.appendFile", map[string]any{"path": "a.txt", "content": "x"}},
		{"fs.deleteFile", map[string]any{"path": "a.txt"}},
		{"fs.rename", map[string]any{"oldPath": "a.txt", "newPath": "b.txt"}},
		{"fs.copy", map[string]any{"source": "a.txt", "destination": "b.txt"}},
		{"fs.createDirectory", map[string]any{"path": "d"}},
		{"fs.deleteDirectory", map[string]any{"path": "d"}},
		{"fs.listDirectory", map[string]any{"path": "."}},
		{"fs.exists", map[string]any{"path": "a.txt"}},
		{"fs.stat", map[string]any{"path": "a.txt"}},
		{"fs.watchFiles", map[string]any{"pattern": "**"}},
		{"fs.unwatchFiles", map[string]any{"watcherId": "w-1"}},
		{"terminal.dispose", map[string]any{"terminalId": "t-1"}},
		{"terminal.sendText", map[string]any{"terminalId": "t-1", "text": "ls"}},
		{"terminal.show", map[string]any{"terminalId": "t-1"}},
		{"terminal.getOutput", map[string]any{"terminalId": "t-1"}},
		{"command.execute", map[string]any{"command": "workbench.action.files.save"}},
		{"state.getSymbols", map[string]any{"path": "a.txt"}},
		{"state.findReferences", map[string]any{"path": "a.txt", "position": pos}},
		{"state.goToDefinition", map[string]any{"path": "a.txt", "position": pos}},
		{"state.getHover", map[string]any{"path": "a.txt", "position": pos}},
		{"state.getCodeActions", map[string]any{"path": "a.txt", "range": rng}},
		{"search.findInFiles", map[string]any{"query": "one"}},
		{"search.findAndReplace", map[string]any{"query": "one", "replacement": "two"}},
		{"debug.startSession", map[string]any{"type": "go", "request": "launch"}},
		{"debug.setBreakpoints", map[string]any{"path": "a.txt", "breakpoints": []any{}}},
		{"debug.removeBreakpoints", map[string]any{"path": "a.txt", "lines": []int{}}},
		{"git.stage", map[string]any{"paths": []string{"a.txt"}}},
		{"git.unstage", map[string]any{"paths": []string{"a.txt"}}},
		{"git.commit", map[string]any{"message": "m"}},
		{"git.checkout", map[string]any{"branch": "b"}},
	}
	for _, tc := range cases {
		for field := range tc.params {
			params := map[string]any{}
			for k, v := range tc.params {
				if k != field {
					params[k] = v
				}
			}
			err := c.fails(-32602, tc.method, params)
			if msg, _ := err["message"].(string); !strings.Contains(msg, field) {
				t.Errorf("%s without %s: message %q does not name it", tc.method, field, msg)
			}
		}
	}
	// fs.listDirectory without a path lists nothing (it is not the root)
	c.fails(-32602, "fs.listDirectory", map[string]any{"recursive": true})
	c.fails(-32602, "fs.listDirectory", nil)
	if b, err := os.ReadFile(filepath.Join(e.root, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("a refused call changed a.txt: %q, %v", b, err)
	}
}

// Reads change no editor state; opening an open document moves it to the
// view column asked for.
func TestEditorStateAndColumns(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	write(t, e.root, "a.txt", "one\ntwo\n")
	write(t, e.root, "b.txt", "b\n")
	c := e.authed()
	if r := c.call("editor.getContent", map[string]string{"path": "a.txt"}); r["content"] != "one\ntwo\n" || r["languageId"] != "plaintext" {
		t.Fatalf("content %v", r)
	}
	if r := c.call("editor.getDocumentInfo", map[string]string{"path": "a.txt"}); r["lineCount"] != 3.0 || r["isDirty"] != false || r["version"] != 1.0 {
		t.Fatalf("info %v", r)
	}
	if f := c.call("editor.getOpenFiles", nil)["files"].([]any); len(f) != 0 {
		t.Fatalf("reads opened %v", f)
	}
	c.fails(-32005, "editor.getActiveFile", nil)

	c.call("editor.openFile", map[string]any{"path": "a.txt"})
	c.call("editor.openFile", map[string]any{"path": "b.txt", "viewColumn": 2})
	c.call("editor.getContent", map[string]string{"path": "a.txt"})
	if a := c.call("editor.getActiveFile", nil); a["path"] != filepath.Join(e.root, "b.txt") {
		t.Fatalf("a read of a.txt made it active: %v", a)
	}
	c.call("editor.openFile", map[string]any{"path": "a.txt", "viewColumn": 3})
	columns := map[string]float64{}
	for _, x := range c.call("state.getVisibleEditors", nil)["editors"].([]any) {
		m := x.(map[string]any)
		columns[filepath.Base(m["documentUri"].(string))] = m["viewColumn"].(float64)
	}
	if columns["a.txt"] != 3 || columns["b.txt"] != 2 {
		t.Fatalf("view columns %v, want a.txt in 3 and b.txt in 2", columns)
	}
	// opening again without a column leaves it where it is
	c.call("editor.openFile", map[string]any{"path": "a.txt"})
	if v := c.call("state.getVisibleEditors", nil)["editors"].([]any)[0].(map[string]any); v["viewColumn"] != 3.0 {
		t.Fatalf("active editor %v, want column 3", v)
	}
	c.fails(-32602, "editor.openFile", map[string]any{"path": "a.txt", "viewColumn": -1})
}

// A language feature reads a document the way getContent does: it opens it
// for the language server (state.getOpenDocuments lists it) but shows
// nothing: no active editor, no tab, no visible editor. A later
// editor.openFile shows it.
func TestLanguageFeaturesChangeNoEditorState(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	write(t, e.root, "a.txt", "one\ntwo\n")
	write(t, e.root, "b.txt", "b\n")
	c := e.authed()
	pos := map[string]int{"line": 0, "character": 1}
	c.call("state.getDiagnostics", map[string]string{"path": "a.txt"})
	c.fails(-32009, "state.getHover", map[string]any{"path": "b.txt", "position": pos})
	c.fails(-32005, "editor.getActiveFile", nil)
	if f := c.call("editor.getOpenFiles", nil)["files"].([]any); len(f) != 0 {
		t.Fatalf("language features opened tabs %v", f)
	}
	if v := c.call("state.getVisibleEditors", nil)["editors"].([]any); len(v) != 0 {
		t.Fatalf("language features made editors visible %v", v)
	}
	if d := c.call("state.getOpenDocuments", nil)["documents"].([]any); len(d) != 2 {
		t.Fatalf("the language server's documents %v, want a.txt and b.txt", d)
	}
	c.call("editor.openFile", map[string]any{"path": "a.txt", "viewColumn": 2})
	if a := c.call("editor.getActiveFile", nil); a["path"] != filepath.Join(e.root, "a.txt") {
		t.Fatalf("after openFile: %v", a)
	}
	if f := c.call("editor.getOpenFiles", nil)["files"].([]any); len(f) != 1 || f[0] != filepath.Join(e.root, "a.txt") {
		t.Fatalf("tabs after openFile %v", f)
	}
	// closing the only shown document leaves no active one, not b.txt
	c.call("editor.closeFile", map[string]any{"path": "a.txt"})
	c.fails(-32005, "editor.getActiveFile", nil)
}

// Overwrites are "changed", and each notification says which watch it
// belongs to.
func TestWatchNotifications(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	c := e.authed()
	txt := c.call("fs.watchFiles", map[string]string{"pattern": "**/*.txt"})["watcherId"].(string)
	all := c.call("fs.watchFiles", map[string]string{"pattern": "**"})["watcherId"].(string)
	path := filepath.Join(e.root, "notes/a.txt")
	// kinds collects the kinds of a.txt's changes per watcher until each
	// watcher has n of them
	kinds := func(n int) map[string][]string {
		got := map[string][]string{}
		c.note(func(m map[string]any) bool {
			p, _ := m["params"].(map[string]any)
			if m["method"] != "file.changed" {
				return false
			}
			if strings.Contains(p["path"].(string), ".wsfs-") {
				t.Fatalf("a temporary file of a write was reported: %v", p)
			}
			if p["path"] == path {
				w := p["watcherId"].(string)
				got[w] = append(got[w], p["type"].(string))
			}
			return len(got[txt]) >= n && len(got[all]) >= n
		})
		return got
	}
	c.call("fs.writeFile", map[string]string{"path": "notes/a.txt", "content": "1"})
	c.call("fs.writeFile", map[string]string{"path": "notes/a.txt", "content": "2"})
	got := kinds(2)
	for _, w := range []string{txt, all} {
		if strings.Join(got[w], ",") != "created,changed" {
			t.Fatalf("watcher %s saw %v, want created then changed (all: %v)", w, got[w], got)
		}
	}
	c.call("fs.deleteFile", map[string]string{"path": "notes/a.txt"})
	if got := kinds(1); got[txt][0] != "deleted" || got[all][0] != "deleted" {
		t.Fatalf("delete seen as %v", got)
	}
}

// A watch pattern that reaches outside the workspace is PathRestricted (it
// would never report a thing); an absolute one inside works; and a watch
// does not tell the names of restricted paths.
func TestWatchScope(t *testing.T) {
	e := newEnv(t, config.Control{Security: config.ControlSecurity{RestrictedPaths: []string{"secret/**"}}}, coretest.Options{})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(e.root, "secret"), 0o755))
	c := e.authed()
	for _, p := range []string{"/etc/**", "../**", "src/../../x/*.go", filepath.Join(filepath.Dir(e.root), "**")} {
		if err := c.fails(-32010, "fs.watchFiles", map[string]string{"pattern": p}); !strings.Contains(err["message"].(string), "outside the workspace") && !strings.Contains(err["message"].(string), "climbs out") {
			t.Errorf("pattern %q: %v", p, err)
		}
	}
	c.fails(-32003, "fs.watchFiles", map[string]string{"pattern": filepath.Join(e.root, "secret", "**")})
	id := c.call("fs.watchFiles", map[string]string{"pattern": filepath.Join(e.root, "**")})["watcherId"].(string)
	must(os.WriteFile(filepath.Join(e.root, "secret", "k"), []byte("x"), 0o644))
	must(os.WriteFile(filepath.Join(e.root, "open.txt"), []byte("x"), 0o644))
	// notifications come in order: anything about secret/ comes before open.txt
	c.note(func(m map[string]any) bool {
		if m["method"] != "file.changed" {
			return false
		}
		p := m["params"].(map[string]any)
		if strings.Contains(p["path"].(string), "secret") {
			t.Fatalf("a restricted path was told: %v", p)
		}
		return p["path"] == filepath.Join(e.root, "open.txt") && p["watcherId"] == id
	})
}

// User mistakes are the spec's codes with a message that says what to do,
// never -32603.
func TestMistakesAreNotInternalErrors(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_AUTHOR_NAME", "Agent")
	t.Setenv("GIT_AUTHOR_EMAIL", "agent@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "Agent")
	t.Setenv("GIT_COMMITTER_EMAIL", "agent@example.com")
	e := newEnv(t, config.Control{}, coretest.Options{})
	git(t, e.root, "init", "-q", "-b", "main")
	write(t, e.root, "a.txt", "one\ntwo\n")
	write(t, e.root, "b.txt", "bee\n")
	c := e.authed()
	says := func(err map[string]any, words ...string) {
		t.Helper()
		msg, _ := err["message"].(string)
		for _, w := range words {
			if !strings.Contains(msg, w) {
				t.Errorf("message %q does not say %q", msg, w)
			}
		}
	}

	err := c.fails(-32602, "fs.copy", map[string]string{"source": "a.txt", "destination": "b.txt"})
	says(err, "already exists", "choose another destination")
	if d := err["data"].(map[string]any); d["path"] != filepath.Join(e.root, "b.txt") || d["source"] != filepath.Join(e.root, "a.txt") {
		t.Errorf("copy data %v: want the destination in path, the source in source", d)
	}
	if b, _ := os.ReadFile(filepath.Join(e.root, "b.txt")); string(b) != "bee\n" {
		t.Errorf("b.txt overwritten: %q", b)
	}
	err = c.fails(-32602, "fs.rename", map[string]string{"oldPath": "a.txt", "newPath": "b.txt"})
	if d := err["data"].(map[string]any); d["path"] != filepath.Join(e.root, "b.txt") || d["source"] != filepath.Join(e.root, "a.txt") {
		t.Errorf("rename data %v: want the destination in path, the source in source", d)
	}

	says(c.fails(-32602, "fs.watchFiles", map[string]string{"pattern": "src/[a-"}), `"src/[a-"`, "glob")

	far := map[string]int{"line": 40, "character": 0}
	says(c.fails(-32602, "state.getHover", map[string]any{"path": "a.txt", "position": far}), "line 40", "3 lines")
	says(c.fails(-32602, "state.getHover", map[string]any{"path": "a.txt", "position": map[string]int{"line": 0, "character": 9}}), "character 9")
	says(c.fails(-32602, "editor.getCompletions", map[string]any{"path": "a.txt", "position": far}), "line 40")
	c.fails(-32602, "state.getCodeActions", map[string]any{"path": "a.txt", "range": map[string]any{"start": map[string]int{"line": 1, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}})
	// in range, the question reaches the (missing) language server
	c.fails(-32009, "state.getHover", map[string]any{"path": "a.txt", "position": map[string]int{"line": 1, "character": 3}})

	says(c.fails(-32002, "git.stage", map[string]any{"paths": []string{"a.txt", "nope.txt"}}), `"nope.txt"`, "git.status")
	says(c.fails(-32602, "git.commit", map[string]any{"message": "nothing yet"}), "nothing staged", "git.stage")
	c.call("git.stage", map[string]any{"paths": []string{"a.txt"}})
	c.call("git.commit", map[string]any{"message": "first"})
	says(c.fails(-32602, "git.commit", map[string]any{"message": "again"}), "nothing staged")
	says(c.fails(-32002, "git.unstage", map[string]any{"paths": []string{"nope.txt"}}), `"nope.txt"`)
	says(c.fails(-32602, "git.checkout", map[string]any{"branch": "no-such-branch"}), `"no-such-branch"`, "git.branches", "create")
	c.call("git.checkout", map[string]any{"branch": "no-such-branch", "create": true})

	// no language server for plain text: an empty answer, not a wait
	if d := c.call("state.getDiagnostics", map[string]string{"path": "b.txt"})["diagnostics"].([]any); len(d) != 0 {
		t.Fatalf("diagnostics of plain text %v", d)
	}
}
