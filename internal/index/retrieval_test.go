package index

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The retrieval benchmark: natural-language descriptions of what a
// function does, asked of Go code whose comments are removed, scored by
// MRR@10 at function level, for warden's ranked search and for plain BM25
// over the same functions in the same run.
//
// The corpus is a copy of packages of $GOROOT/src (non-test files only)
// printed again by go/printer without a comment. Each query is the first
// sentence of a function's doc comment, its leading name taken off
// ("Get issues a GET to the specified URL." asks "issues a GET to the
// specified URL"): text written by someone else and absent from the
// indexed code. A ranking scores 1/r for the function it was asked
// about first found at rank r <= 10 (0 otherwise), ranks counting
// distinct functions (hits outside any function count as one each).
//
//	go test -run XXX -bench Retrieval -benchtime 1x ./internal/index
//
// WARDEN_RETRIEVAL_PKGS (comma-separated, relative to $GOROOT/src)
// replaces the default packages.

// retrievalPackages are the default packages: net/http, on which the
// ranking was tuned, and go/types and os, on which it was not.
var retrievalPackages = []string{"net/http", "go/types", "os"}

// retrievalFunc is a function of the stripped corpus.
type retrievalFunc struct {
	path      string // slash-separated, relative to the corpus
	line, end int
	text      string // its source
}

// retrievalQuery is a held-out description and the function it is of.
type retrievalQuery struct {
	text string
	fn   int // index into the corpus's funcs
}

// retrievalCorpus is one package, stripped, with its queries.
type retrievalCorpus struct {
	root    string
	funcs   []retrievalFunc
	queries []retrievalQuery
}

// goroot is $GOROOT.
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Fatalf("go env GOROOT: %v", err)
	}
	return string(bytes.TrimSpace(out))
}

// funcKey names a function declaration: "Recv.Name" or "Name".
func funcKey(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// docQuery turns a doc comment into a query: its first sentence, the
// function's name taken off its start. Only comments in Go's convention
// ("Name does ...") describe what the function does; the others, and
// sentences of fewer than three words once the name is off, give "".
func docQuery(doc, name string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	doc = strings.TrimSuffix(doc, ".")
	words := strings.Fields(doc)
	for len(words) > 0 && (strings.EqualFold(words[0], "a") || strings.EqualFold(words[0], "an") || strings.EqualFold(words[0], "the")) {
		words = words[1:]
	}
	if len(words) == 0 || words[0] != name {
		return ""
	}
	words = words[1:]
	if len(words) < 3 {
		return ""
	}
	return strings.Join(words, " ")
}

// loadRetrievalCorpus copies pkg's non-test Go files, comments removed,
// to a new directory and takes its queries.
func loadRetrievalCorpus(tb testing.TB, pkg string) *retrievalCorpus {
	tb.Helper()
	src := filepath.Join(goroot(tb), "src", filepath.FromSlash(pkg))
	ents, err := os.ReadDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	c := &retrievalCorpus{root: tb.TempDir()}
	type held struct{ key, path, text string }
	var docs []held
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(src, name), nil, parser.ParseComments)
		if err != nil {
			tb.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				if q := docQuery(fd.Doc.Text(), fd.Name.Name); q != "" {
					docs = append(docs, held{funcKey(fd), name, q})
				}
			}
		}
		// Every comment goes: the file's list, which the printer
		// intersperses, and the nodes' own.
		f.Comments = nil
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.File:
				x.Doc = nil
			case *ast.FuncDecl:
				x.Doc = nil
			case *ast.GenDecl:
				x.Doc = nil
			case *ast.Field:
				x.Doc, x.Comment = nil, nil
			case *ast.ValueSpec:
				x.Doc, x.Comment = nil, nil
			case *ast.TypeSpec:
				x.Doc, x.Comment = nil, nil
			case *ast.ImportSpec:
				x.Doc, x.Comment = nil, nil
			}
			return true
		})
		var buf bytes.Buffer
		if err := (&printer.Config{Mode: printer.UseSpaces | printer.TabIndent, Tabwidth: 8}).Fprint(&buf, fset, f); err != nil {
			tb.Fatal(err)
		}
		out := buf.Bytes()
		if bytes.Contains(out, []byte("//")) && bytes.Contains(out, []byte("\n//")) {
			tb.Fatalf("%s: a comment is left", name)
		}
		if err := os.WriteFile(filepath.Join(c.root, name), out, 0o644); err != nil {
			tb.Fatal(err)
		}
		// The functions of the stripped file, where they now are.
		sfset := token.NewFileSet()
		sf, err := parser.ParseFile(sfset, name, out, 0)
		if err != nil {
			tb.Fatalf("%s printed again: %v", name, err)
		}
		lines := strings.Split(string(out), "\n")
		for _, d := range sf.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			l, e := sfset.Position(fd.Pos()).Line, sfset.Position(fd.End()).Line
			c.funcs = append(c.funcs, retrievalFunc{path: name, line: l, end: e, text: strings.Join(lines[l-1:e], "\n")})
		}
	}
	// A description asked of several functions is no test of either.
	count := map[string]int{}
	for _, d := range docs {
		count[strings.ToLower(d.text)]++
	}
	for _, d := range docs {
		if count[strings.ToLower(d.text)] > 1 {
			continue
		}
		fi := -1
		for i, f := range c.funcs {
			if f.path == d.path && funcKeyOfText(f.text) == d.key {
				fi = i
				break
			}
		}
		if fi < 0 {
			tb.Fatalf("%s: %s not found in the stripped file", d.path, d.key)
		}
		c.queries = append(c.queries, retrievalQuery{text: d.text, fn: fi})
	}
	return c
}

// funcKeyOfText is funcKey of a function's source.
func funcKeyOfText(src string) string {
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+src, 0)
	if err != nil || len(f.Decls) == 0 {
		return ""
	}
	fd, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok {
		return ""
	}
	return funcKey(fd)
}

// funcAt returns the function of the corpus holding path:line, -1 for
// none.
func (c *retrievalCorpus) funcAt(path string, line int) int {
	for i, f := range c.funcs {
		if f.path == path && f.line <= line && line <= f.end {
			return i
		}
	}
	return -1
}

// reciprocalRank scores a ranking of items (function indexes, or -1 for
// hits outside any function) for want: 1/r at the first rank r <= 10 of
// want among distinct items.
func reciprocalRank(items []string, want string) float64 {
	seen := map[string]bool{}
	r := 0
	for _, it := range items {
		if seen[it] {
			continue
		}
		seen[it] = true
		r++
		if r > 10 {
			return 0
		}
		if it == want {
			return 1 / float64(r)
		}
	}
	return 0
}

// wardenMRR asks warden's ranked search every query of c.
func wardenMRR(tb testing.TB, c *retrievalCorpus) float64 {
	tb.Helper()
	x, err := Open(context.Background(), Options{Root: c.root, Dir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	defer x.Close()
	if err := x.Build(context.Background(), nil); err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, q := range c.queries {
		hs, err := x.Search(context.Background(), Query{Text: q.text, Limit: 50})
		if err != nil {
			tb.Fatal(err)
		}
		items := make([]string, 0, len(hs))
		for _, h := range hs {
			if fi := c.funcAt(h.Path, h.Line); fi >= 0 {
				items = append(items, fmt.Sprint(fi))
			} else {
				items = append(items, fmt.Sprintf("%s:%d", h.Path, h.Line))
			}
		}
		sum += reciprocalRank(items, fmt.Sprint(q.fn))
	}
	return sum / float64(len(c.queries))
}

// plainTerms is a plain BM25 baseline's analysis: lower-cased runs of
// letters and digits.
func plainTerms(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// bm25MRR ranks the corpus's functions, each a document of the terms
// analyze gives its source, by BM25 (k1 1.2, b 0.75) for every query.
func bm25MRR(c *retrievalCorpus, analyze func(string) []string) float64 {
	const k1, b = 1.2, 0.75 // the usual parameters, whatever warden's are
	tf := make([]map[string]int, len(c.funcs))
	df := map[string]int{}
	lens := make([]float64, len(c.funcs))
	var total float64
	for i, f := range c.funcs {
		tf[i] = map[string]int{}
		for _, t := range analyze(f.text) {
			tf[i][t]++
			lens[i]++
		}
		for t := range tf[i] {
			df[t]++
		}
		total += lens[i]
	}
	n := float64(len(c.funcs))
	avg := total / n
	var sum float64
	for _, q := range c.queries {
		scores := make([]float64, len(c.funcs))
		seen := map[string]bool{}
		for _, t := range analyze(q.text) {
			if seen[t] || df[t] == 0 {
				continue
			}
			seen[t] = true
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			for i := range c.funcs {
				if f := float64(tf[i][t]); f > 0 {
					scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*lens[i]/avg))
				}
			}
		}
		order := make([]int, len(c.funcs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
		items := make([]string, 0, 10)
		for _, i := range order[:min(10, len(order))] {
			if scores[i] == 0 {
				break
			}
			items = append(items, fmt.Sprint(i))
		}
		sum += reciprocalRank(items, fmt.Sprint(q.fn))
	}
	return sum / float64(len(c.queries))
}

// splitTerms is warden's own analysis (identifiers split, light
// stemming) with none of its ranking: BM25 over the same functions, to
// tell the tokenizer's share from the ranking's.
func splitTerms(s string) []string {
	var out []string
	tokenize([]byte(s), func(t string) { out = append(out, t) })
	return out
}

// BenchmarkRetrieval reports, per package, MRR@10 of warden's ranked
// search (mrr10-warden), of plain BM25 over the functions (mrr10-bm25)
// and of BM25 with warden's tokenizer (mrr10-bm25split), and the number
// of queries.
func BenchmarkRetrieval(b *testing.B) {
	pkgs := retrievalPackages
	if s := os.Getenv("WARDEN_RETRIEVAL_PKGS"); s != "" {
		pkgs = strings.Split(s, ",")
	}
	for _, pkg := range pkgs {
		b.Run(strings.ReplaceAll(pkg, "/", "_"), func(b *testing.B) {
			c := loadRetrievalCorpus(b, pkg)
			var w float64
			for b.Loop() {
				w = wardenMRR(b, c)
			}
			b.ReportMetric(w, "mrr10-warden")
			b.ReportMetric(bm25MRR(c, plainTerms), "mrr10-bm25")
			b.ReportMetric(bm25MRR(c, splitTerms), "mrr10-bm25split")
			b.ReportMetric(float64(len(c.queries)), "queries")
			b.ReportMetric(float64(len(c.funcs)), "funcs")
		})
	}
}

// TestRetrievalBeatsBM25 is the benchmark's guard on two small packages:
// warden's ranked search answers held-out descriptions better than plain
// BM25 and than BM25 with warden's own tokenizer over the same functions.
func TestRetrievalBeatsBM25(t *testing.T) {
	for _, pkg := range []string{"encoding/json", "text/template"} {
		c := loadRetrievalCorpus(t, pkg)
		if len(c.queries) < 50 {
			t.Fatalf("%s: %d queries, want at least 50", pkg, len(c.queries))
		}
		w, plain, split := wardenMRR(t, c), bm25MRR(c, plainTerms), bm25MRR(c, splitTerms)
		t.Logf("%s: %d queries over %d functions: MRR@10 warden %.3f, BM25 %.3f, BM25 split %.3f", pkg, len(c.queries), len(c.funcs), w, plain, split)
		if w <= plain || w <= split {
			t.Errorf("%s: warden's MRR@10 %.3f does not beat BM25 (%.3f) and BM25 over split identifiers (%.3f)", pkg, w, plain, split)
		}
	}
}

// TestDocQuery: the query is the first sentence of a conventional doc
// comment, the name off.
func TestDocQuery(t *testing.T) {
	for _, c := range []struct{ doc, name, want string }{
		{"Get issues a GET to the specified URL. If the response is...", "Get", "issues a GET to the specified URL"},
		{"The Foo function frobs the bar baz.\n", "Foo", "function frobs the bar baz"},
		{"didTimeout is non-nil only if err != nil.", "send", ""},
		{"Close closes it.", "Close", ""},
	} {
		if got := docQuery(c.doc, c.name); got != c.want {
			t.Errorf("docQuery(%q, %q) = %q, want %q", c.doc, c.name, got, c.want)
		}
	}
}
