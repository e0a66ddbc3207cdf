package search

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestIgnoredAndFilterMatchTheWalk: Ignored and Filter judge single paths
// the way Find's walk judges the tree.
func TestIgnoredAndFilterMatchTheWalk(t *testing.T) {
	root := t.TempDir()
	for p, c := range map[string]string{
		".gitignore":          "*.log\nbuild/\n!keep.log\n",
		"a/.gitignore":        "secret.txt\n",
		"a/secret.txt":        "x",
		"a/b/secret.txt":      "x",
		"a/ok.go":             "x",
		"keep.log":            "x",
		"drop.log":            "x",
		"build/out.go":        "x",
		"src/build.go":        "x",
		"vendor/lib/x.go":     "x",
		"docs/readme.md":      "x",
		".git/config":         "x",
		".git/info/exclude":   "excluded.txt\n",
		"excluded.txt":        "x",
		"deep/er/excluded.go": "x",
	} {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.WriteFile(abs, []byte(c), 0o644)
	}
	all := []string{"a/secret.txt", "a/b/secret.txt", "a/ok.go", "keep.log", "drop.log", "build/out.go",
		"src/build.go", "vendor/lib/x.go", "docs/readme.md", ".git/config", "excluded.txt", "deep/er/excluded.go", ".gitignore", "a/.gitignore"}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	listed, err := ListFiles(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]bool{}
	for _, p := range listed {
		in[p] = true
	}
	for _, p := range all {
		if got := !Ignored(r, p, false); got != in[p] {
			t.Errorf("Ignored(%s) = %v, walk lists it: %v", p, !got, in[p])
		}
	}
	for _, c := range []struct{ inc, exc string }{{"", "vendor"}, {"*.go", ""}, {"./a/**", "b"}, {"src/*.go, *.md", "docs"}} {
		f, err := NewFilter(c.inc, c.exc)
		if err != nil {
			t.Fatal(err)
		}
		wr, want, err := listFiles(context.Background(), root, Options{Include: c.inc, Exclude: c.exc})
		if err != nil {
			t.Fatal(err)
		}
		wr.Close()
		var got []string
		for _, p := range listed {
			if f.Match(p) {
				got = append(got, p)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("filter %+v: %v, walk %v", c, got, want)
		}
	}
}
