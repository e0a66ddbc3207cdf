package index

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// catalogRecords reads a generation's records.
func catalogRecords(t *testing.T, dir, gen string) []record {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, gen, "catalog"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bad record %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

func TestCatalog(t *testing.T) {
	root, dir := newWorkspace(t)
	files := map[string]string{}
	for i := range 200 {
		files[filepath.ToSlash(filepath.Join("pkg", strings.Repeat("d", i%7), "f"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".go"))] =
			"package p\n\nfunc F" + strings.Repeat("x", i) + "() {}\n"
	}
	files["copy1/same.py"] = pySrc
	files["copy2/same.py"] = pySrc
	writeTree(t, root, files)
	x := openIndex(t, root, dir)
	if st := x.Status(); st.Generation != "" || st.Files != 0 {
		t.Fatalf("before the first build: %+v", st)
	}
	build(t, x)
	cur, _ := os.ReadFile(filepath.Join(dir, "CURRENT"))
	if strings.TrimSpace(string(cur)) != "gen-000001" {
		t.Fatalf("CURRENT = %q", cur)
	}
	recs := catalogRecords(t, dir, "gen-000001")
	withSyms := 0
	for _, r := range recs {
		if r.Hash == hashOf([]byte(pySrc)) && len(r.Symbols) > 0 {
			withSyms++
		}
		if r.Hash != "" && !strings.HasPrefix(r.Hash, "sha256:") {
			t.Errorf("hash %q", r.Hash)
		}
	}
	// The same content is indexed once: one of the three copies
	// (bucket.py, copy1, copy2) carries the symbols, and all have them.
	if withSyms != 1 {
		t.Errorf("records with symbols for identical content: %d, want 1", withSyms)
	}
	for _, p := range []string{"copy1/same.py", "copy2/same.py"} {
		if s, ok := x.Symbols(p); !ok || len(s) < 4 {
			t.Errorf("%s symbols: %v", p, s)
		}
	}
	if !recs[len(recs)-1].Done {
		t.Error("generation not marked done")
	}

	// An interrupted rebuild keeps the files it finished ...
	ctx, cancel := context.WithCancel(context.Background())
	err := x.Build(ctx, func(p Progress) {
		if p.Phase == "index" && p.Files >= 64 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted build: %v", err)
	}
	if cur, _ := os.ReadFile(filepath.Join(dir, "CURRENT")); strings.TrimSpace(string(cur)) != "gen-000001" {
		t.Fatalf("an interrupted build switched CURRENT to %q", cur)
	}
	part := catalogRecords(t, dir, "gen-000002")
	if len(part) == 0 {
		t.Fatal("interrupted build kept nothing")
	}
	// ... queries still answer from the old views ...
	if hs, _ := x.Search(context.Background(), Query{Text: "TokenBucket", Mode: ModeSymbol}); len(hs) == 0 {
		t.Error("old views lost during the rebuild")
	}
	// ... and the next build resumes it: no file is recorded twice.
	build(t, x)
	if cur, _ := os.ReadFile(filepath.Join(dir, "CURRENT")); strings.TrimSpace(string(cur)) != "gen-000002" {
		t.Fatalf("CURRENT = %q after the resumed build", cur)
	}
	if _, err := os.Stat(filepath.Join(dir, "gen-000001")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("old generation not removed: %v", err)
	}
	seen := map[string]int{}
	for _, r := range catalogRecords(t, dir, "gen-000002") {
		if r.Path != "" {
			seen[r.Path]++
		}
	}
	for p, n := range seen {
		if n > 1 {
			t.Errorf("%s recorded %d times", p, n)
		}
	}
	if len(seen) < 200 {
		t.Errorf("resumed generation records %d files", len(seen))
	}

	// Reopening loads the catalog: no build, nothing parsed again.
	before := len(catalogRecords(t, dir, "gen-000002"))
	x.Close()
	y := openIndex(t, root, dir)
	if hs, _ := y.Search(context.Background(), Query{Text: "take_token", Mode: ModeSymbol}); len(hs) != 3 {
		t.Errorf("reopened: %+v", hs)
	}
	if after := len(catalogRecords(t, dir, "gen-000002")); after != before {
		t.Errorf("reopening wrote %d records", after-before)
	}
	// A torn last line (a crash mid-write) is ignored.
	f, _ := os.OpenFile(filepath.Join(dir, "gen-000002", "catalog"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"p":"torn.go","h":"sha`)
	f.Close()
	y.Close()
	z := openIndex(t, root, dir)
	if st := z.Status(); st.Files < 200 {
		t.Errorf("after a torn record: %+v", st)
	}
}
