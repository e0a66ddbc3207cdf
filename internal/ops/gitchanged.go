package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/warden-dev/warden/internal/gitcli"
)

// gitChanged is the set of the workspace's files changed in git
// (modified, added, renamed, untracked: what `git status` lists, deleted
// files aside), which the code index's ranked search favours
// (index.Boosts.Changed).
//
// The set is taken again, by one `git status`, before a ranked query that
// follows a change of the git state: a file changed in the work tree
// (invalidate, from the index's own change feed), a git command of
// warden's that changed the work tree (a checkout), or a change of the
// repository's index or HEAD files (a commit, a stage or a checkout made
// in a terminal). Between changes, queries read the last set and run
// nothing.
type gitChanged struct {
	root string
	git  *gitcli.Repo

	dirty atomic.Bool
	set   atomic.Pointer[map[string]bool] // workspace-relative, slash-separated

	mu    sync.Mutex // held while the set is taken again
	stamp string     // the repository's index and HEAD files when the set was taken
}

func newGitChanged(root string, git *gitcli.Repo) *gitChanged {
	g := &gitChanged{root: root, git: git}
	g.dirty.Store(true)
	return g
}

// has reports whether rel is in the set last taken. It is safe for
// concurrent use and runs nothing.
func (g *gitChanged) has(rel string) bool {
	m := g.set.Load()
	return m != nil && (*m)[rel]
}

// invalidate marks the set as out of date: the next refresh takes it
// again.
func (g *gitChanged) invalidate() { g.dirty.Store(true) }

// refresh takes the set again when the git state may have changed since
// it was last taken.
func (g *gitChanged) refresh(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	top, gitDir := findGitDir(g.root)
	stamp := statStamp(gitDir)
	if !g.dirty.Load() && stamp == g.stamp && g.set.Load() != nil {
		return nil
	}
	// Cleared before git runs: a change made while it runs marks the set
	// dirty again, for the next query.
	g.dirty.Store(false)
	g.stamp = stamp
	set := map[string]bool{}
	if gitDir == "" {
		// not a repository: nothing is changed in git
		g.set.Store(&set)
		return nil
	}
	st, err := g.git.Status(ctx)
	if err != nil {
		g.dirty.Store(true)
		empty := map[string]bool{}
		g.set.Store(&empty)
		if errors.Is(err, gitcli.ErrNotRepo) {
			return nil
		}
		return fmt.Errorf("git status for the code index: %w", err)
	}
	// git's paths are relative to the repository's top, which may be
	// above the workspace's root.
	prefix := ""
	if rel, err := filepath.Rel(top, g.root); err == nil && rel != "." {
		prefix = filepath.ToSlash(rel) + "/"
	}
	for _, c := range st.Changes {
		switch c.Status {
		case gitcli.StatusDeleted, gitcli.StatusIgnored:
			continue
		}
		if p, ok := strings.CutPrefix(c.Path, prefix); ok {
			set[p] = true
		}
	}
	g.set.Store(&set)
	return nil
}

// findGitDir finds the repository holding root: its top (the directory
// with the .git entry) and its git directory ("" when root is in none). A
// .git file (a linked work tree, a submodule) names its git directory.
func findGitDir(root string) (top, gitDir string) {
	for dir := root; ; {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return dir, p
			}
			if b, err := os.ReadFile(p); err == nil {
				if d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
					d = strings.TrimSpace(d)
					if !filepath.IsAbs(d) {
						d = filepath.Join(dir, d)
					}
					return dir, d
				}
			}
			return dir, p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// statStamp describes the git directory's index, HEAD and the branch
// HEAD names (size and modification time of each file): a commit, a
// stage, a checkout or a reset rewrites one of them.
func statStamp(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	files := []string{filepath.Join(gitDir, "index"), filepath.Join(gitDir, "HEAD")}
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		// a linked work tree: branches live in the main git directory
		common = strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref:"); ok {
			ref = filepath.FromSlash(strings.TrimSpace(ref))
			files = append(files, filepath.Join(common, ref), filepath.Join(common, "packed-refs"))
		}
	}
	var b strings.Builder
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%d:%d;", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}
