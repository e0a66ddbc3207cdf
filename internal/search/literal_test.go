package search

import (
	"fmt"
	"testing"
	"unicode"
)

// scanAll collects what scan reports, as "line:start:from-to" strings.
func scanAll(m *matcher, content []byte) []string {
	var out []string
	m.scan(content, false, func(line, start int, text []byte, loc []int) bool {
		out = append(out, fmt.Sprintf("%d:%d:%d-%d:%q", line, start, loc[0], loc[1], text))
		return true
	})
	return out
}

// checkLiteral compares the literal fast path with the regular expression
// it stands for on content.
func checkLiteral(t *testing.T, q string, opts Options, content []byte) {
	t.Helper()
	m, err := compile(q, opts)
	if err != nil {
		return
	}
	slow := *m
	slow.lit = nil
	got, want := scanAll(m, content), scanAll(&slow, content)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q %+v in %q:\nliteral %v\nregexp  %v", q, opts, content, got, want)
	}
	// Whichever byte a sample makes the search start from.
	for _, sample := range [][][]byte{{content}, {[]byte(q)}, nil} {
		tuned := *m
		(&Matcher{m: &tuned}).Sample(sample)
		if got := scanAll(&tuned, content); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q %+v in %q, from byte %d:\nliteral %v\nregexp  %v", q, opts, content, tuned.rare, got, want)
		}
	}
}

func TestLiteralFastPath(t *testing.T) {
	contents := []string{
		"errors.New(x)\nERRORS.NEW\nerrors.newer errors.New\r\nxerrors.New\n",
		"abc abc\nabcabc\n  abc\r\nABC xabc abcx\n",
		"ok OK \u212a k\n\u017fs S\nmask MASK ma\u212aK\n", // Kelvin sign, long s
		"a\xffb\xe2\x84k\n\xc5abc\n",                       // invalid UTF-8 around ASCII
		"line one\nline two\n\nline three",
		"aaaa\naaaaaaa\n",
		"tab\there\r\n\r\n",
	}
	queries := []string{"errors.New", "abc", "k", "s", "ok", "mask", "A", "aa", "aaa", "line", "LINE T", "b", "\n", "e\nl", "\r", "o\r", "\t", "é", "x"}
	for _, c := range contents {
		for _, q := range queries {
			for _, o := range []Options{{}, {CaseSensitive: true}, {WholeWord: true}, {CaseSensitive: true, WholeWord: true}} {
				checkLiteral(t, q, o, []byte(c))
			}
		}
	}
	// Regular expressions that are literals take the fast path too.
	for _, q := range []string{`errors\.New`, `abc`} {
		m, _ := compile(q, Options{UseRegex: true, CaseSensitive: true})
		if m.lit == nil {
			t.Errorf("%q: no literal fast path", q)
		}
		checkLiteral(t, q, Options{UseRegex: true, CaseSensitive: true}, []byte(contents[0]))
	}
	// Not a literal, or not ASCII under folding: the regular expression.
	for _, c := range []struct {
		q string
		o Options
	}{{`a.c`, Options{UseRegex: true}}, {"é", Options{}}, {`^abc`, Options{UseRegex: true, CaseSensitive: true}}} {
		if m, _ := compile(c.q, c.o); m.lit != nil {
			t.Errorf("%q %+v: literal fast path %q", c.q, c.o, m.lit)
		}
	}
}

// TestASCIIFolds is what the case-insensitive fast path relies on: under
// Unicode simple folding, an ASCII letter is equal only to its other case,
// except k and s (the Kelvin sign, the long s), and nothing else in ASCII
// folds at all.
func TestASCIIFolds(t *testing.T) {
	for r := rune(0); r < unicode.MaxASCII+1; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			switch {
			case f == '\u212a' && (r == 'k' || r == 'K'), f == '\u017f' && (r == 's' || r == 'S'):
			case f < unicode.MaxASCII+1 && unicode.ToLower(f) == unicode.ToLower(r) && unicode.IsLetter(r):
			default:
				t.Errorf("%q folds to %q", r, f)
			}
		}
	}
}

func FuzzLiteral(f *testing.F) {
	f.Add("errors.New", "x errors.New y\nERRORS.new\r\n", false, false)
	f.Add("k", "\u212a k K\n", false, true)
	f.Add("ss", "\u017fs sS\n", false, false)
	f.Add("a\nb", "a\nb\n", true, false)
	f.Fuzz(func(t *testing.T, q, content string, caseSensitive, wholeWord bool) {
		checkLiteral(t, q, Options{CaseSensitive: caseSensitive, WholeWord: wholeWord}, []byte(content))
	})
}

// scanAllSub collects what scan reports with submatches.
func scanAllSub(m *matcher, content []byte) []string {
	var out []string
	m.scan(content, true, func(line, start int, text []byte, loc []int) bool {
		out = append(out, fmt.Sprintf("%d:%d:%v:%q", line, start, loc, text))
		return true
	})
	return out
}

// checkInner compares the inner-literal path of a regular expression with
// the regular expression alone on content.
func checkInner(t *testing.T, q string, opts Options, content []byte) {
	t.Helper()
	opts.UseRegex = true
	m, err := compile(q, opts)
	if err != nil {
		return
	}
	slow := *m
	slow.inner = nil
	if got, want := scanAll(m, content), scanAll(&slow, content); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q %+v in %q (inner %q):\ninner  %v\nregexp %v", q, opts, content, innerLit(m), got, want)
	}
	if got, want := scanAllSub(m, content), scanAllSub(&slow, content); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q %+v in %q (inner %q), submatches:\ninner  %v\nregexp %v", q, opts, content, innerLit(m), got, want)
	}
	if m.inner != nil {
		tuned := *m
		inner := *m.inner
		tuned.inner = &inner
		(&Matcher{m: &tuned}).Sample([][]byte{content})
		if got, want := scanAll(&tuned, content), scanAll(&slow, content); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q %+v in %q (inner %q from byte %d):\ninner  %v\nregexp %v", q, opts, content, innerLit(m), inner.rare, got, want)
		}
	}
}

func TestSample(t *testing.T) {
	m, _ := Compile("errors.New", Options{CaseSensitive: true})
	if m.m.lit[m.m.rare] != 'w' {
		t.Fatalf("from %q, want w (the table's rarest)", m.m.lit[m.m.rare])
	}
	// In text where w abounds and N is rare, N is searched for first.
	m.Sample([][]byte{[]byte("w w w w . . . e e e r r r o o o s s s N\n"), []byte("w.")})
	if m.m.lit[m.m.rare] != 'N' {
		t.Errorf("from %q, want N", m.m.lit[m.m.rare])
	}
	// Ignoring case, both cases count: "e" is rare in lower case only.
	m, _ = Compile("sEt", Options{})
	m.Sample([][]byte{[]byte("EEEEEEEEEE sss ttt")})
	if c := m.m.lit[m.m.rare]; c != 's' && c != 't' {
		t.Errorf("from %q, want s or t", c)
	}
	m, _ = Compile(`\w+\(ctx context\.Context`, Options{UseRegex: true, CaseSensitive: true})
	m.Sample([][]byte{[]byte("CCCCCCCC xxx")})
	if c := m.m.inner.lit[m.m.inner.rare]; c == 'C' || c == 'x' {
		t.Errorf("inner literal from %q", c)
	}
}

func innerLit(m *matcher) []byte {
	if m.inner == nil {
		return nil
	}
	return m.inner.lit
}

func TestInnerLiteral(t *testing.T) {
	contents := []string{
		"func f(ctx context.Context) {\nfunc g(ctx context.Context, x int)\r\nfunc (ctx context.Context)\n",
		"FUNC F(CTX CONTEXT.CONTEXT)\nfunc_x(ctx context.Context\n\nfunc h(ctx context.Context",
		"ab\r\r\nxab\rab\nab\n\n\xffab\xff\nΣab σab\n",
		"\u212a \u017f k s K S ks\n",
		"a\nb\na\r\nb\n",
	}
	queries := []struct {
		q      string
		inner  string // "" for none
		strict bool   // case-sensitive
	}{
		{`func [A-Za-z_][A-Za-z0-9_]*\(ctx context\.Context`, "(ctx context.Context", true},
		{`func \w+\(ctx`, "(ctx", true},
		{`a+b`, "b", true},
		{`(ab)+\r`, "\r", true},
		{`ab$`, "ab", true},
		{`^ab`, "ab", true},
		{`\bab\b`, "ab", true},
		{`x?ab`, "ab", true},
		{`(?i)ab.`, "", true},
		{`[σΣ]ab`, "ab", true},
		{`.ab.`, "ab", true},
		{`\x{FFFD}ab`, "ab", true},
		{`ab|cd`, "", true},
		{`a\nb`, "", true}, // a literal: the literal path
		{`a\r?`, "a", true},
		{`(?i)k.`, "", false},
		{`(?i)\(ctx c`, "(", false},
		{`[a-z]+ \(`, " (", true},
	}
	for _, q := range queries {
		opts := Options{UseRegex: true, CaseSensitive: q.strict}
		m, err := compile(q.q, opts)
		if err != nil {
			t.Fatalf("%q: %v", q.q, err)
		}
		if got := string(innerLit(m)); got != q.inner {
			t.Errorf("%q: inner literal %q, want %q", q.q, got, q.inner)
		}
		for _, c := range contents {
			for _, ww := range []bool{false, true} {
				checkInner(t, q.q, Options{CaseSensitive: q.strict, WholeWord: ww}, []byte(c))
			}
		}
	}
}

func FuzzInnerLiteral(f *testing.F) {
	f.Add(`func \w+\(ctx`, "func f(ctx)\nfunc g(ctx\r\n", true, false)
	f.Add(`a+b`, "aab\nb\r\nab\r", false, false)
	f.Add(`[σΣ]ab`, "Σab σab\n\xffab", true, true)
	f.Fuzz(func(t *testing.T, q, content string, caseSensitive, wholeWord bool) {
		checkInner(t, q, Options{CaseSensitive: caseSensitive, WholeWord: wholeWord}, []byte(content))
	})
}
