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
	// Changed: a file's content was written.
	Changed = "changed"
	// Deleted: a file or directory was removed or renamed away.
	Deleted = "deleted"
)

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
	fn      func(path, kind string)
}

// Watch calls fn for every change under the workspace whose
// workspace-relative, slash-separated path matches the doublestar glob
// pattern ("**/*.go", "src/*.ts"; an absolute pattern under the workspace
// is made relative). kind is Created, Changed or Deleted. Directories are
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
func (f *FS) Watch(pattern string, fn func(path string, kind string)) (string, error) {
	if fn == nil {
		return "", fmt.Errorf("wsfs: watch: nil callback: %w", fs.ErrInvalid)
	}
	pat := f.normPattern(pattern)
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("wsfs: watch %q: %w", pattern, doublestar.ErrBadPattern)
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
		if err := f.addTree(w, ".", nil); err != nil {
			w.Close()
			return "", fmt.Errorf("wsfs: watch: %w", err)
		}
		f.w.cur = w
		f.w.wg.Add(1)
		go f.watchLoop(w)
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
// workspace-relative path of every entry beneath rel (not rel itself).
func (f *FS) addTree(w *fsnotify.Watcher, rel string, found func(string)) error {
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
			found(p)
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

// watchLoop turns w's events into callbacks until w is closed.
func (f *FS) watchLoop(w *fsnotify.Watcher) {
	defer f.w.wg.Done()
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			f.handle(w, ev)
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
			// Overflow or read errors: nothing to report per path.
		}
	}
}

// handle dispatches one fsnotify event.
func (f *FS) handle(w *fsnotify.Watcher, ev fsnotify.Event) {
	rel, ok := under(f.real, filepath.Clean(ev.Name))
	if !ok || rel == "." {
		return
	}
	p := filepath.ToSlash(rel)
	if p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git") {
		return
	}
	switch {
	case ev.Has(fsnotify.Create):
		f.dispatch(p, Created)
		if fi, err := f.root.Lstat(rel); err == nil && fi.IsDir() && path.Base(p) != ".git" {
			_ = f.addTree(w, rel, func(q string) { f.dispatch(q, Created) })
		}
	case ev.Has(fsnotify.Write):
		f.dispatch(p, Changed)
	case ev.Has(fsnotify.Remove), ev.Has(fsnotify.Rename):
		f.dispatch(p, Deleted)
	}
}

// dispatch calls the callbacks whose pattern matches p.
func (f *FS) dispatch(p, kind string) {
	f.w.mu.Lock()
	var fns []func(string, string)
	for _, s := range f.w.subs {
		if ok, _ := doublestar.Match(s.pattern, p); ok {
			fns = append(fns, s.fn)
		}
	}
	f.w.mu.Unlock()
	for _, fn := range fns {
		fn(p, kind)
	}
}
