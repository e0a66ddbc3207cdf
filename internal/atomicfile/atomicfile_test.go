package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a", "b", "f.json")
	if err := Write(p, []byte("one"), 0o600, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600, 0o700); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("%q %v", b, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	if err := Write(filepath.Join(p, "under-a-file"), nil, 0o600, 0o700); err == nil {
		t.Fatal("writing under a file must fail")
	}
}
