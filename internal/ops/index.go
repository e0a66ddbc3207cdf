package ops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/warden-dev/warden/internal/editor"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/wsfs"
)

// ErrNoIndex reports a workspace whose code index is switched off
// (Options.IndexDir is empty) or could not be opened.
var ErrNoIndex = errors.New("no code index for this workspace")

// indexer is a workspace's code index and what keeps it fresh: the file
// system's watch (every change on disk), the editor's unsaved buffers (an
// overlay) and the operations' own writes (applied before they return).
type indexer struct {
	ready chan struct{} // closed once idx answers (or failed)
	mu    sync.Mutex
	idx   *index.Index // set once the first load or build is done
	err   error
	watch string // the wsfs watch id
	// opened is the index from Open on (changes go to it during its first
	// build); until then, pending keeps the paths that changed.
	opened  *index.Index
	pending []string
	// git is the set of files changed in git, for ranked search's boost.
	git *gitChanged
}

// changed hands paths that changed to the index, or keeps them until it
// is open.
func (ix *indexer) changed(sync bool, rels ...string) {
	ix.git.invalidate()
	ix.mu.Lock()
	idx := ix.opened
	if idx == nil {
		ix.pending = append(ix.pending, rels...)
		ix.mu.Unlock()
		return
	}
	ix.mu.Unlock()
	if !sync {
		idx.Notify(rels...)
		return
	}
	if err := idx.Update(context.Background(), rels...); err != nil && !errors.Is(err, index.ErrClosed) {
		idx.Notify(rels...) // retried by the index's own goroutine
	}
}

// indexDir is the catalog directory of root under the service's IndexDir.
func (s *Service) indexDir(root string) string { return index.CatalogDir(s.opts.IndexDir, root) }

// startIndex opens (building when needed) the workspace's index in the
// background. The watch starts first, so no change made during the build
// is missed: the index applies them after its swap.
func (w *Workspace) startIndex() {
	ix := &indexer{ready: make(chan struct{}), git: newGitChanged(w.root, w.git)}
	w.ix = ix
	if w.svc.opts.IndexDir != "" {
		w.fs.SetOnChange(func(rels ...string) { ix.changed(true, rels...) })
		w.git.OnChange = w.indexRefresh
	}
	if w.svc.opts.IndexDir == "" {
		ix.err = ErrNoIndex
		close(ix.ready)
		return
	}
	ctags := "ctags"
	if w.svc.opts.Locate != nil {
		if p, err := w.svc.opts.Locate("ctags"); err == nil {
			ctags = p
		}
	}
	log := w.svc.log.With("workspace", w.root, "part", "index")
	idxCaller := Caller{Source: "index"}
	opts := index.Options{
		Root: w.root, Dir: w.svc.indexDir(w.root), Logger: log,
		Ctags: index.Ctags{Program: ctags}, Embedder: w.svc.opts.Embedder,
		// The index never holds what a read would be refused.
		Exclude: func(rel string) bool { return !w.readable(idxCaller, filepath.Join(w.root, filepath.FromSlash(rel))) },
		Boosts: index.Boosts{
			Open: func(rel string) bool { return w.editor.IsOpen(filepath.Join(w.root, filepath.FromSlash(rel))) },
			Diagnostics: func(rel string) bool {
				return len(w.lsp.Diagnostics(lsp.URIFromPath(filepath.Join(w.root, filepath.FromSlash(rel))))) > 0
			},
			Changed: ix.git.has,
		},
	}
	go func() {
		// Bound to the service (Close cancels a build), taken here: the
		// service's lock is held while the workspace starts.
		ctx, done := w.svc.bind(context.Background())
		defer done()
		// The watch starts before the index opens: what changes while it
		// loads is kept and handed over.
		var err error
		ix.watch, err = w.fs.Watch("**", func(c wsfs.Change) { ix.changed(false, c.Path) })
		var idx *index.Index
		if err == nil {
			idx, err = index.Open(ctx, opts)
		}
		if err == nil {
			ix.mu.Lock()
			ix.opened = idx
			pending := ix.pending
			ix.pending = nil
			ix.mu.Unlock()
			idx.Notify(pending...)
			w.editor.Listen(indexSync{w: w, idx: idx})
			if idx.Status().Generation == "" {
				err = idx.Build(ctx, nil)
			} else {
				err = idx.Refresh(ctx)
			}
		}
		ix.mu.Lock()
		ix.idx, ix.err = idx, err
		ix.mu.Unlock()
		if err != nil {
			log.Warn("code index", "err", err)
		}
		close(ix.ready)
	}()
}

// index waits until the workspace's index answers (or ctx ends) and
// returns it.
func (w *Workspace) index(ctx context.Context) (*index.Index, error) {
	select {
	case <-w.ix.ready:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the code index: %w", ctx.Err())
	}
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	if w.ix.err != nil && w.ix.idx == nil {
		return nil, fmt.Errorf("%w: %w", ErrNoIndex, w.ix.err)
	}
	if w.ix.idx == nil {
		return nil, ErrNoIndex
	}
	return w.ix.idx, nil
}

// readyIndex returns the index when it answers now, nil otherwise (the
// caller falls back to walking the tree).
func (w *Workspace) readyIndex() *index.Index {
	select {
	case <-w.ix.ready:
	default:
		return nil
	}
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	if w.ix.err != nil {
		return nil
	}
	return w.ix.idx
}

// indexRefresh re-reads what changed on disk (after a git checkout)
// before the operation returns.
func (w *Workspace) indexRefresh() {
	w.ix.git.invalidate()
	if idx := w.readyIndex(); idx != nil {
		if err := idx.Refresh(context.Background()); err != nil {
			w.svc.log.Warn("code index refresh", "workspace", w.root, "err", err)
		}
	}
}

func (w *Workspace) closeIndex() error {
	if w.ix == nil {
		return nil
	}
	<-w.ix.ready // the build stops: the service's contexts are canceled first
	w.ix.mu.Lock()
	defer w.ix.mu.Unlock()
	if w.ix.watch != "" {
		w.fs.Unwatch(w.ix.watch)
	}
	if w.ix.idx != nil {
		return w.ix.idx.Close()
	}
	return nil
}

// indexSync makes the editor's unsaved buffers the indexed text of their
// files until saved or closed.
type indexSync struct {
	w   *Workspace
	idx *index.Index
}

func (s indexSync) set(snap editor.Snapshot) {
	var content []byte
	if snap.IsDirty {
		content = []byte(snap.Text)
	}
	if err := s.idx.SetOverlay(context.Background(), snap.Path, content); err != nil {
		s.w.svc.log.Warn("code index overlay", "path", snap.Path, "err", err)
	}
}

func (s indexSync) Opened(snap editor.Snapshot)  { s.set(snap) }
func (s indexSync) Changed(snap editor.Snapshot) { s.set(snap) }
func (s indexSync) Saved(snap editor.Snapshot)   { s.set(snap) }
func (s indexSync) Closed(path string) {
	if err := s.idx.SetOverlay(context.Background(), path, nil); err != nil {
		s.w.svc.log.Warn("code index overlay", "path", path, "err", err)
	}
}

// IndexResult is what IndexSearch found.
type IndexResult struct {
	// Hits are the answers, best first; paths are workspace-relative.
	Hits []index.Hit `json:"hits"`
	// Skipped counts the files that could match but that the caller may
	// not read.
	Skipped int `json:"skipped"`
}

// IndexSearch answers a code-index query (ranked, literal, regex or
// symbol), judged as a "grep" of the workspace like Search: files the
// policy would refuse to read, and those hide names, are not answered
// from. It waits for the index's first build.
func (w *Workspace) IndexSearch(ctx context.Context, c Caller, q index.Query, hide func(abs string) bool) (IndexResult, error) {
	mode := string(q.Mode)
	if mode == "" {
		mode = string(index.ModeRanked)
	}
	if _, err := w.Gate(ctx, c, "", "grep", map[string]any{"path": w.root, "pattern": q.Text, "include": q.Include, "mode": mode}, false); err != nil {
		return IndexResult{}, err
	}
	idx, err := w.index(ctx)
	if err != nil {
		return IndexResult{}, err
	}
	if q.Mode == "" || q.Mode == index.ModeRanked {
		// vectors, when configured, join every ranked query
		q.Vectors = q.Vectors || w.svc.opts.Embedder != nil
		// the boost of files changed in git reads the set taken here
		if err := w.ix.git.refresh(ctx); err != nil {
			w.svc.log.Warn("code index: files changed in git", "workspace", w.root, "err", err)
		}
	}
	var skipped atomic.Int64
	q.Skip = w.skipper(c, hide, &skipped)
	hits, err := idx.Search(ctx, q)
	if err != nil {
		return IndexResult{}, err
	}
	if hits == nil {
		hits = []index.Hit{}
	}
	return IndexResult{Hits: hits, Skipped: int(skipped.Load())}, nil
}

// IndexStatus reports the workspace's index (waiting for nothing: a
// build in progress shows in the status).
func (w *Workspace) IndexStatus() (index.Status, error) {
	select {
	case <-w.ix.ready:
	default:
		return index.Status{Root: w.root, Building: true}, nil
	}
	idx, err := w.index(context.Background())
	if err != nil {
		return index.Status{}, err
	}
	return idx.Status(), nil
}

// IndexBuild rebuilds the workspace's index from scratch (a new catalog
// generation, swapped in when complete), judged as an "index" of the
// workspace and recorded; progress receives the build's progress.
func (w *Workspace) IndexBuild(ctx context.Context, c Caller, progress func(index.Progress)) (index.Status, error) {
	if _, err := w.Gate(ctx, c, "", "index", map[string]any{"path": w.root, "action": "build"}, false); err != nil {
		return index.Status{}, err
	}
	idx, err := w.index(ctx)
	if err == nil {
		ctx, done := w.svc.bind(ctx)
		err = idx.Build(ctx, progress)
		done()
	}
	w.Record(ctx, c, "index", err)
	if err != nil {
		return index.Status{}, err
	}
	return idx.Status(), nil
}

// IndexFlush waits until the changes the file system's watcher reported
// so far are in the index.
func (w *Workspace) IndexFlush(ctx context.Context) error {
	idx, err := w.index(ctx)
	if err != nil {
		return err
	}
	return idx.Flush(ctx)
}

// IndexReady reports whether the workspace's index answers now (its
// first build is done); callers that must not wait fall back to walking
// the tree (Search does that by itself).
func (w *Workspace) IndexReady() bool { return w.readyIndex() != nil }
