package workspace

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

func open(t *testing.T, file string) *Registry {
	t.Helper()
	r, err := Open(file, Options{Now: func() time.Time { return time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAddListRemovePersist(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	r := open(t, file)
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	w, isNew, err := r.Add(link)
	if err != nil || !isNew {
		t.Fatalf("Add = %+v, %v, %v", w, isNew, err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if w.Path != real {
		t.Fatalf("path %q, want the resolved %q", w.Path, real)
	}
	if _, isNew, _ := r.Add(dir); isNew {
		t.Fatal("adding the same directory twice made a second workspace")
	}
	sub := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if root, ok := r.Lookup(sub); !ok || root != real {
		t.Fatalf("Lookup(sub) = %q, %v", root, ok)
	}
	if _, ok := r.Lookup(t.TempDir()); ok {
		t.Fatal("Lookup found an unregistered directory")
	}
	v := "feature/x"
	if _, err := r.SetMetadata(dir, "base", &v); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetAgent(dir, "opencode"); err != nil {
		t.Fatal(err)
	}

	// A second registry over the same file sees everything.
	r2 := open(t, file)
	got, err := r2.Get(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata["base"] != v || got.Agent != "opencode" || got.Name != filepath.Base(real) {
		t.Fatalf("reloaded %+v", got)
	}
	if _, err := r2.SetMetadata(dir, "base", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := r2.Get(dir); len(got.Metadata) != 0 {
		t.Fatalf("metadata after delete: %v", got.Metadata)
	}
	if _, err := r2.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Get(dir); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Remove: %v", err)
	}
	if _, err := r2.Remove(dir); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Remove: %v", err)
	}
	if len(open(t, file).List()) != 0 {
		t.Fatal("removal not persisted")
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	file := filepath.Join(t.TempDir(), FileName)
	r := open(t, file)
	dir := t.TempDir()
	if _, _, err := r.Add(dir); err != nil {
		t.Fatal(err)
	}
	v := "x"
	for _, key := range []string{"", "-lead", "a b", "x/y", string(make([]byte, 70))} {
		if _, err := r.SetMetadata(dir, key, &v); !errors.Is(err, ErrBadKey) {
			t.Errorf("key %q: err %v, want ErrBadKey", key, err)
		}
	}
	big := string(make([]byte, MaxMetadataValue+1))
	if _, err := r.SetMetadata(dir, "k", &big); err == nil {
		t.Error("an oversized value was accepted")
	}
	if _, err := r.SetMetadata(t.TempDir(), "k", &v); !errors.Is(err, ErrNotFound) {
		t.Errorf("metadata of an unregistered dir: %v", err)
	}
	if _, _, err := r.Add(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing directory was added")
	}
	f := filepath.Join(dir, "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Add(f); err == nil {
		t.Error("a file was added as a workspace")
	}
	if got, _ := r.Get(dir); len(got.Metadata) != 0 {
		t.Fatalf("bad input changed metadata: %v", got.Metadata)
	}
	if err := os.WriteFile(file, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file, Options{}); err == nil {
		t.Fatal("a corrupt registry file was read as empty")
	}
}

func TestCreateAndDeleteWorktree(t *testing.T) {
	ctx := context.Background()
	proj := gitRepo(t)
	r := open(t, filepath.Join(t.TempDir(), FileName))
	trees := t.TempDir()
	w, err := r.Create(ctx, CreateOptions{Project: proj, Name: "feature-1", Dir: trees})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Managed || w.Project != proj || w.Branch != "feature-1" || filepath.Base(w.Path) != "feature-1" {
		t.Fatalf("created %+v", w)
	}
	out, err := exec.Command("git", "-C", w.Path, "rev-parse", "--abbrev-ref", "HEAD").Output()
	if err != nil || string(out) != "feature-1\n" {
		t.Fatalf("worktree HEAD %q, %v", out, err)
	}
	// A workspace created from inside a worktree belongs to the main repo.
	w2, err := r.Create(ctx, CreateOptions{Project: w.Path, Name: "feature-2", Dir: trees})
	if err != nil {
		t.Fatal(err)
	}
	if w2.Project != proj {
		t.Fatalf("nested create project %q, want %q", w2.Project, proj)
	}
	if _, err := r.Create(ctx, CreateOptions{Project: proj, Name: "feature-1", Dir: trees}); err == nil {
		t.Fatal("a second workspace with the same name was created")
	}
	for _, bad := range []string{"", "../x", "a b", "-x", "x.lock", "x..y"} {
		if _, err := r.Create(ctx, CreateOptions{Project: proj, Name: bad, Dir: trees}); !errors.Is(err, ErrBadName) {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	if _, err := r.Create(ctx, CreateOptions{Project: t.TempDir(), Name: "x", Dir: trees}); !errors.Is(err, ErrNotProject) {
		t.Errorf("create outside a repo: %v", err)
	}

	// A dirty worktree is kept unless forced.
	if err := os.WriteFile(filepath.Join(w.Path, "new.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !r.Dirty(ctx, w.Path) {
		t.Fatal("Dirty = false with an untracked file")
	}
	if _, err := r.Delete(ctx, w.Path, false); err == nil {
		t.Fatal("a dirty worktree was removed without force")
	}
	if _, err := r.Get(w.Path); err != nil {
		t.Fatalf("failed delete unregistered it: %v", err)
	}
	if _, err := r.Delete(ctx, w.Path, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !os.IsNotExist(err) {
		t.Fatalf("worktree dir still there: %v", err)
	}
	out, _ = exec.Command("git", "-C", proj, "worktree", "list").Output()
	if strings.Contains(string(out), w.Path) {
		t.Fatalf("git still lists the worktree:\n%s", out)
	}
	// An unmanaged workspace's directory is never touched.
	plain := t.TempDir()
	if _, _, err := r.Add(plain); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Delete(ctx, plain, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plain); err != nil {
		t.Fatalf("unmanaged dir removed: %v", err)
	}
}

func TestBroadDirectoriesAreRefused(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "warden")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	r, err := Open(filepath.Join(t.TempDir(), "ws.json"), Options{Home: home, Protected: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/etc", "/usr/local", "/proc", home, filepath.Join(home, ".local"), data, filepath.Dir(home)} {
		if _, _, err := r.Add(p); !errors.Is(err, ErrBroad) || !strings.Contains(err.Error(), "--allow-broad") {
			t.Errorf("Add(%s) = %v, want ErrBroad saying how to override", p, err)
		}
	}
	proj := filepath.Join(home, "src", "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Add(proj); err != nil {
		t.Fatalf("a project in the home directory: %v", err)
	}
	// a person may insist; the choice is remembered and served
	w, _, err := r.AddWith("/etc", AddOptions{AllowBroad: true})
	if err != nil || !w.AllowBroad {
		t.Fatalf("AddWith(/etc, AllowBroad) = %+v, %v", w, err)
	}
	if root, ok := r.Lookup("/etc/hosts"); !ok || root != "/etc" {
		t.Fatalf("Lookup(/etc/hosts) = %q %v", root, ok)
	}
	if _, ok := r.Lookup(home); ok {
		t.Fatal("the home directory is served")
	}
}

func TestRefuseHookIsAsked(t *testing.T) {
	home := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	proj := filepath.Join(home, "proj")
	for _, d := range []string{ssh, proj} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(filepath.Join(t.TempDir(), "ws.json"), Options{Home: home, Refuse: func(root string) string {
		if root == ssh {
			return "it would expose SSH keys"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Add(ssh); !errors.Is(err, ErrBroad) || !strings.Contains(err.Error(), "SSH keys") {
		t.Fatalf("Add(~/.ssh) = %v, want refused with the hook's reason", err)
	}
	if _, _, err := r.Add(proj); err != nil {
		t.Fatalf("Add(project) = %v", err)
	}
}

// warden's own git bookkeeping runs no program the repository's config
// names: an agent can write that config.
func TestCreateRunsNoRepositoryHook(t *testing.T) {
	proj := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "ran")
	hook := filepath.Join(proj, ".git", "hooks", "post-checkout")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := open(t, filepath.Join(t.TempDir(), "ws.json"))
	if _, err := r.Create(t.Context(), CreateOptions{Project: proj, Name: "feature"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's post-checkout hook ran")
	}
}
