package reaper_test

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/reaper"
	"github.com/warden-dev/warden/internal/testtools"
)

// daemonEnv makes the test binary play a daemon that runs one guarded
// command and then blocks until it is killed.
const daemonEnv = "WARDEN_REAPER_TEST_DAEMON"

func TestMain(m *testing.M) {
	reaper.MaybeRun()
	if script := os.Getenv(daemonEnv); script != "" {
		os.Exit(playDaemon(script))
	}
	goleak.VerifyTestMain(m)
}

func playDaemon(script string) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	g, err := reaper.Wrap(exe, exec.Command("/bin/bash", "-c", script))
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	g.Cmd.Stdout, g.Cmd.Stderr = os.Stdout, os.Stderr
	err = g.Cmd.Start()
	g.Started()
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	fmt.Println("guard", g.Cmd.Process.Pid)
	select {} // until kill -9
}

// spawn is a command that leaves two processes behind, both named by
// marker: a background job in the command's group, and one that left the
// group and the session (setsid); it prints their pids once both run.
func spawn(marker string) string {
	return `m() { until tr '\0' ' ' < /proc/$1/cmdline 2>/dev/null | grep -q "$2"; do :; done; }
(exec -a ` + marker + `-job sleep 300) & p1=$!
setsid bash -c 'exec -a ` + marker + `-setsid sleep 300' & p2=$!
m $p1 ` + marker + `-job; m $p2 ` + marker + `-setsid
echo running $p1 $p2
`
}

func newMarker(t *testing.T) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "warden-reaper-test-" + hex.EncodeToString(b[:])
}

func pids(t *testing.T, line, prefix string) []int {
	t.Helper()
	f := strings.Fields(strings.TrimPrefix(line, prefix))
	var out []int
	for _, s := range f {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, n)
	}
	return out
}

// TestCommandEndTakesItsJobs: once a guarded command exits, what it left
// behind (a background job, a setsid'd grandchild) is gone too, and the
// command's exit status is the guard's.
func TestCommandEndTakesItsJobs(t *testing.T) {
	marker := newMarker(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g, err := reaper.Wrap(exe, exec.Command("/bin/bash", "-c", spawn(marker)+"exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Release()
	var out strings.Builder
	g.Cmd.Stdout = &out
	err = g.Cmd.Start()
	g.Started()
	if err != nil {
		t.Fatal(err)
	}
	err = g.Cmd.Wait()
	if g.Cmd.ProcessState.ExitCode() != 3 {
		t.Fatalf("exit %v, output %q", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "running ") {
		t.Fatalf("output %q", out.String())
	}
	if left := testtools.WithMarker(t, marker); len(left) > 0 {
		t.Fatalf("left behind: %q", left)
	}
}

// TestDaemonKillTakesEverything: kill -9 of the process that started a
// guarded command ends the command and everything it started.
func TestDaemonKillTakesEverything(t *testing.T) {
	marker := newMarker(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	d := exec.Command(exe)
	d.Env = append(os.Environ(), daemonEnv+"="+spawn(marker)+"sleep 300")
	d.Stderr = os.Stderr
	stdout, err := d.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	var guard int
	var left []int
	for guard == 0 || left == nil {
		line, err := r.ReadString('\n')
		if err != nil {
			_ = d.Process.Kill()
			_ = d.Wait()
			t.Fatalf("the daemon said %q: %v", line, err)
		}
		switch {
		case strings.HasPrefix(line, "guard "):
			guard = pids(t, line, "guard ")[0]
		case strings.HasPrefix(line, "running "):
			left = pids(t, line, "running ")
		}
	}
	if err := d.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = d.Wait()
	for _, pid := range append([]int{guard}, left...) {
		testtools.WaitExit(t, pid, 10*time.Second)
	}
	if left := testtools.WithMarker(t, marker); len(left) > 0 {
		t.Fatalf("left behind: %q", left)
	}
}
