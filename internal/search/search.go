// Package search is find-in-files and find-and-replace over a workspace:
// the mechanism behind the control door's search.findInFiles and
// search.findAndReplace.
//
// # Which files
//
// The workspace is walked through an [os.Root], so nothing outside it is
// ever read; symlinks are not followed (ripgrep's default), the .git
// directory is always skipped, and hidden files are searched (VS Code
// passes --hidden to ripgrep). Ignore rules come from .gitignore files,
// nested ones included, and .git/info/exclude, evaluated in-process with
// github.com/sabhiram/go-gitignore: later and deeper rules win, "!"
// re-includes, and an ignored directory is pruned (so, as in git, nothing
// below it can be re-included). We chose this over `git ls-files -co
// --exclude-standard` because it needs no git binary or repository (a
// workspace need not be a work tree), costs no subprocess, and keeps every
// read inside the os.Root sandbox; the price is that global excludes
// (core.excludesFile) are not read. Files that are binary (a NUL byte in
// the first 8 KiB) or larger than [MaxFileSize] are skipped.
//
// Include and Exclude are comma-separated doublestar globs in VS Code's
// style: "src/**/*.ts, *.md". A pattern starting with "./" or "/" is
// anchored at the workspace root; any other is matched anywhere ("*.md" is
// "**/*.md"), and every pattern also matches everything below a directory
// it names. Exclude prunes directories; Include filters files.
//
// # Matching
//
// Matching is line by line, like ripgrep without --multiline: a match
// never spans a line break, "^" and "$" are line boundaries, and a line's
// trailing "\r" is not part of it. The regex dialect is Go's RE2 syntax
// (no look-around or backreferences). Queries are case-insensitive unless
// CaseSensitive (VS Code's default). WholeWord keeps a match only when it
// does not continue a word on either side (a word character is a Unicode
// letter, digit or underscore). Empty matches are never reported.
//
// # Positions
//
// Lines and characters are 0-based; characters count UTF-16 code units, the
// LSP and VS Code convention, so a character outside the Basic
// Multilingual Plane counts 2 and an invalid UTF-8 byte counts 1. Results
// are sorted by path (byte order of the slash-separated workspace-relative
// path), then by position, whatever the parallelism.
package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// DefaultMaxResults is the cap on matches Find returns when
// Options.MaxResults is zero or negative.
const DefaultMaxResults = 1000

// MaxFileSize is the size above which files are not searched.
const MaxFileSize = 10 << 20

// MaxPreview is the longest preview in bytes; longer lines are cut to a
// window around the match, marked with "…".
const MaxPreview = 250

// binarySniff is how much of a file is checked for a NUL byte.
const binarySniff = 8 << 10

// ErrEmptyQuery reports an empty query.
var ErrEmptyQuery = errors.New("empty search query")

// ErrBadQuery reports a regular expression that does not compile.
var ErrBadQuery = errors.New("invalid search query")

// ErrBadGlob reports an include or exclude pattern that is not a valid
// glob.
var ErrBadGlob = errors.New("invalid glob pattern")

// Options are the spec's SearchOptions.
type Options struct {
	// Include restricts the search to files matching one of these
	// comma-separated globs (empty: all files).
	Include string `json:"include,omitempty"`
	// Exclude skips files and directories matching one of these
	// comma-separated globs.
	Exclude string `json:"exclude,omitempty"`
	// MaxResults caps the number of matches Find returns across all files
	// (DefaultMaxResults when zero or negative). Replace ignores it.
	MaxResults int `json:"maxResults,omitempty"`
	// UseRegex makes the query a Go (RE2) regular expression; otherwise it
	// is a literal string.
	UseRegex bool `json:"useRegex,omitempty"`
	// CaseSensitive matches case exactly; otherwise case is folded.
	CaseSensitive bool `json:"caseSensitive,omitempty"`
	// WholeWord keeps only matches that are whole words.
	WholeWord bool `json:"wholeWord,omitempty"`
	// Skip, when set, is asked about every file that would be searched
	// (workspace-relative, slash-separated path) and leaves out those it
	// reports true for: the caller's filter (files the policy would refuse
	// to read). It is called from the search's worker goroutines
	// concurrently, before a file is read.
	Skip func(rel string) bool `json:"-"`
}

// Position is a 0-based line and UTF-16 character offset.
type Position struct {
	// Line is the 0-based line number.
	Line int `json:"line"`
	// Character is the 0-based offset in UTF-16 code units.
	Character int `json:"character"`
}

// Range is a half-open span of one line.
type Range struct {
	// Start is the first character of the match.
	Start Position `json:"start"`
	// End is just past the last character of the match.
	End Position `json:"end"`
}

// Match is one occurrence.
type Match struct {
	// Range locates the match in the file.
	Range Range `json:"range"`
	// Preview is the line holding the match, without its line break, cut to
	// MaxPreview bytes around the match when longer.
	Preview string `json:"preview"`
}

// Result is every reported match of one file.
type Result struct {
	// Path is the workspace-relative, slash-separated path.
	Path string `json:"path"`
	// Matches are in order of position.
	Matches []Match `json:"matches"`
}

// Find searches the files of the workspace root for query and returns up to
// opts.MaxResults matches (the first ones in path, then position, order),
// grouped by file. Files are searched by a pool of GOMAXPROCS workers.
func Find(ctx context.Context, root, query string, opts Options) ([]Result, error) {
	m, err := compile(query, opts)
	if err != nil {
		return nil, err
	}
	limit := opts.MaxResults
	if limit <= 0 {
		limit = DefaultMaxResults
	}
	r, files, err := listFiles(ctx, root, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()

	per := make([][]Match, len(files))
	done := make([]bool, len(files))
	var (
		mu       sync.Mutex
		frontier int // files[:frontier] are all done
		total    int // matches in files[:frontier]
	)
	var cutoff atomic.Int64 // no file after this index is needed
	cutoff.Store(int64(len(files)))
	err = forEachFile(ctx, r, files, opts.Skip, func(i int) bool { return int64(i) <= cutoff.Load() },
		func(i int, content []byte) error {
			var ms []Match
			m.scan(content, false, func(line, _ int, text []byte, loc []int) bool {
				ms = append(ms, makeMatch(line, text, loc[0], loc[1]))
				return len(ms) < limit
			})
			mu.Lock()
			defer mu.Unlock()
			per[i], done[i] = ms, true
			for frontier < len(files) && done[frontier] {
				total += len(per[frontier])
				frontier++
				if total >= limit {
					cutoff.Store(int64(frontier - 1))
					break
				}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	var out []Result
	n := 0
	for i, ms := range per {
		if n >= limit {
			break
		}
		if len(ms) == 0 {
			continue
		}
		if len(ms) > limit-n {
			ms = ms[:limit-n]
		}
		n += len(ms)
		out = append(out, Result{Path: files[i], Matches: ms})
	}
	return out, nil
}

// Replace replaces every match of query in the workspace's searchable files
// (the same files and matches Find would report, without the MaxResults
// cap) and calls write, from the calling goroutine and in path order, with
// each changed file's workspace-relative path and new content; write is
// expected to gate and store it (atomically, through wsfs). In regex mode
// the replacement expands $1, ${1}, ${name} and $$ as regexp.Expand does;
// otherwise it is literal. count is the number of replacements in the files
// write accepted; the first write error stops Replace and is returned
// wrapped.
func Replace(ctx context.Context, root, query, replacement string, opts Options, write func(path string, newContent []byte) error) (count int, err error) {
	if write == nil {
		return 0, fmt.Errorf("search: replace: nil write function: %w", fs.ErrInvalid)
	}
	m, err := compile(query, opts)
	if err != nil {
		return 0, err
	}
	r, files, err := listFiles(ctx, root, opts)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	tmpl := []byte(replacement)
	type change struct {
		content []byte
		n       int
	}
	changes := make([]change, len(files))
	err = forEachFile(ctx, r, files, opts.Skip, func(int) bool { return true }, func(i int, content []byte) error {
		var out []byte
		last, n := 0, 0
		m.scan(content, opts.UseRegex, func(_, off int, line []byte, loc []int) bool {
			out = append(out, content[last:off+loc[0]]...)
			if opts.UseRegex {
				out = m.re.Expand(out, tmpl, line, loc)
			} else {
				out = append(out, tmpl...)
			}
			last = off + loc[1]
			n++
			return true
		})
		if n > 0 {
			out = append(out, content[last:]...)
			changes[i] = change{out, n}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for i, c := range changes {
		if c.n == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return count, fmt.Errorf("search: replace: %w", err)
		}
		if err := write(files[i], c.content); err != nil {
			return count, fmt.Errorf("search: replace in %s: %w", files[i], err)
		}
		count += c.n
	}
	return count, nil
}

// forEachFile reads files[i] for every i that want(i) accepts, in rough
// index order, on GOMAXPROCS workers, and passes the searchable ones
// (regular, not binary, not over MaxFileSize) to fn. content is only valid
// during the call.
func forEachFile(ctx context.Context, r *os.Root, files []string, skip func(string) bool, want func(int) bool, fn func(i int, content []byte) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	workers := min(runtime.GOMAXPROCS(0), max(len(files), 1))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			var dc dirCache
			defer dc.close()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(files) || !want(i) || ctx.Err() != nil {
					return
				}
				if skip != nil && skip(files[i]) {
					continue
				}
				var content []byte
				content, buf = readSearchable(&dc, r, files[i], buf)
				if content == nil {
					continue
				}
				if err := fn(i, content); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return firstErr
}

// dirCache holds a worker's Root for the directory of its last file:
// workers take files in path order, so most files share it, and opening
// by base name in it costs one openat instead of one per path component.
type dirCache struct {
	dir string
	r   *os.Root
}

func (c *dirCache) close() {
	if c.r != nil {
		c.r.Close()
		c.r = nil
	}
}

// open opens the slash path name beneath root.
func (c *dirCache) open(root *os.Root, name string) (*os.File, error) {
	dir, base := path.Split(name)
	if dir == "" {
		return root.Open(name)
	}
	if c.r == nil || c.dir != dir {
		c.close()
		r, err := root.OpenRoot(strings.TrimSuffix(dir, "/"))
		if err != nil {
			return nil, err
		}
		c.dir, c.r = dir, r
	}
	return c.r.Open(base)
}

// readSearchable returns the content of a searchable file (nil otherwise),
// reusing buf, and the buffer to reuse next time.
func readSearchable(dc *dirCache, r *os.Root, name string, buf []byte) (content, next []byte) {
	f, err := dc.open(r, name)
	if err != nil {
		return nil, buf
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
		return nil, buf
	}
	size := int(fi.Size()) + 1 // +1 to see EOF in one read
	if cap(buf) < size {
		buf = make([]byte, size+size/4)
	}
	buf = buf[:cap(buf)]
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, buf
	}
	if n > MaxFileSize {
		return nil, buf
	}
	c := buf[:n:n]
	if bytes.IndexByte(c[:min(len(c), binarySniff)], 0) >= 0 {
		return nil, buf
	}
	return c, buf
}

// makeMatch builds the Match for bytes [s, e) of line number ln.
func makeMatch(ln int, line []byte, s, e int) Match {
	sc := utf16Len(line[:s])
	return Match{
		Range: Range{
			Start: Position{Line: ln, Character: sc},
			End:   Position{Line: ln, Character: sc + utf16Len(line[s:e])},
		},
		Preview: preview(line, s, e),
	}
}

// utf16Len is the length of b in UTF-16 code units.
func utf16Len(b []byte) int {
	n := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			n++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// preview is the line, or a window of it around the match [s, e) when it
// is longer than MaxPreview bytes.
func preview(line []byte, s, e int) string {
	if len(line) <= MaxPreview {
		if utf8.Valid(line) {
			return string(line) // one copy, not two
		}
		return string(bytes.ToValidUTF8(line, []byte("\uFFFD")))
	}
	from := max(0, s-MaxPreview/5)
	to := min(len(line), max(e, from+MaxPreview))
	if to-from > MaxPreview {
		to = from + MaxPreview
	}
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	var b bytes.Buffer
	if from > 0 {
		b.WriteString("…")
	}
	b.Write(bytes.ToValidUTF8(line[from:to], []byte("\uFFFD")))
	if to < len(line) {
		b.WriteString("…")
	}
	return b.String()
}

// sortStrings sorts paths in byte order.
func sortStrings(s []string) { sort.Strings(s) }
