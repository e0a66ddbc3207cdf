package index

import (
	"reflect"
	"slices"
	"testing"
)

func TestSplitIdentifier(t *testing.T) {
	cases := map[string][]string{
		"parseHeader":     {"parse", "header"},
		"ParseHeader":     {"parse", "header"},
		"parse_header":    {"parse", "header"},
		"PARSE_HEADER":    {"parse", "header"},
		"HTTPServer":      {"http", "server"},
		"getHTTPResponse": {"get", "http", "response"},
		"utf8Decode":      {"utf", "8", "decode"},
		"x":               {"x"},
		"__init__":        {"init"},
		"kebab-case-name": {"kebab", "case", "name"},
		"naïveCafé":       {"naïve", "café"},
		"":                nil,
	}
	for in, want := range cases {
		if got := SplitIdentifier(in); !reflect.DeepEqual(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTokenize(t *testing.T) {
	cases := map[string][]string{
		"parseHeader(line)":    {"parseheader", "pars", "header", "line"},
		"func parse_headers()": {"func", "parse_headers", "pars", "header"},
		"HTTPServer x":         {"httpserver", "http", "server"},
		"naïveCafé":            {"naïvecafé", "naïv", "café"},
		"the parsing of files": {"the", "pars", "of", "file"},
		"__init__":             {"init"},
	}
	for in, want := range cases {
		var got []string
		tokenize([]byte(in), func(s string) { got = append(got, s) })
		slices.Sort(got)
		slices.Sort(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTokenizeASCIIMatchesGeneral checks the allocation-free ASCII path
// gives the terms the general path gives.
func TestTokenizeASCIIMatchesGeneral(t *testing.T) {
	for _, id := range []string{"parseHeader", "HTTPServer", "a_b_c", "__x__", "ABC", "abc123def", "X1Y2", "getHTTPResponse2xx", "_", "__", "aB"} {
		var a, b []string
		newTokenizer().emitASCII([]byte(id), func(s string) { a = append(a, s) })
		emitIdent(id, func(s string) { b = append(b, s) })
		slices.Sort(a)
		slices.Sort(b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%q: ascii %q, general %q", id, a, b)
		}
	}
}
