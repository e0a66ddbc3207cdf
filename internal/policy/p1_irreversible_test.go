package policy

import "testing"

// TestIrreversibleWorkDrops: inside the workspace, what drops work for
// good asks — local git operations that leave commits or stashes
// unrecoverable (branch -D, stash drop, reflog expire, gc --prune=now,
// prune), the project's source files destroyed in bulk or beyond
// recovery (rm/truncate/shred of a glob of sources, find that deletes a
// selection that can take sources), and anything inside .git — while
// build outputs, logs, stale lock files and single files stay allowed.
func TestIrreversibleWorkDrops(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		// git's own recovery
		{call: bash("git branch -D spike/old-idea"), want: Ask, rule: "git-discard"},
		{call: bash("git branch --delete --force tmp"), want: Ask},
		{call: bash("git branch -d -f wip"), want: Ask},
		{call: bash("git stash drop"), want: Ask},
		{call: bash("git stash drop 'stash@{3}'"), want: Ask},
		{call: bash("git reflog expire --expire=90.days.ago --all"), want: Ask},
		{call: bash("git reflog delete HEAD@{2}"), want: Ask},
		{call: bash("git gc --prune=all"), want: Ask},
		{call: bash("git prune --expire now"), want: Ask},
		{call: bash("git -C ../other branch -D feature"), want: Ask},
		{call: bash("git update-ref -d refs/heads/topic"), want: Ask},
		{call: bash("git restore --worktree -- '*.py'"), want: Ask},
		{call: bash("git checkout -- ':(glob)**/*.ts'"), want: Ask},
		{call: bash("git restore src/main.go"), want: Allow},
		{call: bash("git update-ref refs/heads/backup HEAD"), want: Allow},
		{call: bash("git branch -d merged-topic"), want: Allow},
		{call: bash("git branch -m old new"), want: Allow},
		{call: bash("git stash list && git stash show -p"), want: Allow},
		{call: bash("git gc"), want: Allow},
		{call: bash("git prune --dry-run"), want: Allow},
		{call: bash("git reflog show -n 20"), want: Allow},
		// source files destroyed in bulk or for good
		{call: bash("rm -f internal/*/*.go"), want: Ask, rule: "destroy-sources"},
		{call: bash("rm -- lib/**/*.rb"), want: Ask},
		{call: bash("cd web && rm src/*.tsx"), want: Ask},
		{call: bash("rm -f src/*.[ch]"), want: Ask},
		{call: bash("truncate --size=0 app/*.py"), want: Ask},
		{call: bash("truncate -s 0 cmd/main.go"), want: Ask},
		{call: bash("shred -zu pkg/*.go"), want: Ask},
		{call: bash("shred --remove main.c"), want: Ask},
		{call: bash("find . -iname '*.JAVA' -delete"), want: Ask},
		{call: bash("find src test -type f -delete"), want: Ask},
		{call: bash("find . -mtime +7 -delete"), want: Ask},
		{call: bash("find . -not -name '*.lock' -type f -delete"), want: Ask},
		{call: bash("find lib -name '*.ex' -exec rm -f {} \\;"), want: Ask},
		{call: bash("find . -type d -exec rm -rf {} +"), want: Ask},
		{call: bash("find . -path './src/*' -delete"), want: Ask},
		{call: bash("for f in lib/*.rs; do rm -- \"$f\"; done"), want: Ask},
		{call: bash("for f in *.o; do rm \"$f\"; done"), want: Allow},
		{call: bash("rm -f *.o *.a core"), want: Allow},
		// generated code is written again by its generator
		{call: bash("rm -f proto/*.pb.go && buf generate"), want: Allow},
		{call: bash("find . -name '*_pb2.py' -delete"), want: Allow},
		{call: bash("rm -rf src/__generated__/*.ts"), want: Allow},
		{call: bash("find . -name 'zz_generated.*.go' -delete"), want: Allow},
		{call: bash("rm internal/store/mock_*.go"), want: Allow},
		{call: bash("find . -name '*.d.ts' -not -path './node_modules/*' -delete"), want: Ask}, // a negated test
		{call: bash("rm -f types/*.d.ts public/*.min.js"), want: Allow},
		{call: bash("rm -f src/*.orig src/*.rej"), want: Allow},
		{call: bash("rm src/old_handler.go"), want: Allow},
		{call: bash("find . -name '*.pyc' -o -name '*.pyo' -delete"), want: Allow},
		{call: bash("find . -type d -name node_modules -prune -exec rm -rf {} +"), want: Allow},
		{call: bash("find . -type d -empty -delete"), want: Allow},
		{call: bash("find dist out -type f -delete"), want: Allow},
		{call: bash("find . -name .DS_Store -delete"), want: Allow},
		{call: bash("truncate -s 0 logs/app.log build/*.log"), want: Allow},
		{call: bash("shred -u tmp/test-key.pem"), want: Allow},
		{call: bash("rm -rf /tmp/scratch/*.go"), want: Allow},
		{call: bash("sed -i 's/old/new/' src/*.go"), want: Allow},
		{call: bash("gofmt -w internal/*.go"), want: Allow},
		// inside .git
		{call: bash("rm -rf .git/objects"), want: Ask, rule: "delete-git-dir"},
		{call: bash("rm .git/index"), want: Ask},
		{call: bash("rm -rf .git/refs/heads/*"), want: Ask},
		{call: bash("truncate -s0 .git/HEAD"), want: Ask},
		{call: bash("cd sub && rm -rf ../.git/logs"), want: Ask},
		{call: bash("rm -f .git/index.lock"), want: Allow},
		{call: bash("rm -f .git/refs/heads/main.lock"), want: Allow},
		{call: bash("rm -fr .git/rebase-merge"), want: Allow},
		// a whole glob beside a partial one is still the whole tree
		{call: bash("rm -rf * .[^.]*"), want: Ask, rule: "delete-workspace-root"},
		{call: bash("rm -rf ./* ./.??*"), want: Ask},
		{call: bash("rm -rf tests/* tests/.[!.]*"), want: Ask, rule: "delete-source-dir"},
		{call: bash("rm -rf *.o .*.swp"), want: Allow},
		// build outputs stay allowed
		{call: bash("rm -rf node_modules dist build target out .next coverage"), want: Allow},
		{call: bash("rm -rf build/ && mkdir build"), want: Allow},
	})
}
