package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitIdentifier splits an identifier into its lower-case words:
// camelCase, PascalCase, snake_case, kebab-case and digits all break
// words, and an upper-case run keeps its last letter for the next word
// ("HTTPServer" is "http", "server"; "parse_header2" is "parse",
// "header", "2"). A word with no letters or digits is dropped.
func SplitIdentifier(id string) []string {
	var words []string
	runes := []rune(id)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(runes[start:end])))
		}
		start = -1
	}
	for i, r := range runes {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		if !alnum {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsDigit(r) != unicode.IsDigit(prev):
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
			start = i
		case unicode.IsLower(r) && unicode.IsUpper(prev) && i-1 > start:
			// "HTTPServer": the "S" starts the next word.
			flush(i - 1)
			start = i - 1
		}
	}
	flush(len(runes))
	return words
}

// tokenizer splits text into terms, reusing its buffers and interning
// the terms it has seen, so a build does not allocate per token. It is
// not safe for concurrent use: each worker has its own.
type tokenizer struct {
	buf    []byte
	intern map[string]string
}

func newTokenizer() *tokenizer {
	return &tokenizer{intern: make(map[string]string, 1024)}
}

// term returns b as an interned string.
func (tk *tokenizer) term(b []byte) string {
	if s, ok := tk.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(tk.intern) > 1<<20 {
		clear(tk.intern)
	}
	tk.intern[s] = s
	return s
}

// tokenize calls fn for every term of text: each identifier-like run
// (letters, digits, underscores) in lower case, and, when it splits into
// several words, each word too (stemmed). Terms shorter than two bytes and
// identifiers longer than 64 are dropped.
func tokenize(text []byte, fn func(term string)) {
	newTokenizer().tokenize(text, fn)
}

func (tk *tokenizer) tokenize(text []byte, fn func(term string)) {
	i := 0
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf && !isIdentByte(c) {
			i++
			continue
		}
		j := i
		ascii := true
		for j < len(text) {
			c := text[j]
			if c < utf8.RuneSelf {
				if !isIdentByte(c) {
					break
				}
				j++
				continue
			}
			r, size := utf8.DecodeRune(text[j:])
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				break
			}
			ascii = false
			j += size
		}
		if j == i { // a non-ASCII byte that is no letter
			_, size := utf8.DecodeRune(text[i:])
			i += size
			continue
		}
		if ascii {
			tk.emitASCII(text[i:j], fn)
		} else {
			emitIdent(string(text[i:j]), fn)
		}
		i = j
	}
}

// emitASCII is emitIdent for an ASCII identifier, without allocating.
func (tk *tokenizer) emitASCII(id []byte, fn func(string)) {
	if len(id) > 64 {
		return
	}
	tk.buf = tk.buf[:0]
	simple := true
	for _, c := range id {
		if c == '_' || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			simple = false
		}
		tk.buf = append(tk.buf, fold(c))
	}
	lower := tk.buf
	if simple {
		if len(lower) >= 2 {
			fn(stem(tk.term(lower)))
		}
		return
	}
	// Words: break at '_', at digit/letter changes, before an upper-case
	// letter that follows a lower-case one, and before the last letter of
	// an upper-case run that a lower-case letter follows.
	nwords := 0
	var first [2]int
	start := -1
	emitWord := func(a, b int) {
		if a < 0 || b <= a {
			return
		}
		if nwords == 0 {
			first = [2]int{a, b}
		}
		nwords++
		if b-a >= 2 {
			fn(stem(tk.term(lower[a:b])))
		}
	}
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isUpper := func(c byte) bool { return c >= 'A' && c <= 'Z' }
	isLower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	for k, c := range id {
		if c == '_' {
			emitWord(start, k)
			start = -1
			continue
		}
		if start < 0 {
			start = k
			continue
		}
		prev := id[k-1]
		switch {
		case isDigit(c) != isDigit(prev):
			emitWord(start, k)
			start = k
		case isUpper(c) && isLower(prev):
			emitWord(start, k)
			start = k
		case isLower(c) && isUpper(prev) && k-1 > start:
			emitWord(start, k-1)
			start = k - 1
		}
	}
	emitWord(start, len(id))
	a, b := 0, len(lower)
	for a < b && lower[a] == '_' {
		a++
	}
	for b > a && lower[b-1] == '_' {
		b--
	}
	if (nwords != 1 || first != [2]int{a, b}) && b-a >= 2 {
		fn(tk.term(lower[a:b]))
	}
}

// emitIdent emits an identifier and its words.
func emitIdent(id string, fn func(string)) {
	if len(id) > 64 {
		return
	}
	whole := strings.ToLower(id)
	words := SplitIdentifier(id)
	if t := strings.Trim(whole, "_"); (len(words) != 1 || words[0] != t) && len(t) >= 2 {
		fn(t)
	}
	for _, w := range words {
		if len(w) >= 2 {
			fn(stem(w))
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// stem strips the commonest English inflections so "headers" finds
// "header" and "parsing" finds "parse": a deliberately small stemmer
// (plural "s"/"es", "ing", "ed", a final "e"), applied to words of five
// letters or more only.
func stem(w string) string {
	if len(w) < 5 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		return undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) >= 6:
		return undouble(w[:len(w)-2])
	case strings.HasSuffix(w, "es") && (strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "xes")):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s"):
		// the singular's own stem: "closes" meets "close" (clos)
		return stem(w[:len(w)-1])
	case strings.HasSuffix(w, "e"):
		return w[:len(w)-1]
	}
	return w
}

// undouble turns "stopp" (from "stopped") into "stop"; "pars" (from
// "parsing") meets "parse", whose final "e" stem drops.
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && w[n-1] != 'l' && w[n-1] != 's' && w[n-1] != 'z' {
		return w[:n-1]
	}
	return w
}
