package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/testtools"
)

// writeTree writes files (slash paths relative to dir).
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const goSrc = `package demo

import "strings"

// Server answers requests.
type Server struct {
	Name  string
	ready bool
}

// ServeHTTP handles one request.
func (s *Server) ServeHTTP(path string) string {
	return strings.ToUpper(path)
}

// parseHeader splits a header line into its name and value.
func parseHeader(line string) (string, string) {
	name, value, _ := strings.Cut(line, ":")
	return strings.TrimSpace(name), strings.TrimSpace(value)
}

const Limit = 10
`

const pySrc = `import os


class TokenBucket:
    """A rate limiter."""

    def __init__(self, rate):
        self.rate = rate

    def take_token(self):
        return self.rate > 0


def load_config(path):
    with open(path) as f:
        return f.read()
`

const tsSrc = `export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private radius: number) {}

  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}

export function makeCircle(r: number): Circle {
  return new Circle(r);
}
`

// newWorkspace writes a small workspace of every kind of file the index
// meets and returns its directory and a catalog directory.
func newWorkspace(t testing.TB) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = t.TempDir()
	writeTree(t, root, map[string]string{
		"server.go":          goSrc,
		"bucket.py":          pySrc,
		"web/shape.ts":       tsSrc,
		".env":               "SECRET_TOKEN=zebra-unicorn-42\n",
		"deploy/id_rsa":      "zebra-unicorn-42 private key\n",
		".gitignore":         "build/\n*.log\n",
		"build/out.go":       "package build // zebra-unicorn-42\n",
		"run.log":            "zebra-unicorn-42\n",
		"notes/readme.md":    "# Notes\n\nThe zebra-unicorn-42 is not a secret here.\n",
		"vendor/app.min.js":  "var a=1;" + strings.Repeat("function x(){return 1};", 200) + "\n",
		"blob.bin":           "zebra-unicorn-42\x00\x01\x02",
		"docs/.env.example":  "SECRET_TOKEN=\n",
		"policy/refused.txt": "zebra-unicorn-42 refused by policy\n",
	})
	return root, dir
}

func openIndex(t testing.TB, root, dir string) *Index {
	t.Helper()
	x, err := Open(context.Background(), Options{
		Root: root, Dir: dir,
		Exclude: func(rel string) bool { return strings.HasPrefix(rel, "policy/") },
		Ctags:   Ctags{Program: testtools.Find(t, "ctags")},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func build(t testing.TB, x *Index) {
	t.Helper()
	if err := x.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

func paths(hs []Hit) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Path)
	}
	return out
}

func TestExclusions(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	for _, mode := range []Mode{ModeLiteral, ModeRegex, ModeRanked} {
		hs, err := x.Search(context.Background(), Query{Text: "zebra-unicorn-42", Mode: mode, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := paths(hs)
		slices.Sort(got)
		got = slices.Compact(got)
		// Only the readme: .env and the key are secrets, build/ and *.log
		// are ignored, the binary is binary, policy/ is refused.
		if want := []string{"notes/readme.md"}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: files %v, want %v", mode, got, want)
		}
	}
	res, err := x.Find(context.Background(), "SECRET_TOKEN", search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Path != "docs/.env.example" {
		t.Errorf("Find SECRET_TOKEN = %+v, want only docs/.env.example", res)
	}
	// The minified file is searchable exactly but not ranked.
	hs, err := x.Search(context.Background(), Query{Text: "function x", Mode: ModeLiteral})
	if err != nil || len(hs) != 1 || hs[0].Path != "vendor/app.min.js" {
		t.Errorf("literal in minified file = %+v, %v", hs, err)
	}
	if _, ok := x.Symbols("vendor/app.min.js"); ok {
		t.Error("minified file is in the symbol view")
	}
	// An overlay of a secret stays out; so does an update naming it.
	if err := x.SetOverlay(context.Background(), ".env", []byte("zebra-unicorn-42")); err != nil {
		t.Fatal(err)
	}
	if err := x.Update(context.Background(), filepath.Join(root, ".env"), "deploy/id_rsa"); err != nil {
		t.Fatal(err)
	}
	hs, _ = x.Search(context.Background(), Query{Text: "zebra", Mode: ModeLiteral, Limit: 100})
	for _, h := range hs {
		if h.Path != "notes/readme.md" {
			t.Errorf("after overlay/update: hit in %s", h.Path)
		}
	}
}

// TestFindMatchesSearch checks the index answers exactly what search.Find
// answers, for a spread of queries and options.
func TestFindMatchesSearch(t *testing.T) {
	root, dir := newWorkspace(t)
	// Remove what the index leaves out on purpose so the answers compare.
	for _, p := range []string{".env", "deploy/id_rsa", "policy/refused.txt"} {
		os.Remove(filepath.Join(root, p))
	}
	writeTree(t, root, map[string]string{
		"crlf.txt": "alpha beta\r\nBeta gamma\r\n",
		"utf.txt":  "héllo wörld 😀 hello\nKelvin \u212a and k\n",
	})
	x := openIndex(t, root, dir)
	build(t, x)
	cases := []struct {
		q    string
		opts search.Options
	}{
		{"strings", search.Options{}},
		{"Strings", search.Options{CaseSensitive: true}},
		{"beta", search.Options{}},
		{"beta$", search.Options{UseRegex: true}},
		{"^func ", search.Options{UseRegex: true}},
		{`func \(s \*Server\)`, search.Options{UseRegex: true}},
		{"name|value", search.Options{UseRegex: true, WholeWord: true}},
		{"k", search.Options{}},
		{"kelvin", search.Options{}},
		{"hello", search.Options{}},
		{"😀", search.Options{}},
		{"return", search.Options{Include: "*.py,*.ts"}},
		{"return", search.Options{Exclude: "web"}},
		{"[a-z]+_token", search.Options{UseRegex: true}},
		{"a", search.Options{MaxResults: 3}},
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
			t.Errorf("Find(%q, %+v):\n got %.400v\nwant %.400v", c.q, c.opts, got, want)
		}
	}
	// A file over MaxIndexSize: read from disk when a query needs it.
	writeTree(t, root, map[string]string{"big/a.txt": strings.Repeat("needle in a "+strings.Repeat("hay", 200)+"\n", 1800)})
	if err := x.Update(context.Background(), "big/a.txt"); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []search.Options{{MaxResults: 5, CaseSensitive: true}, {MaxResults: 100000, CaseSensitive: true}} {
		want, _ := search.Find(context.Background(), root, "needle", opts)
		got, err := x.Find(context.Background(), "needle", opts)
		if err != nil || !reflect.DeepEqual(got, want) || len(got) != 1 {
			t.Errorf("big file, %+v: got %d results, want %d (%v)", opts, len(got), len(want), err)
		}
	}
	if _, err := x.Find(context.Background(), "(", search.Options{UseRegex: true}); err == nil {
		t.Error("bad regex: no error")
	}
}

func TestSymbols(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	type sym struct{ name, kind, scope string }
	cases := map[string][]sym{
		"server.go": {
			{"Server", "struct", ""}, {"Name", "field", "Server"}, {"ready", "field", "Server"},
			{"ServeHTTP", "method", "Server"}, {"parseHeader", "function", ""}, {"Limit", "constant", ""},
		},
		"bucket.py": {
			{"TokenBucket", "class", ""}, {"__init__", "method", "TokenBucket"},
			{"take_token", "method", "TokenBucket"}, {"load_config", "function", ""},
		},
		"web/shape.ts": {
			{"Shape", "interface", ""}, {"Circle", "class", ""}, {"makeCircle", "function", ""},
		},
	}
	for file, want := range cases {
		syms, ok := x.Symbols(file)
		if !ok {
			t.Fatalf("%s: not in the symbol view", file)
		}
		for _, w := range want {
			found := false
			for _, s := range syms {
				if s.Name == w.name && s.Kind == w.kind && s.Scope == w.scope && s.EndLine >= s.Line {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no %+v in %+v", file, w, syms)
			}
		}
	}
	// Line ranges: parseHeader's definition spans its doc comment to "}".
	syms, _ := x.Symbols("server.go")
	for _, s := range syms {
		if s.Name == "parseHeader" && (s.Line != 16 || s.EndLine != 20) {
			t.Errorf("parseHeader lines %d-%d, want 16-20", s.Line, s.EndLine)
		}
	}
	hs, err := x.Search(context.Background(), Query{Text: "Circle", Mode: ModeSymbol})
	if err != nil || len(hs) == 0 || hs[0].Symbol != "Circle" || hs[0].Path != "web/shape.ts" || hs[0].Kind != "class" {
		t.Errorf("symbol Circle = %+v, %v", hs, err)
	}
	hs, _ = x.Search(context.Background(), Query{Text: "make", Mode: ModeSymbol})
	if len(hs) == 0 || hs[0].Symbol != "makeCircle" {
		t.Errorf("symbol prefix make = %+v", hs)
	}
	hs, _ = x.Search(context.Background(), Query{Text: "servehttp", Mode: ModeSymbol, CaseSensitive: true})
	if len(hs) != 0 {
		t.Errorf("case-sensitive servehttp = %+v", hs)
	}
}

func TestRanked(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	cases := []struct{ q, path, symbol string }{
		{"parse header", "server.go", "parseHeader"},
		{"parseHeader", "server.go", "parseHeader"},
		{"split a header line into name and value", "server.go", "parseHeader"},
		{"take token", "bucket.py", "TokenBucket.take_token"},
		{"rate limiter", "bucket.py", "TokenBucket"},
		{"load config", "bucket.py", "load_config"},
		{"make circle", "web/shape.ts", "makeCircle"},
	}
	for _, c := range cases {
		hs, err := x.Search(context.Background(), Query{Text: c.q})
		if err != nil {
			t.Fatal(err)
		}
		if len(hs) == 0 || hs[0].Path != c.path || hs[0].Symbol != c.symbol {
			t.Errorf("ranked %q: top %+v, want %s %s", c.q, first(hs), c.path, c.symbol)
		}
	}
	// Language filter.
	hs, _ := x.Search(context.Background(), Query{Text: "return", Lang: "python"})
	for _, h := range hs {
		if h.Path != "bucket.py" {
			t.Errorf("lang:python gave %s", h.Path)
		}
	}
}

func first(hs []Hit) any {
	if len(hs) == 0 {
		return nil
	}
	return hs[0]
}

func TestLineHits(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	hs, err := x.Search(context.Background(), Query{Text: "strings.TrimSpace", Mode: ModeLiteral})
	if err != nil {
		t.Fatal(err)
	}
	// Two matches on one line: one hit.
	if len(hs) != 1 || hs[0].Line != 19 || hs[0].Column != 9 || hs[0].Symbol != "parseHeader" || hs[0].Kind != "function" {
		t.Errorf("hits = %+v", hs)
	}
	hs, _ = x.Search(context.Background(), Query{Text: `rate\b`, Mode: ModeRegex, Limit: 2})
	if len(hs) != 2 || hs[0].Path != "bucket.py" {
		t.Errorf("regex hits = %+v", hs)
	}
}

func TestOverlayAndUpdate(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	ctx := context.Background()
	find := func(word string) []string {
		t.Helper()
		hs, err := x.Search(ctx, Query{Text: word, Mode: ModeLiteral, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return paths(hs)
	}
	// An unsaved buffer replaces the file's text.
	if err := x.SetOverlay(ctx, filepath.Join(root, "server.go"), []byte("package demo\n\nfunc quokkaJump() {}\n")); err != nil {
		t.Fatal(err)
	}
	if got := find("quokkaJump"); !reflect.DeepEqual(got, []string{"server.go"}) {
		t.Errorf("overlay: %v", got)
	}
	if got := find("parseHeader"); len(got) != 0 {
		t.Errorf("overlay hides the file's text: %v", got)
	}
	if hs, _ := x.Search(ctx, Query{Text: "quokkaJump", Mode: ModeSymbol}); len(hs) != 1 {
		t.Errorf("overlay symbols: %+v", hs)
	}
	// A change on disk does not beat the overlay ...
	writeTree(t, root, map[string]string{"server.go": goSrc + "// wombat\n"})
	if err := x.Update(ctx, "server.go"); err != nil {
		t.Fatal(err)
	}
	if got := find("wombat"); len(got) != 0 {
		t.Errorf("disk beat the overlay: %v", got)
	}
	// ... until the overlay is cleared.
	if err := x.SetOverlay(ctx, "server.go", nil); err != nil {
		t.Fatal(err)
	}
	if got := find("wombat"); !reflect.DeepEqual(got, []string{"server.go"}) {
		t.Errorf("after clearing: %v", got)
	}
	// Create, rename, delete, ignore.
	writeTree(t, root, map[string]string{"new/file.go": "package x // platypus\n"})
	x.Update(ctx, "new/file.go")
	if got := find("platypus"); !reflect.DeepEqual(got, []string{"new/file.go"}) {
		t.Errorf("created: %v", got)
	}
	os.Rename(filepath.Join(root, "new/file.go"), filepath.Join(root, "new/moved.go"))
	x.Update(ctx, "new/file.go", "new/moved.go")
	if got := find("platypus"); !reflect.DeepEqual(got, []string{"new/moved.go"}) {
		t.Errorf("renamed: %v", got)
	}
	os.RemoveAll(filepath.Join(root, "new"))
	x.Update(ctx, "new")
	if got := find("platypus"); len(got) != 0 {
		t.Errorf("deleted: %v", got)
	}
	// Many changes: segments merge and everything stays right.
	for i := range 30 {
		writeTree(t, root, map[string]string{"many/f.go": "package m // echidna" + strings.Repeat("!", i) + "\n"})
		x.Update(ctx, "many/f.go")
	}
	if got := find("echidna" + strings.Repeat("!", 29)); !reflect.DeepEqual(got, []string{"many/f.go"}) {
		t.Errorf("after many updates: %v", got)
	}
	if st := x.Status(); st.Segments > 9 {
		t.Errorf("segments = %d", st.Segments)
	}
	// Refresh finds what no event reported.
	writeTree(t, root, map[string]string{"quiet.py": "def numbat(): pass\n"})
	os.Remove(filepath.Join(root, "bucket.py"))
	if err := x.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if got := find("numbat"); !reflect.DeepEqual(got, []string{"quiet.py"}) {
		t.Errorf("refresh created: %v", got)
	}
	if got := find("TokenBucket"); len(got) != 0 {
		t.Errorf("refresh deleted: %v", got)
	}
}

func TestQueryErrors(t *testing.T) {
	root, dir := newWorkspace(t)
	x := openIndex(t, root, dir)
	build(t, x)
	for _, q := range []Query{
		{Text: ""}, {Text: "  "}, {Text: "(", Mode: ModeRegex}, {Text: "x", Mode: "fuzzy"},
		{Text: "x", Include: "[", Mode: ModeLiteral},
	} {
		if _, err := x.Search(context.Background(), q); err == nil {
			t.Errorf("%+v: no error", q)
		}
	}
}
