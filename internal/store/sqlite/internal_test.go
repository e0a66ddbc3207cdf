package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// rawConn opens a plain connection on path, outside the store.
func rawConn(t *testing.T, path string) (*sql.DB, *sql.Conn) {
	t.Helper()
	db, err := openDB(path, "_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(); db.Close() })
	return db, conn
}

func userVersion(t *testing.T, conn *sql.Conn) int {
	t.Helper()
	var v int
	if err := conn.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrateExistingDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(t.Context(), event.Event{Session: "s", Type: event.ToolCall, Data: []byte(`{"keep":1}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	_, conn := rawConn(t, path)
	ctx := t.Context()
	// A failing migration is applied not at all, even its good statements.
	bad := append(migrations(),
		migration{name: "half", sql: `CREATE TABLE half_done (x); ALTER TABLE no_such_table ADD COLUMN y;`})
	if err := migrate(ctx, conn, bad); err == nil {
		t.Fatal("a failing migration succeeded")
	}
	if v := userVersion(t, conn); v != SchemaVersion() {
		t.Fatalf("user_version %d after a failed migration, want %d", v, SchemaVersion())
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("failed migration left half_done behind (n=%d, err=%v)", n, err)
	}

	// A good one is applied to the existing data.
	next := append(migrations(),
		migration{name: "note", sql: `ALTER TABLE events ADD COLUMN note TEXT NOT NULL DEFAULT 'migrated'`})
	if err := migrate(ctx, conn, next); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if v := userVersion(t, conn); v != len(next) {
		t.Fatalf("user_version %d, want %d", v, len(next))
	}
	var data, note string
	if err := conn.QueryRowContext(ctx, `SELECT data, note FROM events WHERE session = 's' AND seq = 1`).Scan(&data, &note); err != nil {
		t.Fatal(err)
	}
	if data != `{"keep":1}` || note != "migrated" {
		t.Fatalf("after migration: data %q note %q", data, note)
	}
	// Applying the same list again is a no-op.
	if err := migrate(ctx, conn, next); err != nil {
		t.Fatalf("re-migrate: %v", err)
	}
	// And this build now refuses the file: it is newer than it knows.
	conn.Close()
	if _, err := Open(path); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("Open of a newer schema = %v, want ErrSchemaTooNew", err)
	}
}

// TestGroupCommitIsolatesFailures makes some inserts fail inside the
// transaction (past validation, as a disk or constraint error would) while
// many writers share group commits: only the failing appends fail, and no
// sequence number is lost.
func TestGroupCommitIsolatesFailures(t *testing.T) {
	poison := errors.New("injected insert failure")
	s, err := Open(filepath.Join(t.TempDir(), "events.db"), withInsertHook(func(source string) error {
		if source == "poison" {
			return poison
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var (
		mu     sync.Mutex
		wg     sync.WaitGroup
		acked  []event.Event
		probs  []error
		failed int
	)
	for g := range 32 {
		wg.Go(func() {
			for i := range 100 {
				bad := (g*100+i)%11 == 0
				batch := []event.Event{{Session: fmt.Sprintf("s%d", i%4), Type: event.ToolCall}}
				if bad {
					batch = append(batch, event.Event{Session: fmt.Sprintf("s%d", i%4), Type: event.ToolCall, Source: "poison"})
				}
				out, err := s.Append(context.Background(), batch...)
				mu.Lock()
				switch {
				case bad && !errors.Is(err, poison):
					probs = append(probs, fmt.Errorf("poisoned append: err = %v", err))
				case bad:
					failed++
				case err != nil:
					probs = append(probs, fmt.Errorf("good append failed: %w", err))
				default:
					acked = append(acked, out...)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(probs...); err != nil {
		t.Fatal(err)
	}
	all, err := s.Events(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(acked) {
		t.Fatalf("%d stored, %d acknowledged", len(all), len(acked))
	}
	next := map[string]int64{}
	for _, e := range all {
		next[e.Session]++
		if e.Seq != next[e.Session] {
			t.Fatalf("session %s: seq %d, want %d", e.Session, e.Seq, next[e.Session])
		}
	}
	st := s.Stats()
	t.Logf("%d good, %d poisoned; stats %+v", len(acked), failed, st)
	if failed == 0 || st.Retries == 0 {
		t.Fatalf("the failure path was not exercised: failed=%d stats=%+v", failed, st)
	}
}

// A log of the first schema (before meta) from an older warden: it passes
// the start-up check without a marker, is migrated with an identity of its
// own, keeps its events, and from then on is kept by a marker.
func TestOlderLogGetsAnIdentity(t *testing.T) {
	dir := t.TempDir()
	path, gen := filepath.Join(dir, "events.db"), filepath.Join(dir, GenerationName)
	_, conn := rawConn(t, path)
	if err := migrate(t.Context(), conn, migrations()[:1]); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := conn.ExecContext(t.Context(), "INSERT INTO events (id, session, seq, time_ns, type) VALUES (?, 's', ?, 1, 'tool.call')", i, i); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	h, err := Verify(t.Context(), path, VerifyOptions{Generation: gen, History: true})
	if err != nil || h.LogID != "" || h.LastID != 3 {
		t.Fatalf("older log: %+v, %v", h, err)
	}
	s, err := Open(path, WithGeneration(gen), WithHistory(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	g, ok, err := ReadGeneration(gen)
	if err != nil || !ok || len(g.LogID) != 32 || g.LastID != 3 {
		t.Fatalf("marker after the upgrade: %+v %v %v", g, ok, err)
	}
	h, err = Verify(t.Context(), path, VerifyOptions{Generation: gen})
	if err != nil || h.LogID != g.LogID || h.Events != 3 {
		t.Fatalf("after the upgrade: %+v, %v", h, err)
	}
}

// TestReadStatementCache reads with more query shapes than the cache keeps
// (each count of types is its own SQL): every read answers what was
// stored, the cache stops at its bound, a cached statement sees appends
// made after it was prepared, and a read after Close is ErrClosed.
func TestReadStatementCache(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	ctx := t.Context()
	var types []event.Type
	for i := range maxCachedReads + 8 {
		typ := event.Type(fmt.Sprintf("t.%d", i))
		types = append(types, typ)
		if _, err := s.Append(ctx, event.Event{Session: "s", Type: typ}); err != nil {
			t.Fatal(err)
		}
		got, err := s.Events(ctx, store.Filter{Session: "s", Types: types})
		if err != nil {
			t.Fatal(err)
		}
		if last := got[len(got)-1]; len(got) != 2*i+1 || last.Type != typ || last.Seq != int64(2*i+1) {
			t.Fatalf("%d types: got %d events, last %+v", i+1, len(got), got[len(got)-1])
		}
		// the same shape again, after one more append: the cached
		// statement reads the new state
		if _, err := s.Append(ctx, event.Event{Session: "s", Type: typ}); err != nil {
			t.Fatal(err)
		}
		again, err := s.Events(ctx, store.Filter{Session: "s", Types: types, AfterSeq: int64(2 * i)})
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != 2 || again[1].Seq != int64(2*i+2) {
			t.Fatalf("%d types, cached: got %+v", i+1, again)
		}
	}
	s.reads.mu.Lock()
	n := len(s.reads.stmts)
	s.reads.mu.Unlock()
	if n != maxCachedReads {
		t.Fatalf("cache holds %d statements, want its bound %d", n, maxCachedReads)
	}
	closed = true
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events(ctx, store.Filter{Session: "s", Types: types[:1]}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
}
