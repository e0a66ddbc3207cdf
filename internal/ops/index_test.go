package ops_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/testtools"
	"github.com/warden-dev/warden/internal/workspace"
	"github.com/warden-dev/warden/internal/wsfs"
)

// newIndexedFixture is newFixture with the code index on, over files
// written before the workspace starts.
func newIndexedFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	return newIndexedFixtureWith(t, files, nil)
}

// newIndexedFixtureWith is newIndexedFixture whose options adjust sets
// (when not nil).
func newIndexedFixtureWith(t *testing.T, files map[string]string, adjust func(*ops.Options)) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := coretest.New(t, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(t.TempDir(), "workspaces.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil {
		t.Fatal(err)
	}
	ctags := testtools.Find(t, "ctags")
	opts := ops.Options{Core: c, Registry: reg, IndexDir: t.TempDir(),
		Locate: func(name string) (string, error) {
			if name == "ctags" {
				return ctags, nil
			}
			return testtools.Lookup(name)
		}}
	if adjust != nil {
		adjust(&opts)
	}
	svc, err := ops.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := svc.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	ws, err := svc.Workspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{core: c, svc: svc, reg: reg, root: root, ws: ws}
}

func (f *fixture) hits(t *testing.T, q index.Query) []string {
	t.Helper()
	res, err := f.ws.IndexSearch(context.Background(), caller, q, nil)
	if err != nil {
		t.Fatalf("IndexSearch(%+v): %v", q, err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Path)
	}
	return out
}

func TestIndexSearch(t *testing.T) {
	f := newIndexedFixture(t, map[string]string{
		"wire/header.go": "package wire\n\n// parseHeader reads one header line.\nfunc parseHeader(line string) string { return line }\n",
		"app/limiter.py": "class RateLimiter:\n    def allow_request(self):\n        return True\n",
		".env":           "API_KEY=quetzal-secret\n",
		"notes.txt":      "quetzal is a bird\n",
	})
	ctx := context.Background()
	if got := f.hits(t, index.Query{Text: "parse header"}); len(got) == 0 || got[0] != "wire/header.go" {
		t.Errorf("ranked: %v", got)
	}
	if got := f.hits(t, index.Query{Text: "allow_request", Mode: index.ModeSymbol}); len(got) != 1 || got[0] != "app/limiter.py" {
		t.Errorf("symbol: %v", got)
	}
	// The secret is never an answer, in any mode or through Search.
	for _, m := range []index.Mode{index.ModeLiteral, index.ModeRanked, index.ModeRegex} {
		if got := f.hits(t, index.Query{Text: "quetzal", Mode: m}); len(got) != 1 || got[0] != "notes.txt" {
			t.Errorf("%s quetzal: %v", m, got)
		}
	}
	sr, err := f.ws.Search(ctx, caller, "quetzal", search.Options{}, nil)
	if err != nil || len(sr.Results) != 1 || !strings.HasSuffix(sr.Results[0].Path, "notes.txt") {
		t.Errorf("Search: %+v %v", sr, err)
	}
	// Each query is gated and recorded: a grep the policy sees.
	evs, err := f.core.Events(ctx, store.Filter{Session: "s1", Types: []event.Type{event.ToolCall}})
	if err != nil {
		t.Fatal(err)
	}
	grep := 0
	for _, e := range evs {
		if strings.Contains(string(e.Data), `"grep"`) {
			grep++
		}
	}
	if grep < 4 {
		t.Errorf("recorded %d grep calls, want one per query", grep)
	}

	// A write through warden is searchable when it returns.
	if err := f.ws.WriteFile(ctx, caller, filepath.Join(f.root, "new.go"), []byte("package x\n\nfunc axolotlSwim() {}\n")); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, index.Query{Text: "axolotlSwim", Mode: index.ModeSymbol}); len(got) != 1 {
		t.Errorf("after WriteFile: %v", got)
	}
	// An unsaved editor buffer is searchable; saving or closing puts the
	// disk's text back.
	abs := filepath.Join(f.root, "new.go")
	f.ws.Editor().Open(abs, "go", "package x\n\nfunc axolotlSwim() {}\n", 1)
	if _, err := f.ws.Editor().Apply(abs, []editor.Edit{{Range: editor.Range{Start: editor.Position{Line: 2, Character: 5}, End: editor.Position{Line: 2, Character: 16}}, Text: "capybaraNap"}}); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, index.Query{Text: "capybaraNap", Mode: index.ModeLiteral}); len(got) != 1 {
		t.Errorf("overlay: %v", got)
	}
	f.ws.Editor().Close(abs)
	if got := f.hits(t, index.Query{Text: "capybaraNap", Mode: index.ModeLiteral}); len(got) != 0 {
		t.Errorf("after close: %v", got)
	}

	// A change on disk from outside warden arrives through the watcher.
	// To wait for it without sleeping: a second write after it, seen by a
	// watch of our own, means the first one's events were dispatched (to
	// the index too), and IndexFlush waits for what was dispatched.
	seen := make(chan string, 16)
	p, err := f.ws.Gate(ctx, caller, "", "list", map[string]any{"path": f.root}, false)
	if err != nil {
		t.Fatal(err)
	}
	id, err := p.FS().Watch("**", func(c wsfs.Change) { seen <- c.Path })
	if err != nil {
		t.Fatal(err)
	}
	defer f.ws.Unwatch(id)
	os.WriteFile(filepath.Join(f.root, "outside.txt"), []byte("pangolin roll\n"), 0o644)
	os.WriteFile(filepath.Join(f.root, "sentinel.txt"), []byte("x\n"), 0o644)
	for p := range seen {
		if p == "sentinel.txt" {
			break
		}
	}
	if err := f.ws.IndexFlush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, index.Query{Text: "pangolin", Mode: index.ModeLiteral}); len(got) != 1 || got[0] != "outside.txt" {
		t.Errorf("outside write: %v", got)
	}
	st, err := f.ws.IndexStatus()
	if err != nil || st.Files < 4 || st.Generation == "" {
		t.Errorf("status %+v %v", st, err)
	}
	if _, err := f.ws.IndexBuild(ctx, caller, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, index.Query{Text: "pangolin", Mode: index.ModeLiteral}); len(got) != 1 {
		t.Errorf("after rebuild: %v", got)
	}
	if _, err := f.ws.IndexSearch(ctx, caller, index.Query{Text: "(", Mode: index.ModeRegex}, nil); !errors.Is(err, search.ErrBadQuery) {
		t.Errorf("bad regex: %v", err)
	}
}
