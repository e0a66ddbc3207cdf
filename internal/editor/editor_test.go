package editor

import (
	"errors"
	"sync"
	"testing"
)

type rec struct {
	mu  sync.Mutex
	log []string
}

func (r *rec) add(s string)       { r.mu.Lock(); r.log = append(r.log, s); r.mu.Unlock() }
func (r *rec) Opened(s Snapshot)  { r.add("open " + s.Path) }
func (r *rec) Changed(s Snapshot) { r.add("change " + s.Text) }
func (r *rec) Saved(s Snapshot)   { r.add("save " + s.Path) }
func (r *rec) Closed(p string)    { r.add("close " + p) }

func pos(l, c int) Position { return Position{Line: l, Character: c} }
func rng(l1, c1, l2, c2 int) Range {
	return Range{Start: pos(l1, c1), End: pos(l2, c2)}
}

func TestEditsVersionsDirty(t *testing.T) {
	e := New()
	r := &rec{}
	e.Listen(r)
	s := e.Open("/w/a.go", "go", "package a\n\nfunc A() {}\n", 0)
	if s.Version != 1 || s.IsDirty || s.LineCount != 4 || s.ViewColumn != 1 {
		t.Fatalf("opened %+v", s)
	}
	s, err := e.Apply("/w/a.go", []Edit{{Range: rng(2, 5, 2, 6), Text: "Bee"}, {Range: rng(0, 8, 0, 9), Text: "b"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "package b\n\nfunc Bee() {}\n" || s.Version != 2 || !s.IsDirty {
		t.Fatalf("after edits %+v %q", s, s.Text)
	}
	// overlapping or out-of-range edits change nothing
	for _, bad := range [][]Edit{
		{{Range: rng(0, 0, 0, 4), Text: "x"}, {Range: rng(0, 2, 0, 6), Text: "y"}},
		{{Range: rng(0, 0, 0, 1), Text: "x"}, {Range: rng(9, 0, 9, 1), Text: "y"}},
		{{Range: rng(0, 50, 0, 51), Text: "x"}},
		{{Range: rng(0, 3, 0, 1), Text: "x"}},
	} {
		if _, err := e.Apply("/w/a.go", bad); !errors.Is(err, ErrBadRange) {
			t.Fatalf("bad edits %v: %v", bad, err)
		}
	}
	if g, _ := e.Get("/w/a.go"); g.Version != 2 || g.Text != s.Text {
		t.Fatalf("a failed apply changed the document: %+v", g)
	}
	if _, err := e.MarkSaved("/w/a.go", s.Text); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get("/w/a.go"); g.IsDirty {
		t.Fatal("dirty after save")
	}
	e.Close("/w/a.go")
	if _, err := e.Get("/w/a.go"); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("closed doc: %v", err)
	}
	want := []string{"open /w/a.go", "change package b\n\nfunc Bee() {}\n", "save /w/a.go", "close /w/a.go"}
	if len(r.log) != len(want) {
		t.Fatalf("listener saw %q", r.log)
	}
	for i := range want {
		if r.log[i] != want[i] {
			t.Fatalf("listener saw %q, want %q", r.log, want)
		}
	}
}

func TestUTF16Positions(t *testing.T) {
	e := New()
	e.Open("/w/u.txt", "plaintext", "héllo 😀 wörld\n", 0)
	// 😀 is two UTF-16 units: "héllo " = 6, emoji 6..8, " " 8, "wörld" 9..14
	s, err := e.Apply("/w/u.txt", []Edit{{Range: rng(0, 9, 0, 14), Text: "there"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Text != "héllo 😀 there\n" {
		t.Fatalf("%q", s.Text)
	}
	if _, err := e.Apply("/w/u.txt", []Edit{{Range: rng(0, 7, 0, 7), Text: "x"}}); !errors.Is(err, ErrBadRange) {
		t.Fatalf("splitting a surrogate pair: %v", err)
	}
	if p := PositionAt(s.Text, len("héllo 😀 ")); p != pos(0, 9) {
		t.Fatalf("PositionAt %+v", p)
	}
}

func TestActiveSelectionReveal(t *testing.T) {
	e := New()
	if _, err := e.Active(); !errors.Is(err, ErrNoActive) {
		t.Fatal(err)
	}
	e.Open("/w/a", "plaintext", "one\ntwo\nthree\n", 0)
	e.Open("/w/b", "plaintext", "x\n", 2)
	if a, _ := e.Active(); a.Path != "/w/b" {
		t.Fatalf("active %s", a.Path)
	}
	if err := e.SetSelection("/w/a", rng(1, 0, 2, 3)); err != nil {
		t.Fatal(err)
	}
	r, txt, err := e.Selection()
	if err != nil || txt != "two\nthr" || r != rng(1, 0, 2, 3) {
		t.Fatalf("selection %v %q %v", r, txt, err)
	}
	if err := e.Reveal("/w/a", 2, "top", 10); err != nil {
		t.Fatal(err)
	}
	if g, _ := e.Get("/w/a"); g.Visible.Start.Line != 2 {
		t.Fatalf("visible %+v", g.Visible)
	}
	if err := e.Reveal("/w/a", 99, "", 10); !errors.Is(err, ErrBadRange) {
		t.Fatal(err)
	}
	if l := e.List(); len(l) != 2 || l[0].Path != "/w/a" {
		t.Fatalf("list %+v", l)
	}
	e.Close("/w/a")
	if a, _ := e.Active(); a.Path != "/w/b" {
		t.Fatalf("active after close %s", a.Path)
	}
}

func FuzzApply(f *testing.F) {
	f.Add("a\nbc\n😀d", 0, 1, 2, 1, "zz")
	f.Fuzz(func(t *testing.T, text string, l1, c1, l2, c2 int, repl string) {
		out, err := applyEdits(text, []Edit{{Range: rng(l1, c1, l2, c2), Text: repl}})
		if err != nil {
			return
		}
		if len(out) != len(text)+len(repl)-mustLen(t, text, rng(l1, c1, l2, c2)) {
			t.Fatalf("length mismatch")
		}
	})
}

func mustLen(t *testing.T, s string, r Range) int {
	txt, err := textIn(s, r)
	if err != nil {
		t.Fatal(err)
	}
	return len(txt)
}

func TestOpenMovesColumn(t *testing.T) {
	e := New()
	e.Open("/w/a.txt", "plaintext", "a\n", 0)
	e.Open("/w/b.txt", "plaintext", "b\n", 2)
	if s := e.Open("/w/a.txt", "plaintext", "ignored", 3); s.ViewColumn != 3 || s.Text != "a\n" {
		t.Fatalf("reopen with a column: %+v", s)
	}
	if s := e.Open("/w/a.txt", "plaintext", "ignored", 0); s.ViewColumn != 3 {
		t.Fatalf("reopen without a column moved it: %+v", s)
	}
	if s := e.Load("/w/b.txt", "plaintext", "ignored"); s.ViewColumn != 2 {
		t.Fatalf("load moved b: %+v", s)
	}
}

// Load opens a document for a language feature without showing it: it
// does not become active (even with none active), and it is not Shown
// until Open shows it.
func TestLoadShowsNothing(t *testing.T) {
	e := New()
	if s := e.Load("/w/a.txt", "plaintext", "a\n"); s.Shown {
		t.Fatalf("loaded and shown: %+v", s)
	}
	if _, err := e.Active(); !errors.Is(err, ErrNoActive) {
		t.Fatalf("a loaded document is active: %v", err)
	}
	if s := e.Open("/w/a.txt", "plaintext", "ignored", 0); !s.Shown || s.Text != "a\n" {
		t.Fatalf("opened: %+v", s)
	}
	e.Load("/w/b.txt", "plaintext", "b\n")
	if a, err := e.Active(); err != nil || a.Path != "/w/a.txt" {
		t.Fatalf("active %+v, %v", a, err)
	}
	e.Close("/w/a.txt")
	if a, err := e.Active(); !errors.Is(err, ErrNoActive) {
		t.Fatalf("closing the shown document activated the loaded one: %+v", a)
	}
}

func TestCheckPosition(t *testing.T) {
	text := "one\ntwo\n"
	for _, p := range []Position{{0, 0}, {0, 3}, {1, 3}, {2, 0}} {
		if err := CheckPosition(text, p); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	for _, p := range []Position{{3, 0}, {0, 4}, {-1, 0}, {2, 1}} {
		if err := CheckPosition(text, p); !errors.Is(err, ErrBadRange) {
			t.Errorf("%v: %v, want ErrBadRange", p, err)
		}
	}
	if err := CheckRange(text, Range{Start: Position{1, 0}, End: Position{0, 0}}); !errors.Is(err, ErrBadRange) {
		t.Errorf("reversed range: %v", err)
	}
}
