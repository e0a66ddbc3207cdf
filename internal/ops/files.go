package ops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/wsfs"
)

// ErrOutside reports a path outside the workspace.
var ErrOutside = errors.New("path is outside the workspace")

// ErrPathRequired reports an operation that needs a path and got none.
var ErrPathRequired = errors.New("path is required")

// Abs turns a client's path (relative to the workspace, absolute, or a
// file:// URI) into an absolute, cleaned path inside the workspace. It is
// lexical: the file system (wsfs, on os.Root) refuses what crosses a
// symlink out of the workspace when the path is used.
func (w *Workspace) Abs(p string) (string, error) { return ResolvePath(w.root, p) }

// ResolvePath is Abs for the workspace root.
func ResolvePath(root, p string) (string, error) {
	if p == "" {
		return "", ErrPathRequired
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	}
	p = strings.TrimPrefix(p, "file://")
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: %w %s", p, ErrOutside, root)
	}
	return p, nil
}

// Rel is abs relative to the workspace root (abs itself when it is not
// below the root).
func (w *Workspace) Rel(abs string) string {
	r, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return r
}

// ReadFile reads the file abs, judged as a "read" of it.
func (w *Workspace) ReadFile(ctx context.Context, c Caller, abs string) ([]byte, error) {
	p, err := w.Gate(ctx, c, "", "read", map[string]any{"filePath": abs}, false)
	if err != nil {
		return nil, err
	}
	return p.FS().ReadFile(abs)
}

// Stat describes the file abs after a "read" of it passed the gate (a stat
// says what a read would).
func (w *Workspace) Stat(ctx context.Context, c Caller, abs string) (wsfs.Info, error) {
	p, err := w.Gate(ctx, c, "", "read", map[string]any{"filePath": abs}, false)
	if err != nil {
		return wsfs.Info{}, err
	}
	return p.FS().Stat(abs)
}

// WriteFile replaces (or creates) the file abs with data, atomically,
// judged as a "write"; the result is recorded.
func (w *Workspace) WriteFile(ctx context.Context, c Caller, abs string, data []byte) error {
	p, err := w.Gate(ctx, c, "", "write", map[string]any{"filePath": abs, "content": string(data)}, true)
	if err != nil {
		return err
	}
	err = p.FS().WriteFile(abs, data)
	w.Record(ctx, c, "write", err)
	return err
}

// EditFile replaces old with repl in the file abs: old must occur exactly
// once, or at least once when all is set. It is judged as an "edit" and
// returns the number of replacements.
func (w *Workspace) EditFile(ctx context.Context, c Caller, abs, old, repl string, all bool) (int, error) {
	p, err := w.Gate(ctx, c, "", "edit", map[string]any{"filePath": abs, "oldString": old, "newString": repl, "replaceAll": all}, true)
	if err != nil {
		return 0, err
	}
	n, err := editFile(p.FS(), abs, old, repl, all)
	w.Record(ctx, c, "edit", err)
	return n, err
}

func editFile(f *wsfs.FS, abs, old, repl string, all bool) (int, error) {
	b, err := f.ReadFile(abs)
	if err != nil {
		return 0, err
	}
	text, n, err := Replace(string(b), old, repl, all)
	if err != nil {
		return 0, err
	}
	return n, f.WriteFile(abs, []byte(text))
}

// ErrEditNotFound and its neighbours are the ways an exact-match edit can
// fail; they are the caller's mistake, not warden's.
var (
	ErrEditEmpty     = errors.New("oldString is empty")
	ErrEditSame      = errors.New("oldString and newString are the same")
	ErrEditNotFound  = errors.New("oldString not found (it must match the file exactly, whitespace and indentation included)")
	ErrEditAmbiguous = errors.New("ambiguous edit")
)

// Replace applies an exact-match edit to text: old must occur exactly once,
// or at least once when all is set, and is replaced by repl. It returns the
// new text and the number of replacements.
func Replace(text, old, repl string, all bool) (string, int, error) {
	if old == "" {
		return "", 0, ErrEditEmpty
	}
	if old == repl {
		return "", 0, ErrEditSame
	}
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return "", 0, ErrEditNotFound
	case n > 1 && !all:
		return "", 0, fmt.Errorf("%w: oldString occurs %d times: add surrounding lines to make it unique, or set replaceAll", ErrEditAmbiguous, n)
	case all:
		return strings.ReplaceAll(text, old, repl), n, nil
	}
	return strings.Replace(text, old, repl, 1), 1, nil
}

// List lists the directory abs (its whole tree when recursive), judged as
// a "list" of it. hide, when set, leaves out entries (a door's restricted
// paths). truncated says the listing hit wsfs's entry limit.
func (w *Workspace) List(ctx context.Context, c Caller, abs string, recursive bool, hide func(abs string) bool) (entries []wsfs.Entry, truncated bool, err error) {
	p, err := w.Gate(ctx, c, "", "list", map[string]any{"path": abs}, false)
	if err != nil {
		return nil, false, err
	}
	all, err := p.FS().List(abs, recursive)
	if err != nil && !errors.Is(err, wsfs.ErrListLimit) {
		return nil, false, err
	}
	truncated = err != nil
	out := make([]wsfs.Entry, 0, len(all))
	for _, e := range all {
		if hide != nil && hide(w.fs.Abs(e.Path)) {
			continue
		}
		out = append(out, e)
	}
	return out, truncated, nil
}

// SearchResult is what Search found, and how many files it left out
// because the policy would refuse to read them.
type SearchResult struct {
	// Results are the matches, grouped by file; paths are absolute.
	Results []search.Result `json:"results"`
	// Skipped counts the files that were not searched because a read of
	// them would be refused (secrets such as .env, keys).
	Skipped int `json:"skipped"`
}

// Search finds query in the workspace's files, judged as a "grep" of the
// workspace. Files the policy would refuse to read, and those hide names,
// are not searched: search never shows what a read would refuse.
func (w *Workspace) Search(ctx context.Context, c Caller, query string, o search.Options, hide func(abs string) bool) (SearchResult, error) {
	if _, err := w.Gate(ctx, c, "", "grep", map[string]any{"path": w.root, "pattern": query, "include": o.Include}, false); err != nil {
		return SearchResult{}, err
	}
	var skipped atomic.Int64
	o.Skip = w.skipper(c, hide, &skipped)
	ctx, done := w.svc.bind(ctx)
	defer done()
	var res []search.Result
	var err error
	if idx := w.readyIndex(); idx != nil {
		// The index answers what search.Find would, without the walk.
		res, err = idx.Find(ctx, query, o)
	} else {
		res, err = search.Find(ctx, w.root, query, o)
	}
	if err != nil {
		return SearchResult{}, err
	}
	for i := range res {
		res[i].Path = filepath.Join(w.root, filepath.FromSlash(res[i].Path))
	}
	if res == nil {
		res = []search.Result{}
	}
	return SearchResult{Results: res, Skipped: int(skipped.Load())}, nil
}

// skipper is the search filter: a file is skipped when hide names it or
// the policy would not let it be read; policy skips are counted.
func (w *Workspace) skipper(c Caller, hide func(string) bool, n *atomic.Int64) func(rel string) bool {
	return func(rel string) bool {
		abs := filepath.Join(w.root, filepath.FromSlash(rel))
		if hide != nil && hide(abs) {
			return true
		}
		if !w.readable(c, abs) {
			n.Add(1)
			return true
		}
		return false
	}
}

// ReplaceResult is what ReplaceAll changed.
type ReplaceResult struct {
	// Count is the number of replacements written.
	Count int `json:"count"`
	// Files are the absolute paths of the files changed.
	Files []string `json:"-"`
	// Skipped counts the files left out because the policy would refuse
	// to read them.
	Skipped int `json:"skipped"`
}

// ReplaceAll replaces every match of query in the workspace's searchable
// files. Every changed file is judged as an "edit" first; only when all
// are allowed are they written (atomically, file by file). Files the policy
// would refuse to read, and those hide names, are left alone.
func (w *Workspace) ReplaceAll(ctx context.Context, c Caller, query, replacement string, o search.Options, hide func(abs string) bool) (ReplaceResult, error) {
	type change struct {
		abs  string
		data []byte
	}
	var changes []change
	var skipped atomic.Int64
	o.Skip = w.skipper(c, hide, &skipped)
	sctx, done := w.svc.bind(ctx)
	defer done()
	count, err := search.Replace(sctx, w.root, query, replacement, o, func(rel string, data []byte) error {
		changes = append(changes, change{abs: filepath.Join(w.root, filepath.FromSlash(rel)), data: data})
		return nil
	})
	if err != nil {
		return ReplaceResult{}, err
	}
	permits := make([]Permit, len(changes))
	for i, ch := range changes {
		p, err := w.Gate(ctx, c, "", "edit", map[string]any{"filePath": ch.abs, "oldString": query, "newString": replacement}, true)
		if err != nil {
			return ReplaceResult{}, err
		}
		permits[i] = p
	}
	res := ReplaceResult{Count: count, Skipped: int(skipped.Load())}
	for i, ch := range changes {
		err := permits[i].FS().WriteFile(ch.abs, ch.data)
		w.Record(ctx, c, "edit", err)
		if err != nil {
			return res, fmt.Errorf("write %s: %w", w.Rel(ch.abs), err)
		}
		res.Files = append(res.Files, ch.abs)
		if w.editor.IsOpen(ch.abs) {
			if s, err := w.editor.Get(ch.abs); err == nil && !s.IsDirty {
				w.editor.SetContent(ch.abs, string(ch.data))
				w.editor.MarkSaved(ch.abs, string(ch.data))
			}
		}
	}
	return res, nil
}
