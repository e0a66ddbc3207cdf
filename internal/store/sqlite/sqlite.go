// Package sqlite is warden's embedded default event log: one SQLite file
// (through the pure-Go modernc.org/sqlite driver) in WAL mode, written by a
// single goroutine that commits concurrent appends together (group commit),
// and read through a separate pool of connections.
//
// # Durability
//
// The file runs with journal_mode=WAL and synchronous=FULL. In WAL mode,
// synchronous=NORMAL syncs the WAL only at checkpoints: a commit survives a
// crash of the process but not a power cut or kernel panic, which may roll
// back the last transactions. store.Log promises that an event is on stable
// storage when Append returns nil (a gate has already told an agent "allowed"
// and the bus has already fanned the event out), so every commit must fsync
// the WAL: that is FULL. fullfsync is also on, so that on macOS the sync
// reaches the platter rather than the drive's cache (it is ignored elsewhere).
//
// # Group commit
//
// A sync per event would cap throughput at the disk's fsync rate. Instead,
// Append validates its events in the caller's goroutine and queues them; the
// writer takes everything waiting (up to a cap), assigns IDs and per-session
// sequence numbers, inserts it all in one transaction, commits (one fsync),
// and only then answers each caller. While one commit syncs, the next group
// gathers, so the more concurrent writers there are, the more events each
// fsync carries. If a group's transaction fails, its members are retried one
// by one, so only the faulty one fails.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sqlitedrv "modernc.org/sqlite"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

// Defaults for the options.
const (
	// DefaultMaxBatch is the default cap on events per group commit.
	DefaultMaxBatch = 4096
	// DefaultBusyTimeout is how long a connection waits for a lock held by
	// another connection or process before failing.
	DefaultBusyTimeout = 10 * time.Second
)

// Option configures Open.
type Option func(*options)

type options struct {
	logger      *slog.Logger
	maxBatch    int
	readConns   int
	busyTimeout time.Duration
	insertHook  func(source string) error
	generation  string
	history     bool
}

// WithGeneration makes Open verify the log first (see Verify: a missing,
// emptied, replaced, truncated or corrupt log is refused with an
// *IntegrityError) and keep the generation marker at path following it.
func WithGeneration(path string) Option {
	return func(o *options) { o.generation = path }
}

// WithHistory tells Open (with WithGeneration) that the data dir shows an
// earlier warden ran there, so a missing or empty log is refused even
// without a marker.
func WithHistory(history bool) Option {
	return func(o *options) { o.history = history }
}

// WithLogger sets the logger for the store's rare warnings (a group commit
// that failed and was retried per caller). The default discards them.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithMaxBatch caps how many events one group commit takes (default
// DefaultMaxBatch). One Append is never split, so a single larger Append
// still commits alone in one transaction. Values below 1 keep the default.
func WithMaxBatch(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.maxBatch = n
		}
	}
}

// WithReadConns sets the size of the reader pool (default: GOMAXPROCS, at
// least 4). Values below 1 keep the default.
func WithReadConns(n int) Option {
	return func(o *options) {
		if n >= 1 {
			o.readConns = n
		}
	}
}

// WithBusyTimeout sets SQLite's busy_timeout for every connection (default
// DefaultBusyTimeout): how long to wait for a lock held elsewhere, e.g. by
// another process on the same file. Negative values keep the default.
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) {
		if d >= 0 {
			o.busyTimeout = d
		}
	}
}

// Store is a store.Log on one SQLite file. It is safe for concurrent use.
type Store struct {
	path   string
	logger *slog.Logger
	wdb    *sql.DB // the writer's pool: exactly one connection
	rdb    *sql.DB // readers: WAL lets them run beside the writer
	w      *writer
	keeper *generationKeeper // nil without WithGeneration
	reads  stmtCache         // prepared reads on rdb, by query text

	mu     sync.RWMutex // guards closed; held (read) while enqueueing
	closed bool
}

// maxCachedReads bounds the prepared read statements a Store keeps. The
// queries Events builds come in few shapes (which filters are set, how
// many types); past the bound a query runs unprepared.
const maxCachedReads = 64

// stmtCache holds prepared statements of the reader pool, by query text.
// Preparing is a large part of a small read's cost in SQLite (the SQL is
// parsed and planned each time): the agent reads a session's new events at
// every step with the same few queries.
type stmtCache struct {
	mu     sync.Mutex
	stmts  map[string]*sql.Stmt
	closed bool
}

// query runs q on db through its cached prepared statement, preparing it
// the first time; a query that cannot be cached runs as is.
func (c *stmtCache) query(ctx context.Context, db *sql.DB, q string, args ...any) (*sql.Rows, error) {
	c.mu.Lock()
	st := c.stmts[q]
	if st == nil && !c.closed && len(c.stmts) < maxCachedReads {
		var err error
		if st, err = db.PrepareContext(ctx, q); err != nil {
			c.mu.Unlock()
			return nil, err
		}
		if c.stmts == nil {
			c.stmts = map[string]*sql.Stmt{}
		}
		c.stmts[q] = st
	}
	c.mu.Unlock()
	if st == nil {
		return db.QueryContext(ctx, q, args...)
	}
	return st.QueryContext(ctx, args...)
}

// close closes every cached statement; later queries run unprepared.
func (c *stmtCache) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	c.stmts = nil
	return errors.Join(errs...)
}

var _ store.Log = (*Store)(nil)

// Open opens the event log at path, creating the file if needed (but not its
// directory), applies pending schema migrations in one transaction, and
// starts the writer. It refuses a database written by a newer warden
// (ErrSchemaTooNew) or by another application (ErrNotWardenLog).
func Open(path string, opts ...Option) (*Store, error) {
	o := options{
		logger:      slog.New(slog.DiscardHandler),
		maxBatch:    DefaultMaxBatch,
		readConns:   max(4, runtime.GOMAXPROCS(0)),
		busyTimeout: DefaultBusyTimeout,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if path == "" {
		return nil, errors.New("open event log: empty path")
	}
	if strings.ContainsRune(path, 0) {
		return nil, fmt.Errorf("open event log %q: path contains NUL", path)
	}
	ctx := context.Background()
	if o.generation != "" {
		if _, err := Verify(ctx, path, VerifyOptions{Generation: o.generation, History: o.history}); err != nil {
			return nil, err
		}
	}
	if err := ownerOnly(path); err != nil {
		return nil, fmt.Errorf("open event log %s: %w", path, err)
	}
	busy := strconv.FormatInt(o.busyTimeout.Milliseconds(), 10)

	wdb, err := openDB(path, "_pragma=busy_timeout("+busy+")"+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=fullfsync(1)"+
		"&_pragma=foreign_keys(1)&_pragma=journal_size_limit(67108864)")
	if err != nil {
		return nil, fmt.Errorf("open event log %s: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	conn, err := wdb.Conn(ctx)
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open event log %s: %w", path, err)
	}
	fail := func(err error) (*Store, error) {
		conn.Close()
		wdb.Close()
		return nil, fmt.Errorf("open event log %s: %w", path, err)
	}
	if err := checkPragma(ctx, conn, "journal_mode", "wal"); err != nil {
		return fail(err)
	}
	if err := checkPragma(ctx, conn, "synchronous", "2"); err != nil {
		return fail(err)
	}
	if err := migrate(ctx, conn, migrations()); err != nil {
		return fail(err)
	}
	w, err := newWriter(ctx, conn, o.maxBatch, o.logger)
	if err != nil {
		return fail(err)
	}
	if o.insertHook != nil {
		w.hook = func(r *row) error { return o.insertHook(r.source) }
	}
	var keeper *generationKeeper
	if o.generation != "" {
		keeper = &generationKeeper{path: o.generation, err: func(err error) {
			o.logger.Warn("event log: could not update the generation marker", "err", err)
		}}
		var last int64
		if err := conn.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'log_id'").Scan(&keeper.logID); err != nil {
			w.closeStmts()
			return fail(fmt.Errorf("read log id: %w", err))
		}
		if err := conn.QueryRowContext(ctx, highWaterSQL).Scan(&last); err != nil {
			w.closeStmts()
			return fail(fmt.Errorf("read last id: %w", err))
		}
		if err := writeGeneration(o.generation, Generation{LogID: keeper.logID, LastID: last, Updated: time.Now().UTC()}); err != nil {
			w.closeStmts()
			return fail(err)
		}
		keeper.markedID, keeper.markedAt = last, time.Now()
		w.committed = keeper.committed
	}
	rdb, err := openDB(path, "_pragma=busy_timeout("+busy+")&_pragma=query_only(1)")
	if err != nil {
		w.closeStmts()
		return fail(err)
	}
	rdb.SetMaxOpenConns(o.readConns)
	rdb.SetMaxIdleConns(o.readConns)
	s := &Store{path: path, logger: o.logger, wdb: wdb, rdb: rdb, w: w, keeper: keeper}
	go w.run()
	return s, nil
}

// ownerOnly creates the log file, when it is missing, readable and writable
// by its owner only, and takes group and other access away from an existing
// one and its -wal and -shm files: the log holds every command and path
// the agents used. SQLite creates the -wal and -shm files with the mode of
// the database file, so they follow.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(p, fi.Mode().Perm()&0o700); err != nil {
				return fmt.Errorf("restrict %s to its owner: %w", p, err)
			}
		}
	}
	return nil
}

// openDB opens a pool on path with the given driver query parameters.
func openDB(path, query string) (*sql.DB, error) {
	c, err := sqlitedrv.NewConnector(fileURI(path) + "?" + query)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// fileURI turns a file path into an SQLite URI filename, escaping the
// characters that URI syntax would otherwise take ('%', '?', '#').
func fileURI(path string) string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '%', '?', '#':
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func checkPragma(ctx context.Context, conn *sql.Conn, name, want string) error {
	var got string
	if err := conn.QueryRowContext(ctx, "PRAGMA "+name).Scan(&got); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("%s is %q, need %q (is the file system one SQLite can use in WAL mode?)", name, got, want)
	}
	return nil
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.path }

// Stats counts the writer's work since Open.
type Stats struct {
	// Events is the number of events committed.
	Events int64
	// Commits is the number of transactions that committed events. Events /
	// Commits is the mean group size.
	Commits int64
	// Retries is the number of group transactions that failed and were
	// retried one Append at a time.
	Retries int64
}

// Stats returns the writer's counters.
func (s *Store) Stats() Stats {
	return Stats{
		Events:  s.w.events.Load(),
		Commits: s.w.commits.Load(),
		Retries: s.w.retries.Load(),
	}
}

// Append implements store.Log. The events are validated first: an empty
// Session or Type, text that is not valid UTF-8 or holds NUL, Data that is
// not valid JSON, or a Time outside what Unix nanoseconds can hold fails
// the whole call and stores nothing. When ctx ends before the writer has
// taken the events, Append fails with ctx's error and stores nothing; once
// the writer has them, Append waits for the commit (about one fsync) and
// reports its true outcome.
func (s *Store) Append(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("append: %w", err)
	}
	if len(evs) == 0 {
		return []event.Event{}, nil
	}
	rows := make([]row, len(evs))
	for i := range evs {
		if err := rows[i].from(&evs[i]); err != nil {
			return nil, fmt.Errorf("append: event %d of %d: %w", i+1, len(evs), err)
		}
	}
	req := newRequest(ctx, rows)

	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, store.ErrClosed
	}
	select {
	case s.w.queue <- req:
		s.mu.RUnlock()
	case <-ctx.Done():
		s.mu.RUnlock()
		return nil, fmt.Errorf("append: %w", ctx.Err())
	}

	select {
	case res := <-req.reply:
		return res.events, res.err
	case <-ctx.Done():
		if req.abandon() {
			return nil, fmt.Errorf("append: %w", ctx.Err())
		}
		// The writer already holds the events: they may be committing,
		// so only the writer can say whether they are stored.
		res := <-req.reply
		return res.events, res.err
	}
}

// from validates e and fills r with its storable form.
func (r *row) from(e *event.Event) error {
	switch {
	case e.Session == "":
		return errors.New("empty session")
	case e.Type == "":
		return errors.New("empty type")
	}
	for _, f := range [...]struct{ name, v string }{
		{"session", e.Session}, {"type", string(e.Type)}, {"source", e.Source}, {"workspace", e.Workspace},
	} {
		if !utf8.ValidString(f.v) {
			return fmt.Errorf("%s is not valid UTF-8", f.name)
		}
		if strings.IndexByte(f.v, 0) >= 0 {
			return fmt.Errorf("%s contains NUL", f.name)
		}
	}
	r.session, r.typ, r.source, r.workspace = e.Session, string(e.Type), e.Source, e.Workspace
	if len(e.Data) == 0 {
		r.data = "{}"
	} else {
		if !utf8.Valid(e.Data) || !json.Valid(e.Data) {
			return errors.New("data is not valid JSON")
		}
		r.data = string(e.Data) // a copy: the caller may reuse its buffer
	}
	r.timeNS, r.hasTime = 0, !e.Time.IsZero()
	if r.hasTime {
		r.timeNS = e.Time.UnixNano()
		if !time.Unix(0, r.timeNS).Equal(e.Time) {
			return fmt.Errorf("time %s is outside the storable range (years 1678 to 2262)", e.Time)
		}
	}
	return nil
}

// Events implements store.Log.
func (s *Store) Events(ctx context.Context, f store.Filter) ([]event.Event, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	var (
		where []string
		args  []any
	)
	if f.Session != "" {
		where = append(where, "session = ?")
		args = append(args, f.Session)
	}
	if f.AfterSeq > 0 {
		where = append(where, "seq > ?")
		args = append(args, f.AfterSeq)
	}
	if f.AfterID > 0 {
		where = append(where, "id > ?")
		args = append(args, f.AfterID)
	}
	if len(f.Types) > 0 {
		seen := make(map[event.Type]bool, len(f.Types))
		var ph []string
		for _, t := range f.Types {
			if !seen[t] {
				seen[t] = true
				ph = append(ph, "?")
				args = append(args, string(t))
			}
		}
		where = append(where, "type IN ("+strings.Join(ph, ",")+")")
	}
	q := "SELECT id, session, seq, time_ns, type, source, workspace, data FROM events"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Session != "" {
		// Within a session, seq order is id order (the one writer assigns
		// both in the same order); ordering by seq lets SQLite walk the
		// (session, seq) index instead of sorting.
		q += " ORDER BY seq"
	} else {
		q += " ORDER BY id"
	}
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.reads.query(ctx, s.rdb, q, args...)
	if err != nil {
		return nil, s.readErr("read events", err)
	}
	defer rows.Close()
	out := []event.Event{}
	for rows.Next() {
		var (
			e        event.Event
			ns       int64
			typ, dat string
		)
		if err := rows.Scan(&e.ID, &e.Session, &e.Seq, &ns, &typ, &e.Source, &e.Workspace, &dat); err != nil {
			return nil, s.readErr("read events", err)
		}
		e.Time = time.Unix(0, ns).UTC()
		e.Type = event.Type(typ)
		e.Data = json.RawMessage(dat)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.readErr("read events", err)
	}
	return out, nil
}

// LastID implements store.Log. After a prune that removed the newest
// events it is the prune point: ids are never reused.
func (s *Store) LastID(ctx context.Context) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	var id int64
	if err := s.rdb.QueryRowContext(ctx, highWaterSQL).Scan(&id); err != nil {
		return 0, s.readErr("read last id", err)
	}
	return id, nil
}

// readErr wraps a read failure, reporting ErrClosed when Close won a race
// with the read.
func (s *Store) readErr(what string, err error) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	return fmt.Errorf("%s from %s: %w", what, s.path, err)
}

func (s *Store) isClosed() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.closed
}

// Close implements store.Log: it stops taking appends, commits every append
// already queued (their callers get the outcome), and closes the file.
// Calling it again returns store.ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return store.ErrClosed
	}
	s.closed = true // from here on no Append can enqueue
	s.mu.Unlock()

	close(s.w.quit)
	<-s.w.done
	if s.keeper != nil {
		var last int64
		if err := s.w.conn.QueryRowContext(context.Background(), highWaterSQL).Scan(&last); err == nil && last != s.keeper.markedID {
			s.keeper.write(last)
		}
	}
	err := errors.Join(s.w.close(), s.wdb.Close(), s.reads.close(), s.rdb.Close())
	if err != nil {
		return fmt.Errorf("close event log %s: %w", s.path, err)
	}
	return nil
}

// withInsertHook makes the writer call fn before each insert; an error from
// fn fails the transaction like an SQL error. For tests of failure handling.
func withInsertHook(fn func(source string) error) Option {
	return func(o *options) { o.insertHook = fn }
}
