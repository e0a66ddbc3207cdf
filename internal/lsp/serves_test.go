package lsp

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// A document no server will ever diagnose is answered at once: the wait
// below has no deadline, so a wait for a publication would hang the test.
func TestWaitDiagnosticsWithoutServer(t *testing.T) {
	m := NewManager(Options{Locate: func(name string) (string, error) {
		if name == "gopls" {
			return "", exec.ErrNotFound
		}
		return "/bin/true", nil
	}})
	defer m.Close()
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := m.WaitDiagnostics(ctx, URIFromPath(filepath.Join(dir, "notes.txt")), nil); !errors.Is(err, ErrNoServer) {
		t.Fatalf("plain text: %v, want ErrNoServer", err)
	}
	if _, err := m.WaitDiagnostics(ctx, URIFromPath(filepath.Join(dir, "main.go")), nil); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("go without gopls: %v, want ErrNotInstalled", err)
	}
	if err := m.Serves(URIFromPath(filepath.Join(dir, "app.py"))); err != nil {
		t.Fatalf("python with a (stand-in) server found: %v", err)
	}
}
