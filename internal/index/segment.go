package index

import (
	"bytes"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// doc is one indexed version of a file.
type doc struct {
	path  string // workspace-relative, slash-separated
	hash  string // "sha256:<hex>" of the content
	size  int64
	mtime int64 // modification time, Unix nanoseconds (0 for an overlay)
	// content is the text searched, nil for a file over MaxIndexSize
	// (exact search reads such a file from disk when a query needs it).
	content []byte
	symbols symTable
	chunks  chunkTable
	// tris are the trigrams of a file over MaxIndexSize (whose content is
	// not kept), so exact search reads it only when it can match.
	tris []trigram
	// blocks, for such a file, says which of its blocks hold each of tris,
	// so a query reads only the blocks that can match (bigfile.go).
	blocks *blocks
	// ranked says the file is in the ranked and symbol views (not over
	// MaxIndexSize, not minified).
	ranked  bool
	overlay bool // content is an unsaved editor buffer
}

// chunkRef locates a chunk of a segment.
type chunkRef struct {
	doc, chunk uint32
	length     uint32 // number of terms, for BM25's length normalisation
}

// symRef is a symbol of a segment, with its lower-case name (made when a
// lookup returns it: the segment keeps only symPos).
type symRef struct {
	lower    string
	doc, sym uint32
}

// symPos is a symbol of a segment: its doc and its index among the doc's
// symbols.
type symPos struct{ doc, sym uint32 }

// segment is an immutable set of docs with their trigram, term and symbol
// indexes. The index is a stack of segments: one from the last build and
// small ones from changes since, merged as they accumulate.
type segment struct {
	docs     []*doc              // sorted by path
	tri      []postings[trigram] // sharded by trigram
	terms    []postings[string]  // sharded by term; value: chunk number; payload: term frequency
	chunks   []chunkRef
	totalLen int64
	syms     []symPos // sorted by lower-case name
}

// docWork is what a worker computes for one doc, split by shard.
type docWork struct {
	tris  [][]trigram   // by shard
	terms [][]termEntry // by shard
	lens  []uint32      // each chunk's length
}

// termEntry is a term's frequency in one of a doc's chunks.
type termEntry struct {
	term  string
	chunk uint32 // the doc's chunk number
	tf    uint32
}

// shardOf spreads terms over shards.
func shardOf(t string, n int) int {
	h := uint32(2166136261)
	for i := 0; i < len(t); i++ {
		h = (h ^ uint32(t[i])) * 16777619
	}
	return int(h % uint32(n))
}

// newSegment indexes docs (sorted by path) on GOMAXPROCS workers: the
// trigram and term postings are sharded by key, each shard built by one
// worker, so no step of the build runs on one core.
func newSegment(docs []*doc) *segment {
	workers := runtime.GOMAXPROCS(0)
	shards := workers
	if len(docs) <= 64 {
		shards = 1
	}
	s := &segment{docs: docs, tri: make([]postings[trigram], shards), terms: make([]postings[string], shards)}
	tbs := make([]*postingsBuilder[trigram], shards)
	wbs := make([]*postingsBuilder[string], shards)
	// Sized from $GOROOT/src's proportions (per 10,000 files: 190k
	// trigrams and 440k terms; runs of about a sixth of the text each,
	// blocks included), so the maps and arenas seldom grow.
	var text int
	for _, d := range docs {
		text += len(d.content)
	}
	for i := range shards {
		tbs[i] = newPostingsBuilder[trigram](false, min(len(docs)*20, 1<<20)/shards, text/6/shards)
		wbs[i] = newPostingsBuilder[string](true, len(docs)*44/shards, text/6/shards)
	}
	const batch = 256
	work := make([]docWork, batch)
	seen := make([]*bitset, workers)
	if len(docs) > 64 { // a 2 MiB bitset per worker pays off on big segments only
		for i := range seen {
			seen[i] = newBitset(1 << 24)
		}
	}
	firstChunk := make([]uint32, batch)
	tks := make([]*tokenizer, workers)
	scs := make([]*scratch, workers)
	for i := range tks {
		tks[i] = newTokenizer()
		scs[i] = newScratch(shards)
	}
	for lo := 0; lo < len(docs); lo += batch {
		hi := min(lo+batch, len(docs))
		var wg sync.WaitGroup
		var next atomic.Int64
		next.Store(int64(lo))
		for w := range workers {
			wg.Add(1)
			go func(bs *bitset, tk *tokenizer, sc *scratch) {
				defer wg.Done()
				sc.reset() // the last batch is in the postings
				for {
					i := int(next.Add(1) - 1)
					if i >= hi {
						return
					}
					work[i-lo] = docWorkOf(docs[i], bs, tk, sc, shards)
				}
			}(seen[w], tks[w], scs[w])
		}
		wg.Wait()
		for i := lo; i < hi; i++ {
			dw := &work[i-lo]
			d := docs[i]
			firstChunk[i-lo] = uint32(len(s.chunks))
			for c, n := range dw.lens {
				s.chunks = append(s.chunks, chunkRef{doc: uint32(i), chunk: uint32(c), length: n})
				s.totalLen += int64(n)
			}
			if d.ranked {
				for k := range d.symbols.len() {
					s.syms = append(s.syms, symPos{doc: uint32(i), sym: uint32(k)})
				}
			}
		}
		for sh := range shards {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo; i < hi; i++ {
					dw := &work[i-lo]
					if dw.tris != nil {
						for _, t := range dw.tris[sh] {
							tbs[sh].add(t, uint32(i), 0)
						}
					}
					if dw.terms != nil {
						for _, e := range dw.terms[sh] {
							wbs[sh].add(e.term, firstChunk[i-lo]+e.chunk, e.tf)
						}
					}
				}
			}()
		}
		wg.Wait()
		clear(work)
	}
	var wg sync.WaitGroup
	for sh := range shards {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.tri[sh] = tbs[sh].build()
			s.terms[sh] = wbs[sh].build()
		}()
	}
	wg.Wait()
	s.sortSymbols()
	// The appends left up to half of each slice unused.
	s.chunks, s.syms = slices.Clone(s.chunks), slices.Clone(s.syms)
	return s
}

// docWorkOf computes a doc's trigrams and chunk terms, split by shard.
// Chunk terms are added in chunk order, so every term's values ascend.
func docWorkOf(d *doc, bs *bitset, tk *tokenizer, sc *scratch, shards int) docWork {
	var dw docWork
	switch {
	case d.content != nil && bs != nil:
		dw.tris = sc.trigrams(d.content, bs)
	case d.content != nil || d.tris != nil:
		tris := d.tris
		if d.content != nil {
			tris = trigramsOf(d.content)
		}
		dw.tris = make([][]trigram, shards)
		for _, t := range tris {
			sh := int(uint32(t) % uint32(shards))
			dw.tris[sh] = append(dw.tris[sh], t)
		}
	}
	if d.ranked {
		start := make([]int, shards)
		for sh := range start {
			start[sh] = len(sc.terms[sh])
		}
		dw.lens = chunkTerms(d, tk, sc, func(c int, t string, tf uint32) {
			sh := shardOf(t, shards)
			sc.terms[sh] = append(sc.terms[sh], termEntry{t, uint32(c), tf})
		})
		dw.terms = make([][]termEntry, shards)
		for sh := range start {
			dw.terms[sh] = sc.terms[sh][start[sh]:len(sc.terms[sh]):len(sc.terms[sh])]
		}
	}
	return dw
}

// scratch is a worker's memory for docWorkOf, reused from batch to batch:
// a batch's trigrams and terms are pieces of its slices until they are in
// the postings (a build of $GOROOT/src allocated 0.8 GB for them before).
type scratch struct {
	tris   [][]trigram   // by shard
	terms  [][]termEntry // by shard
	starts []int         // line starts of the doc at hand
	counts map[string]uint32
}

func newScratch(shards int) *scratch {
	return &scratch{tris: make([][]trigram, shards), terms: make([][]termEntry, shards), counts: make(map[string]uint32, 64)}
}

// reset makes the slices' memory free for the next batch (the pieces
// handed out before must no longer be in use).
func (sc *scratch) reset() {
	for sh := range sc.tris {
		sc.tris[sh] = sc.tris[sh][:0]
		clear(sc.terms[sh]) // the term strings can go
		sc.terms[sh] = sc.terms[sh][:0]
	}
}

// trigrams returns the distinct folded trigrams of content split by
// shard, in no particular order, as pieces of sc's slices; seen (all
// clear, and left so) deduplicates them.
func (sc *scratch) trigrams(content []byte, seen *bitset) [][]trigram {
	shards := len(sc.tris)
	out := make([][]trigram, shards)
	if len(content) < 3 {
		return out
	}
	start := make([]int, shards)
	for sh := range start {
		start[sh] = len(sc.tris[sh])
	}
	a, b := fold(content[0]), fold(content[1])
	for i := 2; i < len(content); i++ {
		c := fold(content[i])
		t := uint32(a)<<16 | uint32(b)<<8 | uint32(c)
		if w, bit := &seen.w[t>>6], uint64(1)<<(t&63); *w&bit == 0 {
			*w |= bit
			sh := int(t % uint32(shards))
			sc.tris[sh] = append(sc.tris[sh], trigram(t))
		}
		a, b = b, c
	}
	for sh := range out {
		out[sh] = sc.tris[sh][start[sh]:len(sc.tris[sh]):len(sc.tris[sh])]
		for _, t := range out[sh] {
			seen.clear(uint32(t))
		}
	}
	return out
}

// triRun returns trigram t's postings run.
func (s *segment) triRun(t trigram) []byte {
	p := &s.tri[int(uint32(t)%uint32(len(s.tri)))]
	return p.run(t)
}

// triValues returns the docs holding trigram t.
func (s *segment) triValues(t trigram) []uint32 {
	return s.tri[int(uint32(t)%uint32(len(s.tri)))].values(t)
}

// termPostings returns the postings shard of term t.
func (s *segment) termPostings(t string) *postings[string] {
	return &s.terms[shardOf(t, len(s.terms))]
}

// trigramsOf returns the distinct folded trigrams of content, sorted
// (small segments and files over MaxIndexSize, which have no bitset).
func trigramsOf(content []byte) []trigram {
	if len(content) < 3 {
		return nil
	}
	out := make([]trigram, 0, len(content)-2)
	a, b := fold(content[0]), fold(content[1])
	for i := 2; i < len(content); i++ {
		c := fold(content[i])
		out = append(out, trigram(a)<<16|trigram(b)<<8|trigram(c))
		a, b = b, c
	}
	slices.Sort(out)
	// A copy: out has a slot for every byte of content.
	return slices.Clone(compactTrigrams(out))
}

func compactTrigrams(s []trigram) []trigram {
	out := s[:0]
	for i, t := range s {
		if i == 0 || t != s[i-1] {
			out = append(out, t)
		}
	}
	return out
}

// chunkTerms calls emit with each chunk's term frequencies, chunk by
// chunk, and returns each chunk's length. A chunk's terms are its text's,
// its file path's and its scope's (the names of the definitions it is in,
// counted three times: a definition's name says most about it).
func chunkTerms(d *doc, tk *tokenizer, sc *scratch, emit func(chunk int, term string, tf uint32)) []uint32 {
	sc.starts = appendLineStarts(sc.starts[:0], d.content)
	starts := sc.starts
	pathTerms := map[string]uint32{}
	tk.tokenize([]byte(d.path), func(t string) { pathTerms[t]++ })
	lens := make([]uint32, d.chunks.len())
	m := sc.counts // one chunk's counts, cleared for the next
	for i := range d.chunks.len() {
		c := d.chunks.at(i)
		clear(m)
		var n uint32
		add := func(t string) { m[t]++; n++ }
		tk.tokenize(lineSpan(d.content, starts, c.Line, c.EndLine), add)
		for t, k := range pathTerms {
			m[t] += k
			n += k
		}
		for range 3 {
			tk.tokenize([]byte(c.Scope), add)
		}
		for t, tf := range m {
			emit(i, t, tf)
		}
		lens[i] = n
	}
	return lens
}

// lineStarts returns the byte offset of each line's start.
func lineStarts(content []byte) []int {
	return appendLineStarts(nil, content)
}

// appendLineStarts appends the byte offset of each line's start to starts.
func appendLineStarts(starts []int, content []byte) []int {
	starts = append(starts, 0)
	for i, c := range content {
		if c == '\n' && i+1 < len(content) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineCount is the number of lines of content (a final line break does not
// start another).
func lineCount(content []byte) int {
	if len(content) == 0 {
		return 0
	}
	n := bytes.Count(content, []byte{'\n'})
	if content[len(content)-1] != '\n' {
		n++
	}
	return n
}

// lineSpan is the text of 1-based lines from..to.
func lineSpan(content []byte, starts []int, from, to int) []byte {
	if from < 1 || from > len(starts) {
		return nil
	}
	end := len(content)
	if to < len(starts) {
		end = starts[to]
	}
	return content[starts[from-1]:end]
}

// candidates returns the docs (by number, ascending) that can satisfy p;
// all is true when p excludes nothing.
func (s *segment) candidates(p *plan) (docs []uint32, all bool) {
	if p.matchAll() {
		return nil, true
	}
	var cur []uint32
	have := false
	// Rarest trigram first keeps the intersections small.
	tris := append([]trigram(nil), p.all...)
	sort.Slice(tris, func(i, j int) bool { return len(s.triRun(tris[i])) < len(s.triRun(tris[j])) })
	for _, t := range tris {
		v := s.triValues(t)
		if !have {
			cur, have = v, true
		} else {
			cur = intersect(cur, v)
		}
		if len(cur) == 0 {
			return nil, false
		}
	}
	for _, group := range p.any {
		var union []uint32
		for _, alt := range group {
			v, all := s.candidates(alt)
			if all {
				union, all = nil, true
				goto next
			}
			union = unite(union, v)
		}
		if !have {
			cur, have = union, true
		} else {
			cur = intersect(cur, union)
		}
	next:
	}
	if !have {
		return nil, true
	}
	return cur, false
}

func intersect(a, b []uint32) []uint32 {
	out := a[:0:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

func unite(a, b []uint32) []uint32 {
	out := make([]uint32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// symName is the name of a symbol of the segment.
func (s *segment) symName(p symPos) string { return s.docs[p.doc].symbols.name(int(p.sym)) }

// sortSymbols sorts s.syms by lower-case name (lowered once each, for the
// sort only).
func (s *segment) sortSymbols() {
	lower := make([]string, len(s.syms))
	idx := make([]int, len(s.syms))
	for i, p := range s.syms {
		lower[i], idx[i] = strings.ToLower(s.symName(p)), i
	}
	sort.Slice(idx, func(a, b int) bool { return lower[idx[a]] < lower[idx[b]] })
	sorted := make([]symPos, len(s.syms))
	for i, k := range idx {
		sorted[i] = s.syms[k]
	}
	s.syms = sorted
}

// symbolsWithPrefix returns the symbols whose lower-case name starts with
// prefix, in order of that name.
func (s *segment) symbolsWithPrefix(prefix string) []symRef {
	i := sort.Search(len(s.syms), func(i int) bool { return strings.ToLower(s.symName(s.syms[i])) >= prefix })
	var out []symRef
	for ; i < len(s.syms); i++ {
		l := strings.ToLower(s.symName(s.syms[i]))
		if !strings.HasPrefix(l, prefix) {
			break
		}
		out = append(out, symRef{lower: l, doc: s.syms[i].doc, sym: s.syms[i].sym})
	}
	return out
}

// memSize estimates the bytes the segment holds beyond the docs' content.
func (s *segment) memSize() int {
	n := 12*len(s.chunks) + 8*len(s.syms)
	for i := range s.tri {
		n += s.tri[i].size() + s.terms[i].size()
	}
	for _, d := range s.docs {
		if d.blocks != nil {
			n += d.blocks.memSize()
		}
		n += len(d.content) + 4*len(d.tris) + d.symbols.size() + d.chunks.size() + len(d.path) + 120
	}
	return n
}

// bitset is a fixed-size set of small integers.
type bitset struct{ w []uint64 }

func newBitset(n int) *bitset { return &bitset{w: make([]uint64, (n+63)/64)} }

func (b *bitset) clear(i uint32) { b.w[i>>6] &^= 1 << (i & 63) }
