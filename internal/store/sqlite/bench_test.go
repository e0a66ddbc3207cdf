package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// Benchmarks of durable appends (every acknowledged event is fsynced). Run:
//
//	go test -run x -bench . -benchtime 2s ./internal/store/sqlite/
//
// events/s is the figure to compare; events/commit shows group commit at
// work. The Baseline benchmarks do the same work the naive way (one INSERT,
// one transaction, one fsync per event) with the same pragmas, for the
// ratio in the same run.

// writers is the number of concurrent appenders in the parallel benchmarks
// (b.SetParallelism multiplies GOMAXPROCS; this many goroutines at least).
const writers = 256

func benchEvent(i int) event.Event {
	return event.Event{
		Session: fmt.Sprintf("bench-%d", i%16), Type: event.ToolCall,
		Source: "bench/monitor", Workspace: "/home/u/proj",
		Data: []byte(`{"tool":"bash","args":{"command":"ls -la"},"callID":"call_123"}`),
	}
}

func openBench(b *testing.B) *sqlite.Store {
	b.Helper()
	s, err := sqlite.Open(filepath.Join(b.TempDir(), "events.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func report(b *testing.B, events int64, s *sqlite.Store) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	if s != nil {
		if st := s.Stats(); st.Commits > 0 {
			b.ReportMetric(float64(st.Events)/float64(st.Commits), "events/commit")
		}
	}
}

func maxProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkAppend is one event per Append, one caller: one fsync per event.
func BenchmarkAppend(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	var n int64
	for b.Loop() {
		if _, err := s.Append(ctx, benchEvent(int(n))); err != nil {
			b.Fatal(err)
		}
		n++
	}
	report(b, n, s)
}

// BenchmarkAppendParallel is one event per Append from many concurrent
// callers (a busy daemon): group commit shares each fsync among them.
func BenchmarkAppendParallel(b *testing.B) {
	s := openBench(b)
	var n atomic.Int64
	b.SetParallelism(max(1, writers/maxProcs()))
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			i := n.Add(1)
			if _, err := s.Append(ctx, benchEvent(int(i))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	report(b, n.Load(), s)
}

// BenchmarkAppendBatch is 100 events per Append, one caller.
func BenchmarkAppendBatch(b *testing.B) {
	s := openBench(b)
	ctx := context.Background()
	batch := make([]event.Event, 100)
	for i := range batch {
		batch[i] = benchEvent(i)
	}
	var n int64
	for b.Loop() {
		if _, err := s.Append(ctx, batch...); err != nil {
			b.Fatal(err)
		}
		n += int64(len(batch))
	}
	report(b, n, s)
}

// baselineDB opens a plain pool with the store's durability pragmas and
// schema, and no group commit.
func baselineDB(b *testing.B, conns int) *sql.DB {
	b.Helper()
	path := filepath.Join(b.TempDir(), "events.db")
	s, err := sqlite.Open(path) // creates the same schema
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(60000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	b.Cleanup(func() { db.Close() })
	return db
}

// baselineInsert appends one event in its own transaction, assigning seq
// with MAX(seq)+1 as a writer without an in-memory cache must.
func baselineInsert(db *sql.DB, e event.Event) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO events (session, seq, time_ns, type, source, workspace, data)
		VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session = ?), ?, ?, ?, ?, ?)`,
		e.Session, e.Session, time.Now().UnixNano(), string(e.Type), e.Source, e.Workspace, string(e.Data)); err != nil {
		return err
	}
	return tx.Commit()
}

// BenchmarkBaselineTxPerEvent is the naive serial writer: INSERT + COMMIT
// (fsync) per event.
func BenchmarkBaselineTxPerEvent(b *testing.B) {
	db := baselineDB(b, 1)
	var n int64
	for b.Loop() {
		if err := baselineInsert(db, benchEvent(int(n))); err != nil {
			b.Fatal(err)
		}
		n++
	}
	report(b, n, nil)
}

// BenchmarkBaselineTxPerEventParallel is the naive writer under the same
// concurrency as BenchmarkAppendParallel: every caller runs its own
// transaction, and they queue on SQLite's write lock.
func BenchmarkBaselineTxPerEventParallel(b *testing.B) {
	db := baselineDB(b, 8)
	var n atomic.Int64
	b.SetParallelism(max(1, writers/maxProcs()))
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := baselineInsert(db, benchEvent(int(n.Add(1)))); err != nil {
				b.Error(err)
				return
			}
		}
	})
	report(b, n.Load(), nil)
}
