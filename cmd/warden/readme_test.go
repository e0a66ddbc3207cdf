package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README is what a new user follows from a fresh clone: every link in it
// and in docs/ must resolve inside the repository (a file that exists, a
// heading that exists), and the README links nowhere outside it.
func TestReadmeAndDocsLinksResolve(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
				if filepath.Base(f) == "README.md" {
					t.Errorf("README links outside the repository: %s", target)
				}
				continue
			}
			checked++
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			if rel, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s: link %s points outside the repository", filepath.Base(f), target)
				continue
			}
			db, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %s: %v", filepath.Base(f), target, err)
				continue
			}
			if anchor != "" && !hasAnchor(string(db), anchor) {
				t.Errorf("%s: link %s: no heading with anchor #%s in %s", filepath.Base(f), target, anchor, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no links checked")
	}
}

// hasAnchor reports whether a heading of md has GitHub's anchor slug.
func hasAnchor(md, anchor string) bool {
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(line, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}
