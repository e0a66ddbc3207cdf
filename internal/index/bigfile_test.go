package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/search"
)

// bigText is a file over MaxIndexSize: n lines of filler, with the lines
// of extra (by line number) in their place.
func bigText(n int, extra map[int]string) string {
	var b strings.Builder
	for i := range n {
		if s, ok := extra[i]; ok {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "filler %05d %s\n", i, strings.Repeat("hay ", 60))
	}
	return b.String()
}

func TestNewBlocks(t *testing.T) {
	content := []byte(bigText(5000, map[int]string{100: "a very long line " + strings.Repeat("x", 300000) + "\n"}))
	tris := trigramsOf(content)
	b := newBlocks(content, tris)
	if len(b.off) < 2 || len(b.off) > maxBlocks || b.size != int64(len(content)) {
		t.Fatalf("%d blocks, size %d", len(b.off), b.size)
	}
	for k, off := range b.off {
		if off != 0 && content[off-1] != '\n' {
			t.Errorf("block %d starts at %d, not a line start", k, off)
		}
		if k > 0 && off <= b.off[k-1] {
			t.Errorf("block %d starts at %d, before block %d", k, off, k-1)
		}
		if got := bytes.Count(content[:off], []byte{'\n'}); got != b.line[k] {
			t.Errorf("block %d: line %d, want %d", k, b.line[k], got)
		}
	}
	// Every trigram is in the blocks its mask names, and only there.
	want := map[trigram]blockMask{}
	for k := range b.off {
		hi := int64(len(content))
		if k+1 < len(b.off) {
			hi = b.off[k+1]
		}
		for i := b.off[k]; i < hi && i+2 < int64(len(content)); i++ {
			want[mkTrigram(content[i], content[i+1], content[i+2])] |= 1 << k
		}
	}
	if len(want) != len(tris) {
		t.Fatalf("%d trigrams in blocks, %d in the file", len(want), len(tris))
	}
	for j, tr := range tris {
		if b.mask[j] != want[tr] {
			t.Fatalf("trigram %06x: mask %016b, in blocks %016b", uint32(tr), b.mask[j], want[tr])
		}
	}
	// A file of one line is one block.
	one := []byte(strings.Repeat("y", MaxIndexSize+10))
	if b := newBlocks(one, trigramsOf(one)); len(b.off) != 1 || b.all() != 1 {
		t.Errorf("one line: %d blocks", len(b.off))
	}
}

// TestBigFileBlocks checks that exact search over files above
// MaxIndexSize, which reads only the blocks that can match, answers what
// search.Find answers, and that a file changed since it was indexed is
// read whole.
func TestBigFileBlocks(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	const n = 4500 // 1.14 MB
	// a.txt holds every trigram of errors.New, but in different blocks.
	a := bigText(n, map[int]string{300: "if errors.Is(err, x) {\n", 2900: "v := xs.New()\n"})
	// b.txt holds it in several blocks, on CRLF lines and on its last line
	// (no line break).
	b := bigText(n, map[int]string{
		10: "return errors.New(\"one\")\r\n", 1500: "e := errors.New(\"two\"); f := errors.New(\"three\")\n",
		1501: "\tERRORS.NEW\n", 2222: "errors.Is(x) xs.New\r\n",
	}) + "errors.New"
	writeTree(t, root, map[string]string{"big/a.txt": a, "big/b.txt": b, "small.go": "package x\n\nvar e = errors.New(\"x\")\n"})
	x := openIndex(t, root, dir)
	build(t, x)

	st := x.snap.Load()
	da, db := st.lookup("big/a.txt"), st.lookup("big/b.txt")
	if da == nil || db == nil || da.blocks == nil || db.blocks == nil || da.content != nil {
		t.Fatalf("big files not indexed in blocks: %v %v", da != nil && da.blocks != nil, db != nil && db.blocks != nil)
	}
	m, _ := search.Compile("errors.New", search.Options{CaseSensitive: true})
	p := exactPlan(m)
	if got := da.blocks.eval(da.tris, p); got != 0 {
		t.Errorf("a.txt: blocks %016b can match errors.New", got)
	}
	if got := db.blocks.eval(db.tris, p); got == 0 || got == db.blocks.all() {
		t.Errorf("b.txt: blocks %016b can match errors.New", got)
	}

	check := func(label string) {
		t.Helper()
		cases := []struct {
			q    string
			opts search.Options
		}{
			{"errors.New", search.Options{CaseSensitive: true}},
			{"errors.New", search.Options{}},
			{`errors\.New\(`, search.Options{UseRegex: true, CaseSensitive: true}},
			{`xs\.New|errors\.Is`, search.Options{UseRegex: true}},
			{`New"?$`, search.Options{UseRegex: true}},
			{"filler 03", search.Options{MaxResults: 5}},
			{"filler 0", search.Options{MaxResults: 100000}},
			{"00042", search.Options{WholeWord: true}},
		}
		for _, c := range cases {
			want, err := search.Find(context.Background(), root, c.q, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.Find(context.Background(), c.q, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: Find(%q, %+v):\n got %.600v\nwant %.600v", label, c.q, c.opts, got, want)
			}
			// One hit per matching line, on the lines search.Find reports.
			q := Query{Text: c.q, Mode: ModeLiteral, CaseSensitive: c.opts.CaseSensitive, WholeWord: c.opts.WholeWord, Limit: 100000}
			if c.opts.UseRegex {
				q.Mode = ModeRegex
			}
			hs, err := x.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			var gotLines, wantLines []string
			for _, h := range hs {
				gotLines = append(gotLines, fmt.Sprintf("%s:%d", h.Path, h.Line))
			}
			all, _ := search.Find(context.Background(), root, c.q, search.Options{UseRegex: c.opts.UseRegex, CaseSensitive: c.opts.CaseSensitive, WholeWord: c.opts.WholeWord, MaxResults: 1 << 30})
			for _, r := range all {
				last := -1
				for _, mt := range r.Matches {
					if mt.Range.Start.Line != last {
						last = mt.Range.Start.Line
						wantLines = append(wantLines, fmt.Sprintf("%s:%d", r.Path, last+1))
					}
				}
			}
			if len(wantLines) > 100000 {
				wantLines = wantLines[:100000]
			}
			if fmt.Sprint(gotLines) != fmt.Sprint(wantLines) {
				t.Errorf("%s: Search(%q): lines\n got %.300v\nwant %.300v", label, c.q, gotLines, wantLines)
			}
		}
	}
	check("as indexed")

	// Queries at once share the pool of block buffers: none sees another's.
	want, _ := search.Find(context.Background(), root, "errors.New", search.Options{CaseSensitive: true})
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			for range 5 {
				got, err := x.Find(context.Background(), "errors.New", search.Options{CaseSensitive: true})
				if err == nil && !reflect.DeepEqual(got, want) {
					err = fmt.Errorf("concurrent Find: got %.300v", got)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}

	// Changed behind the index's back (no Update): the blocks no longer
	// say where the lines are, so the file is read whole.
	changed := "errors.New first\n" + strings.Replace(a, "xs.New", "errors.New", 1)
	if err := os.WriteFile(filepath.Join(root, "big/a.txt"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	check("changed")
	if _, _, ok := x.blockParts(da, regexpPlan("errors", syntax.Perl)); ok {
		t.Error("a changed file's blocks are still read")
	}
}
