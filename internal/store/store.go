// Package store defines the durable event log every other part of warden
// reads from and writes to. Implementations live in sub-packages (sqlite, and
// later postgres); storetest holds the conformance suite they all pass.
package store

import (
	"context"
	"errors"

	"github.com/warden-dev/warden/internal/event"
)

// ErrClosed is returned by every method after Close.
var ErrClosed = errors.New("store: closed")

// Filter selects events for Events. Zero fields do not filter.
type Filter struct {
	// Session restricts to one session.
	Session string
	// AfterSeq returns only events with Seq > AfterSeq (meaningful with Session).
	AfterSeq int64
	// AfterID returns only events with ID > AfterID.
	AfterID int64
	// Types restricts to these event types.
	Types []event.Type
	// Limit caps the number of events returned (0 = no cap). Events are
	// always returned in ascending ID order.
	Limit int
}

// Log is the append-only, durable, ordered event log.
//
// All methods are safe for concurrent use.
type Log interface {
	// Append makes the events durable and returns them with ID, Seq and (when
	// zero) Time assigned. The batch is atomic: when Append returns nil every
	// event is on stable storage (committed and synced) and will survive a
	// crash; when it returns an error none of them were stored, and the caller
	// must treat the operation as failed (a gate blocks). Within a session,
	// Seq values are dense (1, 2, 3, ...) and follow the order of the batch,
	// even with many concurrent writers. Events in one batch may belong to
	// different sessions. Implementations may combine concurrent Appends into
	// one transaction (group commit) without weakening any of this.
	Append(ctx context.Context, events ...event.Event) ([]event.Event, error)

	// Events returns the stored events matching f, in ascending ID order.
	Events(ctx context.Context, f Filter) ([]event.Event, error)

	// LastID returns the highest event ID stored, or 0 for an empty log.
	LastID(ctx context.Context) (int64, error)

	// Close flushes pending appends and releases resources. Appends that
	// returned nil before Close are durable.
	Close() error
}

// Maintainer is what a log offers beyond Log for backups and retention.
// Every implementation of Log that warden serves from implements it; the
// conformance suite tests it.
type Maintainer interface {
	// Restore appends events exactly as given (ID, Seq and Time kept), for
	// bringing back an export. The batch is atomic. Each ID must be above
	// every ID the log has assigned (and the batch ascending); within a
	// session, Seq must follow the session's last seq by one, or, for a
	// session the log has never seen, may start anywhere (an export of a
	// pruned log). Time must be set. Anything else fails the whole batch
	// and stores nothing.
	Restore(ctx context.Context, events ...event.Event) error

	// Prune removes every event with ID < before, in one transaction, and
	// keeps checkpoint (the caller's summary of what was removed, opaque to
	// the log) in its place. IDs are never reused and a pruned session's
	// next Seq follows its last one. prev must be the PrunedThrough of the
	// Checkpoint the caller built on (a prune that raced another fails with
	// ErrPruneConflict); before must not exceed LastID+1. It returns how
	// many events it removed.
	Prune(ctx context.Context, before, prev int64, checkpoint []byte) (removed int64, err error)

	// Checkpoint returns what the last Prune kept: every event with ID <=
	// through was removed or may have been, and data is its checkpoint
	// (nil and 0 when the log was never pruned).
	Checkpoint(ctx context.Context) (through int64, data []byte, err error)
}

// ErrPruneConflict is Prune's answer when the log was pruned since the
// caller read its Checkpoint.
var ErrPruneConflict = errors.New("store: the log was pruned meanwhile")
