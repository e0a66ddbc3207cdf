package index

import (
	"slices"
	"strings"
	"testing"
)

func TestSymTable(t *testing.T) {
	syms := []Symbol{
		{Name: "Server", Kind: "struct", Line: 10, EndLine: 20},
		{Name: "ServeHTTP", Kind: "method", Scope: "Server", Line: 22, EndLine: 40},
		{Name: "Addr", Kind: "field", Scope: "Server", Line: 11, EndLine: 11},
		{Name: "Server", Kind: "function", Line: 50, EndLine: 50}, // a name again
		{Name: "ünïcode", Kind: "a kind ctags made up", Scope: "Server.ServeHTTP", Line: 1, EndLine: 1},
		{Name: "", Kind: "", Line: 0, EndLine: 0},
	}
	tab := newSymTable(syms)
	if tab.len() != len(syms) || !slices.Equal(tab.all(), syms) {
		t.Fatalf("got %+v, want %+v", tab.all(), syms)
	}
	for i, s := range syms {
		if tab.name(i) != s.Name || tab.at(i) != s {
			t.Fatalf("%d: %q %+v, want %+v", i, tab.name(i), tab.at(i), s)
		}
	}
	// Each distinct string is kept once.
	if strings.Count(tab.text, "Server") != 2 { // "Server" and within "Server.ServeHTTP"
		t.Errorf("text %q", tab.text)
	}
	if (symTable{}).all() != nil || newSymTable(nil).len() != 0 {
		t.Error("an empty table is not empty")
	}
	// What does not pack is kept as it is.
	long := strings.Repeat("x", 70000)
	for _, odd := range [][]Symbol{
		{{Name: long, Kind: "function", Line: 1, EndLine: 1}},
		{{Name: "f", Kind: "function", Line: 1, EndLine: 1 << 40}},
		{{Name: "f", Kind: "function", Line: 5, EndLine: 2}},
		{{Name: "f", Kind: strings.Repeat("k", 300), Line: 1, EndLine: 1}},
	} {
		if got := newSymTable(odd); !slices.Equal(got.all(), odd) || got.name(0) != odd[0].Name {
			t.Errorf("%.40v: got %.40v", odd, got.all())
		}
	}
}

func TestChunkTable(t *testing.T) {
	chunks := []Chunk{
		{Line: 1, EndLine: 9, Symbol: -1},
		{Line: 10, EndLine: 69, Symbol: 0, Scope: "Server"},
		{Line: 70, EndLine: 70, Symbol: 3, Scope: "Server.ServeHTTP"},
		{Line: 71, EndLine: 80, Symbol: 0, Scope: "Server"},
	}
	tab := newChunkTable(chunks)
	if tab.len() != len(chunks) || tab.text != "ServerServer.ServeHTTP" {
		t.Fatalf("len %d text %q", tab.len(), tab.text)
	}
	for i, c := range chunks {
		if tab.at(i) != c {
			t.Fatalf("%d: %+v, want %+v", i, tab.at(i), c)
		}
	}
	odd := []Chunk{{Line: 1, EndLine: 1 << 17, Symbol: -1}}
	if got := newChunkTable(odd); got.len() != 1 || got.at(0) != odd[0] {
		t.Errorf("odd chunk: %+v", got.at(0))
	}
	if newChunkTable(nil).len() != 0 {
		t.Error("an empty table is not empty")
	}
}
