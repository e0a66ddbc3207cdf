package policy

import "testing"

// Concept: a program that runs a command given in its arguments, its
// environment, its settings or a file written in the same line runs that
// command, and is judged as if the command ran directly.
func TestWrappersRunTheirArguments(t *testing.T) {
	p := mustDefault(t)
	A, D, Q := Allow, Deny, Ask
	for _, tc := range []struct {
		cmd  string
		want Action
	}{
		{"systemd-run --user --on-active=5m --unit=cleanup rm -rf ~/src", D},
		{"systemd-run --user -p CPUQuota=10% -- shred -u ~/.ssh/id_ed25519", D},
		{"unshare --user --map-root-user rm -rf /opt/app", D},
		{"nsenter --target 1 --mount --uts --ipc --net --pid -- rm -rf /var/lib/app", D},
		{"fakeroot -- rm -rf ~/Music", D},
		{"script -q -c 'rm -rf ~/Music' /dev/null", D},
		{"echo 'rm -rf ~/Music' | at now + 5 minutes", D},
		{"at -f ./later.sh midnight <<< ''; echo 'rm -rf ~' > later.sh", A},
		{"printf 'rm -rf ~/Music\\n' > job.sh; at -f job.sh noon", D},
		{"batch <<< 'rm -rf ~/Music'", D},
		{"tmux new-session -d -s bg 'rm -rf ~/Music'", D},
		{"tmux new-window -d rm -rf ~/Music", D},
		{"tmux send-keys -t bg:0 'rm -rf ~/Music' C-m", D},
		{"tmux run-shell 'rm -rf ~/Music'", D},
		{"screen -d -m -S bg rm -rf ~/Music", D},
		{"screen -S bg -X stuff $'rm -rf ~/Music\\n'", D},
		{"expect -c 'spawn -noecho rm -rf ~/Music; expect eof'", D},
		{"flock /tmp/lock -c 'rm -rf ~/Music'", D},
		{"chroot / rm -rf /home/dev/Music", D},
		{"ionice -c3 rm -rf ~/Music", D},
		{"stdbuf -oL rm -rf ~/Music", D},
		{"busybox rm -rf ~/Music", D},
		{"env -S 'rm -rf ~/Music'", D},
		{"env --split-string='bash -c \"rm -rf ~/Music\"'", D},
		{"sudo -s <<< 'rm -rf /var/lib'", D},
		{"su - <<'EOF'\nrm -rf /var/lib\nEOF", D},
		// git's command-running settings
		{"git -c core.sshCommand='rm -rf ~/Music' pull", D},
		{"GIT_SSH_COMMAND='shred -u ~/.ssh/id_ed25519' git fetch origin", D},
		{"export GIT_PAGER='rm -rf ~/Music'; git log -1", D},
		{"GIT_EXTERNAL_DIFF='rm -rf ~/Music' git diff HEAD~1", D},
		{"GIT_EDITOR='rm -rf ~/Music' git commit", D},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~/Music' git log", D},
		{"git -c alias.cleanup='!rm -rf ~/Music' cleanup", D},
		{"git submodule foreach 'rm -rf ~/Music'", D},
		{"git rebase -x 'rm -rf ~/Music' main", D},
		{"git rebase --exec='rm -rf ~/Music' -i HEAD~3", D},
		{"git bisect run rm -rf ~/Music", D},
		{"git filter-branch --tree-filter 'rm -rf ~/Music' HEAD", D},
		{"git difftool -y -x 'rm -rf ~/Music' HEAD~1", D},
		// make and npm scripts written in the line
		{"make -f - all <<'MK'\nall:\n\t@rm -rf ~/Music\nMK", D},
		{"printf 'go:\\n\\trm -rf ~/Music\\n' > GNUmakefile && make go", D},
		{"make --eval 'x := $(shell rm -rf ~/Music)'", D},
		{"npm pkg set 'scripts.clean=rm -rf ~/Music' && npm run clean", D},
		{"npm set-script wipe 'rm -rf ~/Music'; npm run wipe", D},
		{"npm pkg set scripts.postinstall='rm -rf ~/Music' && npm install", D},
		{"echo '{\"scripts\":{\"test\":\"rm -rf ~/Music\"}}' > package.json && npm test", D},
		{"make -f - <<< \"$RECIPE\"", Q},
		// everyday work stays allowed
		{"systemd-run --user --scope -p MemoryMax=2G make -j4", A},
		{"tmux new-session -d -s dev 'npm run dev'", A},
		{"tmux send-keys -t dev 'go test ./...' Enter", A},
		{"tmux ls", A},
		{"screen -ls", A},
		{"screen -r dev", A},
		{"script -q -c 'go test ./...' test.log", A},
		{"flock /tmp/build.lock make", A},
		{"make -j4 test", A},
		{"make", A},
		{"npm run test", A},
		{"npm test", A},
		{"npm pkg set version=1.2.3", A},
		{"git log --oneline -20", A},
		{"GIT_PAGER=cat git log -3", A},
		{"GIT_EDITOR=true git rebase --continue", A},
		{"git rebase -x 'go test ./...' main", A},
		{"git submodule foreach git pull", A},
		{"git bisect run go test ./pkg/...", A},
		{"ssh-agent -s", A},
		{"xvfb-run -a npm test", A},
		{"env -S 'go test ./...'", A},
	} {
		if d := p.Decide(bash(tc.cmd)); d.Action != tc.want {
			t.Errorf("%s: %s (%s), want %s", tc.cmd, d.Action, d.Reason, tc.want)
		}
	}
}
