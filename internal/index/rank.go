package index

import (
	"context"
	"math"
	"slices"
	"sort"
	"strings"
)

// BM25's parameters (the usual ones).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// maxRanked is how many of the best BM25 chunks are fused.
const maxRanked = 1000

// rrfK is reciprocal rank fusion's constant: a hit ranked r in a list
// scores 1/(rrfK+r).
const rrfK = 60

// The boosts multiply a chunk's fused score.
const (
	boostDefinition  = 1.3 // the chunk is a whole definition of code
	boostOpen        = 1.3 // the file is open in the editor
	boostDiagnostics = 1.15
	boostChanged     = 1.2 // changed in git
	penaltyTest      = 0.8 // tests and test data rank after the code they test
)

// chunkKey names a chunk of a snapshot.
type chunkKey struct {
	seg   int
	chunk uint32
}

// ranked answers a natural-language or identifier query: the chunks'
// BM25 ranking over split identifiers and a symbol-name ranking, fused by
// reciprocal rank, then boosted.
func (x *Index) ranked(ctx context.Context, st *snapshot, q Query, keep func(*doc) bool) []Hit {
	terms := queryTerms(q.Text)
	if len(terms) == 0 {
		return nil
	}
	// BM25 over every live chunk of every segment; the statistics are the
	// sum over segments (a replaced chunk still counts: changes are few).
	var n, totalLen int64
	for _, sg := range st.segs {
		n += int64(len(sg.chunks))
		totalLen += sg.totalLen
	}
	if n == 0 {
		return nil
	}
	avg := float64(totalLen) / float64(n)
	keepDoc := map[*doc]bool{}
	keeps := func(d *doc) bool {
		v, ok := keepDoc[d]
		if !ok {
			v = keep(d)
			keepDoc[d] = v
		}
		return v
	}
	bm := map[chunkKey]float64{}
	idfs := map[string]float64{} // each query term's weighted IDF
	var idfSum float64
	for _, t := range terms {
		df := 0
		for _, sg := range st.segs {
			df += sg.termPostings(t.term).count(t.term)
		}
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
		idfs[t.term] += idf * t.weight
		idfSum += idf * t.weight
		for si, sg := range st.segs {
			sg.termPostings(t.term).each(t.term, func(c, tf uint32) {
				cr := sg.chunks[c]
				d := sg.docs[cr.doc]
				if !st.live(si, d.path) || !keeps(d) {
					return
				}
				f := float64(tf)
				s := idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(cr.length)/avg))
				bm[chunkKey{si, c}] += s * t.weight
			})
		}
	}
	bmList := sortedKeys(bm)
	if len(bmList) > maxRanked {
		bmList = bmList[:maxRanked]
	}
	// The definition a chunk is whose name (and scope) says the query's
	// words scores them once more, as a field of its own.
	top := make(map[chunkKey]float64, len(bmList))
	for _, k := range bmList {
		sg := st.segs[k.seg]
		cr := sg.chunks[k.chunk]
		d := sg.docs[cr.doc]
		top[k] = bm[k]
		if c := d.chunks.at(int(cr.chunk)); c.Symbol >= 0 {
			top[k] += nameBoost * nameCoverage(d.symbols.at(c.Symbol), idfs)
		}
	}
	bm, bmList = top, sortedKeys(top)

	// Symbols whose names match the query as an identifier.
	symList, symScores := x.symbolChunks(st, q, keeps)

	fused := map[chunkKey]float64{}
	addRanks(fused, bmList, func(i int) float64 { return bm[bmList[i]] })
	addRanks(fused, symList, func(i int) float64 { return symScores[i] })
	if q.Vectors && x.vec != nil {
		for r, k := range x.vec.rank(ctx, st, q.Text, keeps) {
			fused[k] += 1 / float64(rrfK+r+1)
		}
	}
	b := x.opts.Boosts
	for k, s := range fused {
		sg := st.segs[k.seg]
		cr := sg.chunks[k.chunk]
		d := sg.docs[cr.doc]
		c := d.chunks.at(int(cr.chunk))
		if c.Symbol >= 0 && definitionKind(d.symbols.at(c.Symbol).Kind) && d.symbols.at(c.Symbol).Line == c.Line {
			s *= boostDefinition
		}
		if b.Open != nil && b.Open(d.path) {
			s *= boostOpen
		}
		if b.Diagnostics != nil && b.Diagnostics(d.path) {
			s *= boostDiagnostics
		}
		if b.Changed != nil && b.Changed(d.path) {
			s *= boostChanged
		}
		if strings.Contains(d.path, "_test.") || strings.Contains(d.path, "testdata/") || strings.Contains(d.path, "/test/") {
			s *= penaltyTest
		}
		fused[k] = s
	}
	order := sortedKeys(fused)
	var out []Hit
	for _, k := range order {
		if len(out) == q.Limit {
			break
		}
		sg := st.segs[k.seg]
		cr := sg.chunks[k.chunk]
		d := sg.docs[cr.doc]
		c := d.chunks.at(int(cr.chunk))
		h := Hit{Path: d.path, Line: c.Line, EndLine: c.EndLine, Kind: "text", Score: fused[k], Preview: firstCodeLine(d, c.Line, c.EndLine)}
		if c.Symbol >= 0 {
			s := d.symbols.at(c.Symbol)
			h.Symbol, h.Kind = qualified(s), s.Kind
		}
		out = append(out, h)
	}
	return out
}

// addRanks adds each key's reciprocal rank in a list ordered best first
// to fused; keys of equal score share the rank of the first of them, so
// equal content scores the same whatever its position.
func addRanks(fused map[chunkKey]float64, keys []chunkKey, score func(i int) float64) {
	r := 0
	for i, k := range keys {
		if i > 0 && score(i) != score(i-1) {
			r = i
		}
		fused[k] += 1 / float64(rrfK+r+1)
	}
}

// sortedKeys orders a score map, highest first, ties by position.
func sortedKeys(m map[chunkKey]float64) []chunkKey {
	ks := make([]chunkKey, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		a, b := m[ks[i]], m[ks[j]]
		if a != b {
			return a > b
		}
		if ks[i].seg != ks[j].seg {
			return ks[i].seg < ks[j].seg
		}
		return ks[i].chunk < ks[j].chunk
	})
	return ks
}

// weightedTerm is a query term and its weight.
type weightedTerm struct {
	term   string
	weight float64
}

// queryTerms splits a query into terms: every identifier's words (and the
// identifier whole, which counts double); stop words of English questions
// are dropped.
func queryTerms(q string) []weightedTerm {
	w := map[string]float64{}
	var order []string
	tokenize([]byte(q), func(t string) {
		if stopWord(t) {
			return
		}
		if _, ok := w[t]; !ok {
			order = append(order, t)
		}
		w[t]++
	})
	// A word code usually abbreviates also asks for its abbreviations
	// ("request" finds req), at a lower weight.
	for _, t := range order {
		abbr := abbreviations(t)
		if abbr == nil {
			abbr = abbreviations(stem(t)) // a plural: "responses" is response
		}
		for _, a := range abbr {
			a = stem(a) // as the index holds it
			if _, ok := w[a]; !ok {
				order = append(order, a)
				w[a] = abbrevWeight * w[t]
			}
		}
	}
	out := make([]weightedTerm, 0, len(order))
	for _, t := range order {
		out = append(out, weightedTerm{t, w[t]})
	}
	return out
}

// stopWord reports words of English questions that say nothing about
// code (in their stemmed form, as tokenize gives them).
func stopWord(t string) bool {
	switch t {
	case "the", "an", "of", "to", "in", "is", "it", "and", "or", "for", "on", "by", "with",
		"that", "this", "which", "what", "where", "how", "does", "from", "as", "at", "be",
		"are", "its", "into", "if", "when", "whether", "given", "return", "function", "code",
		"find", "all", "any", "some", "can", "do", "not", "we", "you", "there", "them":
		return true
	}
	return false
}

// symbolChunks ranks the chunks that define a symbol matching the query
// as an identifier: its words joined ("parse header" is parseheader)
// compared with symbol names without separators: exact first, then
// prefix. The scores are parallel to the chunks.
func (x *Index) symbolChunks(st *snapshot, q Query, keep func(*doc) bool) ([]chunkKey, []float64) {
	words := SplitIdentifier(q.Text)
	if len(words) == 0 || len(words) > 6 {
		return nil, nil
	}
	joined := strings.Join(words, "")
	type cand struct {
		k     chunkKey
		score float64
		path  string
	}
	var cs []cand
	seen := map[chunkKey]bool{}
	for si, sg := range st.segs {
		// Names are compared without separators, so a prefix lookup on the
		// first word finds every spelling ("parse_header", "ParseHeader").
		for _, r := range sg.symbolsWithPrefix(words[0]) {
			d := sg.docs[r.doc]
			s := d.symbols.at(int(r.sym))
			bare := strings.ReplaceAll(strings.ReplaceAll(r.lower, "_", ""), "-", "")
			var score float64
			switch {
			case bare == joined:
				score = 2
			case strings.HasPrefix(bare, joined):
				score = 1
			default:
				continue
			}
			if !st.live(si, d.path) || !keep(d) {
				continue
			}
			if definitionKind(s.Kind) {
				score += 0.5
			}
			k, ok := chunkOf(sg, r.doc, s.Line)
			if !ok || seen[k] {
				continue
			}
			k.seg = si
			seen[k] = true
			cs = append(cs, cand{k, score, d.path})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return cs[i].path < cs[j].path
	})
	out := make([]chunkKey, len(cs))
	scores := make([]float64, len(cs))
	for i, c := range cs {
		out[i], scores[i] = c.k, c.score
	}
	return out, scores
}

// chunkOf finds the segment's chunk of doc di holding a line.
func chunkOf(sg *segment, di uint32, line int) (chunkKey, bool) {
	// A doc's chunks are contiguous in the segment.
	lo := sort.Search(len(sg.chunks), func(i int) bool { return sg.chunks[i].doc >= di })
	for i := lo; i < len(sg.chunks) && sg.chunks[i].doc == di; i++ {
		c := sg.docs[di].chunks.at(int(sg.chunks[i].chunk))
		if c.Line <= line && line <= c.EndLine {
			return chunkKey{chunk: uint32(i)}, true
		}
	}
	return chunkKey{}, false
}

// abbrevWeight is the weight of an abbreviation a query's word adds,
// against the word's own.
const abbrevWeight = 0.6

// abbreviations returns what code commonly writes for an English word
// (in its stemmed form, as tokenize gives it; queryTerms stems once more
// for plurals): "request" is often req, "connection" conn. The list is
// programmers' common usage, not any one code base's.
func abbreviations(w string) []string {
	switch w {
	case "request":
		return []string{"req"}
	case "respons":
		return []string{"resp", "res"}
	case "connection", "connect":
		return []string{"conn"}
	case "error":
		return []string{"err"}
	case "context":
		return []string{"ctx"}
	case "configuration", "config":
		return []string{"cfg", "conf", "config"}
	case "directory":
		return []string{"dir"}
	case "messag":
		return []string{"msg"}
	case "length":
		return []string{"len"}
	case "number":
		return []string{"num"}
	case "buffer":
		return []string{"buf"}
	case "initializ", "initial":
		return []string{"init"}
	case "argument":
		return []string{"arg", "args"}
	case "parameter":
		return []string{"param", "params"}
	case "valu":
		return []string{"val"}
	case "index":
		return []string{"idx"}
	case "address":
		return []string{"addr"}
	case "temporary":
		return []string{"tmp", "temp"}
	case "sourc":
		return []string{"src"}
	case "destination":
		return []string{"dst", "dest"}
	case "previous":
		return []string{"prev"}
	case "referenc":
		return []string{"ref"}
	case "variabl":
		return []string{"var"}
	case "packag":
		return []string{"pkg"}
	case "attribut":
		return []string{"attr"}
	case "position":
		return []string{"pos"}
	case "character":
		return []string{"char"}
	case "identifier":
		return []string{"id"}
	case "information":
		return []string{"info"}
	case "environment":
		return []string{"env"}
	case "allocat", "allocate":
		return []string{"alloc"}
	case "execut":
		return []string{"exec"}
	case "document":
		return []string{"doc"}
	case "sequenc":
		return []string{"seq"}
	case "statistic":
		return []string{"stats"}
	case "synchroniz":
		return []string{"sync"}
	case "current":
		return []string{"cur"}
	case "maximum":
		return []string{"max"}
	case "minimum":
		return []string{"min"}
	case "expression":
		return []string{"expr"}
	case "object":
		return []string{"obj"}
	case "receiver":
		return []string{"recv"}
	case "authentication", "authenticat", "authorization", "authoriz":
		return []string{"auth"}
	case "certificat":
		return []string{"cert"}
	case "transaction":
		return []string{"tx", "txn"}
	case "implementation", "implement":
		return []string{"impl"}
	case "specification":
		return []string{"spec"}
	case "millisecond":
		return []string{"ms"}
	case "calculat":
		return []string{"calc"}
	case "utility":
		return []string{"util"}
	case "declaration":
		return []string{"decl"}
	case "definition":
		return []string{"def"}
	case "original":
		return []string{"orig"}
	case "regular":
		return []string{"re", "regexp"}
	}
	return nil
}

// nameBoost weighs the query's words a definition's name (with its scope)
// holds: their IDF, times nameBoost, adds to the chunk's BM25 score.
const nameBoost = 0.7

// nameCoverage is the weighted IDF of the query's terms that the
// symbol's name or scope holds ("closes the connection" and
// ClientConn.Close share close and conn).
func nameCoverage(sym Symbol, idfs map[string]float64) float64 {
	var sum float64
	var seen []string
	for _, part := range []string{sym.Name, sym.Scope} {
		for _, w := range SplitIdentifier(part) {
			w = stem(w)
			if v, ok := idfs[w]; ok && !slices.Contains(seen, w) {
				seen = append(seen, w)
				sum += v
			}
		}
	}
	return sum
}
