package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// A bar redraws at most every redrawEvery, always draws the end, and
// clears its line when done; on a stream that is not a terminal there is
// no bar at all.
func TestCountBarThrottlesAndClears(t *testing.T) {
	var out bytes.Buffer
	if b := newCountBar(&out, false, "x", 10, nil); b != nil {
		t.Fatal("a bar on a stream that is not a terminal")
	}
	clock := time.Unix(0, 0)
	b := newCountBar(&out, true, "exporting", 10, func(n, total int64) string { return "" })
	b.now = func() time.Time { return clock }
	b.set(1)
	b.set(2) // same instant: not drawn
	clock = clock.Add(redrawEvery)
	b.set(5)
	b.set(10) // the end: drawn at once
	if got := strings.Count(out.String(), "exporting ["); got != 3 {
		t.Fatalf("%d draws, want 3: %q", got, out.String())
	}
	if !strings.Contains(out.String(), "[###############...............]") || !strings.Contains(out.String(), "[##############################]") {
		t.Fatalf("bars: %q", out.String())
	}
	b.done()
	if !strings.HasSuffix(out.String(), "\r\x1b[K") {
		t.Fatalf("the line is not cleared: %q", out.String())
	}
}

// warden events export and import, run in a terminal, show a progress bar
// on stderr (the backup of a long log takes a while) and end with their
// one-line summary.
func TestExportImportShowProgressInATerminal(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	st, err := sqlite.Open(filepath.Join(src, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]event.Event, 2500)
	for i := range batch {
		batch[i] = event.Event{Session: "s", Type: event.ToolCall, Data: []byte(`{"tool":"bash","args":{"command":"ls"}}`)}
	}
	if _, err := st.Append(t.Context(), batch...); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup.jsonl")
	run := func(args ...string) string {
		t.Helper()
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatalf("no pty: %v", err)
		}
		defer ptmx.Close()
		read := make(chan string, 1)
		go func() {
			b, _ := io.ReadAll(ptmx) // ends with EIO once tty is closed
			read <- string(b)
		}()
		var out bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, tty)
		tty.Close()
		got := <-read
		if code != 0 {
			t.Fatalf("warden %s: exit %d: %s", strings.Join(args, " "), code, got)
		}
		return got
	}
	got := run("--data-dir", src, "events", "export", "-o", backup)
	if !strings.Contains(got, "exporting [") || !strings.Contains(got, "2500/2500 events") || !strings.Contains(got, "exported 2500 events") {
		t.Fatalf("export in a terminal:\n%q", got)
	}
	got = run("--data-dir", dst, "events", "import", backup)
	if !strings.Contains(got, "importing [##############################]") || !strings.Contains(got, "imported 2500 events") {
		t.Fatalf("import in a terminal:\n%q", got)
	}
	if fi, err := os.Stat(filepath.Join(dst, "events.db")); err != nil || fi.Size() == 0 {
		t.Fatalf("imported log: %v", err)
	}
}

// An index build's bar starts once the files are counted, shows files and
// bytes read, draws the end, and draws nothing on a stream that is not a
// terminal.
func TestBuildBar(t *testing.T) {
	var out bytes.Buffer
	quiet := &buildBar{w: &out, tty: false}
	quiet.show(index.Progress{Phase: "index", Files: 1, Total: 4, Bytes: 10})
	quiet.done()
	if out.Len() != 0 {
		t.Fatalf("drawn on a stream that is not a terminal: %q", out.String())
	}
	b := &buildBar{w: &out, tty: true}
	b.show(index.Progress{Phase: "walk"})
	if out.Len() != 0 {
		t.Fatalf("drawn before the files are counted: %q", out.String())
	}
	b.show(index.Progress{Phase: "index", Files: 0, Total: 4})
	b.show(index.Progress{Phase: "done", Files: 4, Total: 4, Bytes: 2_500_000})
	if got := out.String(); !strings.Contains(got, "indexing [##############################] 4/4 files 2.5 MB") {
		t.Fatalf("bar: %q", got)
	}
	b.done()
	if !strings.HasSuffix(out.String(), "\r\x1b[K") {
		t.Fatalf("the line is not cleared: %q", out.String())
	}
}
