package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrSchemaTooNew is returned by Open when the database was written by a
// newer warden whose schema this build does not know. Opening it anyway could
// corrupt it, so the store refuses; upgrade warden instead.
var ErrSchemaTooNew = errors.New("event log schema is newer than this warden")

// ErrNotWardenLog is returned by Open when the file is an SQLite database
// that belongs to another application.
var ErrNotWardenLog = errors.New("not a warden event log")

// applicationID marks the file as a warden event log (PRAGMA application_id):
// "wrdn" in ASCII.
const applicationID = 0x7772646e

// migration is one step of the schema. Steps are applied in order, each
// exactly once; PRAGMA user_version records how many have been applied.
// A released migration is never edited: a change is a new migration.
type migration struct {
	name string
	sql  string
}

// migrations returns the schema's history, oldest first. Version N means
// the first N migrations have been applied.
func migrations() []migration {
	return []migration{
		{
			name: "events",
			// id is the rowid: assigned by the writer as MAX(id)+1, so it is
			// strictly increasing in commit order. time_ns is Unix nanoseconds
			// (UTC). data is the JSON payload, byte for byte as appended (it
			// is validated before it reaches SQL). UNIQUE (session, seq) is
			// both the guard against duplicate sequence numbers and the
			// index that serves per-session reads and MAX(seq).
			sql: `
CREATE TABLE events (
	id        INTEGER PRIMARY KEY,
	session   TEXT    NOT NULL CHECK (session <> ''),
	seq       INTEGER NOT NULL CHECK (seq > 0),
	time_ns   INTEGER NOT NULL,
	type      TEXT    NOT NULL CHECK (type <> ''),
	source    TEXT    NOT NULL DEFAULT '',
	workspace TEXT    NOT NULL DEFAULT '',
	data      TEXT    NOT NULL DEFAULT '{}',
	UNIQUE (session, seq)
) STRICT;
CREATE INDEX events_type_id ON events (type, id);
`,
		},
		{
			name: "meta",
			// meta holds the log's identity (log_id: random, made once,
			// recorded in the data dir's generation marker so a replaced
			// or emptied file is noticed) and what pruning keeps:
			// pruned_through (events with id <= it may have been removed;
			// ids never go below it), and checkpoint (the session
			// summaries as of pruned_through, opaque to the store).
			// session_heads keeps each pruned session's last seq, so its
			// next event continues the count instead of restarting at 1.
			sql: `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
INSERT INTO meta (key, value) VALUES ('log_id', lower(hex(randomblob(16))));
CREATE TABLE session_heads (
	session  TEXT PRIMARY KEY,
	last_seq INTEGER NOT NULL CHECK (last_seq > 0)
) STRICT;
`,
		},
	}
}

// SchemaVersion is the schema version this build writes: the number of
// migrations it knows.
func SchemaVersion() int { return len(migrations()) }

// migrate brings the database on conn up to len(steps), in one IMMEDIATE
// transaction (so two processes opening the same file cannot both migrate),
// and refuses a database that is newer than steps or belongs to another
// application. Either every pending step is applied or none is.
func migrate(ctx context.Context, conn *sql.Conn, steps []migration) (err error) {
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			if _, rerr := conn.ExecContext(context.Background(), "ROLLBACK"); rerr != nil {
				err = errors.Join(err, fmt.Errorf("roll back migration: %w", rerr))
			}
		}
	}()
	var app, version int64
	if err := conn.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return fmt.Errorf("read application id: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if app != 0 && app != applicationID {
		return fmt.Errorf("application id %#x: %w", app, ErrNotWardenLog)
	}
	if version > int64(len(steps)) {
		return fmt.Errorf("schema version %d, this warden knows up to %d; upgrade warden: %w",
			version, len(steps), ErrSchemaTooNew)
	}
	if app == 0 && version == 0 {
		// A database with tables but no application id or version is not ours.
		var n int
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return fmt.Errorf("inspect schema: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("database has %d schema objects but no warden version: %w", n, ErrNotWardenLog)
		}
	}
	for i := version; i < int64(len(steps)); i++ {
		if _, err := conn.ExecContext(ctx, steps[i].sql); err != nil {
			return fmt.Errorf("migration %d (%s): %w", i+1, steps[i].name, err)
		}
	}
	if version < int64(len(steps)) || app == 0 {
		// PRAGMA arguments cannot be bound; both values are integers we format.
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(steps))); err != nil {
			return fmt.Errorf("record schema version %d: %w", len(steps), err)
		}
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return fmt.Errorf("record application id: %w", err)
		}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}
