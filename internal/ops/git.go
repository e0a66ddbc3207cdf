package ops

import (
	"context"
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
// for every path).
func (w *Workspace) GitDiff(ctx context.Context, c Caller, rel string, staged bool) (string, error) {
	argv := []string{"git", "diff"}
	if staged {
		argv = append(argv, "--staged")
	}
	if rel != "" {
		argv = append(argv, "--", rel)
	}
	p, err := w.GateShell(ctx, c, "git diff", false, argv...)
	if err != nil {
		return "", err
	}
	return p.Git().Diff(ctx, rel, staged)
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
