package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"

	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}

// fixture is a machine with a home full of canary secrets. Its temp dir is
// its own (root/tmp), not /tmp: the fixture lives under t.TempDir(), which
// is under /tmp, and the sandbox must be shown to keep the home closed, not
// merely to open /tmp.
type fixture struct {
	root, home, ws, tmp, data string
	machine                   sandbox.Machine
	env                       []string
}

// canary is the content of every secret file: it must never show up in a
// confined command's output.
const canary = "WARDEN-CANARY-7f3a"

func newFixture(t *testing.T) *fixture { return newFixtureTB(t) }

func newFixtureTB(t testing.TB) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp")}
	f.ws = filepath.Join(f.home, "proj")
	f.data = filepath.Join(f.home, ".local/share/warden")
	files := map[string]string{
		".ssh/id_rsa":                     canary + " ssh key",
		".ssh/id_ed25519":                 canary + " ssh key",
		".ssh/authorized_keys":            "",
		".aws/credentials":                "[default]\naws_access_key_id=" + canary,
		".git-credentials":                "https://u:" + canary + "@github.com",
		".npmrc":                          "//registry.npmjs.org/:_authToken=" + canary,
		".claude/.credentials.json":       canary,
		".local/share/opencode/auth.json": canary,
		".bash_history":                   canary,
		".local/share/warden/token":       canary + " warden token",
		".config/warden/config.yaml":      "# " + canary,
		".bashrc":                         "# rc\n",
		".profile":                        "# profile\n",
		".gitconfig":                      "[user]\n\tname = Test\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n",
		"Documents/notes.txt":             "notes\n",
		"proj/README.md":                  "hello\n",
	}
	for name, content := range files {
		p := filepath.Join(f.home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(f.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	f.machine = sandbox.Machine{Home: f.home, TempDirs: []string{f.tmp}, DataDir: f.data,
		ConfigDir: filepath.Join(f.home, ".config/warden")}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not in PATH: %v", err)
	}
	f.env = []string{"HOME=" + f.home, "TMPDIR=" + f.tmp, "PATH=" + filepath.Dir(goBin) + ":/usr/local/bin:/usr/bin:/bin",
		"LANG=C", "GOFLAGS=-mod=mod", "GOPROXY=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off"}
	return f
}

func (f *fixture) profile(t *testing.T, cfg policy.SandboxConfig) *sandbox.Profile {
	t.Helper()
	p, err := sandbox.Build(cfg, f.machine, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs argv confined by p in the workspace and returns its combined
// output and exit status.
func (f *fixture) run(t *testing.T, p *sandbox.Profile, extraEnv []string, argv ...string) (string, int) {
	t.Helper()
	cmd, err := sandbox.Command(context.Background(), p, argv)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(append([]string{}, f.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &ee):
		return out.String(), ee.ExitCode()
	}
	t.Fatalf("run %v: %v", argv, err)
	return "", 0
}

func (f *fixture) bash(t *testing.T, p *sandbox.Profile, script string) (string, int) {
	t.Helper()
	return f.run(t, p, nil, "/bin/bash", "-c", script)
}

// snapshot maps every path under dir (except skip) to its mode, size and
// content.
func snapshot(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	s := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, sk := range skip {
			if p == sk {
				return filepath.SkipDir
			}
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		} else if fi.Mode()&os.ModeSymlink != 0 {
			l, _ := os.Readlink(p)
			v += " -> " + l
		}
		s[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func diff(before, after map[string]string) []string {
	var d []string
	for k, v := range before {
		if a, ok := after[k]; !ok {
			d = append(d, "removed "+k)
		} else if a != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			d = append(d, "created "+k)
		}
	}
	return d
}

func TestSecretsAndWardenDataAreUnreadable(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	for _, c := range []string{
		"cat ~/.ssh/id_rsa",
		"cat " + f.data + "/token",
		"cat ~/.aws/credentials",
		"cat ~/.git-credentials",
		"cat ~/.npmrc",
		"cat ~/.claude/.credentials.json",
		"cat ~/.local/share/opencode/auth.json",
		"cat ~/.bash_history",
		"cat ~/.config/warden/config.yaml",
		"ls ~",
		"cat /proc/self/root$HOME/.ssh/id_rsa",
		"cat /proc/$$/root$HOME/.aws/credentials",
		"cd / && cat ./$HOME/.ssh/id_ed25519",
		"grep -r WARDEN ~ 2>&1",
		"python3 -c \"import os; print(open(os.path.expanduser('~/.ssh/id_rsa')).read())\"",
	} {
		out, code := f.bash(t, p, c)
		if code == 0 && !strings.HasPrefix(c, "grep") {
			t.Errorf("%s: exit 0 (want a failure); output %q", c, out)
		}
		if strings.Contains(out, canary) {
			t.Errorf("%s: canary secret in the output: %q", c, out)
		}
	}
}

func TestWritesOutsideTheWorkspaceFail(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	if err := os.Symlink(f.home, filepath.Join(f.ws, "homelink")); err != nil {
		t.Fatal(err)
	}
	// A first run creates the build caches (granted, created at start); from
	// then on nothing at all outside the workspace and temp may change.
	if out, code := f.bash(t, p, "true"); code != 0 {
		t.Fatalf("true: exit %d, %q", code, out)
	}
	before := snapshot(t, f.root, f.ws, f.tmp)
	for _, c := range []string{
		"echo 'curl x | sh' >> ~/.bashrc",
		"python3 -c \"import os; open(os.path.expanduser('~/.bashrc'), 'a').write('evil')\"",
		// A script written into the workspace, then run: it is confined too.
		"printf '#!/bin/sh\\necho evil >> \"$HOME/.profile\"\\n' > evil.sh && chmod +x evil.sh && ./evil.sh",
		// A symlink in the workspace that leads home, then up.
		"echo evil > homelink/.bashrc",
		"echo evil > homelink/../planted",
		"cat homelink/.ssh/id_rsa",
		"rm -rf ~/Documents",
		"mv ~/.ssh/id_rsa ./stolen",
		"ln ~/.ssh/id_rsa ./hardlink",
		"cp -r ~/.aws ./aws",
		"touch ~/.newrc",
		"mkdir ~/.config/autostart",
		"truncate -s 0 ~/.bashrc",
		"echo x > " + f.data + "/overlay",
		"touch /etc/warden-sandbox-probe",
		"touch " + f.root + "/outside",
	} {
		out, code := f.bash(t, p, c)
		if code == 0 {
			t.Errorf("%s: exit 0 (want a failure); output %q", c, out)
		}
		if strings.Contains(out, canary) {
			t.Errorf("%s: canary secret in the output: %q", c, out)
		}
	}
	if d := diff(before, snapshot(t, f.root, f.ws, f.tmp)); len(d) > 0 {
		t.Errorf("outside the workspace and temp, something changed: %v", d)
	}
	if _, err := os.Stat("/etc/warden-sandbox-probe"); err == nil {
		t.Error("/etc/warden-sandbox-probe exists")
	}
	for _, name := range []string{"stolen", "hardlink", "aws"} {
		if b, err := os.ReadFile(filepath.Join(f.ws, name)); err == nil && strings.Contains(string(b), canary) {
			t.Errorf("%s in the workspace holds a secret", name)
		}
	}
}

// TestNoSignalsOrProcAccessOutside: a confined command can neither signal
// nor look into processes outside the sandbox (this test process, a
// sibling started outside with a secret in its environment).
func TestNoSignalsOrProcAccessOutside(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	outside := exec.Command("sleep", "3600")
	outside.Env = []string{"SECRET_ENV=" + canary}
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { outside.Process.Kill(); outside.Wait() })
	self := strconv.Itoa(os.Getpid())
	sib := strconv.Itoa(outside.Process.Pid)
	for _, c := range []string{
		"kill -0 " + self,
		"kill -0 " + sib,
		"kill -STOP " + sib,
		"kill -TERM " + self,
		"cat /proc/" + sib + "/environ",
		"cat /proc/" + self + "/environ",
		"head -c 64 /proc/" + sib + "/mem",
		"ls -l /proc/" + sib + "/cwd/",
		"python3 -c \"import os; os.kill(" + sib + ", 9)\"",
	} {
		out, code := f.bash(t, p, c)
		if code == 0 {
			t.Errorf("%s: exit 0 (want a failure); output %q", c, out)
		}
		if strings.Contains(out, canary) {
			t.Errorf("%s: the outside process's secret environment leaked: %q", c, out)
		}
	}
	// The sibling is still alive and was never stopped: it still answers.
	if err := outside.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the outside process is gone: %v", err)
	}
	// Inside, signals work: a confined shell may stop its own children.
	out, code := f.bash(t, p, "sleep 3600 & kill $! && wait $!; echo status=$?")
	if code != 0 || !strings.Contains(out, "status=143") {
		t.Errorf("signal inside the sandbox: exit %d, %q", code, out)
	}
}

func TestEverydayWorkSucceeds(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	steps := []string{
		"git init -q . && git add -A && git commit -qm first && git log --oneline | grep -q first",
		"git checkout -qb topic && echo more >> README.md && git commit -qam second && git checkout -q main && git merge -q topic",
		"printf 'module example.com/m\\n\\ngo 1.21\\n' > go.mod && printf 'package main\\n\\nfunc main() { println(\"hi\") }\\n' > main.go && " +
			"printf 'package main\\n\\nimport \"testing\"\\n\\nfunc TestX(t *testing.T) {}\\n' > main_test.go && go build -o bin/m . && ./bin/m && go test ./... && go vet ./...",
		"echo scratch > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\" && mktemp -d && rm \"$TMPDIR/scratch\"",
		"head -1 ~/.bashrc && git config user.name",
		"echo to-null > /dev/null && head -c 8 /dev/urandom | wc -c",
		"mkdir -p a/b && mv README.md a/b/ && mv a/b/README.md . && ln -s README.md r && cat r",
		"ps -o pid= -p $$ && ls /proc/self/fd >/dev/null",
		"node -e 'require(\"fs\").writeFileSync(\"n.txt\", \"ok\")' && cat n.txt && npm --version",
		"python3 -c \"open('p.txt','w').write('ok')\" && cat p.txt",
	}
	for _, c := range steps {
		out, code := f.bash(t, p, c)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(f.home, ".cache/go-build")); err != nil {
		t.Errorf("the Go build cache was not created in the home: %v", err)
	}
}

func TestTheDefaultTempDirsAreWritable(t *testing.T) {
	f := newFixture(t)
	f.machine.TempDirs = []string{"/tmp", f.tmp}
	// The fixture's home is under /tmp, so /tmp would expose its secrets
	// and is dropped ...
	if p := f.profile(t, policy.SandboxConfig{}); len(p.Dropped) != 1 || p.Dropped[0].Path != "/tmp" {
		t.Fatalf("/tmp holding the home: dropped %+v", p.Dropped)
	}
	// ... and with a home elsewhere, /tmp is writable.
	f.machine.Home = "/nonexistent-warden-test-home"
	f.machine.DataDir = f.machine.Home + "/.local/share/warden"
	f.machine.ConfigDir = f.machine.Home + "/.config/warden"
	p := f.profile(t, policy.SandboxConfig{})
	out, code := f.bash(t, p, "d=$(mktemp -d /tmp/warden-sandbox-test.XXXXXX) && echo ok > $d/f && cat $d/f && rm -r $d")
	if code != 0 || strings.TrimSpace(out) != "ok" {
		t.Errorf("write /tmp: exit %d, %q", code, out)
	}
}

func TestExitStatusIsTheCommands(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	for _, want := range []int{0, 1, 7, 42} {
		if _, code := f.bash(t, p, "exit "+strconv.Itoa(want)); code != want {
			t.Errorf("exit %d: got %d", want, code)
		}
	}
	if out, code := f.run(t, p, nil, "no-such-program-xyz"); code != 125 || !strings.Contains(out, "no-such-program-xyz") {
		t.Errorf("missing program: exit %d, %q (want 125 and the name)", code, out)
	}
}

func TestPolicyEntries(t *testing.T) {
	f := newFixture(t)
	extra := filepath.Join(f.root, "extra")
	shared := filepath.Join(f.root, "shared")
	for _, d := range []string{extra, shared} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shared, "data"), []byte("shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := f.profile(t, policy.SandboxConfig{ReadWrite: []string{extra}, ReadOnly: []string{shared}, Deny: []string{"$WORKSPACE/../Documents"}})
	if out, code := f.bash(t, p, "echo x > "+extra+"/f && cat "+shared+"/data"); code != 0 {
		t.Errorf("readWrite/readOnly entries: exit %d, %q", code, out)
	}
	if out, code := f.bash(t, p, "echo x > "+shared+"/f"); code == 0 {
		t.Errorf("write to a readOnly entry: exit 0, %q", out)
	}
	found := false
	for _, d := range p.Denied {
		found = found || d.Path == filepath.Join(f.home, "Documents")
	}
	if !found {
		t.Errorf("the policy's deny entry ($WORKSPACE/../Documents) is not in Denied: %+v", p.Denied)
	}
}

func TestBuildRefusesGrantsThatExposeSecrets(t *testing.T) {
	f := newFixture(t)
	for _, ws := range []string{f.home, "/", f.root, filepath.Join(f.home, ".ssh"), f.data} {
		if _, err := sandbox.Build(policy.SandboxConfig{}, f.machine, ws); err == nil {
			t.Errorf("workspace %s: accepted", ws)
		}
	}
	cfg := policy.SandboxConfig{
		ReadWrite: []string{"~", "~/.ssh/sub", "/", f.root},
		ReadOnly:  []string{"~/.local", "~/.aws"},
	}
	p := f.profile(t, cfg)
	dropped := map[string]bool{}
	for _, d := range p.Dropped {
		dropped[d.Path] = true
		if d.Reason == "" {
			t.Errorf("%s dropped without a reason", d.Path)
		}
	}
	for _, want := range []string{f.home, filepath.Join(f.home, ".ssh/sub"), "/", f.root, filepath.Join(f.home, ".local"), filepath.Join(f.home, ".aws")} {
		if !dropped[want] {
			t.Errorf("%s was not dropped (dropped: %v)", want, dropped)
		}
	}
	for _, g := range p.Grants {
		for _, d := range p.Denied {
			if g.Path == d.Path || strings.HasPrefix(d.Path, g.Path+"/") || strings.HasPrefix(g.Path, d.Path+"/") {
				t.Errorf("grant %s (%s) reaches denied %s", g.Path, g.Access, d.Path)
			}
		}
	}
	// A temp dir that holds warden's data dir is dropped too.
	m := f.machine
	m.DataDir = filepath.Join(f.tmp, "warden")
	p, err := sandbox.Build(policy.SandboxConfig{}, m, f.ws)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Dropped) != 1 || p.Dropped[0].Path != f.tmp {
		t.Errorf("temp dir holding the data dir: dropped %+v", p.Dropped)
	}
	// A workspace reached through a symlink is resolved, and still checked.
	link := filepath.Join(f.root, "homelink")
	if err := os.Symlink(f.home, link); err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Build(policy.SandboxConfig{}, f.machine, link); err == nil {
		t.Error("a symlink to the home accepted as the workspace")
	}
}

func TestRefusesWhatWouldNotBeConfined(t *testing.T) {
	if _, err := sandbox.Command(context.Background(), &sandbox.Profile{}, []string{"true"}); err == nil {
		t.Error("an empty profile was accepted")
	}
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	if _, err := sandbox.Command(context.Background(), p, nil); err == nil {
		t.Error("no command was accepted")
	}
}

func TestDetectOnThisKernel(t *testing.T) {
	s := sandbox.Detect()
	// This project's CI kernel has Landlock ABI 7 (issue 9): the tests above
	// rely on it, so a kernel without it must fail here, loudly.
	if s.ABI < 6 || !s.Signals || !s.Files {
		t.Fatalf("Landlock ABI %d on this kernel: the sandbox tests need ABI 6+ (%s)", s.ABI, s)
	}
	if len(s.NotEnforced) == 0 {
		t.Error("NotEnforced is empty (the network at least is never restricted)")
	}
}

func TestShellLine(t *testing.T) {
	got := sandbox.ShellLine("/opt/my warden/warden", "/home/u/my proj", []string{"--policy", "/p.yaml"}, `echo "it's" $HOME; rm -rf ~`)
	if !strings.HasPrefix(got, "'/opt/my warden/warden' sandbox -w '/home/u/my proj' --policy /p.yaml -- /bin/bash -c ") {
		t.Errorf("ShellLine: %s", got)
	}
	// bash reads it back as exactly those words.
	out, err := exec.Command("/bin/bash", "-c", "printf '%s\\n' "+got).Output()
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	wantWords := []string{"/opt/my warden/warden", "sandbox", "-w", "/home/u/my proj", "--policy", "/p.yaml", "--", "/bin/bash", "-c", `echo "it's" $HOME; rm -rf ~`}
	if strings.Join(words, "|") != strings.Join(wantWords, "|") {
		t.Errorf("bash reads %q, want %q", words, wantWords)
	}
}

// TestNoTypingIntoTheTerminal: a confined command on a terminal cannot
// push characters into its input queue (TIOCSTI), which would type
// commands into the unconfined shell that started it.
func TestNoTypingIntoTheTerminal(t *testing.T) {
	f := newFixture(t)
	p := f.profile(t, policy.SandboxConfig{})
	inject := []string{"python3", "-c", "import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('injected')"}
	onTTY := func(cmd *exec.Cmd) (string, error) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer ptmx.Close()
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		out, _ := io.ReadAll(ptmx) // ends with EIO once the command exits
		return string(out), cmd.Wait()
	}
	// Unconfined, this kernel lets a process type into its own terminal
	// (dev.tty.legacy_tiocsti=1); the check below is then meaningful.
	plain := exec.Command(inject[0], inject[1:]...)
	plain.Env = f.env
	if out, err := onTTY(plain); err != nil || !strings.Contains(out, "injected") {
		t.Logf("unconfined TIOCSTI is refused by this kernel already (%v, %q)", err, out)
	}
	cmd, err := sandbox.Command(context.Background(), p, inject)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = f.env
	out, err := onTTY(cmd)
	if err == nil || strings.Contains(out, "injected") || !strings.Contains(out, "Operation not permitted") {
		t.Errorf("TIOCSTI inside the sandbox: err %v, output %q (want EPERM)", err, out)
	}
	// The user's other terminal is out of reach: what is typed there
	// cannot be read, nothing can be written to it.
	other, otherTTY, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	defer otherTTY.Close()
	// Something typed there, so that a read that wrongly succeeds returns
	// at once instead of waiting.
	if _, err := other.Write([]byte("k\n")); err != nil {
		t.Fatal(err)
	}
	cmd, err = sandbox.Command(context.Background(), p, []string{"/bin/bash", "-c", "head -c 1 " + otherTTY.Name() + "; echo spoof > " + otherTTY.Name()})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = f.env
	if out, err := onTTY(cmd); err == nil || strings.Count(out, "Permission denied") != 2 {
		t.Errorf("another terminal (%s) inside the sandbox: %v, %q", otherTTY.Name(), err, out)
	}
	// Its own terminal still works: its size, /dev/tty, its /dev/pts/N.
	cmd, err = sandbox.Command(context.Background(), p, []string{"/bin/bash", "-c", "stty size && echo tty-ok > /dev/tty && echo pts-ok > $(tty)"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = f.env
	if out, err := onTTY(cmd); err != nil || !strings.Contains(out, "tty-ok") || !strings.Contains(out, "pts-ok") {
		t.Errorf("terminal use inside the sandbox: %v, %q", err, out)
	}
}

// TestGitWorktreeWorkspace: a workspace that is a linked git worktree
// commits into its repository (objects, refs, logs writable), cannot plant
// a hook there, and a forged .git cannot buy grants.
func TestGitWorktreeWorkspace(t *testing.T) {
	f := newFixture(t)
	repo := filepath.Join(f.root, "repo")
	wt := filepath.Join(f.home, "wt")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q")
	git(repo, "commit", "-q", "--allow-empty", "-m", "init")
	git(repo, "worktree", "add", "-q", "-b", "topic", wt)
	p, err := sandbox.Build(policy.SandboxConfig{}, f.machine, wt)
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := sandbox.Command(context.Background(), p, []string{"/bin/bash", "-c",
		"echo x > f && git add f && git commit -qm work && git log --oneline -1 && " +
			"{ echo evil > " + repo + "/.git/hooks/post-checkout; echo hook=$?; } 2>&1; " +
			"{ git config core.hooksPath /tmp; echo config=$?; } 2>&1"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "work") || strings.Contains(string(out), "hook=0") || strings.Contains(string(out), "config=0") {
		t.Errorf("worktree: %v\n%s", err, out)
	}
	// A forged .git pointing at a git-looking directory the sandbox can
	// write (its temp dir) buys nothing: neither one whose commondir names
	// the home, nor a consistent one (refused because it could be forged).
	for i, commondir := range []string{f.home, "../.."} {
		fake := filepath.Join(f.tmp, "repo"+strconv.Itoa(i)+"/worktrees/x")
		if err := os.MkdirAll(fake, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"commondir": commondir, "gitdir": filepath.Join(f.ws, ".git")} {
			if err := os.WriteFile(filepath.Join(fake, name), []byte(content+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(f.ws, ".git"), []byte("gitdir: "+fake+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p = f.profile(t, policy.SandboxConfig{})
		for _, g := range p.Grants {
			if within(f.home, g.Path) || strings.Contains(g.Why, "worktree") {
				t.Errorf("forged .git (commondir %s): granted %s (%s, %s)", commondir, g.Path, g.Access, g.Why)
			}
		}
		if len(p.Dropped) != 1 || !strings.Contains(p.Dropped[0].Reason, "git") && !strings.Contains(p.Dropped[0].Reason, "forged") {
			t.Errorf("forged .git (commondir %s): dropped %+v", commondir, p.Dropped)
		}
	}
	// And pointing at another repository's real worktree is refused too.
	if err := os.WriteFile(filepath.Join(f.ws, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git/worktrees/wt")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = f.profile(t, policy.SandboxConfig{})
	for _, g := range p.Grants {
		if strings.Contains(g.Why, "worktree") {
			t.Errorf("another workspace's worktree: granted %s (%s)", g.Path, g.Why)
		}
	}
}

func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestSwappedPathIsNotGranted: a workspace replaced by a symlink to the
// home after the profile was built (a confined process racing the next
// command) fails the confinement instead of granting the home.
func TestSwappedPathIsNotGranted(t *testing.T) {
	f := newFixture(t)
	ws := filepath.Join(f.tmp, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := sandbox.Build(policy.SandboxConfig{}, f.machine, ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(ws, ws+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.home, ws); err != nil {
		t.Fatal(err)
	}
	cmd, err := sandbox.Command(context.Background(), p, []string{"/bin/bash", "-c", "cat ~/.ssh/id_rsa; echo planted >> ~/.bashrc"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env, cmd.Dir = f.env, f.tmp
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "replaced since") || strings.Contains(string(out), canary) {
		t.Errorf("swapped workspace: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(f.home, ".bashrc")); strings.Contains(string(b), "planted") {
		t.Error("~/.bashrc was written")
	}
}

// TestUnixSocketsOfTheUser: on a kernel whose Landlock cannot confine
// connect(2) on socket files (ABI < 9, as here), a confined command cannot
// reach a Unix socket served outside (ssh-agent, tmux, Docker): it cannot
// create Unix sockets at all, unless the policy allows them; socketpair
// still works.
func TestUnixSocketsOfTheUser(t *testing.T) {
	f := newFixture(t)
	sock := filepath.Join(f.tmp, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(got)
				return
			}
			b, _ := io.ReadAll(c)
			c.Close()
			got <- string(b)
		}
	}()
	client := "import socket; s=socket.socket(socket.AF_UNIX); s.connect('" + sock + "'); s.sendall(b'hello'); s.close(); print('sent')"
	p := f.profile(t, policy.SandboxConfig{})
	if sandbox.Detect().ABI < 9 {
		out, code := f.run(t, p, nil, "python3", "-c", client)
		if code == 0 || !strings.Contains(out, "Permission denied") {
			t.Errorf("connect to an outside Unix socket: exit %d, %q", code, out)
		}
	}
	out, code := f.run(t, p, nil, "python3", "-c", "import socket; a, b = socket.socketpair(); a.send(b'x'); print(b.recv(1))")
	if code != 0 || !strings.Contains(out, "b'x'") {
		t.Errorf("socketpair inside: exit %d, %q", code, out)
	}
	// With sandbox.unixSockets: true the same client gets through: the
	// check above is the sandbox's doing.
	yes := true
	p = f.profile(t, policy.SandboxConfig{UnixSockets: &yes})
	if out, code := f.run(t, p, nil, "python3", "-c", client); code != 0 || !strings.Contains(out, "sent") {
		t.Fatalf("unixSockets: true: exit %d, %q", code, out)
	}
	if msg := <-got; msg != "hello" {
		t.Errorf("the outside server got %q", msg)
	}
}
