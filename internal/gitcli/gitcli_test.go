package gitcli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// newRepo makes an empty repository on branch main, isolated from the
// user's and the system's git configuration.
func newRepo(t *testing.T) *Repo {
	t.Helper()
	dir := t.TempDir()
	home := t.TempDir()
	r := &Repo{Dir: dir, Env: []string{
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"HOME=" + home, "XDG_CONFIG_HOME=" + home,
		"GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir),
		"GIT_AUTHOR_NAME=Ada Tester", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Tester", "GIT_COMMITTER_EMAIL=ada@example.com",
	}}
	mustGit(t, r, "init", "-q", "-b", "main")
	return r
}

// mustGit runs a git command for test set-up.
func mustGit(t *testing.T, r *Repo, args ...string) string {
	t.Helper()
	out, err := r.run(context.Background(), call{}, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func write(t *testing.T, r *Repo, name, content string) {
	t.Helper()
	p := filepath.Join(r.Dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commitAll(t *testing.T, r *Repo, msg string) {
	t.Helper()
	mustGit(t, r, "add", "-A")
	mustGit(t, r, "commit", "-q", "-m", msg)
}

// changeSet renders changes as sorted "path status staged|unstaged" lines.
func changeSet(cs []Change) []string {
	var out []string
	for _, c := range cs {
		side := "unstaged"
		if c.Staged {
			side = "staged"
		}
		s := c.Path + " " + c.Status + " " + side
		if c.OrigPath != "" {
			s += " from " + c.OrigPath
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func TestStatus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	for _, f := range []string{"mod.txt", "staged.txt", "both.txt", "gone.txt", "removed.txt"} {
		write(t, r, f, f+"\n")
	}
	write(t, r, "old.txt", strings.Repeat("rename me\n", 20))
	commitAll(t, r, "base")

	write(t, r, "mod.txt", "changed\n")
	write(t, r, "staged.txt", "changed\n")
	write(t, r, "both.txt", "first\n")
	mustGit(t, r, "add", "staged.txt", "both.txt")
	write(t, r, "both.txt", "second\n")
	if err := os.Remove(filepath.Join(r.Dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	mustGit(t, r, "rm", "-q", "removed.txt")
	mustGit(t, r, "mv", "old.txt", "new.txt")
	write(t, r, "sub/dir/untracked é.txt", "x\n")
	write(t, r, "added.txt", "x\n")
	mustGit(t, r, "add", "added.txt")

	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || st.Detached || len(st.Commit) != 40 {
		t.Fatalf("branch %q detached %v commit %q", st.Branch, st.Detached, st.Commit)
	}
	want := []string{
		"added.txt added staged",
		"both.txt modified staged",
		"both.txt modified unstaged",
		"gone.txt deleted unstaged",
		"mod.txt modified unstaged",
		"new.txt renamed staged from old.txt",
		"removed.txt deleted staged",
		"staged.txt modified staged",
		"sub/dir/untracked é.txt untracked unstaged",
	}
	if got := changeSet(st.Changes); !slices.Equal(got, want) {
		t.Fatalf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestStatusInitialAndConflict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	st, err := r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "main" || st.Commit != "" || len(st.Changes) != 0 || st.Changes == nil {
		t.Fatalf("empty repo status %+v", st)
	}

	write(t, r, "f.txt", "base\n")
	commitAll(t, r, "base")
	mustGit(t, r, "switch", "-q", "-c", "other")
	write(t, r, "f.txt", "other\n")
	commitAll(t, r, "other")
	mustGit(t, r, "switch", "-q", "main")
	write(t, r, "f.txt", "main\n")
	commitAll(t, r, "main")
	if _, err := r.run(ctx, call{}, "merge", "-q", "other"); err == nil {
		t.Fatal("merge did not conflict")
	}
	st, err = r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := changeSet(st.Changes); !slices.Equal(got, []string{"f.txt conflicted unstaged"}) || st.Changes[0].XY != "UU" {
		t.Fatalf("changes %v", st.Changes)
	}

	mustGit(t, r, "merge", "--abort")
	mustGit(t, r, "switch", "-q", "--detach", "HEAD~1")
	st, err = r.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Detached || st.Branch != "(detached)" {
		t.Fatalf("detached status %+v", st)
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	write(t, r, "a.txt", "a\n")
	write(t, r, "b.txt", "b\n")
	// Staged diff before the first commit is against the empty tree.
	mustGit(t, r, "add", "a.txt")
	d, err := r.Diff(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(d, "new file mode") || !strings.Contains(d, "+a") {
		t.Fatalf("initial staged diff %q", d)
	}
	commitAll(t, r, "base")

	write(t, r, "a.txt", "a staged\n")
	mustGit(t, r, "add", "a.txt")
	write(t, r, "b.txt", "b unstaged\n")
	write(t, r, "a.txt", "a unstaged\n")

	unstaged, err := r.Diff(ctx, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(unstaged, "+b unstaged") || !strings.Contains(unstaged, "-a staged\n+a unstaged") {
		t.Fatalf("unstaged diff %q", unstaged)
	}
	staged, err := r.Diff(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(staged, "-a\n+a staged") || strings.Contains(staged, "b.txt") {
		t.Fatalf("staged diff %q", staged)
	}
	onlyB, err := r.Diff(ctx, "b.txt", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(onlyB, "+b unstaged") || strings.Contains(onlyB, "a.txt") {
		t.Fatalf("diff of b.txt %q", onlyB)
	}
	none, err := r.Diff(ctx, "b.txt", true)
	if err != nil || none != "" {
		t.Fatalf("staged diff of b.txt %q, %v", none, err)
	}
}

var hashRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

func TestLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	entries, err := r.Log(ctx, 0, "")
	if err != nil || len(entries) != 0 || entries == nil {
		t.Fatalf("log of empty repo: %v, %v", entries, err)
	}
	write(t, r, "a.txt", "1\n")
	commitAll(t, r, "first")
	write(t, r, "b.txt", "2\n")
	commitAll(t, r, "second\n\nwith a body\nof two lines")
	write(t, r, "a.txt", "3\n")
	commitAll(t, r, "third")

	all, err := r.Log(ctx, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Message != "third" || all[1].Message != "second\n\nwith a body\nof two lines" || all[2].Message != "first" {
		t.Fatalf("log %+v", all)
	}
	for _, e := range all {
		if !hashRE.MatchString(e.Hash) || e.Author != "Ada Tester" || e.Email != "ada@example.com" {
			t.Fatalf("entry %+v", e)
		}
		if _, err := time.Parse(time.RFC3339, e.Date); err != nil {
			t.Fatalf("date %q: %v", e.Date, err)
		}
	}
	two, err := r.Log(ctx, 2, "")
	if err != nil || len(two) != 2 || two[0].Hash != all[0].Hash || two[1].Hash != all[1].Hash {
		t.Fatalf("log max 2: %+v, %v", two, err)
	}
	onA, err := r.Log(ctx, 0, "a.txt")
	if err != nil || len(onA) != 2 || onA[0].Message != "third" || onA[1].Message != "first" {
		t.Fatalf("log a.txt: %+v, %v", onA, err)
	}
	onA1, err := r.Log(ctx, 1, "a.txt")
	if err != nil || len(onA1) != 1 || onA1[0].Message != "third" {
		t.Fatalf("log a.txt max 1: %+v, %v", onA1, err)
	}
}

func TestStageUnstage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	write(t, r, "a.txt", "a\n")
	write(t, r, "dir/b.txt", "b\n")

	// Before the first commit.
	if err := r.Stage(ctx, []string{"a.txt", "dir"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt added staged", "dir/b.txt added staged")
	if err := r.Unstage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt untracked unstaged", "dir/b.txt added staged")
	if err := r.Stage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Commit(ctx, "base"); err != nil {
		t.Fatal(err)
	}

	// After it.
	write(t, r, "dir/b.txt", "b2\n")
	if err := os.Remove(filepath.Join(r.Dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt deleted unstaged", "dir/b.txt modified unstaged")
	if err := r.Stage(ctx, []string{"dir/b.txt", "a.txt"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt deleted staged", "dir/b.txt modified staged")
	if err := r.Unstage(ctx, []string{"dir/b.txt"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt deleted staged", "dir/b.txt modified unstaged")
	if err := r.Unstage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "a.txt deleted unstaged", "dir/b.txt modified unstaged")

	if err := r.Stage(ctx, nil); !errors.Is(err, ErrNoPaths) {
		t.Fatalf("Stage(nil): %v", err)
	}
	if err := r.Unstage(ctx, []string{""}); !errors.Is(err, ErrBadPath) {
		t.Fatalf("Unstage empty path: %v", err)
	}
	err := r.Stage(ctx, []string{"dir/b.txt", "missing.txt"})
	if !errors.Is(err, ErrNoMatch) || !strings.Contains(err.Error(), `"missing.txt"`) || strings.Contains(err.Error(), `"dir/b.txt"`) {
		t.Fatalf("Stage missing: %v, want ErrNoMatch naming missing.txt only", err)
	}
	if err := r.Unstage(ctx, []string{"nope/x.go"}); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("Unstage missing: %v, want ErrNoMatch", err)
	}
	// a staged deletion still matches (it is in HEAD)
	if err := r.Stage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Unstage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
}

func assertChanges(t *testing.T, r *Repo, want ...string) {
	t.Helper()
	st, err := r.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := changeSet(st.Changes); !slices.Equal(got, want) {
		t.Fatalf("changes %q, want %q", got, want)
	}
}

func TestCommitMessageVerbatim(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	write(t, r, "a.txt", "a\n")
	if err := r.Stage(ctx, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	msg := "--amend -m hacked\n\nbody with é\n# not a comment\n-F /etc/passwd"
	if err := r.Commit(ctx, msg+"\n\n"); err != nil {
		t.Fatal(err)
	}
	log, err := r.Log(ctx, 0, "")
	if err != nil || len(log) != 1 || log[0].Message != msg {
		t.Fatalf("log %+v, %v", log, err)
	}
	err = r.Commit(ctx, "nothing staged")
	var ge *Error
	if !errors.As(err, &ge) || !errors.Is(err, ErrNothingStaged) {
		t.Fatalf("empty commit: %v, want ErrNothingStaged", err)
	}
	// an unstaged change is still nothing staged
	write(t, r, "a.txt", "changed\n")
	if err := r.Commit(ctx, "still nothing"); !errors.Is(err, ErrNothingStaged) {
		t.Fatalf("commit with only unstaged changes: %v, want ErrNothingStaged", err)
	}
	// before the first commit
	r2 := newRepo(t)
	if err := r2.Commit(ctx, "first"); !errors.Is(err, ErrNothingStaged) {
		t.Fatalf("first commit with an empty index: %v, want ErrNothingStaged", err)
	}
}

func TestCheckoutAndBranches(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	if bs, err := r.Branches(ctx); err != nil || len(bs) != 0 {
		t.Fatalf("branches before first commit: %v, %v", bs, err)
	}
	write(t, r, "a.txt", "a\n")
	commitAll(t, r, "base")

	if err := r.Checkout(ctx, "feature/x", true); err != nil {
		t.Fatal(err)
	}
	assertBranches(t, r, "feature/x*", "main")
	if err := r.Checkout(ctx, "main", false); err != nil {
		t.Fatal(err)
	}
	assertBranches(t, r, "feature/x", "main*")
	// create on an existing branch switches to it.
	if err := r.Checkout(ctx, "feature/x", true); err != nil {
		t.Fatal(err)
	}
	assertBranches(t, r, "feature/x*", "main")
	if st, err := r.Status(ctx); err != nil || st.Branch != "feature/x" {
		t.Fatalf("status branch %q, %v", st.Branch, err)
	}
	err := r.Checkout(ctx, "missing", false)
	if !errors.Is(err, ErrNoBranch) || errors.Is(err, ErrBadRef) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("checkout missing: %v, want ErrNoBranch", err)
	}
	// a branch git can start from a remote-tracking branch is not missing
	mustGit(t, r, "remote", "add", "origin", r.Dir)
	mustGit(t, r, "update-ref", "refs/remotes/origin/from-remote", "HEAD")
	if err := r.Checkout(ctx, "from-remote", false); err != nil {
		t.Fatalf("checkout of a remote-tracking branch: %v", err)
	}
}

func assertBranches(t *testing.T, r *Repo, want ...string) {
	t.Helper()
	bs, err := r.Branches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bs {
		s := b.Name
		if b.Current {
			s += "*"
		}
		got = append(got, s)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("branches %q, want %q", got, want)
	}
}

func TestOptionInjection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRepo(t)
	write(t, r, "a.txt", "a\n")
	commitAll(t, r, "base")
	write(t, r, "a.txt", "a2\n")
	out := t.TempDir()
	for _, p := range []string{"--output=" + filepath.Join(out, "x"), "-o" + filepath.Join(out, "y")} {
		err := r.Stage(ctx, []string{p})
		if err == nil || !strings.Contains(err.Error(), "did not match any files") {
			t.Errorf("Stage(%q): %v", p, err)
		}
		if d, err := r.Diff(ctx, p, false); err != nil || d != "" {
			t.Errorf("Diff(%q) = %q, %v", p, d, err)
		}
		if l, err := r.Log(ctx, 0, p); err != nil || len(l) != 0 {
			t.Errorf("Log(%q) = %v, %v", p, l, err)
		}
		if err := r.Unstage(ctx, []string{p}); err == nil {
			t.Errorf("Unstage(%q) succeeded", p)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("files written: %v", ents)
	}
	// Glob characters and pathspec magic are literal.
	for _, p := range []string{"*.txt", ":(glob)*", ":/a.txt", "?.txt"} {
		if err := r.Stage(ctx, []string{p}); err == nil {
			t.Errorf("Stage(%q) matched something", p)
		}
	}
	assertChanges(t, r, "a.txt modified unstaged")
	// A file really named like an option is just a file.
	write(t, r, "--output=z", "z\n")
	if err := r.Stage(ctx, []string{"--output=z"}); err != nil {
		t.Fatal(err)
	}
	assertChanges(t, r, "--output=z added staged", "a.txt modified unstaged")

	for _, b := range []string{"-D", "--orphan", "-", "", "a..b", "@{-1}", "HEAD~1", "x y", "bad\x00nul", "refs/heads/../x"} {
		err := r.Checkout(ctx, b, true)
		if !errors.Is(err, ErrBadRef) {
			t.Errorf("Checkout(%q): %v", b, err)
		}
	}
	assertBranches(t, r, "main*")
	if err := r.Stage(ctx, []string{"nul\x00byte"}); !errors.Is(err, ErrBadPath) {
		t.Errorf("NUL path: %v", err)
	}
}

func TestNotRepo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := newRepo(t)
	plain := t.TempDir()
	for name, dir := range map[string]string{
		"plain":   plain,
		"missing": filepath.Join(plain, "missing"),
		"gitdir":  filepath.Join(base.Dir, ".git"),
	} {
		r := &Repo{Dir: dir, Env: append(slices.Clone(base.Env), "GIT_CEILING_DIRECTORIES="+filepath.Dir(plain))}
		if _, err := r.Status(ctx); !errors.Is(err, ErrNotRepo) {
			t.Errorf("%s: Status: %v", name, err)
		}
		if _, err := r.Log(ctx, 1, ""); !errors.Is(err, ErrNotRepo) {
			t.Errorf("%s: Log: %v", name, err)
		}
		if err := r.Stage(ctx, []string{"a"}); !errors.Is(err, ErrNotRepo) {
			t.Errorf("%s: Stage: %v", name, err)
		}
	}
}

// TestInheritedGitDirIgnored: a GIT_DIR in this process's environment must
// not send git to another repository.
func TestInheritedGitDirIgnored(t *testing.T) {
	other := newRepo(t)
	r := newRepo(t)
	write(t, r, "mine.txt", "x\n")
	t.Setenv("GIT_DIR", filepath.Join(other.Dir, ".git"))
	t.Setenv("GIT_WORK_TREE", other.Dir)
	assertChanges(t, r, "mine.txt untracked unstaged")
}

func TestContextCancel(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Status(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Status: %v", err)
	}
}
