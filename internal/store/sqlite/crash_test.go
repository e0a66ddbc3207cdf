package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// crashEnv names the database a crash child appends to; set only in the
// child process.
const crashEnv = "WARDEN_SQLITE_CRASH_CHILD_DB"

// TestCrashChild is not a test on its own: TestCrashKeepsAcknowledgedEvents
// runs the test binary again with crashEnv set, and this function appends
// concurrently, printing every acknowledged event, until it is killed.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("runs only as the child of TestCrashKeepsAcknowledgedEvents")
	}
	s, err := sqlite.Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // never outlive a lost parent
	defer cancel()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				batch := []event.Event{{Session: fmt.Sprintf("crash-%d", (g+i)%5), Type: event.ToolCall, Source: "crash"}}
				if i%8 == 7 {
					batch = append(batch, event.Event{Session: fmt.Sprintf("crash-%d", (g+i+1)%5), Type: event.ToolResult, Source: "crash"})
				}
				evs, err := s.Append(ctx, batch...)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					fmt.Fprintln(os.Stderr, "append:", err)
					os.Exit(4)
				}
				mu.Lock()
				for _, e := range evs {
					fmt.Fprintf(out, "ack %d %s %d\n", e.ID, e.Session, e.Seq)
				}
				// Flushed before the next append can be acknowledged: a
				// line the parent reads is an event that was acknowledged.
				err = out.Flush()
				mu.Unlock()
				if err != nil {
					os.Exit(5)
				}
			}
		})
	}
	wg.Wait()
	os.Exit(0)
}

type ack struct {
	session string
	seq     int64
}

// TestCrashKeepsAcknowledgedEvents kills a process that is appending under
// load with SIGKILL, several times over the same file, and checks after
// each kill that every event the process had acknowledged is in the log
// as acknowledged and that no session has a gap.
func TestCrashKeepsAcknowledgedEvents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "events.db")
	acked := map[int64]ack{}
	for round := 1; round <= 3; round++ {
		n := crashRound(t, path, acked, 1500*round)
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		all, err := s.Events(t.Context(), store.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		byID := make(map[int64]event.Event, len(all))
		next := map[string]int64{}
		for _, e := range all {
			byID[e.ID] = e
			next[e.Session]++
			if e.Seq != next[e.Session] {
				t.Fatalf("round %d: session %s: seq %d at position %d: gap", round, e.Session, e.Seq, next[e.Session])
			}
		}
		for id, a := range acked {
			e, ok := byID[id]
			if !ok {
				t.Fatalf("round %d: acknowledged event %d (%s/%d) lost in the crash", round, id, a.session, a.seq)
			}
			if e.Session != a.session || e.Seq != a.seq {
				t.Fatalf("round %d: event %d is %s/%d, acknowledged as %s/%d", round, id, e.Session, e.Seq, a.session, a.seq)
			}
		}
		t.Logf("round %d: killed after %d acks; %d acknowledged in all, %d stored (unacknowledged commits are allowed)",
			round, n, len(acked), len(all))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// crashRound runs a child until it has acknowledged killAt events in total,
// kills it, and records every ack it printed. It returns this round's acks.
func crashRound(t *testing.T, path string, acked map[int64]ack, killAt int) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer watchdog.Stop()

	n, killed := 0, false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || f[0] != "ack" {
			continue // test framework output
		}
		id, err1 := strconv.ParseInt(f[1], 10, 64)
		seq, err2 := strconv.ParseInt(f[3], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad ack line %q", sc.Text())
		}
		if _, dup := acked[id]; dup {
			t.Fatalf("id %d acknowledged twice", id)
		}
		acked[id] = ack{f[2], seq}
		n++
		if !killed && len(acked) >= killAt {
			if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to flush or close
				t.Fatal(err)
			}
			killed = true
		}
	}
	// Whatever the child wrote before it died is read by now (EOF).
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited before it was killed (%v): %s", err, stderr.String())
	}
	return n
}
