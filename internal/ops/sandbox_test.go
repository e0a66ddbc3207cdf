package ops_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/debug"
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

func (l launcher) Command(ctx context.Context, root, name string, args ...string) (*exec.Cmd, error) {
	p, err := sandbox.Build(policy.SandboxConfig{}, l.m, root)
	if err != nil {
		return nil, err
	}
	return sandbox.Command(ctx, p, append([]string{name}, args...))
}

// A terminal's shell runs in the kernel sandbox: a line the policy allows
// (the fixture's home lies under /tmp, which the policy counts as temp)
// still cannot write the home, read the data dir, or signal warden; work
// in the workspace and its own temp dir goes on.
func TestTerminalShellIsConfined(t *testing.T) {
	f, paths := confinedFixture(t)
	home, root, tmp, data, ws := paths.home, f.root, paths.tmp, paths.data, f.ws
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

// confinedFixture is a registered git workspace inside a fixture home
// (outside the temp dirs the sandbox opens), on a Service whose Launcher
// confines what it starts.
// confinedPaths are where a confined fixture's home, temp dir and
// warden data dir (with a canary token) lie.
type confinedPaths struct{ home, tmp, data string }

func confinedFixture(t *testing.T) (*fixture, confinedPaths) {
	t.Helper()
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
	// the daemon's home is the sandbox's (git reads ~/.gitconfig)
	t.Setenv("HOME", home)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello\n"), 0o644)
	git("add", "notes.txt")
	git("commit", "-q", "-m", "first")
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
	return &fixture{core: c, svc: svc, reg: reg, root: root, ws: ws}, confinedPaths{home: home, tmp: tmp, data: data}
}

// The programs a repository's config names (filters, diff drivers) are the
// agent's to write: git run for a door runs them confined.
func TestGitRunsRepositoryProgramsConfined(t *testing.T) {
	f, paths := confinedFixture(t)
	rc := filepath.Join(paths.home, ".bashrc")
	script := filepath.Join(f.root, ".git", "evil.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho PWNED >> "+rc+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.OpenFile(filepath.Join(f.root, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(cfg, "[filter \"x\"]\n\tclean = %s\n[diff]\n\texternal = %s\n", script, script)
	cfg.Close()
	os.WriteFile(filepath.Join(f.root, ".gitattributes"), []byte("*.txt filter=x\n"), 0o644)
	os.WriteFile(filepath.Join(f.root, "notes.txt"), []byte("hellz\n"), 0o644)
	if _, err := f.ws.GitStatus(t.Context(), caller); err != nil {
		t.Logf("git status: %v", err) // the filter's failure may fail status: what counts is below
	}
	if _, _, err := f.ws.GitDiff(t.Context(), caller, "", false, nil); err != nil {
		t.Logf("git diff: %v", err)
	}
	if b, _ := os.ReadFile(rc); string(b) != "# rc\n" {
		t.Fatalf("a repository's filter or diff driver wrote the home: %q", b)
	}
	// and git itself works confined
	st, err := f.ws.GitStatus(t.Context(), caller)
	if err != nil {
		os.Remove(filepath.Join(f.root, ".gitattributes"))
		st, err = f.ws.GitStatus(t.Context(), caller)
	}
	if err != nil || st.Branch != "main" {
		t.Fatalf("confined git status: %+v %v", st, err)
	}
}

// A debugged program is a program of the workspace: it runs confined.
func TestDebuggeeRunsConfined(t *testing.T) {
	f, paths := confinedFixture(t)
	rc := filepath.Join(paths.home, ".bashrc")
	prog := filepath.Join(f.root, "main.py")
	os.WriteFile(prog, []byte("try:\n    open("+strconv.Quote(rc)+", 'a').write('PWNED')\n    print('WROTE')\nexcept OSError as e:\n    print('REFUSED', e.errno)\n"), 0o644)
	events := make(chan map[string]any, 64)
	f.ws.Listen(func(n ops.Notice) {
		if n.Method == "debug.event" {
			events <- n.Params.(map[string]any)
		}
	})
	p, err := f.ws.Gate(t.Context(), caller, "", "bash", map[string]any{"command": "python3 main.py"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Debug().Start(t.Context(), debug.Config{Type: "python", Request: "launch", Program: prog}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		select {
		case ev := <-events:
			out.WriteString(fmt.Sprint(ev["output"]))
			if ev["kind"] == debug.EventTerminated || ev["kind"] == debug.EventExited {
				if b, _ := os.ReadFile(rc); string(b) != "# rc\n" {
					t.Fatalf("the debuggee wrote the home: %q (output %q)", b, out.String())
				}
				if !strings.Contains(out.String(), "REFUSED 13") {
					t.Fatalf("debuggee output %q, want its write refused", out.String())
				}
				return
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("the debug session did not end; output so far %q", out.String())
		}
	}
}
