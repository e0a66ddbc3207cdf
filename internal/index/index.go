package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/wsfs"
)

// ErrClosed reports a call on a closed index.
var ErrClosed = errors.New("index closed")

// ErrNotBuilt reports a query on an index that was never built.
var ErrNotBuilt = errors.New("index not built")

// Options configure an index.
type Options struct {
	// Root is the workspace's directory (absolute).
	Root string
	// Dir is where the catalog lives: a directory of its own per
	// workspace, in warden's data dir.
	Dir string
	// Exclude, when set, is asked about every file (workspace-relative,
	// slash-separated path) before it is read, and leaves out those it
	// reports true for: the daemon passes the policy's judgement (files a
	// read of which would be refused). Secret files (.env, private keys)
	// are left out whatever it says. It is called concurrently.
	Exclude func(rel string) bool
	// Ctags runs universal-ctags for the symbols of files not in Go.
	Ctags Ctags
	// Boosts are the workspace's signals ranked search favours.
	Boosts Boosts
	// Logger receives the index's warnings (a failed ctags run); nil
	// discards them.
	Logger *slog.Logger
	// Embedder, when set, embeds every chunk behind the text index (its
	// own goroutine; Status reports the lag) for queries that ask for
	// vectors (Query.Vectors). Nil: no vectors.
	Embedder Embedder
}

// Boosts are the signals from the rest of the workspace that ranked search
// favours; each, when set, is asked about a workspace-relative path and is
// called concurrently.
type Boosts struct {
	// Open reports a file open in the editor.
	Open func(rel string) bool
	// Diagnostics reports a file with diagnostics (errors, warnings).
	Diagnostics func(rel string) bool
	// Changed reports a file changed in git (modified, added, untracked).
	Changed func(rel string) bool
}

// Progress is how far a build is.
type Progress struct {
	// Phase is "list" (walking the workspace), "index" (reading, hashing
	// and extracting symbols), "views" (building the search structures)
	// or "done".
	Phase string `json:"phase"`
	// Files of Total files are done; Bytes is their size.
	Files int   `json:"files"`
	Total int   `json:"total"`
	Bytes int64 `json:"bytes"`
}

// Status describes an index.
type Status struct {
	// Root is the workspace's directory.
	Root string `json:"root"`
	// Generation is the catalog generation in use ("" before the first
	// build).
	Generation string `json:"generation"`
	// Building is true while a build runs; Progress is its progress.
	Building bool     `json:"building"`
	Progress Progress `json:"progress"`
	// Files, Bytes: the files exact search answers for and their size;
	// Ranked of them are in the ranked and symbol views.
	Files  int   `json:"files"`
	Bytes  int64 `json:"bytes"`
	Ranked int   `json:"ranked"`
	// Chunks and Symbols in the ranked and symbol views.
	Chunks  int `json:"chunks"`
	Symbols int `json:"symbols"`
	// Segments is the number of index segments (1 after a build; each
	// change adds a small one until they are merged).
	Segments int `json:"segments"`
	// Overlays is the number of unsaved editor buffers indexed in place of
	// their files.
	Overlays int `json:"overlays"`
	// MemoryBytes estimates the memory the views hold (content included);
	// DiskBytes is the catalog's size.
	MemoryBytes int64 `json:"memoryBytes"`
	DiskBytes   int64 `json:"diskBytes"`
	// UpdatedAt is when the views last changed.
	UpdatedAt time.Time `json:"updatedAt"`
	// VectorModel is the embedding model (empty: no vectors); VectorLag
	// the chunks still without a vector; VectorError the embedder's last
	// error.
	VectorModel string `json:"vectorModel,omitempty"`
	VectorLag   int    `json:"vectorLag,omitempty"`
	VectorError string `json:"vectorError,omitempty"`
}

// Index is a workspace's code index: a catalog on disk and, in memory,
// exact (trigram), ranked (BM25 over chunks) and symbol views of its
// files. Every method may be called concurrently; queries never wait for
// a build or an update: they read the last complete snapshot.
type Index struct {
	opts Options
	root *os.Root
	cat  catalogDir
	log  *slog.Logger

	bmu sync.Mutex // serialises Build and Refresh
	wmu sync.Mutex // serialises changes to the snapshot and the generation
	// guarded by wmu:
	gen      *generation
	overlays map[string][]byte
	dirty    map[string]bool // paths changed while a build runs (nil: no build)
	closed   bool

	nmu    sync.Mutex // guards notify
	notify notifier
	vec    *vectors // nil without an Embedder

	snap     atomic.Pointer[snapshot]
	building atomic.Bool
	folding  atomic.Bool    // a fold of the segments runs in the background
	bg       sync.WaitGroup // background work (the fold) Close waits for
	progress atomic.Pointer[Progress]
	updated  atomic.Int64
	bufs     sync.Pool // *[]byte: buffers for the blocks of big files (query.go)
}

// snapshot is an immutable state of the views.
type snapshot struct {
	segs []*segment
	// newest maps a path changed since the first segment was built to the
	// segment holding its live version, -1 when it was removed; a path
	// absent from it is live in the one segment that holds it.
	newest map[string]int
}

func (s *snapshot) live(seg int, p string) bool {
	v, ok := s.newest[p]
	return !ok || v == seg
}

// lookup returns the live doc of path p.
func (s *snapshot) lookup(p string) *doc {
	if v, ok := s.newest[p]; ok {
		if v < 0 {
			return nil
		}
		return s.segs[v].find(p)
	}
	for i := len(s.segs) - 1; i >= 0; i-- {
		if d := s.segs[i].find(p); d != nil {
			return d
		}
	}
	return nil
}

// find returns the segment's doc of path p.
func (s *segment) find(p string) *doc {
	i := sort.Search(len(s.docs), func(i int) bool { return s.docs[i].path >= p })
	if i < len(s.docs) && s.docs[i].path == p {
		return s.docs[i]
	}
	return nil
}

// eachLive calls fn for every live doc.
func (s *snapshot) eachLive(fn func(seg int, i int, d *doc)) {
	for si, sg := range s.segs {
		for i, d := range sg.docs {
			if s.live(si, d.path) {
				fn(si, i, d)
			}
		}
	}
}

// Open opens the index of opts.Root with its catalog in opts.Dir
// (created when missing). When the catalog has a complete generation, the
// views are built from it and brought up to date with the disk before
// Open returns (files whose size and modification time are unchanged are
// not hashed or parsed again); otherwise the index is empty until Build.
func Open(ctx context.Context, opts Options) (*Index, error) {
	if opts.Root == "" || opts.Dir == "" {
		return nil, fmt.Errorf("index: open: root and dir are required: %w", fs.ErrInvalid)
	}
	abs, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("index: open: %w", err)
	}
	opts.Root = abs
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("index: open: %w", err)
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		r.Close()
		return nil, fmt.Errorf("index: open: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	x := &Index{opts: opts, root: r, cat: catalogDir{opts.Dir}, log: log, overlays: map[string][]byte{}}
	x.snap.Store(&snapshot{})
	x.progress.Store(&Progress{})
	// Until the first build, changes are remembered for it to re-read.
	x.dirty = map[string]bool{}
	cur, err := x.cat.current()
	if err != nil {
		r.Close()
		return nil, err
	}
	if opts.Embedder != nil {
		x.vec = newVectors(x, opts.Embedder)
	}
	if cur != "" {
		g, err := x.cat.openGen(cur)
		if err != nil {
			r.Close()
			return nil, err
		}
		x.gen = g
		x.dirty = nil
		if err := x.load(ctx); err != nil {
			x.Close()
			return nil, err
		}
	}
	return x, nil
}

// Close releases the index. Queries after Close fail with ErrClosed.
func (x *Index) Close() error {
	x.stopNotify()
	if x.vec != nil {
		x.vec.close()
	}
	x.wmu.Lock()
	if x.closed {
		x.wmu.Unlock()
		return nil
	}
	x.closed = true
	x.wmu.Unlock()
	x.bg.Wait() // a fold sees closed and drops its work
	x.wmu.Lock()
	defer x.wmu.Unlock()
	err := x.gen.close()
	x.root.Close()
	x.snap.Store(&snapshot{})
	return err
}

// Root is the workspace's directory.
func (x *Index) Root() string { return x.opts.Root }

// excluded reports whether rel is never indexed.
func (x *Index) excluded(rel string) bool {
	if secretFile(rel) || wsfs.IsTemp(path.Base(rel)) {
		return true
	}
	return x.opts.Exclude != nil && x.opts.Exclude(rel)
}

// load builds the views from the current generation and the disk.
func (x *Index) load(ctx context.Context) error {
	x.bmu.Lock()
	defer x.bmu.Unlock()
	rels, err := search.ListFiles(ctx, x.opts.Root)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	docs, err := x.ingestAll(ctx, x.gen, rels, nil)
	if err != nil {
		return err
	}
	x.wmu.Lock()
	defer x.wmu.Unlock()
	x.swapLocked(docs)
	return nil
}

// swapLocked installs a snapshot of one segment of docs (wmu held),
// keeping the overlays.
func (x *Index) swapLocked(docs []*doc) {
	for i, d := range docs {
		if ov, ok := x.overlays[d.path]; ok {
			docs[i] = x.overlayDoc(d.path, ov)
		}
	}
	x.snap.Store(&snapshot{segs: []*segment{newSegment(docs)}, newest: map[string]int{}})
	x.updated.Store(time.Now().UnixNano())
	if x.vec != nil {
		x.vec.poke()
	}
}

// Build indexes the workspace from scratch into a new catalog generation
// and swaps it in (resuming a build of that generation that was
// interrupted: the files it finished are not read again). progress, when
// set, is called as files are done, from the build's goroutines one at a
// time. Queries go on against the previous views until the swap; changes
// reported during the build are applied after it.
func (x *Index) Build(ctx context.Context, progress func(Progress)) error {
	x.bmu.Lock()
	defer x.bmu.Unlock()
	x.building.Store(true)
	defer x.building.Store(false)
	report := func(p Progress) {
		x.progress.Store(&p)
		if progress != nil {
			progress(p)
		}
	}
	x.wmu.Lock()
	if x.closed {
		x.wmu.Unlock()
		return ErrClosed
	}
	if x.dirty == nil {
		x.dirty = map[string]bool{}
	}
	cur := ""
	if x.gen != nil {
		cur = x.gen.name
	}
	x.wmu.Unlock()
	defer func() {
		x.wmu.Lock()
		if x.gen != nil {
			x.dirty = nil
		}
		x.wmu.Unlock()
	}()

	report(Progress{Phase: "list"})
	gens, err := x.cat.generations()
	if err != nil {
		return err
	}
	// Resume the newest unfinished generation after the current one, or
	// start the next.
	name := nextName(gens)
	if len(gens) > 0 && gens[len(gens)-1] > cur {
		name = gens[len(gens)-1]
	}
	g, err := x.cat.openGen(name)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			g.close()
		}
	}()
	rels, err := search.ListFiles(ctx, x.opts.Root)
	if err != nil {
		return fmt.Errorf("index: build: %w", err)
	}
	docs, err := x.ingestAll(ctx, g, rels, report)
	if err != nil {
		return err
	}
	report(Progress{Phase: "views", Files: len(rels), Total: len(rels)})
	if err := g.finish(); err != nil {
		return err
	}
	if err := x.cat.swap(name); err != nil {
		return err
	}
	x.wmu.Lock()
	old := x.gen
	x.gen = g
	ok = true
	dirty := x.dirty
	x.dirty = nil
	x.swapLocked(docs)
	x.wmu.Unlock()
	old.close()
	if len(dirty) > 0 {
		paths := make([]string, 0, len(dirty))
		for p := range dirty {
			paths = append(paths, p)
		}
		if err := x.Update(ctx, paths...); err != nil {
			return err
		}
	}
	report(Progress{Phase: "done", Files: len(rels), Total: len(rels)})
	return nil
}

// Refresh brings the views up to date with the disk: a walk that compares
// every file's size and modification time with what is indexed, reads
// the files that differ and drops the files that are gone. Without a
// catalog it builds one.
func (x *Index) Refresh(ctx context.Context) error {
	x.wmu.Lock()
	g := x.gen
	x.wmu.Unlock()
	if g == nil {
		return x.Build(ctx, nil)
	}
	rels, err := search.ListFiles(ctx, x.opts.Root)
	if err != nil {
		return fmt.Errorf("index: refresh: %w", err)
	}
	st := x.snap.Load()
	var changed []string
	seen := make(map[string]bool, len(rels))
	for _, rel := range rels {
		seen[rel] = true
		if x.excluded(rel) {
			continue
		}
		fi, err := x.root.Lstat(rel)
		if err != nil {
			changed = append(changed, rel)
			continue
		}
		if d := st.lookup(rel); d != nil {
			if d.overlay || (d.size == fi.Size() && d.mtime == fi.ModTime().UnixNano()) {
				continue
			}
		} else if r, _, ok := g.lookup(rel); ok && r.Skip != "" && r.Size == fi.Size() && r.MTime == fi.ModTime().UnixNano() {
			continue
		}
		changed = append(changed, rel)
	}
	st.eachLive(func(_, _ int, d *doc) {
		if !seen[d.path] && !d.overlay {
			changed = append(changed, d.path)
		}
	})
	if len(changed) == 0 {
		return nil
	}
	return x.Update(ctx, changed...)
}

// Update re-reads the given files now (workspace-relative slash paths or
// absolute paths inside the workspace): changed, created, removed or
// renamed (both names) files. A directory re-reads everything below it. A
// path outside the workspace is ignored. When Update returns, queries see
// the change.
func (x *Index) Update(ctx context.Context, paths ...string) error {
	var rels []string
	for _, p := range paths {
		rel, ok := x.rel(p)
		if !ok {
			continue
		}
		fi, err := x.root.Lstat(rel)
		if err != nil {
			// Gone: it may have been a directory; what was below it is gone.
			prefix := rel + "/"
			x.snap.Load().eachLive(func(_, _ int, d *doc) {
				if strings.HasPrefix(d.path, prefix) {
					rels = append(rels, d.path)
				}
			})
		}
		if err == nil && fi.IsDir() {
			if search.Ignored(x.root, rel, true) {
				continue
			}
			sub, err := search.ListFiles(ctx, filepath.Join(x.opts.Root, filepath.FromSlash(rel)))
			if err == nil {
				for _, s := range sub {
					rels = append(rels, rel+"/"+s)
				}
			}
			// Files below it that are gone.
			prefix := rel + "/"
			x.snap.Load().eachLive(func(_, _ int, d *doc) {
				if strings.HasPrefix(d.path, prefix) {
					rels = append(rels, d.path)
				}
			})
			continue
		}
		rels = append(rels, rel)
	}
	if len(rels) == 0 {
		return nil
	}
	sort.Strings(rels)
	rels = compactStrings(rels)
	x.wmu.Lock()
	defer x.wmu.Unlock()
	if x.closed {
		return ErrClosed
	}
	if x.dirty != nil {
		for _, r := range rels {
			x.dirty[r] = true
		}
	}
	if x.gen == nil {
		// Nothing built yet: the coming build reads the files.
		return nil
	}
	var docs []*doc
	var gone []string
	var toIngest []string
	for _, rel := range rels {
		if ov, ok := x.overlays[rel]; ok {
			docs = append(docs, x.overlayDoc(rel, ov))
			continue
		}
		if search.Ignored(x.root, rel, false) {
			gone = append(gone, rel)
			continue
		}
		toIngest = append(toIngest, rel)
	}
	got, err := x.ingestAll(ctx, x.gen, toIngest, nil)
	if err != nil {
		return err
	}
	// A path reported twice (the write's own hook, then the watcher) or
	// touched without a change keeps its doc: no new segment for it.
	st := x.snap.Load()
	fresh := got[:0]
	unchanged := map[string]bool{}
	for _, d := range got {
		if old := st.lookup(d.path); old != nil && !old.overlay && old.hash == d.hash {
			unchanged[d.path] = true
			continue
		}
		fresh = append(fresh, d)
	}
	got = fresh
	have := unchanged
	for _, d := range got {
		have[d.path] = true
	}
	for _, rel := range toIngest {
		if !have[rel] {
			gone = append(gone, rel)
		}
	}
	for _, rel := range gone {
		if _, _, ok := x.gen.lookup(rel); ok {
			x.gen.write(record{Path: rel, Deleted: true}, symTable{})
		}
	}
	if len(docs)+len(got)+len(gone) > 0 {
		x.applyLocked(append(docs, got...), gone)
	}
	return nil
}

// applyLocked installs a snapshot with docs added (as a new segment) and
// the paths gone removed (wmu held), merging small segments when they
// pile up.
func (x *Index) applyLocked(docs []*doc, gone []string) {
	old := x.snap.Load()
	ns := &snapshot{segs: append([]*segment(nil), old.segs...), newest: make(map[string]int, len(old.newest)+len(docs)+len(gone))}
	for k, v := range old.newest {
		ns.newest[k] = v
	}
	for _, p := range gone {
		ns.newest[p] = -1
	}
	if len(docs) > 0 {
		sort.Slice(docs, func(i, j int) bool { return docs[i].path < docs[j].path })
		ns.segs = append(ns.segs, newSegment(docs))
		for _, d := range docs {
			ns.newest[d.path] = len(ns.segs) - 1
		}
	}
	const maxSegments = 8
	if len(ns.segs) > maxSegments {
		// Merge every segment after the first into one.
		var merged []*doc
		for si := 1; si < len(ns.segs); si++ {
			for _, d := range ns.segs[si].docs {
				if ns.live(si, d.path) {
					merged = append(merged, d)
				}
			}
		}
		sort.Slice(merged, func(i, j int) bool { return merged[i].path < merged[j].path })
		for k, v := range ns.newest {
			if v >= 1 {
				ns.newest[k] = 1
			}
		}
		ns.segs = append(ns.segs[:1], newSegment(merged))
		// When the changes outgrow a quarter of the first segment, fold
		// everything into one, in the background: as long as a build's
		// views, and no write should wait for it.
		if len(merged) > 256 && len(merged) > len(ns.segs[0].docs)/4 && x.folding.CompareAndSwap(false, true) {
			x.bg.Add(1)
			go x.fold()
		}
	}
	x.snap.Store(ns)
	x.updated.Store(time.Now().UnixNano())
	if x.vec != nil {
		x.vec.poke()
	}
}

// fold replaces the snapshot by one segment of its live docs, built
// without holding wmu; when the snapshot changed meanwhile (a change came
// in) it tries again with the new one, a few times, and otherwise leaves
// it to the next merge.
func (x *Index) fold() {
	defer x.bg.Done()
	defer x.folding.Store(false)
	for range 3 {
		base := x.snap.Load()
		if len(base.segs) <= 1 {
			return
		}
		var all []*doc
		base.eachLive(func(_, _ int, d *doc) { all = append(all, d) })
		sort.Slice(all, func(i, j int) bool { return all[i].path < all[j].path })
		seg := newSegment(all)
		x.wmu.Lock()
		if x.closed {
			x.wmu.Unlock()
			return
		}
		if x.snap.Load() == base {
			x.snap.Store(&snapshot{segs: []*segment{seg}, newest: map[string]int{}})
			x.updated.Store(time.Now().UnixNano())
			if x.vec != nil {
				x.vec.poke()
			}
			x.wmu.Unlock()
			return
		}
		x.wmu.Unlock()
	}
}

// SetOverlay makes content (an editor's unsaved buffer) the text indexed
// for path until it is cleared with a nil content; clearing re-reads the
// file from disk. A path the index leaves out (secret, excluded, ignored)
// stays out.
func (x *Index) SetOverlay(ctx context.Context, p string, content []byte) error {
	rel, ok := x.rel(p)
	if !ok {
		return nil
	}
	x.wmu.Lock()
	if x.closed {
		x.wmu.Unlock()
		return ErrClosed
	}
	if content == nil {
		delete(x.overlays, rel)
		x.wmu.Unlock()
		return x.Update(ctx, rel)
	}
	defer x.wmu.Unlock()
	if x.excluded(rel) || search.Ignored(x.root, rel, false) || !search.Searchable(content) {
		return nil
	}
	c := append([]byte(nil), content...)
	x.overlays[rel] = c
	if x.dirty != nil {
		x.dirty[rel] = true
	}
	x.applyLocked([]*doc{x.overlayDoc(rel, c)}, nil)
	return nil
}

// overlayDoc indexes an editor buffer (symbols from Go's parser for Go;
// other languages keep the symbols of the file on disk when it has the
// same hash, and otherwise ask ctags).
func (x *Index) overlayDoc(rel string, content []byte) *doc {
	d := &doc{path: rel, hash: hashOf(content), size: int64(len(content)), content: content, overlay: true}
	d.ranked = len(content) <= MaxIndexSize && !minified(content)
	if d.ranked {
		switch {
		case strings.HasSuffix(rel, ".go"):
			d.symbols = newSymTable(goSymbols(content))
		default:
			if x.gen != nil {
				if s, ok := x.gen.symbolsOf(d.hash, rel); ok {
					d.symbols = s
					break
				}
			}
			if ctagsLanguage(rel) {
				res, err := x.opts.Ctags.symbols(context.Background(), []ctagsFile{{rel, content}})
				if err != nil {
					x.log.Warn("index: ctags", "path", rel, "err", err)
				}
				d.symbols = newSymTable(res[rel])
			}
		}
		d.chunks = newChunkTable(chunkFile(d.symbols.all(), lineCount(content)))
	}
	return d
}

// rel turns p (absolute inside the root, or workspace-relative) into a
// clean slash path relative to the root.
func (x *Index) rel(p string) (string, bool) {
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(x.opts.Root, p)
		if err != nil {
			return "", false
		}
		p = r
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}

// Symbols returns the definitions in a file (workspace-relative or
// absolute path), as indexed (the overlay's when the file is open with
// unsaved changes); ok is false when the file is not in the symbol view.
func (x *Index) Symbols(p string) (syms []Symbol, ok bool) {
	rel, ok := x.rel(p)
	if !ok {
		return nil, false
	}
	d := x.snap.Load().lookup(rel)
	if d == nil || !d.ranked {
		return nil, false
	}
	return d.symbols.all(), true
}

// Status reports the index's state.
func (x *Index) Status() Status {
	st := x.snap.Load()
	s := Status{Root: x.opts.Root, Building: x.building.Load(), Progress: *x.progress.Load(), Segments: len(st.segs)}
	x.wmu.Lock()
	if x.gen != nil {
		s.Generation = x.gen.name
		s.DiskBytes = x.gen.diskSize()
	}
	s.Overlays = len(x.overlays)
	x.wmu.Unlock()
	st.eachLive(func(_, _ int, d *doc) {
		s.Files++
		s.Bytes += d.size
		if d.ranked {
			s.Ranked++
			s.Chunks += d.chunks.len()
			s.Symbols += d.symbols.len()
		}
	})
	for _, sg := range st.segs {
		s.MemoryBytes += int64(sg.memSize())
	}
	if u := x.updated.Load(); u != 0 {
		s.UpdatedAt = time.Unix(0, u)
	}
	if x.vec != nil {
		s.VectorModel, s.VectorLag, s.VectorError = x.vec.status()
	}
	return s
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// ingestAll reads, hashes and extracts the symbols of rels on GOMAXPROCS
// workers, writing a catalog record for each file as soon as it is done,
// and returns the docs of the indexed ones sorted by path. A file whose
// size and modification time match its record in g is not hashed or
// parsed again; content whose hash g has is not parsed again.
func (x *Index) ingestAll(ctx context.Context, g *generation, rels []string, report func(Progress)) ([]*doc, error) {
	slots := make([]*doc, len(rels))
	var next, done atomic.Int64
	var bytes atomic.Int64
	var pmu sync.Mutex
	tick := func(n int64) {
		d := done.Add(1)
		b := bytes.Add(n)
		if report != nil && (d%64 == 0 || int(d) == len(rels)) {
			pmu.Lock()
			report(Progress{Phase: "index", Files: int(d), Total: len(rels), Bytes: b})
			pmu.Unlock()
		}
	}
	// Files for ctags are batched: one process per batch.
	type pending struct {
		i int
		d *doc
	}
	ctagsQ := make(chan pending, 512)
	var cwg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	// Files with the same content (copies, vendored twins) share it.
	var smu sync.Mutex
	byHash := map[string][]byte{}
	shared := func(hash string, content []byte) []byte {
		smu.Lock()
		defer smu.Unlock()
		if c, ok := byHash[hash]; ok {
			return c
		}
		byHash[hash] = content
		return content
	}
	finish := func(i int, d *doc, syms symTable, fresh bool) {
		d.symbols = syms
		if d.ranked {
			d.chunks = newChunkTable(chunkFile(syms.all(), lineCount(d.content)))
		}
		if fresh {
			if err := g.write(record{Path: d.path, Hash: d.hash, Size: d.size, MTime: d.mtime}, syms); err != nil {
				fail(err)
			}
		}
		slots[i] = d
		tick(d.size)
	}
	cwg.Add(1)
	go func() {
		defer cwg.Done()
		var batch []pending
		flush := func() {
			if len(batch) == 0 {
				return
			}
			files := make([]ctagsFile, len(batch))
			for k, p := range batch {
				files[k] = ctagsFile{p.d.path, p.d.content}
			}
			res, err := x.opts.Ctags.symbols(ctx, files)
			if err != nil {
				// Indexed without symbols, but not recorded: the next
				// build or load asks ctags again.
				if ctx.Err() == nil {
					x.log.Warn("index: ctags", "err", err)
				}
			}
			for _, p := range batch {
				finish(p.i, p.d, newSymTable(res[p.d.path]), err == nil)
			}
			batch = batch[:0]
		}
		for p := range ctagsQ {
			batch = append(batch, p)
			if len(batch) >= 256 {
				flush()
			}
		}
		flush()
	}()
	var wg sync.WaitGroup
	// A build reads files into slabs (no allocation per file, no size
	// class rounding: 5% of the corpus); a small update reads each file
	// into its own buffer, so a changed file does not keep a slab alive.
	useSlabs := len(rels) > 64
	var sl slab
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alloc := func(n int) []byte { return make([]byte, n) }
			if useSlabs {
				alloc = sl.alloc
			}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(rels) || ctx.Err() != nil {
					return
				}
				rel := rels[i]
				if x.excluded(rel) {
					tick(0)
					continue
				}
				fi, err := x.root.Lstat(rel)
				if err != nil || !fi.Mode().IsRegular() || fi.Size() > search.MaxFileSize {
					tick(0)
					continue
				}
				rec, syms, known := g.lookup(rel)
				same := known && rec.Size == fi.Size() && rec.MTime == fi.ModTime().UnixNano()
				if same && rec.Skip != "" {
					tick(0)
					continue
				}
				content, fi2, ok := readFileWith(x.root, rel, alloc)
				if !ok {
					tick(0)
					continue
				}
				fi = fi2
				if !search.Searchable(content) {
					sl.giveBack(content)
					if !same {
						if err := g.write(record{Path: rel, Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Skip: "binary"}, symTable{}); err != nil {
							fail(err)
						}
					}
					tick(0)
					continue
				}
				d := &doc{path: rel, size: int64(len(content)), mtime: fi.ModTime().UnixNano()}
				if same {
					d.hash = rec.Hash
				} else {
					d.hash = hashOf(content)
				}
				d.ranked = len(content) <= MaxIndexSize && !minified(content)
				if len(content) <= MaxIndexSize {
					if c := shared(d.hash, content); len(c) > 0 && &c[0] != &content[0] {
						sl.giveBack(content)
						content = c
					}
				}
				d.content = content
				if len(content) > MaxIndexSize {
					// Exact search reads it from disk, when its trigrams
					// say it can match.
					d.content, d.tris = nil, trigramsOf(content)
					d.blocks = newBlocks(content, d.tris)
				}
				if same {
					finish(i, d, syms, false)
					continue
				}
				if s, ok := g.symbolsOf(d.hash, rel); ok {
					finish(i, d, s, true)
					continue
				}
				switch {
				case !d.ranked:
					finish(i, d, symTable{}, true)
				case strings.HasSuffix(rel, ".go"):
					finish(i, d, newSymTable(goSymbols(content)), true)
				case ctagsLanguage(rel):
					ctagsQ <- pending{i, d}
				default:
					finish(i, d, symTable{}, true)
				}
			}
		}()
	}
	wg.Wait()
	close(ctagsQ)
	cwg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if firstErr != nil {
		return nil, firstErr
	}
	out := make([]*doc, 0, len(slots))
	for _, d := range slots {
		if d != nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// CatalogDir is the catalog directory of the workspace root under base
// (warden's data dir's "index" directory): the daemon and the CLI, when
// it opens an index itself, share it.
func CatalogDir(base, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(base, hex.EncodeToString(sum[:8]))
}
