package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// conceptHome builds a home with a workspace holding symlinks that lead
// out of it, and returns a policy for it: the machine the concept tests
// judge paths on (paths as the kernel resolves them need real links).
func conceptHome(t *testing.T) (p *Policy, home, wsDir string) {
	t.Helper()
	root := t.TempDir()
	home = filepath.Join(root, "home")
	wsDir = filepath.Join(home, "work")
	for _, d := range []string{filepath.Join(wsDir, "src"), filepath.Join(home, ".ssh"), filepath.Join(home, "Pictures"), filepath.Join(root, "scratch")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{".ssh/id_ed25519": "k", ".bashrc": "#", "Pictures/a.png": "p"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"hl": home, "pics": filepath.Join(home, "Pictures"), "sys": "/usr", "up": "../Pictures"} {
		if err := os.Symlink(target, filepath.Join(wsDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Default(Env{Home: home, TempDirs: []string{filepath.Join(root, "scratch")}})
	if err != nil {
		t.Fatal(err)
	}
	return p, home, wsDir
}

// TestKernelPaths: a path is judged where the kernel takes it. ".." after a
// symlink climbs from the link's target; cd -P resolves, plain cd does
// not; cd -, ~-, ~+, bare cd and CDPATH move as bash moves.
func TestKernelPaths(t *testing.T) {
	p, home, w := conceptHome(t)
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	file := func(tool, path string) Call {
		return Call{Tool: tool, Args: map[string]any{"filePath": path}, Cwd: w, Workspace: w}
	}
	runCases(t, p, []decideCase{
		// ".." after a link
		{call: sh("rm -r pics/../Pictures"), want: Deny},
		{call: sh("touch pics/../.bashrc"), want: Deny},
		{call: sh("cat hl/../home/.ssh/id_ed25519"), want: Deny},
		{call: sh("printf x >> up/../.bashrc"), want: Deny},
		{call: sh("cp -a sys/../etc etc-copy"), want: Allow}, // a read of /etc is fine
		{call: sh("echo x > sys/../etc/motd"), want: Deny},
		{call: sh("rm -rf src/../build"), want: Allow}, // a real dir: the same as build
		{call: sh("rm -rf ./src/./../dist"), want: Allow},
		// cd -P resolves, plain cd is lexical
		{call: sh("cd -P pics/.. && rm -rf Pictures"), want: Deny},
		{call: sh("cd -P hl && rm -f .bashrc"), want: Deny},
		{call: sh("cd pics/.. && rm -rf build"), want: Allow},
		// cd -, OLDPWD, ~+ and ~-
		{call: sh("cd /usr && cd /tmp && cd - && rm -rf lib"), want: Deny},
		{call: sh("cd /tmp && cd - && rm -rf build"), want: Allow},
		{call: sh("cd /usr; rm -rf ~+/share"), want: Deny},
		{call: sh("cd " + home + " && rm -rf ~-/build"), want: Allow},
		{call: sh("cd /usr && cd /tmp && rm -rf ~-/local"), want: Deny},
		// bare cd goes home, also after HOME changes
		{call: sh("cd; rm -rf Pictures"), want: Deny},
		{call: sh("HOME=/usr; cd && rm -rf bin"), want: Deny},
		// CDPATH may lead a relative cd elsewhere
		{call: sh("CDPATH=/ cd usr && rm -rf lib"), want: Ask},
		{call: sh("export CDPATH=/usr:.; cd lib; rm -rf x"), want: Ask},
		{call: sh("CDPATH=. cd src && rm -rf gen"), want: Allow},
		{call: sh("CDPATH=/ cd ./src && rm -rf gen"), want: Allow},
		// file tools take the same paths
		{call: file("write", "pics/../.profile"), want: Deny},
		{call: file("read", "hl/../home/.ssh/id_ed25519"), want: Deny},
		{call: file("edit", "src/../README.md"), want: Allow},
		{call: file("write", "src/x\x00/../../../.bashrc"), want: Ask},
	})
}

// TestShellToolFields: the directory a shell tool runs its command in is
// part of the call (OpenCode's workdir, Codex's argv list plus workdir),
// every path key of a file tool is judged, and MCP tools named
// server_tool are file tools when the name is a filesystem server's.
func TestShellToolFields(t *testing.T) {
	p, home, w := conceptHome(t)
	call := func(tool string, args map[string]any) Call {
		return Call{Tool: tool, Args: args, Cwd: w, Workspace: w}
	}
	runCases(t, p, []decideCase{
		{call: call("bash", map[string]any{"command": "rm -rf Pictures", "workdir": home}), want: Deny},
		{call: call("bash", map[string]any{"command": "rm -rf *", "workdir": "src"}), want: Allow},
		{call: call("bash", map[string]any{"command": "rm -rf *", "workdir": "../"}), want: Deny},
		{call: call("shell", map[string]any{"command": []any{"bash", "-lc", "rm -rf .ssh"}, "workdir": home}), want: Deny},
		{call: call("shell", map[string]any{"command": []any{"rm", "-rf", "build"}, "workdir": w}), want: Allow},
		{call: call("exec_command", map[string]any{"cmd": "cat .ssh/id_ed25519", "workdir": home}), want: Deny},
		{call: call("run_shell_command", map[string]any{"command": "rm -r Pictures", "directory": home}), want: Deny},
		{call: call("bash", map[string]any{"command": "go test ./...", "workdir": "src"}), want: Allow},
		// every path key
		{call: call("Write", map[string]any{"filePath": "src/a.go", "file_path": home + "/.bashrc", "content": "x"}), want: Deny},
		{call: call("read", map[string]any{"path": "README.md", "file_path": home + "/.ssh/id_ed25519"}), want: Deny},
		{call: call("edit", map[string]any{"filePath": "src/a.go", "file_path": "src/a.go"}), want: Allow},
		// MCP tools named server_tool
		{call: call("fs_write_file", map[string]any{"path": home + "/.profile", "content": "x"}), want: Deny},
		{call: call("files_read_text_file", map[string]any{"path": home + "/.ssh/id_ed25519"}), want: Deny},
		{call: call("filesystem_move_file", map[string]any{"source": "src/a.go", "destination": home + "/.bashrc"}), want: Deny},
		{call: call("filesystem_list_directory", map[string]any{"path": w}), want: Allow},
		{call: call("github_create_issue", map[string]any{"title": "x", "path": "/etc/passwd"}), want: Allow},
	})
}
