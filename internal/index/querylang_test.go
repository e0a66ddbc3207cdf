package index

import (
	"reflect"
	"testing"
)

func TestParseQuery(t *testing.T) {
	cases := map[string]Query{
		"parse header":                   {Text: "parse header"},
		`lang:go kind:function "a  b" c`: {Text: "a  b c", Lang: "go", Kind: "function"},
		`file:*.go -file:vendor file:"x y" mode:regex case:yes word:no foo.*`: {
			Text: "foo.*", Include: "*.go,x y", Exclude: "vendor", Mode: ModeRegex, CaseSensitive: true, CaseSet: true},
		"case:no Zeta":                   {Text: "Zeta", CaseSet: true},
		"http://example.com other:thing": {Text: "http://example.com other:thing"},
		`"lang:go"`:                      {Text: "lang:go"},
		`"say \"hi\""`:                   {Text: `say "hi"`},
		"":                               {},
	}
	for in, want := range cases {
		got, err := ParseQuery(in)
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", in, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ParseQuery(%q) = %+v, want %+v", in, got, want)
		}
	}
	for _, bad := range []string{`"open`, "mode:fuzzy x", "case:maybe x", "lang: x", `file:"a`, `say \"hi\"`} {
		if q, err := ParseQuery(bad); err == nil {
			t.Errorf("ParseQuery(%q) = %+v, want an error", bad, q)
		}
	}
}

// FuzzParseQuery: the parser never panics, and what it reads is written
// back by String into a query that reads the same.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"parse header", `lang:go "a b" kind:method`, `file:"x y" -file:z mode:symbol case:yes`, "case:no x",
		`"unterminated`, `a\"b`, `mode:regex ^func\s+\w+`, "http://x:y", `"":""`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := ParseQuery(s)
		if err != nil {
			return
		}
		again, err := ParseQuery(q.String())
		if err != nil {
			t.Fatalf("ParseQuery(%q) = %+v; its String %q does not parse: %v", s, q, q.String(), err)
		}
		if !reflect.DeepEqual(again, q) {
			t.Fatalf("round trip of %q: %+v -> %q -> %+v", s, q, q.String(), again)
		}
	})
}
