package search

import (
	"bytes"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher is a compiled query.
type matcher struct {
	re        *regexp.Regexp
	wholeWord bool
	// finder's lit, when set, is found with byte comparisons instead of
	// re (which gives the same matches): a literal query matched
	// case-sensitively (or a regular expression that is one), or an ASCII
	// literal matched ignoring case (then lit is in lower case and fold is
	// set).
	finder
	// foldKS: lit holds a k or an s, which (?i) also matches as the
	// Kelvin sign and the long s; content holding either is left to re.
	foldKS bool
	// inner, when set (a regular expression that is not a literal), is a
	// literal every match holds: only the lines holding it are given to
	// re, as ripgrep does.
	inner *finder
}

// finder finds a literal with byte searches.
type finder struct {
	lit  []byte
	fold bool // lit is lower case and found ignoring ASCII case
	// rare is the position in lit of its rarest byte in source code,
	// which is searched for first.
	rare int
}

// newFinder returns the finder of lit.
func newFinder(lit []byte, fold bool) finder {
	f := finder{lit: lit, fold: fold}
	for i, c := range lit {
		if byteRank[c] < byteRank[lit[f.rare]] {
			f.rare = i
		}
	}
	return f
}

// compile turns a query and its options into a matcher.
func compile(query string, opts Options) (*matcher, error) {
	if query == "" {
		return nil, fmt.Errorf("search: %w", ErrEmptyQuery)
	}
	expr := query
	if !opts.UseRegex {
		expr = regexp.QuoteMeta(query)
	}
	flags := "(?m)"
	if !opts.CaseSensitive {
		flags = "(?mi)"
	}
	// The group keeps the user's top-level alternation inside the flags.
	re, err := regexp.Compile(flags + "(?:" + expr + ")")
	if err != nil {
		return nil, fmt.Errorf("search: %q: %w: %w", query, ErrBadQuery, err)
	}
	m := &matcher{re: re, wholeWord: opts.WholeWord}
	if p, complete := re.LiteralPrefix(); complete && p != "" {
		m.finder = newFinder([]byte(p), false)
	} else if !opts.UseRegex && !opts.CaseSensitive && asciiOnly(query) {
		lit, fold := []byte(strings.ToLower(query)), false
		for _, c := range lit {
			if c >= 'a' && c <= 'z' {
				fold = true
			}
			if c == 'k' || c == 's' {
				m.foldKS = true
			}
		}
		m.finder = newFinder(lit, fold)
	} else if syn, err := syntax.Parse(flags+"(?:"+expr+")", syntax.Perl); err == nil {
		if lit := requiredLiteral(syn.Simplify(), 0); lit != nil {
			f := newFinder(lit, false)
			m.inner = &f
		}
	}
	return m, nil
}

// requiredLiteral returns a literal (case-sensitive UTF-8 bytes) that
// every match of re holds, the one whose rarest byte is rarest (then the
// longest), nil when it finds none. It is conservative: what it cannot
// reason about requires nothing.
func requiredLiteral(re *syntax.Regexp, depth int) []byte {
	if depth > 64 {
		return nil
	}
	switch re.Op {
	case syntax.OpLiteral:
		return literalRun(re)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0], depth+1)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0], depth+1)
		}
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if lit := requiredLiteral(sub, depth+1); rarer(lit, best) {
				best = lit
			}
		}
		return best
	}
	return nil
}

// literalRun returns the best run of a literal node's runes that match
// only themselves, as bytes: under case folding a rune with other cases
// (and the k, s of the Kelvin sign and the long s) breaks the run, and so
// does U+FFFD, which also matches an invalid byte.
func literalRun(re *syntax.Regexp) []byte {
	folded := re.Flags&syntax.FoldCase != 0
	var best, run []byte
	flush := func() {
		if rarer(run, best) {
			best = run
		}
		run = nil
	}
	for _, r := range re.Rune {
		if r == utf8.RuneError || r < 0 || r > unicode.MaxRune || folded && unicode.SimpleFold(r) != r {
			flush()
			continue
		}
		run = utf8.AppendRune(run, r)
	}
	flush()
	return best
}

// rarer reports whether literal a is the better one to search for than b:
// its rarest byte is rarer, or as rare and a is longer.
func rarer(a, b []byte) bool {
	if len(a) == 0 {
		return false
	}
	if len(b) == 0 {
		return true
	}
	ra, rb := rarest(a), rarest(b)
	return ra < rb || ra == rb && len(a) > len(b)
}

// rarest is the rank of the rarest byte of lit.
func rarest(lit []byte) uint8 {
	r := uint8(255)
	for _, c := range lit {
		r = min(r, byteRank[c])
	}
	return r
}

func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// The Kelvin sign and the long s, which (?i) matches as k and s.
var kelvin, longS = []byte("\u212a"), []byte("\u017f")

// literal returns the literal to find in content in place of the regular
// expression, nil when content needs the regular expression.
func (m *matcher) literal(content []byte) []byte {
	if m.lit == nil || m.foldKS && (bytes.Contains(content, kelvin) || bytes.Contains(content, longS)) {
		return nil
	}
	return m.lit
}

// tune re-chooses the byte the search starts from: the literal's byte
// that occurs least often in sample (text like the text to be searched),
// the rarest in source code among equals.
func (m *finder) tune(sample [][]byte) {
	best, bestN := m.rare, -1
	for i, c := range m.lit {
		if bytes.IndexByte(m.lit[:i], c) >= 0 {
			continue // counted
		}
		n := 0
		for _, s := range sample {
			n += bytes.Count(s, []byte{c})
			if m.fold && c >= 'a' && c <= 'z' {
				n += bytes.Count(s, []byte{c - 'a' + 'A'})
			}
		}
		if bestN < 0 || n < bestN || n == bestN && byteRank[c] < byteRank[m.lit[best]] {
			best, bestN = i, n
		}
	}
	m.rare = best
}

// index returns the offset of the first occurrence of f.lit in b (ASCII
// case folded when f.fold), -1 for none. It looks for the literal's rarest
// byte first (memchr), as ripgrep does, then compares the rest.
func (m *finder) index(b []byte) int {
	lit, r := m.lit, m.rare
	n := len(lit)
	if len(b) < n {
		return -1
	}
	c := lit[r]
	if !m.fold || c < 'a' || c > 'z' {
		for i := r; i <= len(b)-n+r; {
			j := bytes.IndexByte(b[i:len(b)-n+r+1], c)
			if j < 0 {
				return -1
			}
			i += j
			if s := i - r; m.equal(b[s : s+n]) {
				return s
			}
			i++
		}
		return -1
	}
	// A letter under folding: either case, looked for in windows so
	// neither search runs far past the other's next hit.
	const window = 4096
	u := c - 'a' + 'A'
	last := len(b) - n + r // the last position the rare byte can be at
	for lo := r; lo <= last; lo += window {
		hi := min(last+1, lo+window)
		w := b[lo:hi]
		for i := 0; i < len(w); {
			j := bytes.IndexByte(w[i:], c)
			k := bytes.IndexByte(w[i:], u)
			if j < 0 || (k >= 0 && k < j) {
				j = k
			}
			if j < 0 {
				break
			}
			i += j
			if s := lo + i - r; m.equal(b[s : s+n]) {
				return s
			}
			i++
		}
	}
	return -1
}

// equal reports whether b (as long as f.lit) is f.lit.
func (m *finder) equal(b []byte) bool {
	if !m.fold {
		return bytes.Equal(b, m.lit)
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != m.lit[i] {
			return false
		}
	}
	return true
}

// byteRank ranks bytes by how often they occur in source code (0 the
// rarest), counted over $GOROOT/src.
var byteRank = [256]uint8{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 253, 249, 9, 10, 58, 11, 12,
	13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
	255, 183, 226, 161, 167, 174, 179, 169, 232, 231, 187, 180, 244, 186, 233, 234,
	251, 236, 230, 219, 221, 202, 218, 196, 209, 199, 229, 176, 178, 224, 171, 158,
	157, 216, 191, 205, 203, 215, 194, 185, 184, 206, 163, 175, 197, 201, 193, 208,
	204, 172, 212, 223, 217, 188, 195, 182, 200, 181, 166, 190, 207, 189, 160, 220,
	165, 247, 222, 240, 238, 254, 239, 227, 225, 246, 168, 198, 241, 228, 248, 243,
	235, 170, 250, 245, 252, 237, 210, 192, 242, 211, 177, 214, 173, 213, 156, 29,
	155, 144, 154, 148, 127, 146, 139, 98, 149, 131, 138, 91, 111, 77, 99, 73,
	109, 92, 96, 114, 136, 140, 86, 128, 124, 135, 68, 71, 134, 141, 105, 78,
	87, 97, 89, 95, 132, 126, 104, 113, 94, 137, 110, 119, 123, 117, 100, 82,
	85, 129, 125, 120, 93, 101, 88, 162, 90, 145, 112, 107, 142, 116, 133, 84,
	30, 31, 164, 122, 63, 60, 51, 69, 59, 83, 79, 62, 121, 81, 152, 106,
	74, 67, 50, 53, 55, 75, 76, 80, 150, 153, 65, 66, 56, 46, 49, 52,
	103, 147, 159, 151, 102, 130, 143, 115, 108, 72, 70, 57, 61, 54, 47, 64,
	118, 32, 33, 34, 48, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45,
}

// scan calls fn for every reported match of content, in order: line is
// the 0-based line number, start the byte offset of the line in content,
// text the line without its line break (and without a trailing "\r"), and
// loc the match's byte offsets in text (with submatches when sub). fn
// returns false to stop.
func (m *matcher) scan(content []byte, sub bool, fn func(line, start int, text []byte, loc []int) bool) {
	if lit := m.literal(content); lit != nil && !sub {
		m.scanLiteral(content, fn)
		return
	}
	if m.inner != nil {
		m.scanInner(content, sub, fn)
		return
	}
	// A regular expression can only match in a line if it matches in the
	// whole buffer ((?m) makes ^ and $ line anchors), so the buffer is
	// searched first and only lines holding a candidate are examined. "\r"
	// breaks that reasoning for $, so CRLF content is examined line by line.
	crlf := bytes.IndexByte(content, '\r') >= 0
	pos, lineNo, counted := 0, 0, 0
	for pos <= len(content) {
		ls := pos
		if !crlf {
			loc := m.re.FindIndex(content[pos:])
			if loc == nil {
				return
			}
			ls = pos + loc[0]
			if i := bytes.LastIndexByte(content[pos:ls], '\n'); i >= 0 {
				ls = pos + i + 1
			} else {
				ls = pos
			}
		}
		le := len(content)
		if i := bytes.IndexByte(content[ls:], '\n'); i >= 0 {
			le = ls + i
		}
		lineNo += bytes.Count(content[counted:ls], []byte{'\n'})
		counted = ls
		text := content[ls:le]
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		}
		if !m.scanLine(lineNo, ls, text, sub, fn) {
			return
		}
		if le == len(content) {
			return
		}
		pos = le + 1
	}
}

// scanLiteral is scan for m.lit: the same matches as the regular
// expression (leftmost, not overlapping, line by line), found with byte
// searches. A literal that holds a line break matches no line.
func (m *matcher) scanLiteral(content []byte, fn func(line, start int, text []byte, loc []int) bool) {
	if bytes.IndexByte(m.lit, '\n') >= 0 {
		return
	}
	var loc [2]int
	linesWith(content, m.index, func(lineNo, ls int, text []byte) bool {
		for i := 0; i+len(m.lit) <= len(text); {
			j := m.index(text[i:])
			if j < 0 {
				break
			}
			loc[0], loc[1] = i+j, i+j+len(m.lit)
			i = loc[1]
			if m.wholeWord && !wholeWord(text, loc[0], loc[1]) {
				continue
			}
			if !fn(lineNo, ls, text, loc[:]) {
				return false
			}
		}
		return true
	})
}

// scanInner is scan for a regular expression with an inner literal: the
// lines holding the literal are found with byte searches and only they
// are given to the regular expression (a line without it has no match).
func (m *matcher) scanInner(content []byte, sub bool, fn func(line, start int, text []byte, loc []int) bool) {
	linesWith(content, m.inner.index, func(lineNo, ls int, text []byte) bool {
		return m.scanLine(lineNo, ls, text, sub, fn)
	})
}

// linesWith calls fn, in order, for each line of content in which index
// finds a hit (its 0-based number, its start offset and its text without
// the line break or a trailing \r), until fn returns false. Lines without
// a hit are skipped by the byte search, never walked.
func linesWith(content []byte, index func([]byte) int, fn func(lineNo, start int, text []byte) bool) {
	pos, lineNo, counted := 0, 0, 0
	for pos < len(content) {
		at := index(content[pos:])
		if at < 0 {
			return
		}
		ls := pos
		if i := bytes.LastIndexByte(content[pos:pos+at], '\n'); i >= 0 {
			ls = pos + i + 1
		}
		le := len(content)
		if i := bytes.IndexByte(content[pos+at:], '\n'); i >= 0 {
			le = pos + at + i
		}
		lineNo += bytes.Count(content[counted:ls], []byte{'\n'})
		counted = ls
		text := content[ls:le]
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		}
		if !fn(lineNo, ls, text) {
			return
		}
		pos = le + 1
	}
}

// scanLine reports the matches of one line; false means stop.
func (m *matcher) scanLine(lineNo, start int, text []byte, sub bool, fn func(line, start int, text []byte, loc []int) bool) bool {
	var locs [][]int
	if sub {
		locs = m.re.FindAllSubmatchIndex(text, -1)
	} else {
		locs = m.re.FindAllIndex(text, -1)
	}
	for _, loc := range locs {
		if loc[0] == loc[1] {
			continue
		}
		if m.wholeWord && !wholeWord(text, loc[0], loc[1]) {
			continue
		}
		if !fn(lineNo, start, text, loc) {
			return false
		}
	}
	return true
}

// wholeWord reports whether text[s:e] does not continue a word: a match
// that starts (ends) with a word character must not be preceded (followed)
// by one.
func wholeWord(text []byte, s, e int) bool {
	first, _ := utf8.DecodeRune(text[s:e])
	last, _ := utf8.DecodeLastRune(text[s:e])
	if isWord(first) && s > 0 {
		if r, _ := utf8.DecodeLastRune(text[:s]); isWord(r) {
			return false
		}
	}
	if isWord(last) && e < len(text) {
		if r, _ := utf8.DecodeRune(text[e:]); isWord(r) {
			return false
		}
	}
	return true
}

func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
