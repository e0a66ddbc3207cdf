package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
	"github.com/warden-dev/warden/internal/store/storetest"
)

func factory(opts ...sqlite.Option) storetest.Factory {
	return storetest.Factory{
		Open: func(t *testing.T) store.Log {
			s, err := sqlite.Open(filepath.Join(t.TempDir(), "events.db"), opts...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Reopen: func(t *testing.T, closed store.Log) store.Log {
			s, err := sqlite.Open(closed.(*sqlite.Store).Path(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, factory())
}

// A small group cap exercises the writer's carry-over between groups.
func TestConformanceSmallGroups(t *testing.T) {
	storetest.Run(t, factory(sqlite.WithMaxBatch(16), sqlite.WithReadConns(1)))
}

func open(t *testing.T, path string, opts ...sqlite.Option) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// raw opens the file with database/sql directly, outside the store.
func raw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func pragma(t *testing.T, db *sql.DB, name string) string {
	t.Helper()
	var v string
	if err := db.QueryRow("PRAGMA " + name).Scan(&v); err != nil {
		t.Fatalf("PRAGMA %s: %v", name, err)
	}
	return v
}

func TestFreshDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s := open(t, path)
	if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.SessionStart}); err != nil {
		t.Fatal(err)
	}
	db := raw(t, path)
	if v := pragma(t, db, "user_version"); v != fmt.Sprint(sqlite.SchemaVersion()) {
		t.Fatalf("user_version %s, want %d", v, sqlite.SchemaVersion())
	}
	if v := pragma(t, db, "journal_mode"); v != "wal" {
		t.Fatalf("journal_mode %s, want wal", v)
	}
	if v := pragma(t, db, "application_id"); v != fmt.Sprint(0x7772646e) {
		t.Fatalf("application_id %s", v)
	}
	var objs []string
	rows, err := db.Query(`SELECT type || ':' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	rows.Close()
	if got := strings.Join(objs, " "); got != "table:events index:events_type_id table:meta table:session_heads" {
		t.Fatalf("schema objects: %s", got)
	}
	// Session reads and MAX(seq) are served by the (session, seq) index.
	var plan strings.Builder
	prow, err := db.Query(`EXPLAIN QUERY PLAN SELECT COALESCE(MAX(seq), 0) FROM events WHERE session = ?`, "s")
	if err != nil {
		t.Fatal(err)
	}
	for prow.Next() {
		var id, parent, unused int
		var detail string
		if err := prow.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(detail + "; ")
	}
	prow.Close()
	if !strings.Contains(plan.String(), "USING COVERING INDEX sqlite_autoindex_events_1") {
		t.Fatalf("MAX(seq) plan does not use the (session, seq) index: %s", plan.String())
	}
}

func TestReopenKeepsSchemaAndData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	for round := 1; round <= 3; round++ {
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		out, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.ToolCall})
		if err != nil {
			t.Fatal(err)
		}
		if out[0].Seq != int64(round) || out[0].ID != int64(round) {
			t.Fatalf("round %d: id %d seq %d", round, out[0].ID, out[0].Seq)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefusesNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s := open(t, path)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := raw(t, path)
	future := sqlite.SchemaVersion() + 5
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", future)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := sqlite.Open(path)
	if !errors.Is(err, sqlite.ErrSchemaTooNew) {
		t.Fatalf("Open = %v, want ErrSchemaTooNew", err)
	}
	for _, want := range []string{path, fmt.Sprint(future), "upgrade warden"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("error %q does not mention %q", err, want)
		}
	}
	// Nothing was changed by the refusal.
	if v := pragma(t, raw(t, path), "user_version"); v != fmt.Sprint(future) {
		t.Fatalf("user_version changed to %s", v)
	}
}

func TestRefusesForeignDatabase(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	db := raw(t, other)
	if _, err := db.Exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(other); !errors.Is(err, sqlite.ErrNotWardenLog) {
		t.Fatalf("Open of another app's database = %v, want ErrNotWardenLog", err)
	}
	tagged := filepath.Join(dir, "tagged.db")
	db = raw(t, tagged)
	if _, err := db.Exec(`PRAGMA application_id = 42`); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(tagged); !errors.Is(err, sqlite.ErrNotWardenLog) {
		t.Fatalf("Open of a database with another application id = %v, want ErrNotWardenLog", err)
	}
	notDB := filepath.Join(dir, "text.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Open(notDB); err == nil {
		t.Fatal("Open of a text file succeeded")
	}
}

// The log holds every command and path the agents used: its file and the
// -wal and -shm files SQLite creates beside it are the owner's alone, also
// under a umask of 022, and a log an older warden left readable by others
// is tightened when it is opened.
func TestLogFilesAreOwnerOnly(t *testing.T) {
	dir := t.TempDir()
	check := func(when string, names ...string) {
		t.Helper()
		for _, n := range names {
			fi, err := os.Stat(filepath.Join(dir, n))
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: %s is mode %o, want owner-only", when, n, fi.Mode().Perm())
			}
		}
	}
	path := filepath.Join(dir, "events.db")
	s := open(t, path)
	if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.SessionStart}); err != nil {
		t.Fatal(err)
	}
	check("a fresh log", "events.db", "events.db-wal", "events.db-shm")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.SessionEnd}); err != nil {
		t.Fatal(err)
	}
	check("a world-readable log reopened", "events.db", "events.db-wal", "events.db-shm")
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"", filepath.Join(dir, "missing", "dir", "events.db"), dir, "a\x00b"} {
		if s, err := sqlite.Open(p); err == nil {
			s.Close()
			t.Fatalf("Open(%q) succeeded", p)
		}
	}
}

func TestOddPaths(t *testing.T) {
	for _, name := range []string{"a?b.db", "c#d.db", "e%20f.db", "g h&_pragma=x.db", "ü.db"} {
		path := filepath.Join(t.TempDir(), name)
		s := open(t, path)
		if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.ToolCall}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s: the file is not where asked: %v", name, err)
		}
		s = open(t, path)
		if id, err := s.LastID(t.Context()); err != nil || id != 1 {
			t.Fatalf("%s reopened: LastID %d, %v", name, id, err)
		}
	}
}

func TestTimeOutOfRange(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "events.db"))
	for _, tm := range []time.Time{time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.ToolCall, Time: tm}); err == nil {
			t.Fatalf("time %s accepted", tm)
		}
	}
}

// TestTwoWritersOnOneFile runs two stores on the same file at once, as two
// processes would: the writer notices the other's commits (PRAGMA
// data_version) and reloads its caches, so seqs stay dense.
func TestTwoWritersOnOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	a, b := open(t, path), open(t, path)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for i, s := range []*sqlite.Store{a, b, a, b} {
		wg.Go(func() {
			for j := range 100 {
				if _, err := s.Append(context.Background(), event.Event{Session: fmt.Sprintf("s%d", j%3), Type: event.ToolCall}); err != nil {
					errc <- fmt.Errorf("writer %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	all, err := a.Events(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 400 {
		t.Fatalf("%d events, want 400", len(all))
	}
	next := map[string]int64{}
	for _, e := range all {
		next[e.Session]++
		if e.Seq != next[e.Session] {
			t.Fatalf("session %s: seq %d at position %d", e.Session, e.Seq, next[e.Session])
		}
	}
}

// TestGroupCommit shows that concurrent appends share transactions.
func TestGroupCommit(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "events.db"))
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for range 20 {
				if _, err := s.Append(context.Background(), event.Event{Session: fmt.Sprint(g % 5), Type: event.ToolCall}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := s.Stats()
	t.Logf("stats %+v (%.1f events per commit)", st, float64(st.Events)/float64(st.Commits))
	if st.Events != 64*20 {
		t.Fatalf("stats count %d events", st.Events)
	}
	if st.Commits >= st.Events {
		t.Fatalf("%d commits for %d events: no grouping", st.Commits, st.Events)
	}
}
