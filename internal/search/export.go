package search

import (
	"context"
	"os"
	"path"
	"regexp"
	"strings"
)

// This file is the part of search that other packages build on (the code
// index, internal/index): the same matching, the same file selection and
// the same ignore rules as Find, so an index answers exactly what Find
// would.

// Matcher is a compiled query: Find's matching, usable on content the
// caller already holds.
type Matcher struct {
	m *matcher
}

// Compile compiles query with opts (UseRegex, CaseSensitive, WholeWord)
// as Find does; the errors are Find's (ErrEmptyQuery, ErrBadQuery).
func Compile(query string, opts Options) (*Matcher, error) {
	m, err := compile(query, opts)
	if err != nil {
		return nil, err
	}
	return &Matcher{m: m}, nil
}

// Regexp is the compiled expression (flags included); callers use it to
// plan which files can match, never to report matches.
func (m *Matcher) Regexp() *regexp.Regexp { return m.m.re }

// Sample re-chooses the byte a literal search starts from (the literal's,
// or the one every match of a regular expression holds) by how often each
// of the literal's bytes occurs in sample: text like the text to be
// searched (the code index passes pieces of the files that can match),
// where the byte the table of source code ranks rarest may not be. It
// changes which bytes are looked at first, never a match. Call it before
// the Matcher searches, not while it does.
func (m *Matcher) Sample(sample [][]byte) {
	if m.m.lit != nil {
		m.m.tune(sample)
	}
	if m.m.inner != nil {
		m.m.inner.tune(sample)
	}
}

// Matches returns the matches Find would report in content, at most limit
// (all when limit <= 0).
func (m *Matcher) Matches(content []byte, limit int) []Match {
	var ms []Match
	m.m.scan(content, false, func(line, _ int, text []byte, loc []int) bool {
		ms = append(ms, makeMatch(line, text, loc[0], loc[1]))
		return limit <= 0 || len(ms) < limit
	})
	return ms
}

// Lines calls fn for every line of content holding at least one match (the
// lines ripgrep prints), with its 0-based number, its text (no line break)
// and the first match's byte offsets in it; fn returns false to stop.
func (m *Matcher) Lines(content []byte, fn func(line int, text []byte, start, end int) bool) {
	last := -1
	stop := false
	m.m.scan(content, false, func(line, _ int, text []byte, loc []int) bool {
		if line == last {
			return true
		}
		last = line
		if !fn(line, text, loc[0], loc[1]) {
			stop = true
		}
		return !stop
	})
}

// Filter is a compiled Include/Exclude pair, matching files as Find's
// walk does.
type Filter struct {
	inc, exc globs
}

// NewFilter compiles the comma-separated include and exclude globs
// (ErrBadGlob when one is not valid).
func NewFilter(include, exclude string) (*Filter, error) {
	inc, err := compileGlobs(include)
	if err != nil {
		return nil, err
	}
	exc, err := compileGlobs(exclude)
	if err != nil {
		return nil, err
	}
	return &Filter{inc: inc, exc: exc}, nil
}

// Match reports whether the workspace-relative slash path rel of a file
// would be searched: not excluded (nor below an excluded directory) and
// included when there is an include list.
func (f *Filter) Match(rel string) bool {
	if f == nil {
		return true
	}
	if len(f.exc) > 0 {
		for p := rel; p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if f.exc.match(p) {
				return false
			}
		}
	}
	return len(f.inc) == 0 || f.inc.match(rel)
}

// ListFiles returns the sorted workspace-relative slash paths of the
// regular files Find would consider under root (not .gitignored, not in
// .git), before the size and binary checks.
func ListFiles(ctx context.Context, root string) ([]string, error) {
	r, files, err := listFiles(ctx, root, Options{})
	if err != nil {
		return nil, err
	}
	r.Close()
	return files, nil
}

// Ignored reports whether the slash path rel (a directory when dir) of
// the workspace r is ignored the way Find's walk would ignore it: by
// .git/info/exclude and the .gitignore files of its ancestors, or by
// being in .git or below an ignored directory.
func Ignored(r *os.Root, rel string, dir bool) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if p == ".git" {
			return true
		}
	}
	var rules []ignoreRule
	if b, err := r.ReadFile(".git/info/exclude"); err == nil {
		rules = parseIgnore("", b)
	}
	if b, err := r.ReadFile(".gitignore"); err == nil {
		rules = append(rules, parseIgnore("", b)...)
	}
	for i := 1; i <= len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		isDir := i < len(parts) || dir
		if ignored(rules, p, isDir) {
			return true
		}
		if i < len(parts) {
			if b, err := r.ReadFile(p + "/.gitignore"); err == nil {
				rules = append(rules, parseIgnore(p, b)...)
			}
		}
	}
	return false
}

// Searchable reports whether content would be searched by Find: not
// binary (no NUL byte in its first 8 KiB) and not over MaxFileSize.
func Searchable(content []byte) bool {
	if len(content) > MaxFileSize {
		return false
	}
	return !containsNUL(content[:min(len(content), binarySniff)])
}

func containsNUL(b []byte) bool {
	for _, c := range b {
		if c == 0 {
			return true
		}
	}
	return false
}
