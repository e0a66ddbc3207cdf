package shell

import "strings"

// This file is a small lexer for the one-line programs agents hand to
// interpreters (python -c, perl -e, node -e, ruby -e, php -r, lua -e, awk,
// R, julia). It does not parse any of those languages; it splits code into
// names, strings, command literals and punctuation, which is enough to find
// the calls that run other programs or code and to read their arguments
// (code.go).

// codePH stands for a value inline code computes at run time (an
// interpolation, a variable, a call) inside text that reaches a shell: the
// nested analysis binds it to a value not known at check time.
const codePH = "${" + argVar + "}"

// ctok is a token of inline code.
type ctok struct {
	kind   ctokKind
	val    string // identifier (dotted), decoded string, punctuation
	interp bool   // a string with interpolations (replaced by codePH in val)
}

type ctokKind uint8

const (
	cIdent ctokKind = iota + 1
	cStr            // string literal
	cCmd            // command literal: backticks, qx{}, %x()
	cWords          // word list: ruby %w(), perl qw()
	cPunct
	cNum
	cEnd // end of a statement: newline or ';'
)

// maxCodeToks bounds the tokens of one program (longer code is dynamic).
const maxCodeToks = 8192

// lexCode splits code of language lang into tokens. ok is false when the
// code has more tokens than maxCodeToks.
func lexCode(code, lang string) (toks []ctok, ok bool) {
	hashComments := lang != "js" && lang != "lua" && lang != "vim" && lang != "c"
	backtickCmd := lang == "perl" || lang == "ruby" || lang == "php" || lang == "julia"
	for i := 0; i < len(code); {
		if len(toks) > maxCodeToks {
			return nil, false
		}
		c := code[i]
		switch {
		case c == '\n' || c == ';':
			if n := len(toks); n == 0 || toks[n-1].kind != cEnd {
				toks = append(toks, ctok{kind: cEnd, val: string(c)})
			}
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\\' && i+1 < len(code) && code[i+1] == '\n':
			i++
		case c == '#' && hashComments && !(lang == "perl" && i > 0 && code[i-1] == '$'),
			c == '/' && i+1 < len(code) && code[i+1] == '/' && (lang == "js" || lang == "php"),
			c == '-' && i+1 < len(code) && code[i+1] == '-' && lang == "lua":
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(code) && code[i+1] == '*' && (lang == "js" || lang == "php"):
			j := strings.Index(code[i+2:], "*/")
			if j < 0 {
				i = len(code)
			} else {
				i += j + 4
			}
		case c == '\'' || c == '"' || c == '`':
			if c == '`' && backtickCmd {
				v, interp, n := lexQuoted(code[i:], '`', '`', lang, true)
				toks = append(toks, ctok{kind: cCmd, val: v, interp: interp})
				i += n
				continue
			}
			prefix := ""
			if n := len(toks); n > 0 && toks[n-1].kind == cIdent && lang == "python" && isPyPrefix(toks[n-1].val) && i > 0 && code[i-1] != ' ' {
				prefix = strings.ToLower(toks[n-1].val)
				toks = toks[:n-1]
			}
			if lang == "python" && strings.HasPrefix(code[i:], strings.Repeat(string(c), 3)) {
				end := strings.Index(code[i+3:], strings.Repeat(string(c), 3))
				if end < 0 {
					end = len(code) - i - 3
				}
				v := code[i+3 : i+3+end]
				interp := false
				if strings.Contains(prefix, "f") {
					v, interp = pyFormat(v)
				}
				toks = append(toks, ctok{kind: cStr, val: v, interp: interp})
				i += end + 6
				continue
			}
			interps := c != '\'' || lang == "tcl"
			if lang == "python" {
				interps = strings.Contains(prefix, "f")
			}
			if lang == "awk" || lang == "lua" || lang == "r" || lang == "applescript" {
				interps = false
			}
			v, interp, n := lexQuoted(code[i:], c, c, lang, interps && lang != "python" && !strings.Contains(prefix, "r"))
			if lang == "python" && interps {
				v, interp = pyFormat(v)
			}
			toks = append(toks, ctok{kind: cStr, val: v, interp: interp})
			i += n
		case c == ':' && lang == "ruby" && i+1 < len(code) && isIdentStart(code[i+1]) && (i == 0 || code[i-1] != ':'):
			// a symbol: :system
			j := i + 1
			for j < len(code) && isIdentChar(code[j]) {
				j++
			}
			toks = append(toks, ctok{kind: cStr, val: code[i+1 : j]})
			i = j
		case isIdentStart(c) || (c == '$' || c == '@') && (lang == "perl" || lang == "php" || lang == "ruby" || lang == "js") || c == '%' && lang == "ruby" && i+2 < len(code) && strings.ContainsRune("xqQw", rune(code[i+1])) && !isIdentChar(code[i+2]):
			if c == '%' {
				open := code[i+2]
				close := closerOf(open)
				v, interp, n := lexQuoted(code[i+2:], open, close, lang, code[i+1] != 'q' && code[i+1] != 'w')
				switch code[i+1] {
				case 'x':
					toks = append(toks, ctok{kind: cCmd, val: v, interp: interp})
				case 'w':
					toks = append(toks, ctok{kind: cWords, val: v})
				default:
					toks = append(toks, ctok{kind: cStr, val: v, interp: interp})
				}
				i += 2 + n
				continue
			}
			j := i + 1
			for j < len(code) && isIdentChar(code[j]) {
				j++
			}
			word := code[i:j]
			// perl quote operators: qx{...} q(...) qq[...] qw/.../
			if lang == "perl" && (word == "qx" || word == "q" || word == "qq" || word == "qw") && j < len(code) && strings.ContainsRune("{([</|!#", rune(code[j])) {
				open := code[j]
				v, interp, n := lexQuoted(code[j:], open, closerOf(open), lang, word != "q" && word != "qw")
				switch word {
				case "qx":
					toks = append(toks, ctok{kind: cCmd, val: v, interp: interp})
				case "qw":
					toks = append(toks, ctok{kind: cWords, val: v})
				default:
					toks = append(toks, ctok{kind: cStr, val: v, interp: interp})
				}
				i = j + n
				continue
			}
			// a dotted name: os.path.join, Net::HTTP, $obj->run
			for j < len(code) {
				sep := 0
				switch {
				case code[j] == '.' && lang != "perl" && lang != "php" && lang != "lua" || code[j] == ':' && lang == "lua":
					sep = 1
				case strings.HasPrefix(code[j:], "::") || strings.HasPrefix(code[j:], "->"):
					sep = 2
				}
				if sep == 0 || j+sep >= len(code) || !isIdentStart(code[j+sep]) {
					break
				}
				word += "."
				j += sep
				k := j
				for j < len(code) && isIdentChar(code[j]) {
					j++
				}
				word += code[k:j]
			}
			toks = append(toks, ctok{kind: cIdent, val: word})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(code) && (isIdentChar(code[j]) || code[j] == '.') {
				j++
			}
			toks = append(toks, ctok{kind: cNum, val: code[i:j]})
			i = j
		default:
			n := 1
			if i+1 < len(code) {
				switch code[i : i+2] {
				case "|&", "..", "=>", "==", "!=", "<<", ">>", "&&", "||", "->", "::", "<=", ">=":
					n = 2
				}
			}
			toks = append(toks, ctok{kind: cPunct, val: code[i : i+n]})
			i += n
		}
	}
	return toks, true
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

func isPyPrefix(s string) bool {
	switch strings.ToLower(s) {
	case "f", "r", "b", "u", "rb", "br", "fr", "rf":
		return true
	}
	return false
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return c
}

// lexQuoted reads a quoted literal starting at s[0] == open and returns
// its value, whether it interpolates values (replaced by codePH), and the
// bytes consumed. Paired delimiters nest.
func lexQuoted(s string, open, close byte, lang string, interps bool) (string, bool, int) {
	var b strings.Builder
	depth := 0
	interp := false
	i := 1
	for ; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		if c == close && depth == 0 {
			i++
			break
		}
		if open != close {
			if c == open {
				depth++
			} else if c == close {
				depth--
			}
		}
		if interps {
			if n := interpAt(s[i:], lang); n > 0 {
				if isHomeText(s[i : i+n]) {
					b.WriteString(homeTok)
					i += n - 1
					continue
				}
				b.WriteString(codePH)
				interp = true
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String(), interp, i
}

// interpAt returns the length of an interpolation starting at s[0] in a
// string of language lang, or 0.
func interpAt(s, lang string) int {
	switch {
	case (lang == "js" || lang == "perl" || lang == "php" || lang == "tcl") && strings.HasPrefix(s, "${"),
		lang == "ruby" && strings.HasPrefix(s, "#{"),
		(lang == "perl" || lang == "ruby") && (strings.HasPrefix(s, "@{") || strings.HasPrefix(s, "#@")),
		lang == "php" && strings.HasPrefix(s, "{$"):
		return matchBrace(s, strings.IndexByte(s, '{'))
	case (lang == "perl" || lang == "php" || lang == "tcl") && len(s) > 1 && s[0] == '$' && isIdentStart(s[1]),
		lang == "perl" && len(s) > 1 && s[0] == '@' && isIdentStart(s[1]):
		j := 2
		for j < len(s) && (isIdentChar(s[j]) || s[j] == ':' && lang == "perl") {
			j++
		}
		if j < len(s) && (s[j] == '{' || s[j] == '[') && lang != "tcl" {
			if n := matchBrace(s, j); n > 0 {
				return n
			}
		}
		return j
	case lang == "tcl" && s[0] == '[':
		return matchBrace(s, 0)
	}
	return 0
}

// matchBrace returns the offset just past the bracket matching s[at].
func matchBrace(s string, at int) int {
	if at < 0 || at >= len(s) {
		return 0
	}
	open := s[at]
	close := closerOf(open)
	depth := 0
	for i := at; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(s)
}

// pyFormat replaces the replacement fields of a python f-string by codePH.
func pyFormat(v string) (string, bool) {
	var b strings.Builder
	interp := false
	for i := 0; i < len(v); i++ {
		switch {
		case strings.HasPrefix(v[i:], "{{"), strings.HasPrefix(v[i:], "}}"):
			b.WriteByte(v[i])
			i++
		case v[i] == '{':
			n := matchBrace(v, i)
			if isHomeText(v[i:n]) {
				b.WriteString(homeTok)
				i = n - 1
				continue
			}
			b.WriteString(codePH)
			interp = true
			i = n - 1
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String(), interp
}
