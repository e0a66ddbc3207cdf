package lsp

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/testtools"
)

// goEnv keeps gopls (and the go command it runs) off the network.
var goEnv = []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOWORK=off", "GOTELEMETRY=off"}

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return slog.New(slog.DiscardHandler)
}

// newTestManager returns a Manager whose servers are found with testtools
// and which is closed when the test ends.
func newTestManager(t testing.TB) *Manager {
	t.Helper()
	testtools.Find(t, "gopls")
	testtools.Find(t, "pyright-langserver")
	m := NewManager(Options{Logger: testLogger(t), Locate: testtools.Lookup, Env: goEnv})
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// posOf returns the position of the first occurrence of needle in text,
// plus delta characters (ASCII test files only).
func posOf(t testing.TB, text, needle string, delta int) protocol.Position {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q not in text", needle)
	}
	line := strings.Count(text[:i], "\n")
	col := i - (strings.LastIndex(text[:i], "\n") + 1)
	return protocol.Position{Line: uint32(line), Character: uint32(col + delta)}
}

func timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func hasDiag(substr string) func([]protocol.Diagnostic) bool {
	return func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if strings.Contains(d.Message, substr) {
				return true
			}
		}
		return false
	}
}

func findSymbol(syms []Symbol, name string) *Symbol {
	for i := range syms {
		if syms[i].Name == name {
			return &syms[i]
		}
		if s := findSymbol(syms[i].Children, name); s != nil {
			return s
		}
	}
	return nil
}

func labels(items []protocol.CompletionItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Label
	}
	return out
}
