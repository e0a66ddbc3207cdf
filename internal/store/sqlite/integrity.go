package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/atomicfile"
)

// GenerationName is the generation marker's file name, beside the log in the
// data dir. It is deliberately not events.db-something, so removing the log's
// files by a glob leaves it behind to tell the tale.
const GenerationName = "log-generation.json"

// Generation is the generation marker: which log the data dir holds and how
// far it is known to reach. It is written (atomically, synced) when the log
// opens, after every GenerationEvery events or GenerationInterval of
// commits, and when it closes; never per event. LastID is only ever an id
// that was already durable when the marker was written, so a log whose ids
// end below it has lost events.
type Generation struct {
	// LogID is the log's identity, made once when the file was created
	// (meta.log_id).
	LogID string `json:"logId"`
	// LastID is an id the log is known to have reached.
	LastID int64 `json:"lastId"`
	// Updated is when the marker was written.
	Updated time.Time `json:"updated"`
}

// How often the marker follows the log: after this many events or this much
// time (checked at each commit), whichever comes first. Events committed
// after the last marker write are the window a truncation can go unnoticed.
const (
	GenerationEvery    = 4096
	GenerationInterval = time.Minute
)

// ReadGeneration reads a marker; ok is false when there is none.
func ReadGeneration(path string) (g Generation, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return g, false, nil
	}
	if err != nil {
		return g, false, fmt.Errorf("read generation marker %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &g); err != nil || g.LogID == "" || g.LastID < 0 {
		return g, false, fmt.Errorf("generation marker %s is unreadable (%d bytes)", path, len(b))
	}
	return g, true, nil
}

func writeGeneration(path string, g Generation) error {
	b, err := json.Marshal(g)
	if err != nil {
		return fmt.Errorf("encode generation marker: %w", err)
	}
	if err := atomicfile.Write(path, append(b, '\n'), 0o600, 0o700); err != nil {
		return fmt.Errorf("write generation marker: %w", err)
	}
	return nil
}

// IntegrityError is why a log was refused: what is wrong and what to do.
type IntegrityError struct {
	// Path is the log file.
	Path string
	// Problem says what is wrong.
	Problem string
	// Fix says what a person can do.
	Fix string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("event log %s refused: %s; %s", e.Path, e.Problem, e.Fix)
}

// Health is what Verify found.
type Health struct {
	// Path is the log file.
	Path string `json:"path"`
	// New is true when there is no log yet and nothing says there was one.
	New bool `json:"new"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// LogID is the log's identity ("" before the schema that records it).
	LogID string `json:"logId,omitempty"`
	// LastID is the highest id the log has assigned.
	LastID int64 `json:"lastId"`
	// Events and Sessions count what is stored.
	Events   int64 `json:"events"`
	Sessions int64 `json:"sessions"`
	// Marker is the generation marker, when there is one.
	Marker *Generation `json:"marker,omitempty"`
}

// VerifyOptions says where the marker is and what else the data dir shows.
type VerifyOptions struct {
	// Generation is the marker's path ("" = no marker kept).
	Generation string
	// History is true when the data dir shows that a log existed even
	// without a marker (a data dir of a warden from before markers).
	History bool
}

// Verify checks the log at path without writing it: SQLite's quick_check,
// that it is a warden log this build can read, warden's own invariant (each
// session's seqs are dense), and the generation marker (same log, not
// shorter than the marker says). A missing or empty file is a problem when
// the marker or the data dir shows a log existed. A problem is an
// *IntegrityError; other errors are I/O failures.
func Verify(ctx context.Context, path string, o VerifyOptions) (Health, error) {
	h := Health{Path: path}
	refuse := func(problem, fix string) (Health, error) {
		return h, &IntegrityError{Path: path, Problem: problem, Fix: fix}
	}
	restore := "restore the log from a backup (warden events import into a fresh data dir), or, to start a new, empty log on purpose, run warden serve --new-log once"
	if o.Generation != "" {
		g, ok, err := ReadGeneration(o.Generation)
		if err != nil {
			return refuse(err.Error(), "move the marker aside if the log itself is sound (warden serve writes a new one)")
		}
		if ok {
			h.Marker = &g
		}
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if h.Marker != nil && h.Marker.LastID > 0 {
			return refuse(fmt.Sprintf("the file is missing, but the data dir's generation marker says log %s reached event %d", h.Marker.LogID, h.Marker.LastID), restore)
		}
		if o.History {
			return refuse("the file is missing, but the data dir shows an earlier warden ran here", restore)
		}
		h.New = true
		return h, nil
	case err != nil:
		return h, fmt.Errorf("stat event log %s: %w", path, err)
	case !fi.Mode().IsRegular():
		return refuse("not a regular file", "move it aside")
	}
	h.Size = fi.Size()
	if h.Size == 0 {
		if h.Marker != nil && h.Marker.LastID > 0 {
			return refuse(fmt.Sprintf("the file is empty (0 bytes), but the data dir's generation marker says log %s reached event %d", h.Marker.LogID, h.Marker.LastID), restore)
		}
		if o.History {
			return refuse("the file is empty (0 bytes), but the data dir shows an earlier warden ran here", restore)
		}
		h.New = true
		return h, nil
	}
	db, err := openDB(path, "mode=ro&_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		return h, fmt.Errorf("open event log %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	corrupt := "stop warden, keep a copy of the data dir, then restore the log from a backup (warden events export can still read what is readable of it: warden events export --data-dir DIR)"
	var results []string
	rows, err := db.QueryContext(ctx, "PRAGMA quick_check")
	if err != nil {
		return refuse("SQLite cannot read it: "+err.Error(), corrupt)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return refuse("SQLite cannot read it: "+err.Error(), corrupt)
		}
		if len(results) < 5 {
			results = append(results, s)
		}
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return refuse("SQLite cannot read it: "+err.Error(), corrupt)
	}
	rows.Close()
	if len(results) != 1 || results[0] != "ok" {
		return refuse("SQLite's quick_check failed: "+strings.Join(results, "; "), corrupt)
	}
	var app, version int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return refuse("read application id: "+err.Error(), corrupt)
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return refuse("read schema version: "+err.Error(), corrupt)
	}
	switch {
	case app != 0 && app != applicationID:
		return refuse(fmt.Sprintf("application id %#x: %v", app, ErrNotWardenLog), "move it aside; it belongs to another program")
	case version > int64(SchemaVersion()):
		return refuse(fmt.Sprintf("schema version %d, this warden knows up to %d", version, SchemaVersion()), "upgrade warden")
	case version == 0:
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return refuse("inspect schema: "+err.Error(), corrupt)
		}
		if n > 0 {
			return refuse(fmt.Sprintf("%d schema objects but no warden version: %v", n, ErrNotWardenLog), "move it aside; it belongs to another program")
		}
		if h.Marker != nil && h.Marker.LastID > 0 {
			return refuse(fmt.Sprintf("the file holds no events table, but the data dir's generation marker says log %s reached event %d", h.Marker.LogID, h.Marker.LastID), restore)
		}
		h.New = true
		return h, nil
	}
	high := "SELECT COALESCE(MAX(id), 0) FROM events"
	if version >= 2 {
		high = highWaterSQL
		if err := db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'log_id'").Scan(&h.LogID); err != nil {
			return refuse("read the log's identity: "+err.Error(), corrupt)
		}
	}
	if err := db.QueryRowContext(ctx, high).Scan(&h.LastID); err != nil {
		return refuse("read the last id: "+err.Error(), corrupt)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT session) FROM events").Scan(&h.Events, &h.Sessions); err != nil {
		return refuse("count events: "+err.Error(), corrupt)
	}
	// Dense seqs: within a session the stored seqs are min..max without a
	// hole (pruning removes a prefix, so min may be above 1). One pass over
	// the (session, seq) index.
	var (
		sess          string
		lo, hi, count int64
	)
	err = db.QueryRowContext(ctx, `SELECT session, MIN(seq), MAX(seq), COUNT(*) FROM events
		GROUP BY session HAVING MAX(seq) - MIN(seq) + 1 <> COUNT(*) LIMIT 1`).Scan(&sess, &lo, &hi, &count)
	switch {
	case err == nil:
		return refuse(fmt.Sprintf("session %q holds %d events for seqs %d..%d: events are missing from its middle", sess, count, lo, hi), corrupt)
	case !errors.Is(err, sql.ErrNoRows):
		return refuse("check seqs: "+err.Error(), corrupt)
	}
	if m := h.Marker; m != nil {
		switch {
		case h.LogID == "" && m.LastID > 0:
			return refuse(fmt.Sprintf("the file is an older log without an identity, but the data dir's generation marker says log %s reached event %d", m.LogID, m.LastID), restore)
		case h.LogID != "" && h.LogID != m.LogID:
			return refuse(fmt.Sprintf("the file is log %s, but the data dir's generation marker says log %s (reached event %d): the file was replaced", h.LogID, m.LogID, m.LastID), restore)
		case h.LastID < m.LastID:
			return refuse(fmt.Sprintf("the log ends at event %d, but the data dir's generation marker says it reached event %d (written %s): events were lost", h.LastID, m.LastID, m.Updated.Format(time.RFC3339)), restore)
		}
	}
	return h, nil
}

// generationKeeper keeps the marker following the log.
type generationKeeper struct {
	path     string
	logID    string
	markedID int64
	markedAt time.Time
	err      func(error)
}

func (k *generationKeeper) write(lastID int64) {
	now := time.Now().UTC()
	if err := writeGeneration(k.path, Generation{LogID: k.logID, LastID: lastID, Updated: now}); err != nil {
		k.err(err)
		return
	}
	k.markedID, k.markedAt = lastID, now
}

// committed is the writer's callback after each commit.
func (k *generationKeeper) committed(lastID int64) {
	if lastID-k.markedID >= GenerationEvery || (lastID != k.markedID && time.Since(k.markedAt) >= GenerationInterval) {
		k.write(lastID)
	}
}
