package search

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// flat renders results as "path:line:start-end" strings.
func flat(rs []Result) []string {
	var out []string
	for _, r := range rs {
		for _, m := range r.Matches {
			out = append(out, r.Path+":"+strconv.Itoa(m.Range.Start.Line)+":"+strconv.Itoa(m.Range.Start.Character)+"-"+strconv.Itoa(m.Range.End.Character))
		}
	}
	return out
}

func find(t *testing.T, root, q string, o Options) []string {
	t.Helper()
	rs, err := Find(context.Background(), root, q, o)
	if err != nil {
		t.Fatal(err)
	}
	return flat(rs)
}

func TestFind(t *testing.T) {
	root := tree(t, map[string]string{
		"a.go":         "package a\nfunc Foo() {}\nvar foo = Foo\n",
		"b.txt":        "food for thought\nFOO bar foo_bar\n",
		"sub/c.go":     "// foo.bar\nx := foo+1\n",
		"sub/d.md":     "nothing here\n",
		"a.go.bak":     "foo\n",
		"dir.with/e.c": "foo(a.b)\n",
		"crlf.txt":     "one foo\r\nfoo$\r\n",
	})
	cases := []struct {
		name string
		q    string
		o    Options
		want []string
	}{
		{"literal case-insensitive", "foo", Options{Include: "*.go"},
			[]string{"a.go:1:5-8", "a.go:2:4-7", "a.go:2:10-13", "sub/c.go:0:3-6", "sub/c.go:1:5-8"}},
		{"case sensitive", "Foo", Options{CaseSensitive: true, Include: "*.go"},
			[]string{"a.go:1:5-8", "a.go:2:10-13"}},
		{"whole word", "foo", Options{WholeWord: true, Include: "b.txt"},
			[]string{"b.txt:1:0-3"}},
		{"whole word ignores non-word edges", "(a.b)", Options{WholeWord: true},
			[]string{"dir.with/e.c:0:3-8"}},
		{"literal metacharacters", "foo.bar", Options{},
			[]string{"sub/c.go:0:3-10"}},
		{"regex", `foo\.?bar`, Options{UseRegex: true},
			[]string{"sub/c.go:0:3-10"}},
		{"regex alternation stays grouped", `^x|^var`, Options{UseRegex: true},
			[]string{"a.go:2:0-3", "sub/c.go:1:0-1"}},
		{"regex anchors are per line, CRLF", `foo\$$`, Options{UseRegex: true},
			[]string{"crlf.txt:1:0-4"}},
		{"regex end of line without CR", `foo$`, Options{UseRegex: true, Include: "crlf.txt"},
			[]string{"crlf.txt:0:4-7"}},
		{"exclude dir and include", "foo", Options{Exclude: "sub, *.txt, dir.with", Include: "*.go,*.bak"},
			[]string{"a.go:1:5-8", "a.go:2:4-7", "a.go:2:10-13", "a.go.bak:0:0-3"}},
		{"anchored include", "foo", Options{Include: "./sub/*.go"},
			[]string{"sub/c.go:0:3-6", "sub/c.go:1:5-8"}},
		{"brace include", "foo", Options{Include: "{a,sub/c}.go"},
			[]string{"a.go:1:5-8", "a.go:2:4-7", "a.go:2:10-13", "sub/c.go:0:3-6", "sub/c.go:1:5-8"}},
		{"no match", "zebra", Options{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := find(t, root, c.q, c.o); !slices.Equal(got, c.want) {
				t.Fatalf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

func TestMaxResultsAcrossFiles(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files["f"+strconv.Itoa(100+i)+".txt"] = strings.Repeat("hit hit\n", 7)
	}
	root := tree(t, files)
	for _, max := range []int{1, 3, 14, 15, 100, 559} {
		got := find(t, root, "hit", Options{MaxResults: max})
		if len(got) != max {
			t.Fatalf("max %d: %d results", max, len(got))
		}
		// Always the first ones in path order.
		if got[0] != "f100.txt:0:0-3" || (max > 14 && !strings.HasPrefix(got[14], "f101.txt:0:0-3")) {
			t.Fatalf("max %d: not the first matches: %v", max, got[:min(16, len(got))])
		}
	}
	if got := find(t, root, "hit", Options{}); len(got) != 560 {
		t.Fatalf("uncapped below default: %d", len(got))
	}
	big := map[string]string{"big.txt": strings.Repeat("x\n", DefaultMaxResults+10)}
	if got := find(t, tree(t, big), "x", Options{}); len(got) != DefaultMaxResults {
		t.Fatalf("default cap: %d", len(got))
	}
}

func TestGitignore(t *testing.T) {
	root := tree(t, map[string]string{
		".gitignore":             "*.log\nbuild/\n/top.txt\n!keep.log\n",
		"a.log":                  "needle\n",
		"keep.log":               "needle\n",
		"top.txt":                "needle\n",
		"x/top.txt":              "needle\n",
		"build/out.txt":          "needle\n",
		"x/build/out.txt":        "needle\n",
		"x/.gitignore":           "secret.txt\n!b.log\n",
		"x/secret.txt":           "needle\n",
		"x/b.log":                "needle\n",
		"x/c.log":                "needle\n",
		"y/secret.txt":           "needle\n",
		".git/config":            "needle\n",
		".git/info/exclude":      "excluded.txt\n",
		"excluded.txt":           "needle\n",
		".hidden/visible.txt":    "needle\n",
		"x/deep/.gitignore":      "*\n!*.md\n",
		"x/deep/z.md":            "needle\n",
		"x/deep/z.txt":           "needle\n",
		"x/deep/.gitignore.keep": "needle\n",
	})
	var got []string
	rs, err := Find(context.Background(), root, "needle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		got = append(got, r.Path)
	}
	want := []string{".hidden/visible.txt", "keep.log", "x/b.log", "x/deep/z.md", "x/top.txt", "y/secret.txt"}
	if !slices.Equal(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
}

func TestBinaryAndSizeSkip(t *testing.T) {
	root := tree(t, map[string]string{
		"bin.dat":  "needle\x00needle",
		"late.dat": strings.Repeat("a", binarySniff) + "\x00 needle",
		"text.txt": "needle",
	})
	big := filepath.Join(root, "big.txt")
	if err := os.WriteFile(big, append([]byte("needle\n"), make([]byte, 0)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	got := find(t, root, "needle", Options{})
	want := []string{"late.dat:0:8194-8200", "text.txt:0:0-6"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestSymlinksNotFollowed(t *testing.T) {
	outside := tree(t, map[string]string{"secret.txt": "needle"})
	root := tree(t, map[string]string{"in.txt": "needle"})
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "s.txt")); err != nil {
		t.Fatal(err)
	}
	if got := find(t, root, "needle", Options{}); !slices.Equal(got, []string{"in.txt:0:0-6"}) {
		t.Fatalf("got %v", got)
	}
}

func TestUTF16Columns(t *testing.T) {
	root := tree(t, map[string]string{
		"u.txt": "héllo wörld needle\n😀😀 needle ß needle\n\xff needle\n",
	})
	rs, err := Find(context.Background(), root, "needle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := flat(rs)
	// é and ö are one UTF-16 unit each; 😀 is a surrogate pair (2 units);
	// an invalid byte counts 1.
	want := []string{"u.txt:0:12-18", "u.txt:1:5-11", "u.txt:1:14-20", "u.txt:2:2-8"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v want %v", got, want)
	}
	if p := rs[0].Matches[1].Preview; p != "😀😀 needle ß needle" {
		t.Fatalf("preview %q", p)
	}
	// Case folding of non-ASCII.
	if got := find(t, root, "HÉLLO", Options{}); !slices.Equal(got, []string{"u.txt:0:0-5"}) {
		t.Fatalf("got %v", got)
	}
	// The match range itself is measured in UTF-16 too.
	if got := find(t, root, "😀", Options{}); !slices.Equal(got, []string{"u.txt:1:0-2", "u.txt:1:2-4"}) {
		t.Fatalf("got %v", got)
	}
}

func TestLongLinePreview(t *testing.T) {
	line := strings.Repeat("a", 1000) + "needle" + strings.Repeat("b", 1000)
	root := tree(t, map[string]string{"l.txt": line})
	rs, err := Find(context.Background(), root, "needle", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := rs[0].Matches[0].Preview
	if !strings.Contains(p, "needle") || len(p) > MaxPreview+2*len("…") || !strings.HasPrefix(p, "…") || !strings.HasSuffix(p, "…") {
		t.Fatalf("preview %q (%d)", p, len(p))
	}
}

func TestErrors(t *testing.T) {
	root := tree(t, map[string]string{"a": "a"})
	ctx := context.Background()
	if _, err := Find(ctx, root, "", Options{}); !errors.Is(err, ErrEmptyQuery) {
		t.Fatal(err)
	}
	if _, err := Find(ctx, root, "(", Options{UseRegex: true}); !errors.Is(err, ErrBadQuery) {
		t.Fatal(err)
	}
	if _, err := Find(ctx, root, "a", Options{Include: "[a"}); !errors.Is(err, ErrBadGlob) {
		t.Fatal(err)
	}
	if _, err := Find(ctx, filepath.Join(root, "missing"), "a", Options{}); err == nil {
		t.Fatal("missing root accepted")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Find(cctx, root, "a", Options{}); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}

func TestReplace(t *testing.T) {
	files := map[string]string{
		"a.go":     "func oldName(x int) {}\nvar y = oldName(2) + oldname(3)\n",
		"b.go":     "// nothing\n",
		"c.txt":    "key=value\r\nother = thing\r\n",
		"d/e.go":   "oldName oldNameX\n",
		"skip.bin": "oldName\x00",
	}
	root := tree(t, files)
	written := map[string]string{}
	write := func(p string, c []byte) error { written[p] = string(c); return nil }
	ctx := context.Background()

	n, err := Replace(ctx, root, "oldName", "newName", Options{CaseSensitive: true, WholeWord: true}, write)
	if err != nil || n != 3 {
		t.Fatalf("n = %d, err = %v", n, err)
	}
	want := map[string]string{
		"a.go":   "func newName(x int) {}\nvar y = newName(2) + oldname(3)\n",
		"d/e.go": "newName oldNameX\n",
	}
	if !maps.Equal(written, want) {
		t.Fatalf("written %q", written)
	}

	// Groups, and CRLF preserved.
	clear(written)
	n, err = Replace(ctx, root, `^(\w+)\s*=\s*(\w+)$`, "${2}: $1 $$", Options{UseRegex: true, Include: "*.txt"}, write)
	if err != nil || n != 2 {
		t.Fatalf("n = %d, err = %v", n, err)
	}
	if got := written["c.txt"]; got != "value: key $\r\nthing: other $\r\n" {
		t.Fatalf("c.txt = %q", got)
	}

	// Literal replacement does not expand $.
	clear(written)
	n, err = Replace(ctx, root, "oldname", "$1", Options{}, write)
	if err != nil || n != 5 {
		t.Fatalf("n = %d, err = %v", n, err)
	}
	if got := written["d/e.go"]; got != "$1 $1X\n" {
		t.Fatalf("d/e.go = %q", got)
	}

	// A write error stops and counts only accepted files.
	boom := errors.New("denied")
	n, err = Replace(ctx, root, "oldName", "z", Options{CaseSensitive: true}, func(p string, _ []byte) error {
		if p == "d/e.go" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || n != 2 {
		t.Fatalf("n = %d, err = %v", n, err)
	}
	// Files are untouched by Replace itself.
	if b, _ := os.ReadFile(filepath.Join(root, "a.go")); string(b) != files["a.go"] {
		t.Fatal("Replace wrote a file itself")
	}
}

// TestFindMatchesReplace: the number of replacements equals the number of
// matches Find reports, for a variety of queries.
func TestFindMatchesReplace(t *testing.T) {
	root := tree(t, map[string]string{
		"a.txt": "abc abc\nabcabc\n  abc\n",
		"b.txt": "ABC xabc abcx\n",
	})
	for _, q := range []struct {
		q string
		o Options
	}{
		{"abc", Options{}}, {"abc", Options{WholeWord: true}}, {"ABC", Options{CaseSensitive: true}},
		{`a(b)c`, Options{UseRegex: true}}, {`^\s*abc`, Options{UseRegex: true}}, {`c*`, Options{UseRegex: true}},
	} {
		rs := find(t, root, q.q, q.o)
		n, err := Replace(context.Background(), root, q.q, "R", q.o, func(string, []byte) error { return nil })
		if err != nil || n != len(rs) {
			t.Errorf("%q %+v: replace %d (%v), find %d", q.q, q.o, n, err, len(rs))
		}
	}
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{"foo", "a.b", `\w+`, "(", "[", "😀", "a|b", "^$", "x*", `\b`, "(?i)A", "\x00", "é"} {
		f.Add(s, false, false, false)
		f.Add(s, true, true, true)
	}
	f.Fuzz(func(t *testing.T, q string, useRegex, caseSensitive, wholeWord bool) {
		m, err := compile(q, Options{UseRegex: useRegex, CaseSensitive: caseSensitive, WholeWord: wholeWord})
		if err != nil {
			return
		}
		inputs := [][]byte{[]byte(q), []byte("x " + q + " y\n" + q + "\r\n"), []byte("\n\n"), nil}
		for _, in := range inputs {
			m.scan(in, true, func(line, start int, text []byte, loc []int) bool {
				if loc[0] >= loc[1] || loc[1] > len(text) {
					t.Fatalf("bad match %v in %q", loc, text)
				}
				_ = makeMatch(line, text, loc[0], loc[1])
				return true
			})
		}
		// A literal, case-sensitive, single-line query is found in itself.
		if !useRegex && caseSensitive && !wholeWord && !strings.ContainsAny(q, "\r\n") {
			found := false
			m.scan([]byte(q), false, func(int, int, []byte, []int) bool { found = true; return false })
			if !found {
				t.Fatalf("literal %q not found in itself", q)
			}
		}
	})
}
