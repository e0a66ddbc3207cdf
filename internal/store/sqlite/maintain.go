package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

var _ store.Maintainer = (*Store)(nil)

// do hands op to the writer and waits for its outcome, like Append.
func (s *Store) do(ctx context.Context, op func(ctx context.Context, conn *sql.Conn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := newRequest(ctx, nil)
	req.op = op
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return store.ErrClosed
	}
	select {
	case s.w.queue <- req:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return ctx.Err()
	}
	select {
	case res := <-req.reply:
		return res.err
	case <-ctx.Done():
		if req.abandon() {
			return ctx.Err()
		}
		return (<-req.reply).err
	}
}

// Restore implements store.Maintainer.
func (s *Store) Restore(ctx context.Context, evs ...event.Event) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if len(evs) == 0 {
		return nil
	}
	rows := make([]row, len(evs))
	for i := range evs {
		e := &evs[i]
		if err := rows[i].from(e); err != nil {
			return fmt.Errorf("restore: event %d (id %d): %w", i+1, e.ID, err)
		}
		if e.ID <= 0 || e.Seq <= 0 || !rows[i].hasTime {
			return fmt.Errorf("restore: event %d (id %d): needs an id, a seq and a time", i+1, e.ID)
		}
	}
	err := s.do(ctx, func(ctx context.Context, conn *sql.Conn) error {
		var last int64
		if err := conn.QueryRowContext(ctx, highWaterSQL).Scan(&last); err != nil {
			return fmt.Errorf("read last id: %w", err)
		}
		seqs := map[string]int64{}
		for i := range evs {
			e, r := &evs[i], &rows[i]
			if e.ID <= last {
				return fmt.Errorf("event id %d is not above the log's last id %d", e.ID, last)
			}
			prev, ok := seqs[r.session]
			if !ok {
				if err := conn.QueryRowContext(ctx, `SELECT MAX(COALESCE((SELECT MAX(seq) FROM events WHERE session = ?1), 0),
					COALESCE((SELECT last_seq FROM session_heads WHERE session = ?1), 0))`, r.session).Scan(&prev); err != nil {
					return fmt.Errorf("read last seq of session %q: %w", r.session, err)
				}
			}
			if prev > 0 && e.Seq != prev+1 {
				return fmt.Errorf("event id %d: seq %d of session %q does not follow its last seq %d", e.ID, e.Seq, r.session, prev)
			}
			if _, err := conn.ExecContext(ctx, `INSERT INTO events (id, session, seq, time_ns, type, source, workspace, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				e.ID, r.session, e.Seq, r.timeNS, r.typ, r.source, r.workspace, r.data); err != nil {
				return fmt.Errorf("insert event id %d: %w", e.ID, err)
			}
			seqs[r.session], last = e.Seq, e.ID
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("restore %d event(s) into %s: %w", len(evs), s.path, err)
	}
	return nil
}

// Prune implements store.Maintainer.
func (s *Store) Prune(ctx context.Context, before, prev int64, checkpoint []byte) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	if checkpoint != nil && !json.Valid(checkpoint) {
		return 0, errors.New("prune: the checkpoint is not valid JSON")
	}
	var removed int64
	err := s.do(ctx, func(ctx context.Context, conn *sql.Conn) error {
		through, err := prunedThrough(ctx, conn)
		if err != nil {
			return err
		}
		if through != prev {
			return fmt.Errorf("pruned through %d, the caller built on %d: %w", through, prev, store.ErrPruneConflict)
		}
		var last int64
		if err := conn.QueryRowContext(ctx, highWaterSQL).Scan(&last); err != nil {
			return fmt.Errorf("read last id: %w", err)
		}
		if before <= through+1 {
			return fmt.Errorf("nothing to prune before id %d: the log is pruned through %d", before, through)
		}
		if before > last+1 {
			return fmt.Errorf("cannot prune before id %d: the log's last id is %d", before, last)
		}
		// Each pruned session's last seq, so its next event continues.
		if _, err := conn.ExecContext(ctx, `INSERT INTO session_heads (session, last_seq)
			SELECT session, MAX(seq) FROM events WHERE id < ? GROUP BY session
			ON CONFLICT (session) DO UPDATE SET last_seq = MAX(last_seq, excluded.last_seq)`, before); err != nil {
			return fmt.Errorf("keep session heads: %w", err)
		}
		res, err := conn.ExecContext(ctx, "DELETE FROM events WHERE id < ?", before)
		if err != nil {
			return fmt.Errorf("delete events: %w", err)
		}
		if removed, err = res.RowsAffected(); err != nil {
			return fmt.Errorf("count deleted events: %w", err)
		}
		for k, v := range map[string]string{"pruned_through": strconv.FormatInt(before-1, 10), "checkpoint": string(checkpoint)} {
			if _, err := conn.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
				ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
				return fmt.Errorf("record %s: %w", k, err)
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("prune %s: %w", s.path, err)
	}
	return removed, nil
}

func prunedThrough(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (int64, error) {
	var v string
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'pruned_through'").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read prune point: %w", err)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("prune point %q: %w", v, err)
	}
	return n, nil
}

// Checkpoint implements store.Maintainer.
func (s *Store) Checkpoint(ctx context.Context) (int64, []byte, error) {
	if s.isClosed() {
		return 0, nil, store.ErrClosed
	}
	through, err := prunedThrough(ctx, s.rdb)
	if err != nil {
		return 0, nil, s.readErr("read checkpoint", err)
	}
	var v string
	err = s.rdb.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'checkpoint'").Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows) || (err == nil && v == ""):
		return through, nil, nil
	case err != nil:
		return 0, nil, s.readErr("read checkpoint", err)
	}
	return through, []byte(v), nil
}

// LastIDIn returns the highest event id the log file at path holds (0 for
// none), reading it read-only as Export does: what an export that starts
// now reaches, for its progress.
func LastIDIn(ctx context.Context, path string) (int64, error) {
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	db, err := openDB(path, "mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	defer db.Close()
	var last int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&last); err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	return last, nil
}

// Export calls fn with every event of the log file at path whose id is
// above afterID, in id order, reading the file read-only: a daemon may be
// running on it (WAL lets a reader beside the writer), or none. Reads go in
// pages, each a consistent snapshot; an event appended while Export runs
// may or may not be included, and resuming with the last id fn saw picks
// up exactly where it stopped.
func Export(ctx context.Context, path string, afterID int64, fn func(event.Event) error) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	db, err := openDB(path, "mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return fmt.Errorf("export %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	const page = 1000
	for {
		n := 0
		rows, err := db.QueryContext(ctx, `SELECT id, session, seq, time_ns, type, source, workspace, data FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterID, page)
		if err != nil {
			return fmt.Errorf("export %s: %w", path, err)
		}
		var batch []event.Event
		for rows.Next() {
			var (
				e        event.Event
				ns       int64
				typ, dat string
			)
			if err := rows.Scan(&e.ID, &e.Session, &e.Seq, &ns, &typ, &e.Source, &e.Workspace, &dat); err != nil {
				rows.Close()
				return fmt.Errorf("export %s: %w", path, err)
			}
			e.Time, e.Type, e.Data = time.Unix(0, ns).UTC(), event.Type(typ), json.RawMessage(dat)
			batch = append(batch, e)
			n++
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("export %s: %w", path, err)
		}
		for _, e := range batch {
			if err := fn(e); err != nil {
				return err
			}
			afterID = e.ID
		}
		if n < page {
			return nil
		}
	}
}
