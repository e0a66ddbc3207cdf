package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeRefusesEmptiedLog: a log file emptied while the data dir shows
// history is refused at start with the path and what to do, and left as it
// is, instead of a fresh log silently replacing it.
func TestServeRefusesEmptiedLog(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	if code, body := d.post(t, preExecute("s1", "c1", "ls", t.TempDir())); code != 200 {
		t.Fatalf("post: %d %s", code, body)
	}
	d.stop()
	logPath := filepath.Join(data, "events.db")
	if err := os.Truncate(logPath, 0); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--data-dir", data, "--monitor-addr", "127.0.0.1:0", "--hooks-addr=", "--health-addr=", "--control-addr=", "--mcp-addr=", "--agent-addr=")
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), logPath) || !strings.Contains(string(out), "empty (0 bytes)") ||
		!strings.Contains(string(out), "warden events import") {
		t.Fatalf("serve on an emptied log: %v\n%s", err, out)
	}
	if fi, err := os.Stat(logPath); err != nil || fi.Size() != 0 {
		t.Fatalf("the refused log was touched: %v", err)
	}
	_, _, code := warden(t, data, "", "doctor")
	if code != 1 {
		t.Fatalf("doctor on an emptied log exits %d, want 1", code)
	}
}

// TestExportImportPrune: a backup of a running daemon's log round-trips
// through a fresh data dir byte for byte, resumes by id, refuses a log that
// holds events; prune keeps every session's summary.
func TestExportImportPrune(t *testing.T) {
	root := t.TempDir()
	data, restored := filepath.Join(root, "data"), filepath.Join(root, "restored")
	d := startDaemon(t, data)
	ws := t.TempDir()
	for i := range 6 {
		if code, body := d.post(t, preExecute(fmt.Sprintf("s%d", i%2), fmt.Sprintf("c%d", i), fmt.Sprintf("ls %d", i), ws)); code != 200 {
			t.Fatalf("post: %d %s", code, body)
		}
	}
	d.post(t, preExecute("s0", "c9", "rm -rf /", ws))

	full, errOut, code := warden(t, data, "", "events", "export")
	if code != 0 || !strings.Contains(errOut, "exported") {
		t.Fatalf("export: %d %s", code, errOut)
	}
	evs := parseEvents(t, full)
	if len(evs) < 14 {
		t.Fatalf("export holds %d events", len(evs))
	}
	// Resumable: the events after an id are exactly the rest.
	mid := evs[len(evs)/2].ID
	rest, _, code := warden(t, data, "", "events", "export", "--after", fmt.Sprint(mid))
	lines := strings.SplitAfter(full, "\n")
	if code != 0 || strings.Join(lines[len(evs)/2+1:], "") != rest {
		t.Fatalf("export --after %d is not the rest of the full export:\n%s", mid, rest)
	}

	if _, errOut, code := warden(t, restored, full, "events", "import"); code != 0 || !strings.Contains(errOut, fmt.Sprintf("imported %d events", len(evs))) {
		t.Fatalf("import: %d %s", code, errOut)
	}
	if _, errOut, code := warden(t, restored, full, "events", "import"); code == 0 || !strings.Contains(errOut, "already holds events") {
		t.Fatalf("a second import into the same log: %d %s", code, errOut)
	}
	again, _, code := warden(t, restored, "", "events", "export")
	if code != 0 || again != full {
		t.Fatalf("the restored log exports differently:\n%s\nwant\n%s", again, full)
	}
	// The restored data dir serves: its log passes the start-up check.
	r := startDaemon(t, restored)
	before, _, code := warden(t, restored, "", "sessions", "--json")
	if code != 0 || !strings.Contains(before, `"denied": 1`) {
		st, _, _ := warden(t, restored, "", "status")
		evs, _, _ := warden(t, restored, "", "events")
		t.Fatalf("sessions of the restored log: %d %s\n%s\n%s\n%s", code, before, st, evs, r.stderr)
	}
	r.stop()

	// Prune on the running daemon: the sessions keep their summaries.
	sessionsBefore, _, _ := warden(t, data, "", "sessions", "--json")
	cut := evs[len(evs)-2].ID
	out, errOut, code := warden(t, data, "", "events", "prune", "--before", fmt.Sprint(cut))
	if code != 0 || !strings.Contains(out, fmt.Sprintf("pruned %d events", len(evs)-2)) {
		t.Fatalf("prune: %d %s %s", code, out, errOut)
	}
	sessionsAfter, _, _ := warden(t, data, "", "sessions", "--json")
	if sessionsAfter != sessionsBefore {
		t.Fatalf("sessions after the prune:\n%s\nwant\n%s", sessionsAfter, sessionsBefore)
	}
	left, _, _ := warden(t, data, "", "events", "export")
	if got := parseEvents(t, left); got[0].ID != cut || got[len(got)-1].Type != "log.pruned" {
		t.Fatalf("after the prune the log starts at id %d and ends with %s", got[0].ID, got[len(got)-1].Type)
	}
	if _, errOut, code := warden(t, data, "", "events", "prune", "--before", "soon"); code == 0 || !strings.Contains(errOut, "duration") {
		t.Fatalf("prune --before soon: %d %s", code, errOut)
	}
	d.stop()
}

// TestServeRefusesCorruptedLog: pages of events.db overwritten while warden
// was stopped fail the start-up check (SQLite's quick_check), with the path
// and what to do; doctor says the same.
func TestServeRefusesCorruptedLog(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	ws := t.TempDir()
	for i := range 60 {
		if code, body := d.post(t, preExecute("s1", fmt.Sprintf("c%d", i), "ls "+strings.Repeat("x", 80), ws)); code != 200 {
			t.Fatalf("post: %d %s", code, body)
		}
	}
	d.stop()
	logPath := filepath.Join(data, "events.db")
	f, err := os.OpenFile(logPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := f.Stat(); fi.Size() < 10*4096 {
		t.Fatalf("log of %d bytes is too small to corrupt a middle page", fi.Size())
	}
	for _, page := range []int64{3, 4, 5, 6, 7} {
		if _, err := f.WriteAt([]byte(strings.Repeat("\x5a", 100)), page*4096); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	cmd := exec.Command(binary, "serve", "--data-dir", data, "--monitor-addr", "127.0.0.1:0", "--hooks-addr=", "--health-addr=", "--control-addr=", "--mcp-addr=", "--agent-addr=")
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), logPath+" refused") || !strings.Contains(string(out), "restore the log from a backup") {
		t.Fatalf("serve on a corrupted log: %v\n%s", err, out)
	}
	stdout, _, code := warden(t, data, "", "doctor")
	if code != 1 || !strings.Contains(stdout, "event log") {
		t.Fatalf("doctor on a corrupted log exits %d:\n%s", code, stdout)
	}
}

// A lost log is refused with a way out that works: `warden serve --new-log`
// starts a new, empty log on purpose (the stale marker kept beside), where
// "move events.db and log-generation.json aside" named files that were
// already gone. A log with content is never replaced by --new-log.
func TestServeNewLogAfterALostLog(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	d := startDaemon(t, data)
	if code, body := d.post(t, preExecute("s1", "c1", "ls", t.TempDir())); code != 200 {
		t.Fatalf("post: %d %s", code, body)
	}
	d.stop()
	serve := func(extra ...string) *exec.Cmd {
		cmd := exec.Command(binary, append([]string{"serve", "--data-dir", data, "--monitor-addr", "127.0.0.1:0", "--hooks-addr=", "--health-addr=", "--control-addr=", "--mcp-addr=", "--agent-addr="}, extra...)...)
		cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
		return cmd
	}
	// --new-log beside a sound log changes nothing: its events stay
	r := startDaemon(t, data, "--new-log")
	if out, _, _ := warden(t, data, "", "events", "--json"); !strings.Contains(out, `"c1"`) {
		t.Fatalf("--new-log replaced a sound log:\n%s", out)
	}
	r.stop()

	if err := os.Remove(filepath.Join(data, "events.db")); err != nil {
		t.Fatal(err)
	}
	out, err := serve().CombinedOutput()
	if err == nil || !strings.Contains(string(out), "the file is missing") || !strings.Contains(string(out), "warden serve --new-log") {
		t.Fatalf("serve on a removed log: %v\n%s", err, out)
	}
	if _, errOut, code := warden(t, data, "", "doctor"); code != 1 {
		t.Fatalf("doctor on a removed log exits %d:\n%s", code, errOut)
	}
	n := startDaemon(t, data, "--new-log")
	if !strings.Contains(n.stderr.String(), "starting a new, empty event log") {
		t.Fatalf("--new-log did not say what it did:\n%s", n.stderr)
	}
	if out, _, _ := warden(t, data, "", "events", "--json"); strings.Contains(out, `"c1"`) {
		t.Fatalf("the new log holds old events:\n%s", out)
	}
	n.stop()
	kept, _ := filepath.Glob(filepath.Join(data, "log-generation.json.replaced-*"))
	if len(kept) != 1 {
		t.Fatalf("the lost log's marker was not kept beside: %v", kept)
	}
	// from now on the new log is the one the marker guards
	startDaemon(t, data).stop()
}
