package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheckoutOfADirectoryDiscards: git checkout or restore of a path
// that is a directory on disk overwrites the uncommitted work of the whole
// tree under it, however it is spelled (with or without --, a tree-ish, a
// trailing slash): it asks like checkout -- . does. One named file stays
// a plain write in the workspace, and a lone operand is a branch first.
func TestCheckoutOfADirectoryDiscards(t *testing.T) {
	w := t.TempDir()
	for _, d := range []string{"pkg/api", "web", "docs"} {
		if err := os.MkdirAll(filepath.Join(w, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w, "pkg/api/handler.go"), []byte("package api\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: in("git checkout -- pkg"), want: Ask, rule: "git-discard"},
		{call: in("git checkout HEAD -- web"), want: Ask},
		{call: in("git checkout origin/main -- pkg/api"), want: Ask},
		{call: in("git restore web"), want: Ask},
		{call: in("git restore --worktree docs"), want: Ask},
		{call: in("git checkout HEAD~1 docs"), want: Ask},
		{call: in("cd pkg && git checkout -- api"), want: Ask},
		{call: in("git -C " + w + " restore pkg"), want: Ask},
		{call: in("git checkout ./web"), want: Ask},
		// one file, staged-only restores and branches stay as they were
		{call: in("git checkout -- pkg/api/handler.go"), want: Allow},
		{call: in("git restore pkg/api/handler.go"), want: Allow},
		{call: in("git restore --staged web"), want: Allow},
		{call: in("git checkout docs"), want: Allow},
		{call: in("git checkout -b web-redesign"), want: Allow},
		{call: in("git checkout main"), want: Allow},
	})
}

// TestContainerVolumesAsk: a named volume, or the anonymous volumes
// removed with a container, hold data no image rebuild gives back: their
// removal asks in docker, podman and nerdctl, and in compose's down -v;
// removing a container alone, or listing volumes, stays allowed.
func TestContainerVolumesAsk(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: bash("docker volume rm app_pgdata app_redis"), want: Ask, rule: "remote-delete-argv"},
		{call: bash("podman volume remove minio-data"), want: Ask},
		{call: bash("nerdctl volume rm grafana-storage"), want: Ask},
		// a volume named as a cache holds what its tools rebuild
		{call: bash("docker volume rm -f web_pip_cache"), want: Allow},
		{call: bash("docker volume rm web_pip_cache pgdata"), want: Ask},
		{call: bash("docker --context staging volume rm uploads"), want: Ask},
		{call: bash("docker rm -fv mysql-dev"), want: Ask},
		{call: bash("docker container rm --volumes --force es01"), want: Ask},
		{call: bash("podman rm -v -f pg"), want: Ask},
		{call: bash("docker compose -f dev.yml down --volumes --remove-orphans"), want: Ask},
		{call: bash("docker-compose down -v"), want: Ask},
		{call: bash("docker-compose rm -fsv worker"), want: Ask},
		{call: bash("podman volume prune -f"), want: Ask},
		// no data goes
		{call: bash("docker rm -f mysql-dev"), want: Allow},
		{call: bash("docker volume ls -q"), want: Allow},
		{call: bash("docker volume inspect app_pgdata"), want: Allow},
		{call: bash("docker compose down"), want: Allow},
		{call: bash("docker-compose rm -f worker"), want: Allow},
		{call: bash("docker run --rm -v \"$PWD\":/w -w /w node:22 npm test"), want: Allow},
		{call: bash("docker run --rm alpine rm -v /tmp/x"), want: Allow},
	})
}
