package search

import (
	"bytes"
	"fmt"
	"regexp"
	"unicode"
	"unicode/utf8"
)

// matcher is a compiled query.
type matcher struct {
	re        *regexp.Regexp
	wholeWord bool
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
	return &matcher{re: re, wholeWord: opts.WholeWord}, nil
}

// scan calls fn for every reported match of content, in order: line is
// the 0-based line number, start the byte offset of the line in content,
// text the line without its line break (and without a trailing "\r"), and
// loc the match's byte offsets in text (with submatches when sub). fn
// returns false to stop.
func (m *matcher) scan(content []byte, sub bool, fn func(line, start int, text []byte, loc []int) bool) {
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
