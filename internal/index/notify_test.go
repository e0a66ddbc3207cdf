package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/internal/wsfs"
)

// TestWatcherNotify: changes a file watcher reports (an editor's save
// renamed into place, a delete) are applied by Notify; Flush waits for
// them.
func TestWatcherNotify(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	fsys, err := wsfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	seen := make(chan string, 64)
	id, err := fsys.Watch("**", func(c wsfs.Change) {
		x.Notify(c.Path)
		seen <- c.Kind + " " + c.Path
	})
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Unwatch(id)
	ctx := context.Background()
	// waitFor waits for the event "KIND path" (a rename may be reported
	// twice, so a later wait names what it waits for).
	waitFor := func(ev string) {
		t.Helper()
		for p := range seen {
			if p == ev {
				break
			}
		}
		if err := x.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(t.TempDir(), "save.tmp")
	os.WriteFile(tmp, []byte("package demo\n\n// marmotDance\n"), 0o644)
	if err := os.Rename(tmp, filepath.Join(root, "saved.go")); err != nil {
		t.Fatal(err)
	}
	waitFor(wsfs.Created + " saved.go")
	if hs, _ := x.Search(ctx, Query{Text: "marmotDance", Mode: ModeLiteral}); len(hs) != 1 || hs[0].Path != "saved.go" {
		t.Fatalf("saved: %+v", hs)
	}
	os.Remove(filepath.Join(root, "saved.go"))
	waitFor(wsfs.Deleted + " saved.go")
	if hs, _ := x.Search(ctx, Query{Text: "marmotDance", Mode: ModeLiteral}); len(hs) != 0 {
		t.Fatalf("deleted: %+v", hs)
	}
}
