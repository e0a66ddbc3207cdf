package index

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"regexp/syntax"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/warden-dev/warden/internal/search"
)

// Mode is how a query's text is understood.
type Mode string

// The modes of a query.
const (
	// ModeRanked ranks chunks for a natural-language or identifier query:
	// BM25 over split identifiers fused with symbol-name matches.
	ModeRanked Mode = "ranked"
	// ModeLiteral finds the text exactly: one hit per matching line.
	ModeLiteral Mode = "literal"
	// ModeRegex finds a Go (RE2) regular expression: one hit per matching
	// line.
	ModeRegex Mode = "regex"
	// ModeSymbol looks definitions up by name: exact, then prefix.
	ModeSymbol Mode = "symbol"
)

// DefaultLimit is the number of hits a query returns when Limit is zero.
const DefaultLimit = 20

// Query is a search of the index.
type Query struct {
	// Text is what is looked for.
	Text string `json:"text"`
	// Mode is how Text is understood ("" is ModeRanked).
	Mode Mode `json:"mode,omitempty"`
	// Limit caps the hits (DefaultLimit when zero or negative).
	Limit int `json:"limit,omitempty"`
	// CaseSensitive and WholeWord refine literal and regex matching (as
	// search.Options do); CaseSensitive also makes symbol lookup exact.
	CaseSensitive bool `json:"caseSensitive,omitempty"`
	WholeWord     bool `json:"wholeWord,omitempty"`
	// CaseSet reports that the query's text said case:yes or case:no
	// (ParseQuery), so a caller's own default does not override it.
	CaseSet bool `json:"-"`
	// Include and Exclude are comma-separated globs, as search.Options'.
	Include string `json:"include,omitempty"`
	Exclude string `json:"exclude,omitempty"`
	// Lang keeps files of one language ("go", "python", "typescript", or
	// an extension); Kind keeps symbols of one kind (symbol mode).
	Lang string `json:"lang,omitempty"`
	Kind string `json:"kind,omitempty"`
	// Skip, when set, leaves out the files it reports true for (the
	// caller's own refusals); it is called concurrently.
	Skip func(rel string) bool `json:"-"`
	// Vectors fuses a nearest-neighbour ranking of the chunks' embeddings
	// into ranked mode (when the index has an Embedder): the query is
	// embedded, which costs a call to the embedding server; when that
	// fails the text ranking answers alone.
	Vectors bool `json:"vectors,omitempty"`
}

// Hit is one answer to a query.
type Hit struct {
	// Path is workspace-relative and slash-separated.
	Path string `json:"path"`
	// Line and EndLine are 1-based (ripgrep's and editors' line numbers);
	// a literal or regex hit is one line.
	Line    int `json:"line"`
	EndLine int `json:"endLine"`
	// Column is the 1-based byte column of the first match on the line
	// (literal and regex modes).
	Column int `json:"column,omitempty"`
	// Symbol is the definition the hit is in (or, in symbol mode, is),
	// qualified by its scope ("Server.ServeHTTP").
	Symbol string `json:"symbol,omitempty"`
	// Kind is the symbol's kind when Symbol is set, "text" otherwise.
	Kind string `json:"kind"`
	// Score orders the hits (higher first); literal and regex hits score 1.
	Score float64 `json:"score"`
	// Preview is the matching line, or a ranked hit's first line of code.
	Preview string `json:"preview,omitempty"`
}

// Search answers q from the current snapshot; it never waits for a build
// or an update.
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("index: %w", search.ErrEmptyQuery)
	}
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	filter, err := search.NewFilter(q.Include, q.Exclude)
	if err != nil {
		return nil, err
	}
	keep := func(d *doc) bool {
		if !filter.Match(d.path) || (q.Lang != "" && !langMatch(d.path, q.Lang)) {
			return false
		}
		return q.Skip == nil || !q.Skip(d.path)
	}
	st := x.snap.Load()
	switch q.Mode {
	case ModeLiteral, ModeRegex:
		return x.lineHits(ctx, st, q, keep)
	case ModeSymbol:
		return symbolHits(st, q, keep), nil
	case ModeRanked, "":
		return x.ranked(ctx, st, q, keep), nil
	}
	return nil, fmt.Errorf("index: mode %q: %w", q.Mode, search.ErrBadQuery)
}

func langMatch(rel, lang string) bool {
	lang = strings.ToLower(lang)
	return language(rel) == lang || strings.TrimPrefix(strings.ToLower(pathExt(rel)), ".") == lang
}

func pathExt(rel string) string {
	i := strings.LastIndexByte(rel, '.')
	if i < 0 || strings.IndexByte(rel[i:], '/') >= 0 {
		return ""
	}
	return rel[i:]
}

// exactPlan is the plan of the files that can match m.
func exactPlan(m *search.Matcher) *plan { return regexpPlan(m.Regexp().String(), syntax.Perl) }

// exactDocs returns the live docs that can match plan p and pass keep,
// sorted by path.
func (x *Index) exactDocs(st *snapshot, p *plan, keep func(*doc) bool) []*doc {
	var out []*doc
	for si, sg := range st.segs {
		cands, all := sg.candidates(p)
		add := func(i int) {
			d := sg.docs[i]
			if st.live(si, d.path) && keep(d) {
				out = append(out, d)
			}
		}
		if all {
			for i := range sg.docs {
				add(i)
			}
			continue
		}
		for _, i := range cands {
			add(int(i))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return compactDocs(out)
}

func compactDocs(ds []*doc) []*doc {
	out := ds[:0]
	for i, d := range ds {
		if i == 0 || d.path != ds[i-1].path {
			out = append(out, d)
		}
	}
	return out
}

// sampleOf returns pieces of the files a query will search (a few, from
// the middle of files spread over docs: 64 KiB at most), from which the
// matcher learns which of its literal's bytes is rarest in them: in the
// files of $GOROOT/src that can hold "errors.New", N is half as frequent
// as w, which source code at large ranks rarer.
func sampleOf(docs []*doc) [][]byte {
	const pieces, size = 8, 8 << 10
	var out [][]byte
	for k := range min(pieces, len(docs)) {
		c := docs[k*len(docs)/min(pieces, len(docs))].content
		mid := max(0, len(c)/2-size/2)
		out = append(out, c[mid:min(len(c), mid+size)])
	}
	return out
}

// partsOf returns the text of doc d that a query with plan p must look
// at: its content, in memory; for a file over MaxIndexSize, the blocks
// that can hold a match, read from disk (bigfile.go) into a buffer of the
// index's pool, which release gives back once the parts are no longer
// used; or the whole file when it changed since it was indexed (nil when
// it changed into something unsearchable).
func (x *Index) partsOf(d *doc, p *plan) (parts []part, release func()) {
	release = func() {}
	if d.content != nil {
		return []part{{text: d.content}}, release
	}
	if d.blocks != nil {
		if parts, buf, ok := x.blockParts(d, p); ok {
			if buf != nil {
				release = func() { x.putBuffer(buf) }
			}
			return parts, release
		}
	}
	c, _, ok := readFile(x.root, d.path)
	if !ok || !search.Searchable(c) {
		return nil, release
	}
	return []part{{text: c}}, release
}

// blockParts reads the blocks of d that can hold a match of p into a
// buffer of the pool (returned, nil when none was taken); ok is false when
// the file is not the one indexed (its size or modification time changed)
// or cannot be read as it was.
func (x *Index) blockParts(d *doc, p *plan) (parts []part, buf []byte, ok bool) {
	same := func(fi os.FileInfo) bool {
		return fi.Mode().IsRegular() && fi.Size() == d.blocks.size && fi.Size() == d.size && fi.ModTime().UnixNano() == d.mtime
	}
	fi, err := x.root.Lstat(d.path) // never through a symlink, as readFile
	if err != nil || !same(fi) {
		return nil, nil, false
	}
	want := d.blocks.eval(d.tris, p)
	if want == 0 {
		return nil, nil, true
	}
	f, err := x.root.Open(d.path)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !same(fi) {
		return nil, nil, false
	}
	parts, buf, err = d.blocks.readBlocks(f, want, x.getBuffer())
	if err != nil {
		x.putBuffer(buf)
		return nil, nil, false
	}
	return parts, buf, true
}

// getBuffer returns a buffer of the pool for a big file's blocks (empty,
// with whatever capacity it has); putBuffer gives it back. Reusing them
// keeps a query from allocating (and zeroing) megabytes each time: the
// 2.3 MB of $GOROOT/src's trace viewer read for errors.New were most of
// that query's garbage, a collection every fifty queries.
func (x *Index) getBuffer() []byte {
	if b, ok := x.bufs.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

func (x *Index) putBuffer(b []byte) {
	if cap(b) > 0 && cap(b) <= search.MaxFileSize {
		x.bufs.Put(&b)
	}
}

// eachCandidate runs fn over docs on GOMAXPROCS workers in rough path
// order; fn returns how many results it found, and no doc after the one
// that brings the total (in path order) to limit is examined.
func eachCandidate(ctx context.Context, docs []*doc, limit int, fn func(i int) int) {
	var next atomic.Int64
	var cutoff atomic.Int64
	cutoff.Store(int64(len(docs)))
	var mu sync.Mutex
	counts := make([]int, len(docs))
	done := make([]bool, len(docs))
	frontier, total := 0, 0
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(docs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(docs) || int64(i) > cutoff.Load() || ctx.Err() != nil {
					return
				}
				n := fn(i)
				mu.Lock()
				counts[i], done[i] = n, true
				for frontier < len(docs) && done[frontier] {
					total += counts[frontier]
					frontier++
					if total >= limit {
						cutoff.Store(int64(frontier - 1))
						break
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// Find answers exactly what search.Find answers for the same query and
// options (the control door's search.findInFiles), from the index: the
// same files (minus the secrets and exclusions the index never holds),
// the same matches, the same order and cap. Paths are
// workspace-relative. opts.Skip is asked only about files that can match.
func (x *Index) Find(ctx context.Context, query string, opts search.Options) ([]search.Result, error) {
	m, err := search.Compile(query, opts)
	if err != nil {
		return nil, err
	}
	filter, err := search.NewFilter(opts.Include, opts.Exclude)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxResults
	if limit <= 0 {
		limit = search.DefaultMaxResults
	}
	st := x.snap.Load()
	p := exactPlan(m)
	docs := x.exactDocs(st, p, func(d *doc) bool {
		return filter.Match(d.path) && (opts.Skip == nil || !opts.Skip(d.path))
	})
	m.Sample(sampleOf(docs))
	per := make([][]search.Match, len(docs))
	eachCandidate(ctx, docs, limit, func(i int) int {
		parts, release := x.partsOf(docs[i], p)
		defer release() // the matches hold copies of what they show
		for _, pt := range parts {
			ms := m.Matches(pt.text, limit-len(per[i]))
			for k := range ms {
				ms[k].Range.Start.Line += pt.line
				ms[k].Range.End.Line += pt.line
			}
			if per[i] == nil {
				per[i] = ms // no copy for a file in one part
			} else {
				per[i] = append(per[i], ms...)
			}
			if len(per[i]) >= limit {
				break
			}
		}
		return len(per[i])
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	var out []search.Result
	n := 0
	for i, ms := range per {
		if n >= limit {
			break
		}
		if len(ms) == 0 {
			continue
		}
		if len(ms) > limit-n {
			ms = ms[:limit-n]
		}
		n += len(ms)
		out = append(out, search.Result{Path: docs[i].path, Matches: ms})
	}
	return out, nil
}

// lineHits answers literal and regex queries: one hit per matching line,
// in path then line order, up to q.Limit.
func (x *Index) lineHits(ctx context.Context, st *snapshot, q Query, keep func(*doc) bool) ([]Hit, error) {
	m, err := search.Compile(q.Text, search.Options{UseRegex: q.Mode == ModeRegex, CaseSensitive: q.CaseSensitive, WholeWord: q.WholeWord})
	if err != nil {
		return nil, err
	}
	p := exactPlan(m)
	docs := x.exactDocs(st, p, keep)
	m.Sample(sampleOf(docs))
	per := make([][]Hit, len(docs))
	eachCandidate(ctx, docs, q.Limit, func(i int) int {
		d := docs[i]
		var hs []Hit
		parts, release := x.partsOf(d, p)
		defer release() // the hits hold copies of what they show
		for _, pt := range parts {
			m.Lines(pt.text, func(line int, text []byte, s, _ int) bool {
				line += pt.line
				h := Hit{Path: d.path, Line: line + 1, EndLine: line + 1, Column: s + 1, Kind: "text", Score: 1, Preview: previewLine(text)}
				if sym := enclosing(d, line+1); sym != nil {
					h.Symbol, h.Kind = qualified(*sym), sym.Kind
				}
				hs = append(hs, h)
				return len(hs) < q.Limit
			})
			if len(hs) >= q.Limit {
				break
			}
		}
		per[i] = hs
		return len(hs)
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	var out []Hit
	for _, hs := range per {
		for _, h := range hs {
			if len(out) == q.Limit {
				return out, nil
			}
			out = append(out, h)
		}
	}
	return out, nil
}

// previewLine is a line cut to search.MaxPreview bytes, valid UTF-8.
func previewLine(text []byte) string {
	if len(text) > search.MaxPreview {
		n := search.MaxPreview
		for n > 0 && !utf8.RuneStart(text[n]) {
			n--
		}
		text = text[:n]
	}
	return strings.ToValidUTF8(string(text), "\uFFFD")
}

// enclosing returns the innermost definition of d holding the 1-based
// line, nil for none.
func enclosing(d *doc, line int) *Symbol {
	var best *Symbol
	for i := range d.symbols.len() {
		s := d.symbols.at(i)
		if s.Line <= line && line <= s.EndLine && (s.EndLine > s.Line || blockKind(s.Kind)) {
			if best == nil || s.EndLine-s.Line < best.EndLine-best.Line {
				best = &s
			}
		}
	}
	return best
}

func qualified(s Symbol) string {
	if s.Scope != "" {
		return s.Scope + "." + s.Name
	}
	return s.Name
}

// definitionKind reports kinds that are definitions of code (not fields,
// variables or headings), which rank first.
func definitionKind(k string) bool {
	switch k {
	case "function", "method", "type", "struct", "interface", "class", "func", "member",
		"constructor", "trait", "enum", "module", "macro", "typedef", "alias", "namespace":
		return true
	}
	return false
}

// symbolHits looks q.Text up among symbol names: exact (case-sensitive,
// then not), then prefix; definitions before other kinds, shorter names
// and paths first.
func symbolHits(st *snapshot, q Query, keep func(*doc) bool) []Hit {
	name := strings.TrimSpace(q.Text)
	lower := strings.ToLower(name)
	type cand struct {
		d     *doc
		s     *Symbol
		score float64
	}
	var cs []cand
	for si, sg := range st.segs {
		for _, r := range sg.symbolsWithPrefix(lower) {
			d := sg.docs[r.doc]
			if !st.live(si, d.path) || !keep(d) {
				continue
			}
			sym := d.symbols.at(int(r.sym))
			s := &sym
			if q.Kind != "" && !strings.EqualFold(s.Kind, q.Kind) {
				continue
			}
			var score float64
			switch {
			case s.Name == name:
				score = 4
			case q.CaseSensitive && !strings.HasPrefix(s.Name, name):
				continue
			case r.lower == lower:
				score = 3
			default:
				score = 2 - math.Min(1, float64(len(s.Name)-len(name))/32)
			}
			if definitionKind(s.Kind) {
				score += 0.5
			}
			if strings.Contains(d.path, "_test.") || strings.Contains(d.path, "testdata/") {
				score -= 0.25
			}
			cs = append(cs, cand{d, s, score})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		if cs[i].d.path != cs[j].d.path {
			return cs[i].d.path < cs[j].d.path
		}
		return cs[i].s.Line < cs[j].s.Line
	})
	var out []Hit
	for _, c := range cs {
		if len(out) == q.Limit {
			break
		}
		out = append(out, Hit{Path: c.d.path, Line: c.s.Line, EndLine: c.s.EndLine, Symbol: qualified(*c.s),
			Kind: c.s.Kind, Score: c.score, Preview: firstCodeLine(c.d, c.s.Line, c.s.EndLine)})
	}
	return out
}

// firstCodeLine is the first line from..to of d that is not blank or a
// comment, for previews.
func firstCodeLine(d *doc, from, to int) string {
	c := d.content
	if c == nil {
		return ""
	}
	from = max(from, 1)
	// Only the lines up to the answer are looked at (a whole file's line
	// starts cost a quarter of a ranked query).
	at := 0
	for l := 1; l < from; l++ {
		i := bytes.IndexByte(c[at:], '\n')
		if i < 0 || at+i+1 == len(c) {
			return "" // from is past the last line
		}
		at += i + 1
	}
	for l := from; l <= to && at < len(c); l++ {
		line := c[at:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, at = line[:i+1], at+i+1
		} else {
			at = len(c)
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 || bytes.HasPrefix(t, []byte("//")) || bytes.HasPrefix(t, []byte("/*")) || t[0] == '#' || t[0] == '*' {
			continue
		}
		return previewLine(t)
	}
	return ""
}
