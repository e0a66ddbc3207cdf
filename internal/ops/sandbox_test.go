package ops_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/sandbox"
	"github.com/warden-dev/warden/internal/workspace"
)

func TestMain(m *testing.M) {
	// terminals re-execute this test binary to confine their shell
	sandbox.MaybeRunChild()
	os.Exit(m.Run())
}

// launcher confines shells with a profile built for a fixture machine.
type launcher struct{ m sandbox.Machine }

func (l launcher) Command(root, name string, args ...string) (*exec.Cmd, error) {
	p, err := sandbox.Build(policy.SandboxConfig{}, l.m, root)
	if err != nil {
		return nil, err
	}
	return sandbox.Command(context.Background(), p, append([]string{name}, args...))
}

// A terminal's shell runs in the kernel sandbox: a line the policy allows
// (the fixture's home lies under /tmp, which the policy counts as temp)
// still cannot write the home, read the data dir, or signal warden; work
// in the workspace and its own temp dir goes on.
func TestTerminalShellIsConfined(t *testing.T) {
	if !sandbox.Detect().Enforced() {
		t.Fatal("this kernel has no Landlock: the confinement this test checks cannot be shown here")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	root := filepath.Join(home, "proj")
	tmp := filepath.Join(base, "tmp")
	data := filepath.Join(home, ".local", "share", "warden")
	for _, d := range []string{root, tmp, data} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o600)
	os.WriteFile(filepath.Join(data, "token"), []byte("WARDEN-CANARY\n"), 0o600)
	c := coretest.New(t, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(base, "ws.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil {
		t.Fatal(err)
	}
	m := sandbox.Machine{Home: home, TempDirs: []string{tmp}, DataDir: data, ConfigDir: filepath.Join(home, ".config", "warden")}
	svc, err := ops.New(ops.Options{Core: c, Registry: reg, Shell: "/bin/bash", Launcher: launcher{m},
		TerminalEnv: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + tmp, "TERM=dumb", "PS1=$ "}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	ws, err := svc.Workspace(root)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{core: c, svc: svc, reg: reg, root: root, ws: ws}
	out := listen(f)
	tm, err := ws.CreateTerminal(t.Context(), caller, ops.TerminalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	send := func(line string) {
		t.Helper()
		if err := ws.SendText(t.Context(), caller, tm.ID, line, true, nil); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	// everyday work
	send("echo built > out.txt && echo scratch > " + tmp + "/s && echo DO''NE1")
	out.waitFor(t, "DONE1")
	if b, _ := os.ReadFile(filepath.Join(root, "out.txt")); string(b) != "built\n" {
		t.Fatalf("workspace write: %q", b)
	}
	// the home, through an interpreter the policy cannot see into
	send(`python3 -c "open('` + filepath.Join(home, ".bashrc") + `','a').write('pwned')"; echo RC1=$?`)
	out.waitFor(t, "RC1=1")
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "# rc\n" {
		t.Fatalf(".bashrc changed: %q", b)
	}
	// warden's data dir
	send("cat " + filepath.Join(data, "token") + "; echo RC2=$?")
	out.waitFor(t, "RC2=1")
	// warden itself (this process stands in for the daemon)
	send("kill -0 " + itoa(os.Getpid()) + "; echo RC3=$?")
	out.waitFor(t, "RC3=1")
	if strings.Contains(tm.Output(0), "WARDEN-CANARY") {
		t.Fatal("the token was read from the terminal")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
