package sqlite_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// logDir makes a data dir with a log of n events in two sessions, kept by a
// generation marker, closed again. It returns the log's and the marker's paths.
func logDir(t *testing.T, n int) (logPath, gen string) {
	t.Helper()
	dir := t.TempDir()
	logPath, gen = filepath.Join(dir, "events.db"), filepath.Join(dir, sqlite.GenerationName)
	s, err := sqlite.Open(logPath, sqlite.WithGeneration(gen))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, s, n)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return logPath, gen
}

func appendN(t *testing.T, s *sqlite.Store, n int) {
	t.Helper()
	for i := range n {
		e := event.Event{Session: fmt.Sprintf("s%d", i%2), Type: event.ToolCall, Source: "test/integrity",
			Data: []byte(fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("x", 200)))}
		if _, err := s.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
}

// refused opens the log as the daemon does and wants an IntegrityError
// whose problem mentions want.
func refused(t *testing.T, logPath, gen string, history bool, want string) {
	t.Helper()
	s, err := sqlite.Open(logPath, sqlite.WithGeneration(gen), sqlite.WithHistory(history))
	if err == nil {
		s.Close()
		t.Fatalf("Open accepted the log; want a refusal mentioning %q", want)
	}
	var ie *sqlite.IntegrityError
	if !errors.As(err, &ie) {
		t.Fatalf("Open: %v; want an *IntegrityError", err)
	}
	if !strings.Contains(ie.Problem, want) || ie.Fix == "" || !strings.Contains(err.Error(), logPath) {
		t.Fatalf("refusal %q; want the path, a problem mentioning %q and a fix", err, want)
	}
}

func TestIntegritySoundLogOpensAndKeepsMarker(t *testing.T) {
	logPath, gen := logDir(t, 10)
	g, ok, err := sqlite.ReadGeneration(gen)
	if err != nil || !ok {
		t.Fatalf("marker after close: %v, ok=%v", err, ok)
	}
	if g.LastID != 10 || len(g.LogID) != 32 {
		t.Fatalf("marker %+v; want lastId 10 and a 32-hex log id", g)
	}
	h, err := sqlite.Verify(t.Context(), logPath, sqlite.VerifyOptions{Generation: gen})
	if err != nil {
		t.Fatal(err)
	}
	if h.New || h.LastID != 10 || h.Events != 10 || h.Sessions != 2 || h.LogID != g.LogID {
		t.Fatalf("health %+v", h)
	}
	s := open(t, logPath, sqlite.WithGeneration(gen))
	appendN(t, s, 1)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if g, _, _ := sqlite.ReadGeneration(gen); g.LastID != 11 {
		t.Fatalf("marker lastId %d after one more event, want 11", g.LastID)
	}
}

func TestIntegrityFreshDataDir(t *testing.T) {
	dir := t.TempDir()
	h, err := sqlite.Verify(t.Context(), filepath.Join(dir, "events.db"), sqlite.VerifyOptions{Generation: filepath.Join(dir, sqlite.GenerationName)})
	if err != nil || !h.New {
		t.Fatalf("fresh dir: %+v, %v; want New", h, err)
	}
}

func TestIntegrityEmptiedLogRefused(t *testing.T) {
	logPath, gen := logDir(t, 5)
	if err := os.Truncate(logPath, 0); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, false, "empty (0 bytes)")
	// Refused, not replaced: the file is still empty and the marker intact.
	if fi, err := os.Stat(logPath); err != nil || fi.Size() != 0 {
		t.Fatalf("the refused file changed: %v", err)
	}
	if g, ok, _ := sqlite.ReadGeneration(gen); !ok || g.LastID != 5 {
		t.Fatalf("the marker changed: %+v", g)
	}
}

func TestIntegrityRemovedLogRefused(t *testing.T) {
	logPath, gen := logDir(t, 5)
	if err := os.Remove(logPath); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, false, "missing")
	if _, err := os.Stat(logPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused open created the file: %v", err)
	}
}

func TestIntegrityNoMarkerButHistoryRefused(t *testing.T) {
	logPath, gen := logDir(t, 1)
	if err := os.Remove(gen); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(logPath, 0); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, true, "earlier warden ran here")
}

func TestIntegrityReplacedLogRefused(t *testing.T) {
	logPath, gen := logDir(t, 5)
	other, _ := logDir(t, 20) // more events, another identity
	b, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, false, "was replaced")
}

func TestIntegrityOlderCopyRefused(t *testing.T) {
	logPath, gen := logDir(t, 3)
	old, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, logPath, sqlite.WithGeneration(gen))
	appendN(t, s, 4)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logPath, old, 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, false, "ends at event 3, but the data dir's generation marker says it reached event 7")
}

func TestIntegrityHoleInSeqsRefused(t *testing.T) {
	logPath, gen := logDir(t, 10)
	db := raw(t, logPath)
	if _, err := db.Exec("DELETE FROM events WHERE session = 's0' AND seq = 2"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	refused(t, logPath, gen, false, `session "s0" holds 4 events for seqs 1..5`)
}

func TestIntegrityCorruptPagesRefused(t *testing.T) {
	logPath, gen := logDir(t, 400)
	f, err := os.OpenFile(logPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	if fi.Size() < 8*4096 {
		t.Fatalf("log of %d bytes is too small to corrupt a middle page", fi.Size())
	}
	// Overwrite the b-tree page headers of a few pages in the middle.
	for _, page := range []int64{3, 4, 5, 6} {
		if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", 64)), page*4096); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	refused(t, logPath, gen, false, "")
}

func TestIntegrityForeignFileRefused(t *testing.T) {
	logPath, gen := logDir(t, 1)
	if err := os.WriteFile(logPath, []byte("not a database, just text that is long enough to have a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, logPath, gen, false, "cannot read")
}

// A log left by a crash (its WAL not checkpointed, the -shm file gone or
// stale) passes the check and opens with nothing lost.
func TestIntegrityAfterCrashWithWAL(t *testing.T) {
	dir := t.TempDir()
	logPath, gen := filepath.Join(dir, "events.db"), filepath.Join(dir, sqlite.GenerationName)
	s := open(t, logPath, sqlite.WithGeneration(gen))
	appendN(t, s, 10)
	for _, withSHM := range []bool{false, true} {
		crashed := t.TempDir()
		files := []string{"events.db", "events.db-wal", sqlite.GenerationName}
		if withSHM {
			files = append(files, "events.db-shm")
		}
		for _, name := range files {
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(crashed, name), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if fi, err := os.Stat(filepath.Join(crashed, "events.db-wal")); err != nil || fi.Size() == 0 {
			t.Fatalf("the copy has no WAL to recover: %v", err)
		}
		p, g := filepath.Join(crashed, "events.db"), filepath.Join(crashed, sqlite.GenerationName)
		h, err := sqlite.Verify(t.Context(), p, sqlite.VerifyOptions{Generation: g, History: true})
		if err != nil || h.LastID != 10 {
			t.Fatalf("shm %v: Verify after a crash: %+v, %v", withSHM, h, err)
		}
		r, err := sqlite.Open(p, sqlite.WithGeneration(g), sqlite.WithHistory(true))
		if err != nil {
			t.Fatalf("shm %v: Open after a crash: %v", withSHM, err)
		}
		if id, err := r.LastID(t.Context()); err != nil || id != 10 {
			t.Fatalf("shm %v: LastID after a crash: %d, %v", withSHM, id, err)
		}
		r.Close()
	}
}
