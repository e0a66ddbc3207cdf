package lsp

import (
	"errors"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
)

const (
	goMod = "module example.com/demo\n\ngo 1.22\n"
	goA   = `package demo

import "fmt"

// Greet returns a greeting for name.
func Greet(name string) string {
	return fmt.Sprintf("hello, %s", name)
}

// Point is a point.
type Point struct {
	X, Y int
}
`
	goB = `package demo

func Use() int {
	s := Greet("world")
	var n int = s
	return n
}
`
	goBad = "package demo\nfunc  Bad( ) int {return   1}\n"
	// goMem exists only in the editor buffer, never on disk.
	goMem = `package demo

func Mem() string { return Greet("mem") }
`
	goComplete = `package demo

import "fmt"

func Print() {
	fmt.
}
`
)

func goModule(t testing.TB) string {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": goMod, "a.go": goA, "b.go": goB, "bad.go": goBad})
	return dir
}

func TestGopls(t *testing.T) {
	m := newTestManager(t)
	dir := goModule(t)
	uriA := URIFromPath(filepath.Join(dir, "a.go"))
	uriB := URIFromPath(filepath.Join(dir, "b.go"))
	if err := m.DidOpen(uriB, "", 1, goB); err != nil {
		t.Fatal(err)
	}

	t.Run("Definition", func(t *testing.T) {
		locs, err := m.Definition(timeout(t, 60*time.Second), uriB, posOf(t, goB, "Greet(", 1))
		if err != nil {
			t.Fatal(err)
		}
		want := posOf(t, goA, "Greet(", 0)
		if len(locs) != 1 || locs[0].URI != uriA || locs[0].Range.Start != want {
			t.Fatalf("Definition = %+v, want %s at %+v", locs, uriA, want)
		}
	})

	t.Run("References", func(t *testing.T) {
		locs, err := m.References(timeout(t, 30*time.Second), uriA, posOf(t, goA, "Greet(", 0))
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		for _, l := range locs {
			files = append(files, filepath.Base(string(l.URI)))
		}
		slices.Sort(files)
		if !slices.Equal(files, []string{"a.go", "b.go"}) {
			t.Fatalf("References in %v (%+v), want a.go (declaration) and b.go", files, locs)
		}
	})

	t.Run("Hover", func(t *testing.T) {
		h, err := m.Hover(timeout(t, 30*time.Second), uriB, posOf(t, goB, "Greet(", 0))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(h, "func Greet(name string) string") || !strings.Contains(h, "greeting") {
			t.Fatalf("Hover = %q, want the signature and doc", h)
		}
	})

	t.Run("DocumentSymbols", func(t *testing.T) {
		syms, err := m.DocumentSymbols(timeout(t, 30*time.Second), uriA)
		if err != nil {
			t.Fatal(err)
		}
		g, p, x := findSymbol(syms, "Greet"), findSymbol(syms, "Point"), findSymbol(syms, "X")
		if g == nil || g.Kind != "function" || p == nil || p.Kind != "struct" || x == nil || x.Kind != "field" {
			t.Fatalf("DocumentSymbols = %+v, want function Greet, struct Point with field X", syms)
		}
		if g.SelectionRange.Start != posOf(t, goA, "Greet(", 0) {
			t.Fatalf("Greet at %+v", g.SelectionRange)
		}
	})

	t.Run("Diagnostics", func(t *testing.T) {
		ds, err := m.WaitDiagnostics(timeout(t, 60*time.Second), uriB, hasDiag("cannot use s"))
		if err != nil {
			t.Fatalf("%v; have %+v", err, m.Diagnostics(uriB))
		}
		var d *protocol.Diagnostic
		for i := range ds {
			if strings.Contains(ds[i].Message, "cannot use s") {
				d = &ds[i]
			}
		}
		if d.Severity != protocol.DiagnosticSeverityError || d.Range.Start.Line != posOf(t, goB, "var n", 0).Line {
			t.Fatalf("diagnostic %+v, want an error on the var n line", d)
		}
		if all := m.AllDiagnostics(); len(all[uriB]) == 0 {
			t.Fatalf("AllDiagnostics lacks %s: %v", uriB, all)
		}
		if list := m.DiagnosticList(); len(list) == 0 || list[0].URI == "" {
			t.Fatalf("DiagnosticList = %+v", list)
		}
	})

	t.Run("CodeActions", func(t *testing.T) {
		rng := protocol.Range{Start: posOf(t, goB, "var n", 0), End: posOf(t, goB, "= s", 3)}
		actions, err := m.CodeActions(timeout(t, 30*time.Second), uriB, rng)
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
		t.Logf("%d code actions", len(actions))
	})

	t.Run("Completion", func(t *testing.T) {
		u := URIFromPath(filepath.Join(dir, "complete.go"))
		if err := m.DidOpen(u, "go", 1, goComplete); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = m.DidClose(u) }()
		list, err := m.Completion(timeout(t, 30*time.Second), u, posOf(t, goComplete, "fmt.\n", 4), ".")
		if err != nil {
			t.Fatal(err)
		}
		if got := labels(list.Items); !slices.Contains(got, "Println") || !slices.Contains(got, "Sprintf") {
			t.Fatalf("completions after fmt. = %v", got)
		}
	})

	t.Run("Formatting", func(t *testing.T) {
		u := URIFromPath(filepath.Join(dir, "bad.go"))
		edits, err := m.Formatting(timeout(t, 30*time.Second), u)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ApplyEdits(goBad, edits)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := format.Source([]byte(goBad))
		if got != string(want) || got == goBad {
			t.Fatalf("formatted = %q, want %q", got, want)
		}
	})

	t.Run("DidChange", func(t *testing.T) {
		fixed := strings.Replace(goB, "var n int = s", "n := len(s)", 1)
		if err := m.DidChange(uriB, 2, fixed); err != nil {
			t.Fatal(err)
		}
		if _, err := m.WaitDiagnostics(timeout(t, 60*time.Second), uriB, func(ds []protocol.Diagnostic) bool { return len(ds) == 0 }); err != nil {
			t.Fatalf("%v; have %+v", err, m.Diagnostics(uriB))
		}
		if err := m.DidSave(uriB, fixed); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("Concurrent", func(t *testing.T) {
		ctx := timeout(t, 60*time.Second)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					_, err := m.Hover(ctx, uriB, posOf(t, goB, "Greet(", 0))
					errs <- err
					return
				}
				locs, err := m.Definition(ctx, uriB, posOf(t, goB, "Greet(", 0))
				if err == nil && len(locs) != 1 {
					err = errors.New("no definition")
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
	})

	t.Run("CrashRestart", func(t *testing.T) {
		uMem := URIFromPath(filepath.Join(dir, "mem.go"))
		if err := m.DidOpen(uMem, "go", 1, goMem); err != nil {
			t.Fatal(err)
		}
		before := m.Servers()
		if len(before) != 1 || !before[0].Running || before[0].PID == 0 {
			t.Fatalf("Servers = %+v", before)
		}
		if err := syscall.Kill(before[0].PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		// mem.go exists only as an open buffer: resolving Greet from it
		// proves the restarted gopls got the documents again.
		locs, err := m.Definition(timeout(t, 60*time.Second), uMem, posOf(t, goMem, "Greet(", 0))
		if err != nil {
			t.Fatal(err)
		}
		if len(locs) != 1 || locs[0].URI != uriA {
			t.Fatalf("Definition after restart = %+v", locs)
		}
		after := m.Servers()
		if len(after) != 1 || after[0].PID == before[0].PID || after[0].Restarts != 1 {
			t.Fatalf("Servers after kill = %+v (before %+v)", after, before)
		}
		if err := m.DidClose(uMem); err != nil {
			t.Fatal(err)
		}
	})
}

func TestErrors(t *testing.T) {
	m := NewManager(Options{Logger: testLogger(t), Locate: func(name string) (string, error) {
		return "", os.ErrNotExist
	}})
	dir := t.TempDir()
	if err := m.DidOpen(URIFromPath(filepath.Join(dir, "x.md")), "", 1, "# hi"); !errors.Is(err, ErrNoServer) {
		t.Fatalf("markdown DidOpen: %v, want ErrNoServer", err)
	}
	if err := m.DidOpen(URIFromPath(filepath.Join(dir, "x.go")), "", 1, "package x"); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("DidOpen without gopls: %v, want ErrNotInstalled", err)
	}
	if err := m.DidChange(URIFromPath(filepath.Join(dir, "y.go")), 2, ""); !errors.Is(err, ErrNotOpen) {
		t.Fatalf("DidChange of unopened doc: %v, want ErrNotOpen", err)
	}
	if _, err := m.Hover(timeout(t, time.Second), "http://x/y.go", protocol.Position{}); !errors.Is(err, ErrBadURI) {
		t.Fatalf("Hover on http URI: %v, want ErrBadURI", err)
	}
	_ = m.Close()
	if _, err := m.Definition(timeout(t, time.Second), URIFromPath(filepath.Join(dir, "x.go")), protocol.Position{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}
