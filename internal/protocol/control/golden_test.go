package control_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core/coretest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestWireShapesGolden pins the wire shape of one answer per method family
// (and of the errors) in testdata/wire.golden. Values that vary per run
// (paths, ids, times) are replaced by placeholders. Run with -update after
// an intended change.
func TestWireShapesGolden(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	c := e.authed()
	var b strings.Builder
	show := func(method string, params any) {
		m := c.raw(method, params)
		delete(m, "id")
		out, _ := json.Marshal(m)
		b.WriteString(method + " " + string(out) + "\n")
	}
	show("state.getWorkspace", nil)
	show("fs.readFile", map[string]string{"path": "a.txt"})
	show("fs.exists", map[string]string{"path": "a.txt"})
	show("fs.listDirectory", map[string]string{"path": "."})
	show("fs.writeFile", map[string]string{"path": "b.txt", "content": "x"})
	show("editor.openFile", map[string]string{"path": "a.txt"})
	show("editor.getDocumentInfo", map[string]string{"path": "a.txt"})
	show("editor.getSelection", nil)
	show("editor.getActiveFile", nil)
	show("editor.applyEdits", map[string]any{"path": "a.txt", "edits": []any{}})
	show("state.getOpenDocuments", nil)
	show("state.getVisibleEditors", nil)
	show("terminal.list", nil)
	show("command.list", map[string]string{"filter": "workbench.action.files"})
	show("debug.getBreakpoints", nil)
	show("debug.listSessions", nil)
	show("fs.readFile", map[string]string{"path": "../x"})
	show("fs.readFile", map[string]string{"path": "missing.txt"})
	show("no.such", nil)
	show("terminal.getOutput", map[string]string{"terminalId": "t-none"})
	// user mistakes: the spec's codes, a message that says what to do
	show("fs.listDirectory", map[string]any{"recursive": true})
	show("fs.copy", map[string]string{"source": "a.txt", "destination": "b.txt"})
	show("fs.watchFiles", map[string]string{"pattern": "src/[a-"})
	show("state.getHover", map[string]any{"path": "a.txt", "position": map[string]int{"line": 9, "character": 0}})
	// a watch and its notification
	show("fs.watchFiles", map[string]string{"pattern": "*.md"})
	c.call("fs.writeFile", map[string]string{"path": "c.md", "content": "x"})
	n := c.note(method("file.changed"))
	out, _ := json.Marshal(n)
	b.WriteString("notification " + string(out) + "\n")
	got := regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z`).ReplaceAllString(b.String(), "<time>")
	got = strings.ReplaceAll(got, e.root, "<ws>")
	got = strings.ReplaceAll(got, filepath.Dir(e.root), "<parent>")
	got = regexp.MustCompile(`"mtime":\d+`).ReplaceAllString(got, `"mtime":<ms>`)
	got = regexp.MustCompile(`w-[0-9a-f]{16}`).ReplaceAllString(got, `<watcher>`)
	golden := filepath.Join("testdata", "wire.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestWireShapesGolden -update)", err)
	}
	if got != string(want) {
		t.Fatalf("wire shapes changed:\n--- got\n%s\n--- want\n%s", got, want)
	}
}

// TestConnectDisconnectLoop opens and drops many connections, authenticated
// or not, mid-request or idle; goleak in TestMain checks nothing is left.
func TestConnectDisconnectLoop(t *testing.T) {
	e := newEnv(t, config.Control{}, coretest.Options{})
	for i := 0; i < 30; i++ {
		c := e.dial(nil)
		if i%2 == 0 {
			c.auth()
			c.call("fs.writeFile", map[string]string{"path": "loop.txt", "content": "x"})
			c.call("fs.watchFiles", map[string]string{"pattern": "**/*"})
		}
		c.ws.CloseNow()
		<-c.done
	}
}
