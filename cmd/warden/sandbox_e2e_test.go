package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/warden-dev/warden/internal/sandbox"
)

// The sandbox as the checks of issue 9 drive it: `warden sandbox -w
// WORKSPACE -- bash -c CMD`, the real binary, the real kernel.

// corpusCanary marks the content the sandbox must hide: it is appended to
// every file of the fixture home that no grant lets a confined command read.
const corpusCanary = "WARDEN-CORPUS-CANARY"

// corpusCategories are the corpus's categories about files, secrets and
// processes: the ones a file-system sandbox must contain. docs/policy.md
// says why the others are not the sandbox's to decide.
var corpusCategories = map[string]bool{
	"destructive": true, "obfuscation": true, "indirect": true, "interpreters": true,
	"secrets": true, "persistence": true, "warden_self": true,
}

type corpusCase struct {
	ID       int    `json:"id"`
	Category string `json:"category"`
	Cmd      string `json:"cmd"`
	Expect   string `json:"expect"`
	Why      string `json:"why"`
}

// sandboxFixture is one fresh fixture root: the corpus's own fixture script
// builds ROOT/home (canary secrets, dotfiles, ROOT/home/proj a git
// repository with symlinks out of it); warden's data dir holds a token.
// ROOT is under /tmp, so the sandbox's temp dir is ROOT/tmp (policy
// sandbox.tempDirs), not /tmp: the home must be closed by the sandbox, not
// merely left out of a writable /tmp.
type sandboxFixture struct {
	root, home, ws, tmp, policy string
	env                         []string
	profile                     *sandbox.Profile
}

func newSandboxFixture(t *testing.T) *sandboxFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &sandboxFixture{root: root, home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), policy: filepath.Join(root, "policy.yaml")}
	f.ws = filepath.Join(f.home, "proj")
	if out, err := exec.Command("bash", "testdata/adversarial/adversarial-fixture.sh", root).CombinedOutput(); err != nil {
		t.Fatalf("fixture: %v\n%s", err, out)
	}
	data := filepath.Join(f.home, ".local/share/warden")
	for name, content := range map[string]string{
		"token": "admin-token", "daemon.json": `{"pid": 1}`, "policy-overlay.yaml": "rules: []\n",
	} {
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(data, name), []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(f.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	pol := fmt.Sprintf("version: 1\nextends: default\nsandbox:\n  tempDirs: [%q]\n", f.tmp)
	if err := os.WriteFile(f.policy, []byte(pol), 0o600); err != nil {
		t.Fatal(err)
	}
	f.env = []string{"HOME=" + f.home, "TMPDIR=" + f.tmp, "LANG=C",
		"PATH=" + filepath.Dir(binary) + ":/usr/local/bin:/usr/bin:/bin"}

	// The profile, as `warden sandbox explain --json` shows it.
	cmd := exec.Command(binary, "sandbox", "explain", "-w", f.ws, "--policy", f.policy, "--json")
	cmd.Env = f.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("explain: %v %s", err, out)
	}
	var ex struct {
		Profile *sandbox.Profile `json:"profile"`
	}
	if err := json.Unmarshal(out, &ex); err != nil {
		t.Fatal(err)
	}
	f.profile = ex.Profile
	// Guard: the cases run for real (rm -rf /etc, as root here). Refuse to
	// run any if a writable grant lies outside this fixture and /dev.
	for _, g := range f.profile.Grants {
		if g.Access == sandbox.ReadWrite && !under(g.Path, root) && !under(g.Path, "/dev") {
			t.Fatalf("the profile grants %s read-write (outside the fixture): refusing to run the corpus", g.Path)
		}
	}
	// Canaries in everything no grant lets the sandbox read.
	err = filepath.WalkDir(f.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || f.readable(p) {
			return err
		}
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer fh.Close()
		_, err = fmt.Fprintf(fh, "\n%s %s\n", corpusCanary, strings.TrimPrefix(p, f.home))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func (f *sandboxFixture) readable(p string) bool {
	for _, g := range f.profile.Grants {
		if under(p, g.Path) {
			return true
		}
	}
	return false
}

// writable reports whether the profile lets the sandbox change p.
func (f *sandboxFixture) writable(p string) bool {
	for _, g := range f.profile.Grants {
		if g.Access == sandbox.ReadWrite && under(p, g.Path) {
			return true
		}
	}
	return false
}

// snapshot records every path under the fixture root that the sandbox
// may not change (all but the writable grants: workspace, temp, caches).
func (f *sandboxFixture) snapshot(t *testing.T) map[string]string {
	t.Helper()
	s := map[string]string{}
	err := filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if f.writable(p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		v := fmt.Sprintf("%v uid=%d", fi.Mode(), fi.Sys().(*syscall.Stat_t).Uid)
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		case fi.Mode()&fs.ModeSymlink != 0:
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

// run runs bash -c cmd under `warden sandbox` in the workspace, with
// stdin empty; every process it leaves behind (nohup, setsid, &) is killed
// and waited for before run returns.
func (f *sandboxFixture) run(t *testing.T, cmdline string) (string, int) {
	t.Helper()
	outFile, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer outFile.Close()
	marker := "WARDEN_CORPUS_RUN=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "sandbox", "-w", f.ws, "--policy", f.policy, "--", "bash", "-c", cmdline)
	cmd.Dir = f.ws
	cmd.Env = append(slices.Clone(f.env), marker)
	cmd.Stdout, cmd.Stderr = outFile, outFile
	err = cmd.Run()
	killStragglers(t, marker)
	out, rerr := os.ReadFile(outFile.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s: did not finish: %s", cmdline, out)
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("%s: %v", cmdline, err)
	return "", 0
}

// killStragglers kills the processes whose environment holds marker and
// waits (pidfd) until each is gone.
func killStragglers(t *testing.T, marker string) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, []byte(marker+"\x00")) {
			continue
		}
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // already gone
		}
		if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err == nil {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if _, err := unix.Poll(fds, -1); !errors.Is(err, unix.EINTR) {
					break
				}
			}
		}
		unix.Close(fd)
	}
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	fh, err := os.Open("testdata/adversarial/adversarial-a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if c.Expect == "deny" && c.Cmd != "" && corpusCategories[c.Category] {
			cases = append(cases, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestSandboxCorpus runs the adversarial corpus's dangerous shell commands
// for real inside `warden sandbox`, each in a fresh fixture home: afterwards
// nothing outside the workspace, temp and caches has changed, and no
// canary secret was in the output.
func TestSandboxCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) < 100 {
		t.Fatalf("only %d corpus cases selected", len(cases))
	}
	// The confined command is an ordinary process: no capabilities (as
	// root, CAP_CHOWN would chown /etc past Landlock).
	probe := newSandboxFixture(t)
	out, code := probe.run(t, "grep -E '^Cap(Eff|Prm|Bnd):' /proc/self/status")
	if code != 0 || strings.Count(out, "0000000000000000") != 3 {
		t.Fatalf("capabilities inside the sandbox: exit %d\n%s", code, out)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", c.ID, c.Category), func(t *testing.T) {
			f := newSandboxFixture(t)
			if out, code := f.run(t, "true"); code != 0 { // creates the build caches
				t.Fatalf("true: exit %d: %s", code, out)
			}
			before := f.snapshot(t)
			// The corpus spells the fixture root /tmp/rt (its script's
			// default); this run's root is elsewhere, the same for every case.
			cmdline := strings.ReplaceAll(c.Cmd, "/tmp/rt", f.root)
			out, code := f.run(t, cmdline)
			after := f.snapshot(t)
			first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
			t.Logf("exit %d: %s", code, first)
			var changed []string
			for p, v := range before {
				if a, ok := after[p]; !ok {
					changed = append(changed, "removed "+p)
				} else if a != v {
					changed = append(changed, "changed "+p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					changed = append(changed, "created "+p)
				}
			}
			if len(changed) > 0 {
				t.Errorf("%s (%s): outside the workspace and temp, %v (exit %d)\n%s", c.Cmd, c.Why, changed, code, out)
			}
			if strings.Contains(out, corpusCanary) {
				t.Errorf("%s (%s): a canary secret was readable:\n%s", c.Cmd, c.Why, out)
			}
		})
	}
}

// TestSandboxCLI: the exit status is the command's; 125 when warden cannot
// confine or start it; a home or / workspace is refused; explain shows the
// profile and the kernel; a ShellLine runs as written.
func TestSandboxCLI(t *testing.T) {
	f := newSandboxFixture(t)
	if _, code := f.run(t, "exit 3"); code != 3 {
		t.Errorf("exit 3: got %d", code)
	}
	for _, args := range [][]string{
		{"sandbox", "-w", f.home, "--policy", f.policy, "--", "true"},
		{"sandbox", "-w", "/", "--policy", f.policy, "--", "true"},
		{"sandbox", "-w", f.ws, "--policy", f.policy, "--", "no-such-program-xyz"},
		{"sandbox", "-w", f.ws, "--policy", filepath.Join(f.root, "missing.yaml"), "--", "true"},
	} {
		cmd := exec.Command(binary, args...)
		cmd.Env = f.env
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "error:") {
			t.Errorf("warden %v: %v (want exit 125 and a message)\n%s", args, err, out)
		}
	}
	cmd := exec.Command(binary, "sandbox", "explain", "-w", f.ws, "--policy", f.policy)
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, out)
	}
	for _, want := range []string{"workspace: " + f.ws, "Landlock ABI", "read-write  " + f.ws, "denied", f.home + "/.ssh", "SSH keys", "warden's data dir", f.tmp} {
		if !strings.Contains(string(out), want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// A policy file the sandbox could rewrite is refused.
	inWS := filepath.Join(f.ws, "policy.yaml")
	if err := os.WriteFile(inWS, []byte("version: 1\nextends: default\nsandbox: {readWrite: [~/.config]}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(binary, "sandbox", "-w", f.ws, "--policy", inWS, "--", "true")
	cmd.Env = f.env
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 125 || !strings.Contains(string(out), "writable inside the sandbox") {
		t.Errorf("policy file in the workspace: %v\n%s", err, out)
	}
	// The environment grants nothing: caches and temp dirs pointed at the
	// home's Documents stay closed.
	docs := filepath.Join(f.home, "Documents")
	cmd = exec.Command(binary, "sandbox", "explain", "-w", f.ws, "--policy", f.policy, "--json")
	cmd.Env = append(slices.Clone(f.env), "TMPDIR="+docs, "GOCACHE="+docs, "GOMODCACHE="+docs, "GOPATH="+docs,
		"XDG_CACHE_HOME="+docs, "CARGO_HOME="+docs, "npm_config_cache="+docs, "GOROOT="+docs)
	if out, err = cmd.Output(); err != nil || strings.Contains(string(out), docs) {
		t.Errorf("the environment widened the profile (%v):\n%s", err, out)
	}
	// sandbox.enabled: false runs the command unconfined, and says so.
	off := filepath.Join(f.root, "off.yaml")
	if err := os.WriteFile(off, []byte("version: 1\nextends: default\nsandbox: {enabled: false}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(binary, "sandbox", "-w", f.ws, "--policy", off, "--", "cat", filepath.Join(f.home, ".ssh/id_rsa"))
	cmd.Env = f.env
	out, err = cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "FAKEKEY") || !strings.Contains(string(out), "running unconfined") {
		t.Errorf("enabled: false: %v\n%s", err, out)
	}
	// A hook's rewritten line: bash runs it as written, confined.
	line := sandbox.ShellLine(binary, f.ws, []string{"--policy", f.policy}, `echo "it's here" > note && cat ~/.ssh/id_rsa`)
	cmd = exec.Command("bash", "-c", line)
	cmd.Dir, cmd.Env = f.ws, f.env
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") || strings.Contains(string(out), corpusCanary) {
		t.Errorf("%s: %v\n%s", line, err, out)
	}
	if b, err := os.ReadFile(filepath.Join(f.ws, "note")); err != nil || string(b) != "it's here\n" {
		t.Errorf("note: %q, %v", b, err)
	}
}

// BenchmarkSandboxStart measures `warden sandbox -- true` (build the
// profile, confine, exec) against `warden version` (warden's own start),
// both the built binary, interleaved in one run; it reports the medians and
// their ratio (docs/benchmarks.md).
func BenchmarkSandboxStart(b *testing.B) {
	home := b.TempDir()
	ws := filepath.Join(home, "proj")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	env := isolatedEnv(b, home)
	run := func(args ...string) time.Duration {
		cmd := exec.Command(binary, args...)
		cmd.Env, cmd.Dir = env, ws
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v %s", args, err, out)
		}
		return time.Since(start)
	}
	run("sandbox", "--", "true") // warm caches
	b.ResetTimer()
	var sb, vs []time.Duration
	for i := 0; i < b.N; i++ {
		sb = append(sb, run("sandbox", "--", "true"))
		vs = append(vs, run("version"))
	}
	b.StopTimer()
	slices.Sort(sb)
	slices.Sort(vs)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(sb[len(sb)/2]), "sandbox-p50-ms")
	b.ReportMetric(ms(vs[len(vs)/2]), "version-p50-ms")
	b.ReportMetric(float64(sb[len(sb)/2])/float64(vs[len(vs)/2]), "ratio-p50")
}
