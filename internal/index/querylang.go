package index

import (
	"errors"
	"fmt"
	"strings"
)

// ErrBadQuerySyntax reports a query string ParseQuery cannot read.
var ErrBadQuerySyntax = errors.New("invalid query syntax")

// ParseQuery reads the query language of `warden index search` and the
// doors' search tools: free text, "quoted phrases" (with \" and \\
// escapes), and filters:
//
//	file:GLOB (or path:)   only files matching the glob (repeatable)
//	-file:GLOB (-path:)    not files matching it (repeatable)
//	lang:NAME              only files of a language (go, python, typescript, ...)
//	kind:KIND              only symbols of a kind (function, method, class, ...)
//	mode:MODE              ranked, literal, regex or symbol
//	case:yes|no            case-sensitive matching
//	word:yes|no            whole words only
//
// A word with any other prefix before a colon ("http://x") is text. Text
// is the remaining words joined by single spaces, phrases verbatim.
func ParseQuery(s string) (Query, error) {
	var q Query
	var text []string
	var inc, exc []string
	toks, err := splitQuery(s)
	if err != nil {
		return Query{}, err
	}
	for _, t := range toks {
		if t.quoted {
			text = append(text, t.s)
			continue
		}
		key, val, ok := strings.Cut(t.s, ":")
		if !ok || t.colonQuoted {
			text = append(text, t.s)
			continue
		}
		switch key {
		case "file", "path", "-file", "-path", "lang", "kind", "mode", "case", "word":
		default:
			text = append(text, t.s)
			continue
		}
		if val == "" {
			return Query{}, fmt.Errorf("index: %q: empty %s: value: %w", s, key, ErrBadQuerySyntax)
		}
		switch key {
		case "file", "path":
			inc = append(inc, val)
		case "-file", "-path":
			exc = append(exc, val)
		case "lang":
			q.Lang = val
		case "kind":
			q.Kind = val
		case "mode":
			switch Mode(val) {
			case ModeRanked, ModeLiteral, ModeRegex, ModeSymbol:
				q.Mode = Mode(val)
			default:
				return Query{}, fmt.Errorf("index: %q: mode %q: %w", s, val, ErrBadQuerySyntax)
			}
		case "case", "word":
			var b bool
			switch val {
			case "yes", "true", "on":
				b = true
			case "no", "false", "off":
			default:
				return Query{}, fmt.Errorf("index: %q: %s:%s: want yes or no: %w", s, key, val, ErrBadQuerySyntax)
			}
			if key == "case" {
				q.CaseSensitive, q.CaseSet = b, true
			} else {
				q.WholeWord = b
			}
		}
	}
	q.Text = strings.Join(text, " ")
	q.Include = strings.Join(inc, ",")
	q.Exclude = strings.Join(exc, ",")
	return q, nil
}

type queryToken struct {
	s           string
	quoted      bool // the whole token was one quoted phrase
	colonQuoted bool // the token's first colon was inside quotes
	colonSeen   bool
}

// splitQuery splits on unquoted white space; quotes may open anywhere
// (file:"a b").
func splitQuery(s string) ([]queryToken, error) {
	var out []queryToken
	var cur strings.Builder
	inTok, inQuote := false, false
	var tok queryToken
	allQuoted := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			cur.WriteByte(s[i+1])
			i++
		case c == '"':
			inQuote = !inQuote
			inTok = true
		case inQuote:
			if c == ':' && !tok.colonSeen {
				tok.colonSeen, tok.colonQuoted = true, true
			}
			cur.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inTok {
				tok.s, tok.quoted = cur.String(), allQuoted
				out = append(out, tok)
				cur.Reset()
				tok, inTok, allQuoted = queryToken{}, false, true
			}
		default:
			if c == ':' {
				tok.colonSeen = true
			}
			cur.WriteByte(c)
			inTok = true
			allQuoted = false
		}
	}
	if inQuote {
		return nil, fmt.Errorf("index: %q: unterminated quote: %w", s, ErrBadQuerySyntax)
	}
	if inTok {
		tok.s, tok.quoted = cur.String(), allQuoted
		out = append(out, tok)
	}
	return out, nil
}

// String writes q back in the query language (ParseQuery(q.String())
// gives q again, Skip and Limit aside).
func (q Query) String() string {
	var parts []string
	quote := func(v string) string {
		if v != "" && !strings.ContainsAny(v, " \t\r\n\"\\:") {
			return v
		}
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	if q.Mode != "" {
		parts = append(parts, "mode:"+string(q.Mode))
	}
	switch {
	case q.CaseSensitive:
		parts = append(parts, "case:yes")
	case q.CaseSet:
		parts = append(parts, "case:no")
	}
	if q.WholeWord {
		parts = append(parts, "word:yes")
	}
	if q.Lang != "" {
		parts = append(parts, "lang:"+quote(q.Lang))
	}
	if q.Kind != "" {
		parts = append(parts, "kind:"+quote(q.Kind))
	}
	if q.Include != "" {
		parts = append(parts, "file:"+quote(q.Include))
	}
	if q.Exclude != "" {
		parts = append(parts, "-file:"+quote(q.Exclude))
	}
	if q.Text != "" {
		parts = append(parts, quote(q.Text))
	}
	return strings.Join(parts, " ")
}
