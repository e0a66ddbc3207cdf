package wsfs

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/fsnotify/fsnotify"
)

// Kinds of change passed to a watch callback.
const (
	// Created: a file or directory appeared (also reported for the contents
	// of a directory that appears, since they may be created before the new
	// directory is watched).
	Created = "created"
	// Changed: a file's content was written, or a file was replaced by
	// another renamed over it (an atomic save).
	Changed = "changed"
	// Deleted: a file or directory was removed or renamed away.
	Deleted = "deleted"
)

// ErrBadPattern reports a watch pattern that is not a valid glob.
var ErrBadPattern = errors.New("invalid glob pattern")

// Change is one change reported to a watch callback.
type Change struct {
	// Watcher is the id Watch returned for the callback's watch.
	Watcher string
	// Path is the workspace-relative, slash-separated path.
	Path string
	// Kind is Created, Changed or Deleted.
	Kind string
}

// watchState is the FS's single shared fsnotify watcher (started by the
// first Watch, stopped when the last is removed) and its subscribers.
type watchState struct {
	mu     sync.Mutex
	subs   map[string]*watchSub
	cur    *fsnotify.Watcher
	closed bool
	wg     sync.WaitGroup
}

type watchSub struct {
	pattern string
	fn      func(Change)
}

// Watch calls fn for every change under the workspace whose
// workspace-relative, slash-separated path matches the doublestar glob
// pattern ("**/*.go", "src/*.ts"; an absolute pattern under the workspace
// is made relative), with the watch's id. A file written in place or
// replaced by a rename over it (as WriteFile and editors' atomic saves do)
// is Changed; a new name is Created; a removed or renamed-away one Deleted.
// The temporary files of this package's own writes are not reported. A
// pattern that is not a valid glob is ErrBadPattern. Directories are
// watched recursively, new ones as they appear; .git is never watched and
// symlinks are not followed. Nothing is debounced; paths that do not match
// are not reported.
//
// Callbacks run one at a time on a goroutine owned by the FS; fn may call
// Watch and Unwatch but not Close. A callback already dispatched when
// Unwatch returns may still run once.
//
// Residual risk: inotify resolves the directory names it is given, so a
// directory swapped for a symlink in the instant between the walk and the
// watch could have names (never contents) of an outside directory
// reported; the swap is re-checked right after and such a watch removed.
func (f *FS) Watch(pattern string, fn func(Change)) (string, error) {
	if fn == nil {
		return "", fmt.Errorf("wsfs: watch: nil callback: %w", fs.ErrInvalid)
	}
	pat := f.normPattern(pattern)
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("wsfs: watch: %w %q: %w", ErrBadPattern, pattern, doublestar.ErrBadPattern)
	}
	var rnd [8]byte
	if _, err := randRead(rnd[:]); err != nil {
		return "", fmt.Errorf("wsfs: watch: %w", err)
	}
	id := "w-" + hex.EncodeToString(rnd[:])

	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	if f.w.closed {
		return "", fmt.Errorf("wsfs: watch: %w", ErrClosed)
	}
	if f.w.cur == nil {
		w, err := fsnotify.NewBufferedWatcher(4096)
		if err != nil {
			return "", fmt.Errorf("wsfs: watch: %w", err)
		}
		known := known{}
		if err := f.addTree(w, ".", known.add); err != nil {
			w.Close()
			return "", fmt.Errorf("wsfs: watch: %w", err)
		}
		f.w.cur = w
		f.w.wg.Add(1)
		go f.watchLoop(w, known)
	}
	f.w.subs[id] = &watchSub{pattern: pat, fn: fn}
	return id, nil
}

// normPattern makes a watch pattern workspace-relative and slash-separated.
func (f *FS) normPattern(p string) string {
	if filepath.IsAbs(p) {
		for _, base := range []string{f.real, f.abs} {
			prefix := strings.TrimSuffix(base, string(filepath.Separator)) + string(filepath.Separator)
			if strings.HasPrefix(p, prefix) {
				p = p[len(prefix):]
				break
			}
		}
	}
	p = filepath.ToSlash(p)
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}

// Unwatch removes the watcher id; the fsnotify watcher stops with the last
// one. It returns ErrNoWatcher for an unknown id.
func (f *FS) Unwatch(id string) error {
	f.w.mu.Lock()
	defer f.w.mu.Unlock()
	if _, ok := f.w.subs[id]; !ok {
		return fmt.Errorf("wsfs: unwatch %s: %w", id, ErrNoWatcher)
	}
	delete(f.w.subs, id)
	if len(f.w.subs) == 0 && f.w.cur != nil {
		// Close does not wait for our loop, only for fsnotify's reader,
		// which never blocks on a closed watcher: safe from a callback.
		_ = f.w.cur.Close()
		f.w.cur = nil
	}
	return nil
}

// stopWatching removes every watcher and waits for the loops to end.
func (f *FS) stopWatching() {
	f.w.mu.Lock()
	f.w.closed = true
	clear(f.w.subs)
	if f.w.cur != nil {
		_ = f.w.cur.Close()
		f.w.cur = nil
	}
	f.w.mu.Unlock()
	f.w.wg.Wait()
}

// addTree watches the directory rel and every directory beneath it except
// .git, without following symlinks. When found is not nil it receives the
// workspace-relative path of every entry beneath rel (not rel itself) and
// whether it is a directory.
func (f *FS) addTree(w *fsnotify.Watcher, rel string, found func(p string, isDir bool)) error {
	return fs.WalkDir(f.root.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == filepath.ToSlash(rel) {
				return err
			}
			return nil // vanished or unreadable below: skip it
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if found != nil && p != filepath.ToSlash(rel) {
			found(p, d.IsDir())
		}
		if !d.IsDir() {
			return nil
		}
		abs := filepath.Join(f.real, filepath.FromSlash(p))
		if err := w.Add(abs); err != nil {
			if errors.Is(err, fsnotify.ErrClosed) {
				return fs.SkipAll
			}
			return nil
		}
		// Re-check: if the directory was swapped for a symlink, drop it.
		if fi, err := f.root.Lstat(filepath.FromSlash(p)); err != nil || !fi.IsDir() {
			_ = w.Remove(abs)
			return fs.SkipDir
		}
		return nil
	})
}

// watchLoop turns w's events into callbacks until w is closed. known is
// the set of paths that exist, owned by the loop.
func (f *FS) watchLoop(w *fsnotify.Watcher, known known) {
	defer f.w.wg.Done()
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			f.handle(w, ev, known)
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
			// Overflow or read errors: nothing to report per path.
		}
	}
}

// handle dispatches one fsnotify event. inotify reports a rename over an
// existing name as the creation of that name (the replaced file gets no
// event of its own), so whether the name existed is looked up in known.
func (f *FS) handle(w *fsnotify.Watcher, ev fsnotify.Event, known known) {
	rel, ok := under(f.real, filepath.Clean(ev.Name))
	if !ok || rel == "." {
		return
	}
	p := filepath.ToSlash(rel)
	if p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git") {
		return
	}
	if isTemp(path.Base(p)) {
		return // our own atomic write's temporary file
	}
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := f.root.Lstat(rel)
		isDir := err == nil && fi.IsDir()
		kind := Created
		if known.has(p) && !isDir {
			kind = Changed
		}
		known.remove(p) // a directory renamed over another replaces its tree
		known.add(p, isDir)
		f.dispatch(p, kind)
		if isDir && path.Base(p) != ".git" {
			_ = f.addTree(w, rel, func(q string, dir bool) {
				if isTemp(path.Base(q)) || known.has(q) {
					return
				}
				known.add(q, dir)
				f.dispatch(q, Created)
			})
		}
	case ev.Has(fsnotify.Write):
		if !known.has(p) {
			known.add(p, false)
		}
		f.dispatch(p, Changed)
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		known.remove(p)
		f.dispatch(p, Deleted)
	}
}

// known is the tree of paths a watcher knows to exist (walked at start,
// then kept by its events), so a name that appears over an existing one (a
// rename over it) is a change, not a creation: directory (slash path, "."
// for the root) to the names in it, each marked true when it is a
// directory. Only the watch loop touches it. Removing a directory costs
// the size of its subtree.
type known map[string]map[string]bool

func splitPath(p string) (dir, name string) {
	dir, name = path.Split(p)
	if dir == "" {
		return ".", name
	}
	return strings.TrimSuffix(dir, "/"), name
}

// has reports whether p is known.
func (k known) has(p string) bool {
	dir, name := splitPath(p)
	_, ok := k[dir][name]
	return ok
}

// add records p (a directory when isDir).
func (k known) add(p string, isDir bool) {
	dir, name := splitPath(p)
	m := k[dir]
	if m == nil {
		m = map[string]bool{}
		k[dir] = m
	}
	m[name] = isDir
}

// remove forgets p and, for a directory, everything beneath it.
func (k known) remove(p string) {
	dir, name := splitPath(p)
	isDir, ok := k[dir][name]
	if !ok {
		return
	}
	delete(k[dir], name)
	if isDir {
		k.removeTree(p)
	}
}

func (k known) removeTree(p string) {
	for name, isDir := range k[p] {
		if isDir {
			k.removeTree(p + "/" + name)
		}
	}
	delete(k, p)
}

// IsTemp reports whether the base name is one of this package's own
// temporary files (an atomic write in progress): watchers and the code
// index leave them out.
func IsTemp(name string) bool { return isTemp(name) }

// isTemp reports whether name is one of createTemp's temporary files.
func isTemp(name string) bool {
	const mid, suffix = ".wsfs-", ".tmp"
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, suffix) {
		return false
	}
	i := strings.LastIndex(name, mid)
	if i < 0 {
		return false
	}
	hexPart := name[i+len(mid) : len(name)-len(suffix)]
	if len(hexPart) != 16 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

// dispatch calls the callbacks whose pattern matches p.
func (f *FS) dispatch(p, kind string) {
	type hit struct {
		id string
		fn func(Change)
	}
	f.w.mu.Lock()
	var hits []hit
	for id, s := range f.w.subs {
		if ok, _ := doublestar.Match(s.pattern, p); ok {
			hits = append(hits, hit{id, s.fn})
		}
	}
	f.w.mu.Unlock()
	for _, h := range hits {
		h.fn(Change{Watcher: h.id, Path: p, Kind: kind})
	}
}
