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
	// Names past 64 KiB are cut there; lines past 2^32 are clamped.
	long := strings.Repeat("x", 70000)
	got := newSymTable([]Symbol{{Name: long, Kind: "function", Line: 1, EndLine: 1 << 40}}).at(0)
	if got.Name != long[:1<<16-1] || got.Kind != "function" || got.EndLine != 1<<32-1 {
		t.Errorf("long symbol: %d %q %d", len(got.Name), got.Kind, got.EndLine)
	}
}
