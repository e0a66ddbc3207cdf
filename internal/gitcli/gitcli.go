// Package gitcli runs the real git command line for the control door's git.*
// methods. It is the mechanism only: whether a caller may commit or switch
// branches is decided before these methods are called.
//
// Every git invocation is built defensively:
//
//   - user-supplied paths always come after "--", and git runs with
//     --literal-pathspecs, so a path is a path: never an option, never a
//     glob or ":(magic)" pathspec;
//   - branch names are refused (ErrBadRef) when they start with '-' or fail
//     git check-ref-format --branch;
//   - commit messages go to git on stdin (commit -F -), never in argv;
//   - git runs without a pager or colour, with core.quotepath=off, the
//     fsmonitor hook off, GIT_TERMINAL_PROMPT=0, GIT_EDITOR=: and LC_ALL=C
//     (stable English messages), and with GIT_OPTIONAL_LOCKS=0 for commands
//     that only read; diffs run with --no-ext-diff and --no-textconv so that
//     repository configuration cannot make a read run other programs;
//   - variables inherited from this process that would point git at another
//     repository or inject configuration (GIT_DIR, GIT_WORK_TREE,
//     GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, ...) are dropped; Repo.Env is
//     applied last and may set anything on purpose.
//
// Hooks (pre-commit, commit-msg, post-checkout, ...) run as git would run
// them unless Repo.DisableHooks is set.
package gitcli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ErrNotRepo is returned (wrapped) when Repo.Dir is not inside a git work
// tree: no repository, a bare repository, the .git directory itself, or a
// directory that does not exist.
var ErrNotRepo = errors.New("not a git work tree")

// ErrBadRef is returned (wrapped, with the name) for a branch name that is
// refused: empty, starting with '-', or not a valid branch name to git.
var ErrBadRef = errors.New("refused branch name")

// ErrBadPath is returned (wrapped) for a path git could not be given: the
// empty string or one containing a NUL byte.
var ErrBadPath = errors.New("refused path")

// ErrNoPaths is returned by Stage and Unstage when given no paths.
var ErrNoPaths = errors.New("no paths given")

// ErrNoMatch is returned (wrapped, with the paths) by Stage and Unstage
// when a path matches no file of the work tree or the index.
var ErrNoMatch = errors.New("path matches no file")

// ErrNoBranch is returned (wrapped, with the name) by Checkout without
// create for a branch that exists neither locally nor as a single
// remote-tracking branch git could start it from.
var ErrNoBranch = errors.New("no such branch")

// ErrNothingStaged is returned by Commit when the index holds no change
// from HEAD (and git has nothing else to record, such as a merge).
var ErrNothingStaged = errors.New("nothing staged to commit")

// DefaultLogMax is the number of log entries returned when Log's max is not
// positive.
const DefaultLogMax = 50

// Repo is a git work tree operated through the git command line. The zero
// value other than Dir is usable; a Repo is safe for concurrent use to the
// extent git itself is (concurrent writers can meet index.lock).
type Repo struct {
	// Dir is a directory inside the work tree; git runs there, and paths
	// are relative to it.
	Dir string
	// Logger receives one debug record per git run. Nil discards them.
	Logger *slog.Logger
	// Env holds extra "KEY=value" entries appended to git's environment
	// after everything else (identity, GIT_CONFIG_GLOBAL, ...).
	Env []string
	// Git is the git program; empty means "git" from PATH.
	Git string
	// Command, when set, builds git's process (name is the git program):
	// the caller's hook to run it confined, since git runs programs the
	// repository names (hooks, filters, diff drivers, fsmonitor) and the
	// repository's config is the agent's to write. The caller's command
	// must honour ctx. Nil means exec.CommandContext.
	Command func(ctx context.Context, name string, args ...string) (*exec.Cmd, error)
	// DisableHooks runs git with core.hooksPath=/dev/null, so no hook of
	// the repository runs.
	DisableHooks bool
	// OnChange, when set, is called after a command that changed the work
	// tree's files (a checkout) succeeded, before it returns: the code
	// index re-reads what changed.
	OnChange func()
}

// Error is a git command that failed. Its message carries git's trimmed
// stderr (or stdout when stderr is empty, as for "nothing to commit"); it
// unwraps to the *exec.ExitError or the error starting git.
type Error struct {
	// Args are the git arguments after the global options.
	Args []string
	// Output is git's trimmed stderr, or stdout when stderr was empty.
	Output string
	// Err is the underlying error.
	Err error
}

// Error returns "git <subcommand>: <git's output> (<underlying error>)".
func (e *Error) Error() string {
	sub := "git"
	if len(e.Args) > 0 {
		sub = "git " + e.Args[0]
	}
	if e.Output == "" {
		return fmt.Sprintf("%s: %v", sub, e.Err)
	}
	return fmt.Sprintf("%s: %s (%v)", sub, e.Output, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Entry is one commit in Log.
type Entry struct {
	// Hash is the full object id.
	Hash string `json:"hash"`
	// Message is the full commit message, trailing newlines removed.
	Message string `json:"message"`
	// Author is the author's name; Email their address.
	Author string `json:"author"`
	Email  string `json:"email"`
	// Date is the author date, strict ISO 8601 ("2006-01-02T15:04:05+07:00").
	Date string `json:"date"`
}

// Branch is a local branch.
type Branch struct {
	// Name is the short name ("main", "feature/x").
	Name string `json:"name"`
	// Current marks the checked-out branch.
	Current bool `json:"current"`
}

// droppedEnv are inherited variables that would redirect git or change
// what it runs; droppedEnvPrefixes likewise by prefix.
var droppedEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_COMMON_DIR": true, "GIT_NAMESPACE": true, "GIT_PREFIX": true,
	"GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
	"GIT_EXTERNAL_DIFF": true, "GIT_DIFF_OPTS": true, "GIT_PAGER": true, "PAGER": true,
	"GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_LITERAL_PATHSPECS": true, "GIT_GLOB_PATHSPECS": true,
	"GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true,
	"GIT_OPTIONAL_LOCKS": true, "GIT_TERMINAL_PROMPT": true,
	"LC_ALL": true, "LANGUAGE": true,
}

var droppedEnvPrefixes = []string{"GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"}

func (r *Repo) environ(read bool) []string {
	base := os.Environ()
	env := make([]string, 0, len(base)+8+len(r.Env))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if droppedEnv[k] {
			continue
		}
		drop := false
		for _, p := range droppedEnvPrefixes {
			if strings.HasPrefix(k, p) {
				drop = true
			}
		}
		if !drop {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat", "GIT_EDITOR=:", "LC_ALL=C")
	if read {
		env = append(env, "GIT_OPTIONAL_LOCKS=0")
	}
	return append(env, r.Env...) // exec keeps the last of duplicate keys
}

// call describes one git run.
type call struct {
	read  bool    // only reads the repository: GIT_OPTIONAL_LOCKS=0
	stdin *string // fed to git's stdin; nil means /dev/null
}

// waitDelay bounds how long git's output pipes may stay open after git is
// killed on context cancellation (a hook's children can hold them).
const waitDelay = 5 * time.Second

func (r *Repo) run(ctx context.Context, c call, args ...string) ([]byte, error) {
	full := []string{"--no-pager", "--literal-pathspecs",
		"-c", "core.quotepath=off", "-c", "color.ui=false", "-c", "core.fsmonitor=false"}
	if r.DisableHooks {
		full = append(full, "-c", "core.hooksPath=/dev/null")
	}
	full = append(full, args...)
	git := r.Git
	if git == "" {
		git = "git"
	}
	var cmd *exec.Cmd
	if r.Command != nil {
		var err error
		if cmd, err = r.Command(ctx, git, full...); err != nil {
			return nil, &Error{Args: args, Err: err}
		}
	} else {
		cmd = exec.CommandContext(ctx, git, full...)
	}
	cmd.Dir = r.Dir
	cmd.Env = r.environ(c.read)
	cmd.WaitDelay = waitDelay
	if c.stdin != nil {
		cmd.Stdin = strings.NewReader(*c.stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	if r.Logger != nil {
		r.Logger.Debug("git", "dir", r.Dir, "args", args, "took", time.Since(start), "err", err)
	}
	if err != nil {
		out := strings.TrimSpace(stderr.String())
		if out == "" {
			out = strings.TrimSpace(stdout.String())
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: %w", ctx.Err(), err)
		}
		return stdout.Bytes(), &Error{Args: args, Output: out, Err: err}
	}
	return stdout.Bytes(), nil
}

// checkWorkTree fails with ErrNotRepo unless Dir is inside a work tree.
func (r *Repo) checkWorkTree(ctx context.Context) error {
	out, err := r.run(ctx, call{read: true}, "rev-parse", "--is-inside-work-tree")
	if err != nil {
		var ge *Error
		var pe *fs.PathError
		if errors.As(err, &ge) && (strings.Contains(ge.Output, "not a git repository") ||
			strings.Contains(ge.Output, "must be run in a work tree")) ||
			errors.As(err, &pe) {
			return fmt.Errorf("gitcli: %s: %w: %w", r.Dir, ErrNotRepo, err)
		}
		return fmt.Errorf("gitcli: %s: %w", r.Dir, err)
	}
	if strings.TrimSpace(string(out)) != "true" {
		return fmt.Errorf("gitcli: %s: %w", r.Dir, ErrNotRepo)
	}
	return nil
}

// hasHead reports whether HEAD points at a commit (false before the first
// commit).
func (r *Repo) hasHead(ctx context.Context) bool {
	_, err := r.run(ctx, call{read: true}, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	return err == nil
}

func checkPaths(paths []string) error {
	if len(paths) == 0 {
		return ErrNoPaths
	}
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return err
		}
	}
	return nil
}

func checkPath(p string) error {
	if p == "" || strings.ContainsRune(p, 0) {
		return fmt.Errorf("%w: %q", ErrBadPath, p)
	}
	return nil
}

// Status reports the branch and the changed paths, untracked files listed
// one by one (--untracked-files=all), ignored files not at all. See Change
// for how staged and unstaged changes are told apart.
func (r *Repo) Status(ctx context.Context) (Status, error) {
	if err := r.checkWorkTree(ctx); err != nil {
		return Status{}, err
	}
	out, err := r.run(ctx, call{read: true}, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	if err != nil {
		return Status{}, fmt.Errorf("gitcli: status: %w", err)
	}
	st, err := parseStatus(out)
	if err != nil {
		return Status{}, fmt.Errorf("gitcli: status: %w", err)
	}
	return st, nil
}

// Diff returns the unified diff of the work tree against the index, or with
// staged of the index against HEAD (against the empty tree before the first
// commit); limited to path when it is not empty. Untracked files are not in
// either diff, as with git diff.
func (r *Repo) Diff(ctx context.Context, path string, staged bool) (string, error) {
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, "--")
	if path != "" {
		if err := checkPath(path); err != nil {
			return "", fmt.Errorf("gitcli: diff: %w", err)
		}
		args = append(args, path)
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return "", err
	}
	out, err := r.run(ctx, call{read: true}, args...)
	if err != nil {
		return "", fmt.Errorf("gitcli: diff: %w", err)
	}
	return string(out), nil
}

// DiffNames lists the paths (relative to Dir) that Diff with the same
// arguments would show.
func (r *Repo) DiffNames(ctx context.Context, path string, staged bool) ([]string, error) {
	args := []string{"diff", "--name-only", "-z", "--relative", "--no-ext-diff", "--no-textconv"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, "--")
	if path != "" {
		if err := checkPath(path); err != nil {
			return nil, fmt.Errorf("gitcli: diff: %w", err)
		}
		args = append(args, path)
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, call{read: true}, args...)
	if err != nil {
		return nil, fmt.Errorf("gitcli: diff: %w", err)
	}
	var names []string
	for _, n := range strings.Split(string(out), "\x00") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names, nil
}

// DiffPaths is Diff limited to paths (relative to Dir; none: an empty
// diff).
func (r *Repo) DiffPaths(ctx context.Context, paths []string, staged bool) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	args := []string{"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--relative"}
	if staged {
		args = append(args, "--cached")
	}
	args = append(args, "--")
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			return "", fmt.Errorf("gitcli: diff: %w", err)
		}
		args = append(args, p)
	}
	out, err := r.run(ctx, call{read: true}, args...)
	if err != nil {
		return "", fmt.Errorf("gitcli: diff: %w", err)
	}
	return string(out), nil
}

// Log returns up to max commits reachable from HEAD, newest first (max <= 0
// means DefaultLogMax), limited to commits touching path when it is not
// empty. Before the first commit it returns no entries and no error.
func (r *Repo) Log(ctx context.Context, max int, path string) ([]Entry, error) {
	if max <= 0 {
		max = DefaultLogMax
	}
	args := []string{"log", "-z", "--no-color", "--format=%H%x00%an%x00%ae%x00%aI%x00%B",
		fmt.Sprintf("--max-count=%d", max), "--"}
	if path != "" {
		if err := checkPath(path); err != nil {
			return nil, fmt.Errorf("gitcli: log: %w", err)
		}
		args = append(args, path)
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, call{read: true}, args...)
	if err != nil {
		if !r.hasHead(ctx) {
			return []Entry{}, nil
		}
		return nil, fmt.Errorf("gitcli: log: %w", err)
	}
	entries, err := parseLog(out)
	if err != nil {
		return nil, fmt.Errorf("gitcli: log: %w", err)
	}
	return entries, nil
}

// parseLog splits log -z output of five NUL-separated fields per commit
// (each commit also NUL-terminated).
func parseLog(out []byte) ([]Entry, error) {
	entries := []Entry{}
	s := string(out)
	if s == "" {
		return entries, nil
	}
	s = strings.TrimSuffix(s, "\x00")
	f := strings.Split(s, "\x00")
	if len(f)%5 != 0 {
		return nil, fmt.Errorf("unexpected git log output (%d fields)", len(f))
	}
	for i := 0; i < len(f); i += 5 {
		entries = append(entries, Entry{
			Hash:    f[i],
			Author:  f[i+1],
			Email:   f[i+2],
			Date:    f[i+3],
			Message: strings.TrimRight(f[i+4], "\n"),
		})
	}
	return entries, nil
}

// Stage adds the current content of paths (files or directories, deletions
// included) to the index: git add -- paths.
func (r *Repo) Stage(ctx context.Context, paths []string) error {
	if err := checkPaths(paths); err != nil {
		return fmt.Errorf("gitcli: stage: %w", err)
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return err
	}
	if _, err := r.run(ctx, call{}, append([]string{"add", "--"}, paths...)...); err != nil {
		return r.unmatched(ctx, "stage", paths, err)
	}
	return nil
}

// unmatched explains a failed stage or unstage: when some paths match
// nothing git knows (neither in the work tree nor in the index, nor in
// HEAD), the error wraps ErrNoMatch and names them; otherwise it is err.
func (r *Repo) unmatched(ctx context.Context, op string, paths []string, err error) error {
	args := []string{"ls-files", "--error-unmatch", "--cached", "--others"}
	if r.hasHead(ctx) {
		args = append(args, "--with-tree=HEAD") // staged deletions still match
	}
	var none []string
	for _, p := range paths {
		if _, lerr := r.run(ctx, call{read: true}, append(args, "--", p)...); lerr != nil {
			var ge *Error
			if !errors.As(lerr, &ge) || ctx.Err() != nil {
				return fmt.Errorf("gitcli: %s: %w", op, err)
			}
			none = append(none, strconv.Quote(p))
		}
	}
	if len(none) == 0 {
		return fmt.Errorf("gitcli: %s: %w", op, err)
	}
	return fmt.Errorf("gitcli: %s: %w: %s: %w", op, ErrNoMatch, strings.Join(none, ", "), err)
}

// Unstage resets the index entries of paths to HEAD, leaving the work tree
// alone: git restore --staged -- paths, or before the first commit (where
// restore cannot resolve HEAD) git reset -q -- paths, which removes them
// from the index.
func (r *Repo) Unstage(ctx context.Context, paths []string) error {
	if err := checkPaths(paths); err != nil {
		return fmt.Errorf("gitcli: unstage: %w", err)
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return err
	}
	args := []string{"restore", "--staged", "--"}
	if !r.hasHead(ctx) {
		args = []string{"reset", "-q", "--"}
	}
	if _, err := r.run(ctx, call{}, append(args, paths...)...); err != nil {
		return r.unmatched(ctx, "unstage", paths, err)
	}
	return nil
}

// Commit records the index as a new commit with message, which is passed on
// stdin (git commit -F -) and kept as written apart from surrounding blank
// lines and trailing spaces (--cleanup=whitespace: lines starting with '#'
// stay). Nothing staged, or an empty message, is git's error.
func (r *Repo) Commit(ctx context.Context, message string) error {
	if err := r.checkWorkTree(ctx); err != nil {
		return err
	}
	if _, err := r.run(ctx, call{stdin: &message}, "commit", "-q", "--cleanup=whitespace", "-F", "-"); err != nil {
		// git diff --cached --quiet exits 0 when the index equals HEAD
		// (before the first commit: when it is empty)
		if _, derr := r.run(ctx, call{read: true}, "diff", "--cached", "--quiet"); derr == nil && ctx.Err() == nil {
			return fmt.Errorf("gitcli: commit: %w: %w", ErrNothingStaged, err)
		}
		return fmt.Errorf("gitcli: commit: %w", err)
	}
	return nil
}

// CheckBranchName returns nil when name is acceptable as a branch name:
// it is not empty, does not start with '-', and git check-ref-format
// --branch accepts it as is (so "@{-1}" shorthands are refused too).
// Otherwise the error wraps ErrBadRef.
func (r *Repo) CheckBranchName(ctx context.Context, name string) error {
	if name == "" || strings.HasPrefix(name, "-") || strings.ContainsRune(name, 0) {
		return fmt.Errorf("gitcli: branch %q: %w", name, ErrBadRef)
	}
	out, err := r.run(ctx, call{read: true}, "check-ref-format", "--branch", name)
	if err != nil {
		return fmt.Errorf("gitcli: branch %q: %w: %w", name, ErrBadRef, err)
	}
	if strings.TrimSpace(string(out)) != name {
		return fmt.Errorf("gitcli: branch %q: %w: expands to %q", name, ErrBadRef, strings.TrimSpace(string(out)))
	}
	return nil
}

// Checkout switches to branch (git switch). With create, a branch that does
// not exist is created from HEAD first (git switch -c), and one that exists
// is simply switched to, matching the spec's "create if missing". Without
// create, a missing local branch is git's error unless git can guess it
// from a single remote-tracking branch.
func (r *Repo) Checkout(ctx context.Context, branch string, create bool) error {
	if err := r.CheckBranchName(ctx, branch); err != nil {
		return err
	}
	if err := r.checkWorkTree(ctx); err != nil {
		return err
	}
	args := []string{"switch", "-q", branch}
	if create {
		if !r.branchExists(ctx, branch) {
			args = []string{"switch", "-q", "-c", branch}
		}
	}
	if _, err := r.run(ctx, call{}, args...); err != nil {
		if !create && ctx.Err() == nil && !r.branchKnown(ctx, branch) {
			return fmt.Errorf("gitcli: checkout: %w %q: %w", ErrNoBranch, branch, err)
		}
		return fmt.Errorf("gitcli: checkout %q: %w", branch, err)
	}
	if r.OnChange != nil {
		r.OnChange()
	}
	return nil
}

// branchExists reports whether the local branch name exists.
func (r *Repo) branchExists(ctx context.Context, name string) bool {
	_, err := r.run(ctx, call{read: true}, "rev-parse", "-q", "--verify", "refs/heads/"+name)
	return err == nil
}

// branchKnown reports whether name is a local branch or a remote-tracking
// branch that git switch could start it from.
func (r *Repo) branchKnown(ctx context.Context, name string) bool {
	if r.branchExists(ctx, name) {
		return true
	}
	out, err := r.run(ctx, call{read: true}, "for-each-ref", "--count=1", "--format=%(refname)", "refs/remotes/*/"+name)
	return err == nil && len(bytes.TrimSpace(out)) > 0
}

// Branches lists the local branches in name order. Before the first commit
// there are none: the branch to be born is not listed (Status reports it).
func (r *Repo) Branches(ctx context.Context) ([]Branch, error) {
	if err := r.checkWorkTree(ctx); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, call{read: true}, "for-each-ref", "--format=%(HEAD)%00%(refname)", "refs/heads/")
	if err != nil {
		return nil, fmt.Errorf("gitcli: branches: %w", err)
	}
	branches := []Branch{}
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		head, ref, ok := strings.Cut(line, "\x00")
		if !ok {
			return nil, fmt.Errorf("gitcli: branches: unexpected line %q", line)
		}
		branches = append(branches, Branch{Name: strings.TrimPrefix(ref, "refs/heads/"), Current: head == "*"})
	}
	return branches, nil
}
