package ops

import (
	"context"
	"path/filepath"
	"strconv"

	"github.com/warden-dev/warden/internal/gitcli"
)

// GitStatus is `git status`: branch, HEAD, upstream and changed paths.
func (w *Workspace) GitStatus(ctx context.Context, c Caller) (gitcli.Status, error) {
	p, err := w.GateShell(ctx, c, "git status", false, "git", "status")
	if err != nil {
		return gitcli.Status{}, err
	}
	st, err := p.Git().Status(ctx)
	if err == nil && st.Changes == nil {
		st.Changes = []gitcli.Change{}
	}
	return st, err
}

// GitDiff is `git diff [--staged] [-- rel]` (rel relative to the root, ""
// for every path). The changes of files a read would refuse (.env, keys),
// and of those hide names, are left out: a diff shows file content, so it
// never shows what a read refuses; skipped counts them.
func (w *Workspace) GitDiff(ctx context.Context, c Caller, rel string, staged bool, hide func(abs string) bool) (diff string, skipped int, err error) {
	argv := []string{"git", "diff"}
	if staged {
		argv = append(argv, "--staged")
	}
	if rel != "" {
		argv = append(argv, "--", rel)
	}
	p, err := w.GateShell(ctx, c, "git diff", false, argv...)
	if err != nil {
		return "", 0, err
	}
	names, err := p.Git().DiffNames(ctx, rel, staged)
	if err != nil {
		return "", 0, err
	}
	keep := make([]string, 0, len(names))
	for _, n := range names {
		abs := filepath.Join(w.root, filepath.FromSlash(n))
		if (hide != nil && hide(abs)) || !w.readable(c, abs) {
			skipped++
			continue
		}
		keep = append(keep, n)
	}
	if skipped == 0 {
		d, err := p.Git().Diff(ctx, rel, staged)
		return d, 0, err
	}
	d, err := p.Git().DiffPaths(ctx, keep, staged)
	return d, skipped, err
}

// GitLog is `git log -n max [-- rel]`, newest first.
func (w *Workspace) GitLog(ctx context.Context, c Caller, max int, rel string) ([]gitcli.Entry, error) {
	if max <= 0 {
		max = gitcli.DefaultLogMax
	}
	argv := []string{"git", "log", "-n", strconv.Itoa(max)}
	if rel != "" {
		argv = append(argv, "--", rel)
	}
	p, err := w.GateShell(ctx, c, "git log", false, argv...)
	if err != nil {
		return nil, err
	}
	entries, err := p.Git().Log(ctx, max, rel)
	if err == nil && entries == nil {
		entries = []gitcli.Entry{}
	}
	return entries, err
}
