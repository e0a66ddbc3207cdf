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
