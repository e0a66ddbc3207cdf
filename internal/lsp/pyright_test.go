package lsp

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

const (
	pyUtil = `def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b
`
	pyMain = `from util import add

total = add(1, 2)
print(undefined_name)
`
	pyComplete = `import os
os.
`
)

func TestPyright(t *testing.T) {
	m := newTestManager(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"pyrightconfig.json": "{}\n", "util.py": pyUtil, "main.py": pyMain})
	uriUtil := URIFromPath(filepath.Join(dir, "util.py"))
	uriMain := URIFromPath(filepath.Join(dir, "main.py"))
	if err := m.DidOpen(uriMain, "", 1, pyMain); err != nil {
		t.Fatal(err)
	}

	t.Run("Diagnostics", func(t *testing.T) {
		ds, err := m.WaitDiagnostics(timeout(t, 60*time.Second), uriMain, hasDiag("undefined_name"))
		if err != nil {
			t.Fatalf("%v; have %+v", err, m.Diagnostics(uriMain))
		}
		for _, d := range ds {
			if strings.Contains(d.Message, "undefined_name") && d.Range.Start.Line != 3 {
				t.Fatalf("diagnostic on line %d, want 3: %+v", d.Range.Start.Line, d)
			}
		}
	})

	t.Run("Definition", func(t *testing.T) {
		locs, err := m.Definition(timeout(t, 30*time.Second), uriMain, posOf(t, pyMain, "add(1", 0))
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) == 0 || locs[0].URI != uriUtil || locs[0].Range.Start.Line != 0 {
			t.Fatalf("Definition = %+v, want util.py line 0", locs)
		}
	})

	t.Run("References", func(t *testing.T) {
		locs, err := m.References(timeout(t, 30*time.Second), uriMain, posOf(t, pyMain, "add(1", 0))
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, l := range locs {
			found = append(found, filepath.Base(string(l.URI)))
		}
		if !slices.Contains(found, "util.py") || !slices.Contains(found, "main.py") {
			t.Fatalf("References in %v, want util.py and main.py", found)
		}
	})

	t.Run("Hover", func(t *testing.T) {
		h, err := m.Hover(timeout(t, 30*time.Second), uriMain, posOf(t, pyMain, "add(1", 0))
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(h), "")
		if !strings.Contains(flat, "defadd(a:int,b:int)->int") || !strings.Contains(h, "Add two numbers") {
			t.Fatalf("Hover = %q, want the signature", h)
		}
	})

	t.Run("DocumentSymbols", func(t *testing.T) {
		syms, err := m.DocumentSymbols(timeout(t, 30*time.Second), uriUtil)
		if err != nil {
			t.Fatal(err)
		}
		if s := findSymbol(syms, "add"); s == nil || s.Kind != "function" || s.SelectionRange.Start.Line != 0 {
			t.Fatalf("DocumentSymbols = %+v, want function add on line 0", syms)
		}
	})

	t.Run("CodeActions", func(t *testing.T) {
		rng := protocol.Range{Start: posOf(t, pyMain, "undefined_name", 0), End: posOf(t, pyMain, "undefined_name", 14)}
		actions, err := m.CodeActions(timeout(t, 30*time.Second), uriMain, rng)
		if err != nil {
			t.Fatal(err)
		}
		if actions == nil {
			t.Fatal("nil actions slice")
		}
		for _, a := range actions {
			if a.Title == "" {
				t.Fatalf("action without title: %+v", a)
			}
		}
	})

	t.Run("Completion", func(t *testing.T) {
		u := URIFromPath(filepath.Join(dir, "complete.py"))
		if err := m.DidOpen(u, "python", 1, pyComplete); err != nil {
			t.Fatal(err)
		}
		list, err := m.Completion(timeout(t, 30*time.Second), u, posOf(t, pyComplete, "os.\n", 3), ".")
		if err != nil {
			t.Fatal(err)
		}
		if got := labels(list.Items); !slices.Contains(got, "path") || !slices.Contains(got, "getcwd") {
			t.Fatalf("completions after os. = %d items: %v", len(got), got)
		}
		if err := m.DidClose(u); err != nil {
			t.Fatal(err)
		}
	})
}
