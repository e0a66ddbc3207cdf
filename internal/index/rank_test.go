package index

import (
	"context"
	"testing"
)

// TestFusionAndBoosts: the symbol ranking lifts an exact definition over
// chunks that only mention its words; the workspace's signals break ties
// between equal chunks.
func TestFusionAndBoosts(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	same := "package p\n\n// retry the request with backoff\nfunc work() {}\n"
	writeTree(t, root, map[string]string{
		"a/same.go":  same,
		"b/same.go":  same,
		"c/same.go":  same,
		"mention.go": "package p\n\n// computeBackoff is called for backoff backoff backoff computation\nfunc other() { computeBackoff() }\n",
		"def.go":     "package p\n\nfunc computeBackoff() int { return 1 }\n",
	})
	open := map[string]bool{}
	changed := map[string]bool{}
	x, err := Open(context.Background(), Options{Root: root, Dir: dir, Boosts: Boosts{
		Open:    func(rel string) bool { return open[rel] },
		Changed: func(rel string) bool { return changed[rel] },
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	build(t, x)
	hs, err := x.Search(context.Background(), Query{Text: "computeBackoff"})
	if err != nil || len(hs) < 2 || hs[0].Path != "def.go" || hs[0].Symbol != "computeBackoff" {
		t.Fatalf("definition first: %+v %v", hs, err)
	}
	top := func() string {
		hs, err := x.Search(context.Background(), Query{Text: "retry request", Limit: 3})
		if err != nil || len(hs) != 3 {
			t.Fatalf("hits %+v %v", hs, err)
		}
		return hs[0].Path
	}
	if got := top(); got != "a/same.go" {
		t.Errorf("no signals: %s first", got)
	}
	open["c/same.go"] = true
	if got := top(); got != "c/same.go" {
		t.Errorf("open in editor: %s first", got)
	}
	changed["b/same.go"], open["b/same.go"] = true, true
	if got := top(); got != "b/same.go" {
		t.Errorf("open and changed: %s first", got)
	}
}
