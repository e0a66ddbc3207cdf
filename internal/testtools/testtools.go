// Package testtools finds the real external programs (language servers,
// debug adapters, ripgrep) that tests drive. Tests never skip when one is
// missing: they fail and say how to install it.
package testtools

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Find returns the path of program name: from $PATH, else from the
// repository's .cache/tools/bin where scripts/install-tools.sh puts it. It
// fails the test when the program is in neither.
func Find(t testing.TB, name string) string {
	t.Helper()
	if p, err := Lookup(name); err == nil {
		return p
	}
	t.Fatalf("%s not found in $PATH or .cache/tools/bin: run scripts/install-tools.sh (make tools)", name)
	return ""
}

// Lookup is Find without a test: the path of name, or an error.
func Lookup(name string) (string, error) {
	if root, err := ModuleRoot(); err == nil {
		p := filepath.Join(root, ".cache", "tools", "bin", name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// ModuleRoot returns the directory of the go.mod above the working
// directory (tests run in their package's directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
