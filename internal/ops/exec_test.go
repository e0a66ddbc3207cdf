package ops_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/testtools"
)

func TestExecRunsAndIsRecorded(t *testing.T) {
	f := newFixture(t)
	res, err := f.ws.Exec(t.Context(), caller, "", "echo hi; echo err >&2; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || !strings.Contains(res.Output, "hi") || !strings.Contains(res.Output, "err") {
		t.Fatalf("res = %+v", res)
	}
	if _, err := f.ws.Exec(t.Context(), caller, "", "rm -rf /home/dev/x"); !errors.Is(err, ops.ErrDenied) {
		t.Fatalf("rm outside: %v, want denied", err)
	}
}

// TestExecCancelEndsTheGroup: when the caller's context ends, the command,
// the background job it started, and a child ignoring SIGTERM are all gone.
func TestExecCancelEndsTheGroup(t *testing.T) {
	f := newFixture(t)
	fifo := filepath.Join(f.root, "pids")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := f.ws.Exec(ctx, caller, "", `sleep 60 & bash -c 'trap "" TERM; sleep 60' & echo $$ $! > pids; wait`)
		done <- err
	}()
	r, err := os.Open(fifo) // blocks until the command writes its pids
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, s := range strings.Fields(line) {
		p, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, p)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Exec after cancel: %v", err)
	}
	// SIGTERM, then SIGKILL after ExecKillGrace: gone well within 3 s
	for _, p := range pids {
		testtools.WaitExit(t, p, 3*time.Second)
	}
}
