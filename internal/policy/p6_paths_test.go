package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// p6Home builds a temp dir holding a home (with a key, a .bashrc and a
// Documents dir) whose workspace "proj" holds symlinks out of it — to the
// key, to .bashrc, to the home, to /usr — and a policy for it in which
// warden's data dir is dataDir (under the temp dir, created or not).
func p6Home(t *testing.T, makeData bool) (p *Policy, home, ws, scratch, dataDir string) {
	t.Helper()
	root := t.TempDir()
	scratch = filepath.Join(root, "scratch")
	home = filepath.Join(scratch, "home")
	ws = filepath.Join(home, "proj")
	dataDir = filepath.Join(home, ".local", "share", "warden")
	dirs := []string{filepath.Join(ws, "src"), filepath.Join(home, ".ssh"), filepath.Join(home, "Documents")}
	if makeData {
		dirs = append(dirs, dataDir)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{".ssh/id_ed25519": "k", ".bashrc": "#", "Documents/a.txt": "d", "proj/src/a.go": "package a", "proj/README.md": "r"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"key_link": filepath.Join(home, ".ssh", "id_ed25519"), "rc_link": filepath.Join(home, ".bashrc"),
		"link_home": home, "link_usr": "/usr"} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Default(Env{Home: home, TempDirs: []string{scratch}, ProtectedDirs: []string{dataDir}})
	if err != nil {
		t.Fatal(err)
	}
	return p, home, ws, scratch, dataDir
}

// p6Sh makes a shell call run in the workspace ws.
func p6Sh(ws string) func(string) Call {
	return func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: ws, Workspace: ws}
	}
}

// TestP6ProcPaths: the kernel's per-process links are resolved as they
// are in the process that runs the command: /proc/self/root and
// /proc/PID/root are /, /proc/self/cwd is the command's directory (not the
// judge's), and a path below a descriptor or another process's cwd is not
// known (a change there asks).
func TestP6ProcPaths(t *testing.T) {
	p, home, ws, _, _ := p6Home(t, false)
	sh := p6Sh(ws)
	file := func(tool, path string) Call {
		return Call{Tool: tool, Args: map[string]any{"filePath": path}, Cwd: ws, Workspace: ws}
	}
	runCases(t, p, []decideCase{
		{call: sh("cat /proc/self/root" + home + "/.ssh/id_ed25519"), want: Deny, rule: "secret-read"},
		{call: sh("cat /proc/thread-self/root" + home + "/.ssh/id_ed25519"), want: Deny},
		{call: sh("cat /proc/1/root/etc/shadow"), want: Deny},
		{call: sh("rm -rf /proc/self/root" + home + "/Documents"), want: Deny, rule: "delete-outside-workspace"},
		{call: sh("cat /proc/self/cwd/../.ssh/id_ed25519"), want: Deny, rule: "secret-read"},
		{call: sh("cd src && cat /proc/self/cwd/../../.ssh/id_ed25519"), want: Deny},
		{call: sh("rm -rf /proc/self/cwd/.."), want: Deny},
		{call: sh("echo x >> /proc/self/cwd/../.bashrc"), want: Deny},
		{call: sh("rm -rf /proc/self/task/1/cwd/../Documents"), want: Deny},
		{call: sh("echo x > /dev/fd/3/.bashrc"), want: Ask},
		{call: file("read", "/proc/self/root"+home+"/.ssh/id_ed25519"), want: Deny},
		{call: file("write", "/proc/self/cwd/../.bashrc"), want: Deny},
		// everyday uses stay
		{call: sh("cat /proc/self/cwd/README.md"), want: Allow},
		{call: sh("rm -rf /proc/self/cwd/src/gen"), want: Allow},
		{call: sh("ls -l /proc/self/fd"), want: Allow},
		{call: sh("cd /proc/self/cwd && rm -rf src/gen"), want: Allow},
		{call: sh("cd /proc/self/root" + home + " && rm -rf Documents"), want: Deny},
		{call: sh("cd /proc/self/cwd/../.. && rm -rf x"), want: Deny}, // logical cd: /proc, not the workspace's parent
		{call: sh("cat /proc/self/status"), want: Allow},
		{call: sh("cat /proc/self/root/etc/os-release"), want: Allow},
		{call: sh("echo hi > /dev/fd/2"), want: Allow},
	})
}

// TestP6Links: a symlink is a name. rm and unlink remove the link, not
// what it leads to (a trailing slash goes into it); readlink and realpath
// print where a link leads without reading it; a hard link of a file is a
// second name for its content, so making one of a secret reads it.
func TestP6Links(t *testing.T) {
	p, home, ws, _, _ := p6Home(t, false)
	sh := p6Sh(ws)
	runCases(t, p, []decideCase{
		{call: sh("rm -f key_link rc_link"), want: Allow},
		{call: sh("rm link_home"), want: Allow},
		{call: sh("rm -rf link_usr"), want: Allow},
		{call: sh("unlink key_link"), want: Allow},
		{call: sh("cd src && rm ../rc_link"), want: Allow},
		{call: sh("rm -rf link_home/"), want: Deny},
		{call: sh("rm -rf link_home/Documents"), want: Deny},
		{call: sh("rm -rf link_usr/."), want: Deny},
		{call: sh("rm " + home + "/.bashrc"), want: Deny},
		{call: sh("rm -rf " + home), want: Deny},
		{call: sh("readlink -f key_link"), want: Allow},
		{call: sh("realpath key_link link_home"), want: Allow},
		{call: sh("readlink " + home + "/.ssh/id_ed25519"), want: Allow},
		{call: sh("cat \"$(readlink -f key_link)\""), want: Deny},
		{call: sh("cat $(realpath " + home + "/.ssh/id_ed25519)"), want: Deny},
		{call: sh("cat key_link"), want: Deny},
		// hard links
		{call: sh("ln " + home + "/.ssh/id_ed25519 k"), want: Deny, rule: "secret-read"},
		{call: sh("ln ~/.ssh/id_ed25519 /tmp/k && cat /tmp/k"), want: Deny},
		{call: sh("ln -f ~/.ssh/id_ed25519 ~/.aws/credentials k/"), want: Deny},
		{call: sh("ln -t /tmp ~/.ssh/id_ed25519"), want: Deny},
		{call: sh("ln README.md README.copy"), want: Allow},
		{call: sh("ln -s ~/.ssh/id_ed25519 k"), want: Allow}, // a name only, until read
		{call: sh("ln -s ~/.ssh/id_ed25519 k && cat k"), want: Deny},
	})
}

// TestP6EverydayFalseBlocks: safe everyday lines that were held.
func TestP6EverydayFalseBlocks(t *testing.T) {
	p, _, ws, scratch, _ := p6Home(t, false)
	sh := p6Sh(ws)
	runCases(t, p, []decideCase{
		// an EXIT trap removes what its variable holds when the shell exits
		{call: sh(`trap 'rm -rf "$T"' EXIT; T=$(mktemp -d); cd "$T" && git clone https://github.com/x/y`), want: Allow},
		{call: sh(`trap 'rm -rf "$tmp"' 0; tmp=$(mktemp -d) && tar xzf a.tgz -C "$tmp"`), want: Allow},
		{call: sh(`trap 'rm -rf "$T"' EXIT; T=~`), want: Deny},
		{call: sh(`trap 'rm -rf ~' EXIT`), want: Deny},
		{call: sh(`trap 'rm -rf "$X"' EXIT; echo hi`), want: Ask},
		{call: sh(`T=$(mktemp -d); trap 'rm -rf "$T"' EXIT INT TERM; make`), want: Allow},
		{call: sh(`(trap 'rm -rf "$T"' EXIT; T=$(mktemp -d))`), want: Ask}, // judged when set, as before
		// files git prints are the work tree's
		{call: sh(`perl -pi -e 's/a/b/g' $(git ls-files '*.go')`), want: Allow},
		{call: sh(`sed -i 's/foo/bar/' $(git grep -l foo)`), want: Allow},
		{call: sh(`git diff --name-only | xargs gofmt -w`), want: Allow},
		{call: sh(`cat $(git ls-files)`), want: Allow},
		// extraction into a temp dir that holds no warden data
		{call: sh("wget https://example.com/x.tgz -O " + scratch + "/x.tgz && tar xzf " + scratch + "/x.tgz -C " + scratch + "/"), want: Allow},
		{call: sh("tar xzf x.tgz -C " + scratch), want: Allow},
		{call: sh(`eval "$(direnv hook bash)"`), want: Allow},
		{call: sh(`eval "$(ssh-agent -s)"`), want: Allow},
	})
	// where warden's data dir is there, an extraction over it is denied
	p2, _, ws2, scratch2, _ := p6Home(t, true)
	runCases(t, p2, []decideCase{
		{call: p6Sh(ws2)("tar xzf x.tgz -C " + scratch2), want: Deny, rule: "warden-data-reach"},
		{call: p6Sh(ws2)("tar xzf x.tgz -C " + scratch2 + "/x"), want: Allow},
	})
}
