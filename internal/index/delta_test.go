package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/search"
)

// TestDeltaSegment: an edit re-indexes the one file into a small segment of
// its own (the build's segment is the same object before and after), and
// the replaced or removed version is found by no view, though its postings
// are still in the build's segment.
func TestDeltaSegment(t *testing.T) {
	root, dir := newWorkspace(t)
	// Enough files that the build's segment is sharded like a real one.
	many := map[string]string{}
	for i := range 100 {
		many[fmt.Sprintf("pkg/f%03d.go", i)] = fmt.Sprintf("package pkg\n\n// Filler%d holds nothing.\nfunc Filler%d() {}\n", i, i)
	}
	writeTree(t, root, many)
	x := openIndex(t, root, dir)
	build(t, x)
	ctx := context.Background()
	base := x.snap.Load().segs[0]

	writeTree(t, root, map[string]string{"server.go": "package demo\n\n// Wallaby hops.\nfunc wallabyHop() {}\n"})
	if err := x.Update(ctx, "server.go"); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "bucket.py"))
	if err := x.Update(ctx, "bucket.py"); err != nil {
		t.Fatal(err)
	}
	st := x.snap.Load()
	if st.segs[0] != base || len(st.segs) != 2 || len(st.segs[1].docs) != 1 {
		t.Fatalf("an edit rebuilt more than the file: %d segments, base kept %v", len(st.segs), st.segs[0] == base)
	}
	// The old versions' postings are still in the build's segment ...
	if cands, _ := base.candidates(literalPlan("parseHeader")); len(cands) == 0 {
		t.Fatal("the build's segment lost the old postings: the test shows nothing")
	}
	// ... and no view returns them.
	for _, q := range []Query{
		{Text: "parseHeader", Mode: ModeLiteral}, {Text: "PARSEHEADER", Mode: ModeLiteral},
		{Text: `parse[A-Z]\w+`, Mode: ModeRegex}, {Text: "parseHeader", Mode: ModeSymbol},
		{Text: "parse header"}, {Text: "TokenBucket", Mode: ModeLiteral}, {Text: "TokenBucket", Mode: ModeSymbol},
		{Text: "token bucket"},
	} {
		hs, err := x.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if h.Path == "server.go" || h.Path == "bucket.py" {
				t.Errorf("%+v: the old version answered: %+v", q, h)
			}
		}
	}
	rs, err := x.Find(ctx, "parseHeader", search.Options{})
	if err != nil || len(rs) != 0 {
		t.Errorf("Find: %+v %v", rs, err)
	}
	// The new version answers in every view.
	for _, q := range []Query{
		{Text: "wallabyHop", Mode: ModeLiteral}, {Text: "WALLABYHOP", Mode: ModeLiteral},
		{Text: `wallaby\w+`, Mode: ModeRegex}, {Text: "wallabyHop", Mode: ModeSymbol}, {Text: "wallaby hop"},
	} {
		hs, err := x.Search(ctx, q)
		if err != nil || len(hs) == 0 || hs[0].Path != "server.go" {
			t.Errorf("%+v: %+v %v", q, hs, err)
		}
	}
	// A case-insensitive literal finds every spelling, one hit per line.
	writeTree(t, root, map[string]string{"case.txt": "Wombat WOMBAT\nwombat\nwom bat\n"})
	x.Update(ctx, "case.txt")
	hs, _ := x.Search(ctx, Query{Text: "wOmBaT", Mode: ModeLiteral})
	var lines []int
	for _, h := range hs {
		lines = append(lines, h.Line)
	}
	if !reflect.DeepEqual(lines, []int{1, 2}) {
		t.Errorf("case-insensitive literal: lines %v", lines)
	}
	if hs, _ := x.Search(ctx, Query{Text: "wOmBaT", Mode: ModeLiteral, CaseSensitive: true}); len(hs) != 0 {
		t.Errorf("case-sensitive literal: %+v", hs)
	}
}

// TestBackgroundFold: when the changes since the build outgrow it, the
// segments are folded into one by a goroutine of the index, not by the
// update that crossed the line, and the folded views answer as before.
// (The race detector checks the fold against the updates that go on.)
func TestBackgroundFold(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	ctx := context.Background()
	before := x.Status().Files
	for u := range 9 {
		files := map[string]string{}
		var rels []string
		for i := range 40 {
			rel := fmt.Sprintf("gen/u%d/f%d.go", u, i)
			files[rel] = fmt.Sprintf("package gen\n\n// Kookaburra%dx%d laughs.\nfunc kookaburra%dx%d() {}\n", u, i, u, i)
			rels = append(rels, rel)
		}
		writeTree(t, root, files)
		if err := x.Update(ctx, rels...); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(root, "server.go"))
	x.Update(ctx, "server.go")
	x.bg.Wait() // the fold, started by the eighth update (the ninth may follow it)
	if st := x.Status(); st.Segments > 2 || st.Files != before+360-1 {
		t.Errorf("after the fold: %d segments, %d files (%d before)", st.Segments, st.Files, before)
	}
	for _, q := range []string{"kookaburra0x0", "kookaburra8x39", "Kookaburra4x17"} {
		hs, err := x.Search(ctx, Query{Text: q, Mode: ModeLiteral, CaseSensitive: true})
		if err != nil || len(hs) != 1 || !strings.Contains(hs[0].Preview, q) {
			t.Errorf("%s: %+v %v", q, hs, err)
		}
	}
	if hs, _ := x.Search(ctx, Query{Text: "parseHeader", Mode: ModeLiteral}); len(hs) != 0 {
		t.Errorf("a removed file answered: %+v", hs)
	}
	if hs, _ := x.Search(ctx, Query{Text: "kookaburra8x39", Mode: ModeSymbol}); len(hs) != 1 {
		t.Errorf("symbols after the fold: %+v", hs)
	}
}
