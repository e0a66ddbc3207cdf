package ops_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/internal/index"
)

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

// A file changed in git ranks above an otherwise equal unchanged one, and
// the set follows the git state: a commit made outside warden, a change
// of the work tree.
func TestIndexBoostsFilesChangedInGit(t *testing.T) {
	const body = "package util\n\n// Frobnicate twiddles the widget.\nfunc Frobnicate(widget int) int { return widget + 1 }\n"
	f := newIndexedFixture(t, map[string]string{"p1/util.go": body, "p2/util.go": body})
	runGit(t, f.root, "init", "-q", "-b", "main")
	runGit(t, f.root, "add", "p1/util.go")
	runGit(t, f.root, "commit", "-q", "-m", "p1")
	q := index.Query{Text: "frobnicate widget"}

	// p2 is untracked: changed. Without the boost the two tie and p1,
	// indexed first, would come first.
	if got := f.hits(t, q); len(got) != 2 || got[0] != "p2/util.go" {
		t.Fatalf("p2 untracked: %v, want p2/util.go first", got)
	}

	// A commit made in a terminal (not through warden) leaves nothing
	// changed; then p1 changes on disk (a trailing newline: same words).
	runGit(t, f.root, "add", "p2/util.go")
	runGit(t, f.root, "commit", "-q", "-m", "p2")
	if err := f.ws.WriteFile(context.Background(), caller, filepath.Join(f.root, "p1/util.go"), []byte(body+"\n")); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, q); len(got) != 2 || got[0] != "p1/util.go" {
		t.Fatalf("p1 modified: %v, want p1/util.go first", got)
	}

	// Then p2 is modified.
	runGit(t, f.root, "commit", "-q", "-am", "p1 again")
	if err := f.ws.WriteFile(context.Background(), caller, filepath.Join(f.root, "p2/util.go"), []byte(body+"\n")); err != nil {
		t.Fatal(err)
	}
	if got := f.hits(t, q); len(got) != 2 || got[0] != "p2/util.go" {
		t.Fatalf("p2 modified: %v, want p2/util.go first", got)
	}

	// Committed in a terminal with no file written since: the repository's
	// own files tell the set to be taken again, and the two tie.
	runGit(t, f.root, "commit", "-q", "-am", "p2 again")
	res, err := f.ws.IndexSearch(context.Background(), caller, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].Score != res.Hits[1].Score {
		t.Fatalf("all committed: %+v, want two hits of equal score", res.Hits)
	}
}
