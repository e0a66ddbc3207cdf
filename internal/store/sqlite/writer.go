package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

// maxCachedSessions bounds the writer's last-seq cache; past it the cache
// is dropped and refilled lazily from the (session, seq) index.
const maxCachedSessions = 1 << 16

// queueLen is how many Appends may wait for the writer before Append blocks
// (back-pressure; a blocked Append still honours its context).
const queueLen = 1024

// row is one validated event in the form it is stored.
type row struct {
	session, typ, source, workspace, data string
	timeNS                                int64
	hasTime                               bool
}

// The life of a request: the caller may abandon it only while it is pending;
// once the writer has taken it, its outcome is the commit's.
const (
	statePending int32 = iota
	stateTaken
	stateAbandoned
)

// request is one Append waiting for the writer.
type request struct {
	ctx  context.Context
	rows []row
	// op, when set, is a maintenance operation (restore, prune) the writer
	// runs alone in its own IMMEDIATE transaction instead of inserting rows.
	op    func(ctx context.Context, conn *sql.Conn) error
	state atomic.Int32
	reply chan result // buffered: the writer never blocks on a reply
}

type result struct {
	events []event.Event
	err    error
}

func newRequest(ctx context.Context, rows []row) *request {
	return &request{ctx: ctx, rows: rows, reply: make(chan result, 1)}
}

// abandon withdraws a request the writer has not taken; it reports whether
// it did.
func (r *request) abandon() bool { return r.state.CompareAndSwap(statePending, stateAbandoned) }

// take claims a request for the writer; false means the caller abandoned it.
func (r *request) take() bool { return r.state.CompareAndSwap(statePending, stateTaken) }

// writer is the single goroutine that owns the write connection. Every
// field below done is touched only by that goroutine (or by Open/Close when
// it is not running).
type writer struct {
	queue chan *request
	quit  chan struct{}
	done  chan struct{}

	events, commits, retries atomic.Int64

	conn     *sql.Conn
	insert   *sql.Stmt
	maxSeq   *sql.Stmt
	begin    *sql.Stmt // BEGIN IMMEDIATE, COMMIT and the data version:
	end      *sql.Stmt // prepared once, as every commit runs them
	version  *sql.Stmt
	logger   *slog.Logger
	maxBatch int

	carry *request   // taken, but did not fit the previous group
	group []*request // scratch

	lastID      int64 // valid when idKnown
	idKnown     bool
	seqs        map[string]int64 // last committed seq per session
	pending     map[string]int64 // seqs assigned by the open transaction
	dataVersion int64            // PRAGMA data_version seen last; 0 = none yet

	// committed, when set, is told the last id after each commit (the
	// generation marker's keeper).
	committed func(lastID int64)

	// hook, when set (by tests), runs before each insert; an error fails
	// the transaction as an SQL error would.
	hook func(*row) error
}

func newWriter(ctx context.Context, conn *sql.Conn, maxBatch int, logger *slog.Logger) (*writer, error) {
	w := &writer{
		queue:    make(chan *request, queueLen),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		conn:     conn,
		logger:   logger,
		maxBatch: maxBatch,
		seqs:     make(map[string]int64),
		pending:  make(map[string]int64),
	}
	var err error
	w.insert, err = conn.PrepareContext(ctx,
		`INSERT INTO events (id, session, seq, time_ns, type, source, workspace, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return nil, fmt.Errorf("prepare insert: %w", err)
	}
	w.maxSeq, err = conn.PrepareContext(ctx, `SELECT MAX(COALESCE((SELECT MAX(seq) FROM events WHERE session = ?1), 0),
		            COALESCE((SELECT last_seq FROM session_heads WHERE session = ?1), 0))`)
	if err != nil {
		w.insert.Close()
		return nil, fmt.Errorf("prepare seq lookup: %w", err)
	}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{{&w.begin, "BEGIN IMMEDIATE"}, {&w.end, "COMMIT"}, {&w.version, "PRAGMA data_version"}} {
		if *p.st, err = conn.PrepareContext(ctx, p.sql); err != nil {
			w.closeStmts()
			return nil, fmt.Errorf("prepare %s: %w", p.sql, err)
		}
	}
	return w, nil
}

func (w *writer) closeStmts() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.insert, w.maxSeq, w.begin, w.end, w.version} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// close releases the connection; run must have returned.
func (w *writer) close() error {
	return errors.Join(w.closeStmts(), w.conn.Close())
}

// run commits groups until quit is closed, then commits whatever is still
// queued (Close guarantees nothing more arrives) and returns.
func (w *writer) run() {
	defer close(w.done)
	for {
		first := w.carry
		w.carry = nil
		if first == nil {
			select {
			case r := <-w.queue:
				if !w.admit(r) {
					continue
				}
				first = r
			case <-w.quit:
				w.drain()
				return
			}
		}
		w.handle(first)
	}
}

func (w *writer) drain() {
	for {
		first := w.carry
		w.carry = nil
		if first == nil {
			select {
			case r := <-w.queue:
				if !w.admit(r) {
					continue
				}
				first = r
			default:
				return
			}
		}
		w.handle(first)
	}
}

// admit takes r for the writer, or answers it at once when its caller has
// gone. It reports whether r is to be written.
func (w *writer) admit(r *request) bool {
	if !r.take() {
		return false // abandoned: the caller has already returned
	}
	if err := r.ctx.Err(); err != nil {
		r.reply <- result{err: fmt.Errorf("append: %w", err)}
		return false
	}
	return true
}

// handle writes first, with whatever can join it.
func (w *writer) handle(first *request) {
	if first.op != nil {
		w.runOp(first)
		return
	}
	w.commit(w.gather(first))
}

// runOp runs a maintenance operation in its own transaction and answers it.
// The caches are dropped afterwards: the operation may have changed what
// they hold.
func (w *writer) runOp(r *request) {
	ctx := context.Background()
	defer w.invalidate()
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		r.reply <- result{err: fmt.Errorf("begin: %w", err)}
		return
	}
	if err := r.op(ctx, w.conn); err != nil {
		if _, rerr := w.conn.ExecContext(ctx, "ROLLBACK"); rerr != nil {
			w.logger.Debug("event log: rollback", "err", rerr)
		}
		r.reply <- result{err: err}
		return
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		if _, rerr := w.conn.ExecContext(ctx, "ROLLBACK"); rerr != nil {
			w.logger.Debug("event log: rollback", "err", rerr)
		}
		r.reply <- result{err: fmt.Errorf("commit: %w", err)}
		return
	}
	var last int64
	if err := w.conn.QueryRowContext(ctx, highWaterSQL).Scan(&last); err == nil && w.committed != nil {
		w.committed(last)
	}
	r.reply <- result{}
}

// gather returns first and everything else already queued, up to maxBatch
// events. It never waits: the group is whatever arrived during the last
// commit, which is what makes the group grow with the load.
func (w *writer) gather(first *request) []*request {
	g := append(w.group[:0], first)
	n := len(first.rows)
	for n < w.maxBatch {
		select {
		case r := <-w.queue:
			if !w.admit(r) {
				continue
			}
			if r.op != nil || n+len(r.rows) > w.maxBatch {
				w.carry = r
				w.group = g
				return g
			}
			g = append(g, r)
			n += len(r.rows)
		default:
			w.group = g
			return g
		}
	}
	w.group = g
	return g
}

// commit writes g in one transaction and answers its members. A failure
// must not fail the innocent: when an insert fails, the member it belongs to
// is answered with the error and the rest are retried as a group; when the
// failure cannot be pinned on a member (BEGIN, COMMIT), each member is
// retried alone.
func (w *writer) commit(g []*request) {
	for len(g) > 0 {
		results, bad, err := w.write(g)
		if err == nil {
			for i, r := range g {
				r.reply <- results[i]
			}
			return
		}
		if len(g) == 1 {
			g[0].reply <- result{err: fmt.Errorf("append: %w", err)}
			return
		}
		w.retries.Add(1)
		w.logger.Warn("event log: group commit failed; retrying without the failed append",
			"appends", len(g), "err", err)
		if bad < 0 {
			// g may be w.group's backing array; the one-member groups
			// below must not share it.
			for _, r := range slices.Clone(g) {
				w.commit([]*request{r})
			}
			return
		}
		g[bad].reply <- result{err: fmt.Errorf("append: %w", err)}
		g = slices.Delete(slices.Clone(g), bad, bad+1)
	}
}

// write inserts g and commits, assigning IDs, sequence numbers and times.
// On error nothing is stored, the caches are dropped (they will be reloaded
// from the database), and bad is the index of the member whose insert
// failed, or -1 when the failure is not one member's.
func (w *writer) write(g []*request) (results []result, bad int, err error) {
	bad = -1
	ctx := context.Background()
	if _, err := w.begin.ExecContext(ctx); err != nil {
		w.invalidate()
		return nil, -1, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if err != nil {
			w.invalidate()
			if _, rerr := w.conn.ExecContext(ctx, "ROLLBACK"); rerr != nil {
				// SQLite may already have rolled back (e.g. after an I/O
				// error); nothing is left to undo then.
				w.logger.Debug("event log: rollback", "err", rerr)
			}
		}
	}()
	if err := w.syncCaches(ctx); err != nil {
		return nil, -1, err
	}
	clear(w.pending)
	id := w.lastID
	now := time.Now().UnixNano()
	results = make([]result, len(g))
	n := 0
	for i, r := range g {
		out := make([]event.Event, len(r.rows))
		for j := range r.rows {
			rw := &r.rows[j]
			if w.hook != nil {
				if err := w.hook(rw); err != nil {
					return nil, i, err
				}
			}
			seq, err := w.nextSeq(ctx, rw.session)
			if err != nil {
				return nil, i, err
			}
			id++
			ns := now
			if rw.hasTime {
				ns = rw.timeNS
			}
			if _, err := w.insert.ExecContext(ctx, id, rw.session, seq, ns, rw.typ, rw.source, rw.workspace, rw.data); err != nil {
				return nil, i, fmt.Errorf("insert event (session %q, seq %d): %w", rw.session, seq, err)
			}
			out[j] = event.Event{
				ID: id, Session: rw.session, Seq: seq, Time: time.Unix(0, ns).UTC(),
				Type: event.Type(rw.typ), Source: rw.source, Workspace: rw.workspace,
				Data: json.RawMessage(rw.data),
			}
		}
		results[i].events = out
		n += len(out)
	}
	if _, err := w.end.ExecContext(ctx); err != nil {
		return nil, -1, fmt.Errorf("commit: %w", err)
	}
	w.lastID = id
	if w.committed != nil {
		w.committed(id)
	}
	if len(w.seqs)+len(w.pending) > maxCachedSessions {
		clear(w.seqs)
	}
	for s, q := range w.pending {
		w.seqs[s] = q
	}
	w.events.Add(int64(n))
	w.commits.Add(1)
	return results, -1, nil
}

// syncCaches drops the caches when another connection (another process on
// the same file) has committed since our last transaction, and loads the
// last ID when it is not known. It runs inside the IMMEDIATE transaction,
// so nobody else can write until we commit.
func (w *writer) syncCaches(ctx context.Context) error {
	var v int64
	if err := w.version.QueryRowContext(ctx).Scan(&v); err != nil {
		return fmt.Errorf("read data version: %w", err)
	}
	if w.dataVersion != 0 && v != w.dataVersion {
		w.invalidate()
	}
	w.dataVersion = v
	if !w.idKnown {
		if err := w.conn.QueryRowContext(ctx, highWaterSQL).Scan(&w.lastID); err != nil {
			return fmt.Errorf("read last id: %w", err)
		}
		w.idKnown = true
	}
	return nil
}

// highWaterSQL reads the highest id the log has ever assigned: the largest
// stored id, or the prune point when pruning removed the newest events.
const highWaterSQL = `SELECT MAX(COALESCE((SELECT MAX(id) FROM events), 0),
	COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'pruned_through'), 0))`

// nextSeq assigns the next sequence number of session within the open
// transaction.
func (w *writer) nextSeq(ctx context.Context, session string) (int64, error) {
	q, ok := w.pending[session]
	if !ok {
		q, ok = w.seqs[session]
	}
	if !ok {
		if err := w.maxSeq.QueryRowContext(ctx, session).Scan(&q); err != nil {
			return 0, fmt.Errorf("read last seq of session %q: %w", session, err)
		}
	}
	q++
	w.pending[session] = q
	return q, nil
}

func (w *writer) invalidate() {
	w.idKnown = false
	clear(w.seqs)
	clear(w.pending)
}
