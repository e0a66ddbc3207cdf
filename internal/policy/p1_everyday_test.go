package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEverydayGitAndCaches: everyday work stays allowed. A force push
// with a lease to a named branch that is not protected is the
// rebase-and-push of a feature branch (however the lease and the branch
// are spelled, also the branch checked out earlier in the line); without
// the lease, to a protected branch, or with no branch known, it still
// asks or is denied. Data keys of the user's git and npm config run
// nothing; keys that run programs stay denied and another registry asks.
// Deleting regenerable caches is cleanup, not a delete in home; images
// are pruned freely, containers not named ask.
func TestEverydayGitAndCaches(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		// force-with-lease to a feature branch
		{call: bash("git push --force-with-lease origin topic/retry-backoff"), want: Allow},
		{call: bash("git push origin bugfix/123 --force-with-lease"), want: Allow},
		{call: bash("git push --force-with-lease=wip:0a1b2c3 origin wip"), want: Allow},
		{call: bash("git push --force-with-lease=refs/heads/dana/x origin HEAD:refs/heads/dana/x"), want: Allow},
		{call: bash("git push -u --force-with-lease --force-if-includes upstream spike"), want: Allow},
		{call: bash("git switch -c exp/cache && git commit -qm x && git push --force-with-lease -u origin HEAD"), want: Allow},
		{call: bash("git checkout -B docs-fix origin/main; git push --force-with-lease"), want: Allow},
		// ... but not to protected branches, not without knowing the branch, not with --force or +ref
		{call: bash("git push --force-with-lease origin master"), want: Deny},
		{call: bash("git push --force-with-lease origin HEAD:trunk"), want: Deny},
		{call: bash("git push --force-with-lease origin release/1.4"), want: Deny},
		{call: bash("git push --force-with-lease origin release-2025.1"), want: Deny},
		{call: bash("git push --force-with-lease origin production"), want: Deny},
		{call: bash("git switch main && git push --force-with-lease"), want: Deny},
		{call: bash("git push --force-with-lease origin topic/a master"), want: Deny},
		{call: bash("git push --force-with-lease origin release_3"), want: Deny},
		{call: bash("git push --force-with-lease origin releases-draft"), want: Allow},
		{call: bash("git push origin :trunk"), want: Deny},
		{call: bash("git push --delete origin production"), want: Deny},
		{call: bash("git push -d origin release-2.0"), want: Deny},
		{call: bash("git push origin --delete topic/old"), want: Ask},
		{call: bash("git push --force-with-lease"), want: Ask},
		{call: bash("git push --force-with-lease origin HEAD"), want: Ask},
		{call: bash("git push --force-with-lease origin \"$BRANCH\""), want: Ask},
		{call: bash("git push -f --force-with-lease origin topic/a"), want: Ask},
		{call: bash("git push --force-with-lease origin +topic/a"), want: Ask},
		{call: bash("git push --force origin topic/a"), want: Ask},
		// the user's config: data keys run nothing
		{call: bash("git config --global user.name 'Ada Lovelace'"), want: Allow},
		{call: bash("git config --global user.email ada@example.org && git config --global init.defaultBranch trunk"), want: Allow},
		{call: bash("git config --global pull.ff only"), want: Allow},
		{call: bash("git config --global color.diff.meta 'yellow bold'"), want: Allow},
		{call: bash("git config --global --unset rebase.autostash"), want: Allow},
		{call: bash("npm config set init-author-email ada@example.org"), want: Allow},
		{call: bash("npm config set save-prefix='~'"), want: Allow},
		{call: bash("npm config set registry=https://registry.npmjs.org/"), want: Allow},
		// ... keys that run programs, or bring in other config, do not
		{call: bash("git config --global core.sshCommand 'ssh -i /tmp/k'"), want: Deny},
		{call: bash("git config --global alias.st '!sh -c \"curl x | sh\"'"), want: Deny},
		{call: bash("git config --global core.hooksPath /tmp/hooks"), want: Deny},
		{call: bash("git config --global credential.helper '!f() { cat; }; f'"), want: Deny},
		{call: bash("git config --global diff.external /tmp/d.sh"), want: Deny},
		{call: bash("git config --global diff.png.textconv /tmp/conv"), want: Deny},
		{call: bash("git config --global filter.lfs.smudge /tmp/s"), want: Deny},
		{call: bash("git config --global include.path /tmp/extra.gitconfig"), want: Deny},
		{call: bash("git config --global safe.directory '*'"), want: Deny},
		{call: bash("git config --global --add safe.directory \"$PWD\""), want: Allow},
		{call: bash("git config --global --edit"), want: Deny},
		{call: bash("HOME=/etc git config --global user.name root"), want: Deny},
		{call: bash("npm config set script-shell /tmp/sh"), want: Deny},
		{call: bash("npm set script-shell=/tmp/sh"), want: Deny},
		{call: bash("pnpm set node-options '--require /tmp/h.js'"), want: Deny},
		{call: bash("npm set fund false"), want: Allow},
		{call: bash("npm set registry https://npm.example.net/"), want: Ask},
		{call: bash("npm config set @corp:registry https://npm.corp.example/"), want: Ask},
		{call: bash("npm config set registry http://10.0.0.5:4873"), want: Ask},
		// regenerable caches
		{call: bash("rm -rf ~/.cache/go-build"), want: Allow},
		{call: bash("rm -rf ~/.cache/pip ~/.cache/pre-commit"), want: Allow},
		{call: bash("rm -rf ~/.cache/go-build/*"), want: Allow},
		{call: bash("rm -rf ~/.npm/_cacache ~/go/pkg/mod"), want: Allow},
		{call: bash("rm -rf ~/Library/Caches/Yarn"), want: Allow},
		{call: bash("go clean -cache -modcache"), want: Allow},
		{call: bash("rm -rf ~/.cache"), want: Deny},
		{call: bash("rm -rf ~/.cache/../.config"), want: Deny},
		{call: bash("rm -rf ~/.cache/pip ~/.gnupg"), want: Deny},
		{call: bash("echo x > ~/.cache/go-build/trim.txt"), want: Deny},
		{call: bash("rm -rf ~/.npm"), want: Allow}, // npm config get cache names ~/.npm: its cache dir (issue 11, P5)
		// containers and images
		{call: bash("docker image prune -f"), want: Allow},
		{call: bash("podman image prune -a -f"), want: Allow},
		{call: bash("docker rm -f api-test"), want: Allow},
		{call: bash("docker rm -f $(docker ps -aq)"), want: Ask},
		{call: bash("docker ps -q -f status=exited | xargs docker container rm"), want: Ask},
		{call: bash("docker system prune -f"), want: Ask},
	})
}

// TestCacheDeleteFollowsLinks: a path that leads out of a cache through a
// symlink is judged where it lands.
func TestCacheDeleteFollowsLinks(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(home, ".cache"), filepath.Join(home, "Documents"), filepath.Join(home, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, "Documents"), filepath.Join(home, ".cache", "docs")); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Env{Home: home, TempDirs: []string{filepath.Join(root, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(home, "work")
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	runCases(t, p, []decideCase{
		{call: sh("rm -rf ~/.cache/docs/"), want: Deny},
		{call: sh("rm -rf ~/.cache/docs/*"), want: Deny},
		{call: sh("rm -rf ~/.cache/other"), want: Allow},
	})
}

// TestCacheDeleteKeepsWardenProtected: warden's dirs stay protected when
// they live under a cache root.
func TestCacheDeleteKeepsWardenProtected(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	data := filepath.Join(home, ".cache", "warden")
	for _, d := range []string{data, filepath.Join(home, "work")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Default(Env{Home: home, TempDirs: []string{filepath.Join(root, "tmp")}, ProtectedDirs: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(home, "work")
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	runCases(t, p, []decideCase{
		{call: sh("rm -rf ~/.cache/warden"), want: Deny},
		{call: sh("rm -rf ~/.cache/*"), want: Deny},
		{call: sh("rm -rf ~/.cache/w*"), want: Deny},
		{call: sh("rm -rf ~/.cache/go-build"), want: Allow},
	})
	// the daemon's binary and policy file are never cache
	bin := filepath.Join(home, ".cache", "go-build", "ab", "warden")
	pol := filepath.Join(home, ".cache", "cfg", "policy.yaml")
	p, err = Default(Env{Home: home, TempDirs: []string{filepath.Join(root, "tmp")}, ProtectedDirs: []string{data},
		WardenBinaries: []string{bin}, PolicyFiles: []string{pol}})
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, p, []decideCase{
		{call: sh("rm -rf ~/.cache/go-build"), want: Deny},
		{call: sh("rm -f " + bin), want: Deny},
		{call: sh("rm -rf ~/.cache/cfg"), want: Deny},
		{call: sh("rm -rf ~/.cache/pip"), want: Allow},
	})
}

// TestGlobReachesWarden: a glob reaches warden's dirs only when its
// pattern can name them: a scratch glob next to a home that holds them
// does not, a glob that can name the home does, also through a link.
func TestGlobReachesWarden(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	data := filepath.Join(home, ".local", "share", "warden")
	for _, d := range []string{data, filepath.Join(home, "work"), filepath.Join(root, "go-build123")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(root, "h")); err != nil {
		t.Fatal(err)
	}
	p, err := Default(Env{Home: home, TempDirs: []string{root}, ProtectedDirs: []string{data}})
	if err != nil {
		t.Fatal(err)
	}
	w := filepath.Join(home, "work")
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	runCases(t, p, []decideCase{
		{call: sh("rm -rf " + root + "/go-build*"), want: Allow},
		{call: sh("rm -rf " + root + "/go-build*/x"), want: Allow},
		{call: sh("rm -rf " + root + "/*"), want: Deny},
		{call: sh("rm -rf " + root + "/ho?e"), want: Deny},
		{call: sh("rm -rf " + root + "/h/.local/*"), want: Deny},
		{call: sh("grep -r token " + root + "/h*"), want: Deny},
		{call: sh("cat " + root + "/h/.local/share/*/token"), want: Deny},
	})
}
