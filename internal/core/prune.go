package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/session"
	"github.com/warden-dev/warden/internal/store"
)

// PruneResult says what Prune did.
type PruneResult struct {
	// Before is the first id kept: every event with a smaller id is gone.
	Before int64 `json:"before"`
	// Removed counts the events removed by this prune.
	Removed int64 `json:"removed"`
	// Sessions counts the sessions whose summaries the log keeps.
	Sessions int `json:"sessions"`
}

// ErrNothingToPrune is Prune's answer when no event lies before the cut
// that an earlier prune has not removed already.
var ErrNothingToPrune = errors.New("nothing to prune")

// CutBefore returns the first id to keep when events older than t go: the
// id of the first event (in id order) whose time is t or later, or LastID+1
// when there is none. Pruning removes a prefix of ids, so an event recorded
// late with an older time (a spooled hook) after a newer one is kept.
func (c *Core) CutBefore(ctx context.Context, t time.Time) (int64, error) {
	var after int64
	if m, ok := c.log.(store.Maintainer); ok {
		through, _, err := m.Checkpoint(ctx)
		if err != nil {
			return 0, err
		}
		after = through
	}
	for {
		evs, err := c.log.Events(ctx, store.Filter{AfterID: after, Limit: 1000})
		if err != nil {
			return 0, err
		}
		for _, e := range evs {
			if !e.Time.Before(t) {
				return e.ID, nil
			}
			after = e.ID
		}
		if len(evs) < 1000 {
			last, err := c.log.LastID(ctx)
			if err != nil {
				return 0, err
			}
			return last + 1, nil
		}
	}
}

// Prune removes every event with an id below before (capped at LastID+1)
// and keeps, in their place, the summaries of the sessions they belonged
// to, so Sessions still lists them with their stats. It records one
// log.pruned event. Only one prune runs at a time.
func (c *Core) Prune(ctx context.Context, before int64) (PruneResult, error) {
	m, ok := c.log.(store.Maintainer)
	if !ok {
		return PruneResult{}, fmt.Errorf("this event log (%T) cannot be pruned", c.log)
	}
	c.pruneMu.Lock()
	defer c.pruneMu.Unlock()
	last, err := c.log.LastID(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	before = min(before, last+1)
	through, cp, err := m.Checkpoint(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	if before <= through+1 {
		return PruneResult{Before: through + 1}, fmt.Errorf("%w: the log holds no event below id %d (pruned through %d)", ErrNothingToPrune, before, through)
	}
	// The summaries as of the cut: the last checkpoint, folded on with
	// the events being removed (they no longer change: ids below the
	// cut are all assigned).
	t := session.NewTracker(func(ctx context.Context, after int64, limit int) ([]event.Event, error) {
		evs, err := c.log.Events(ctx, store.Filter{AfterID: after, Limit: limit})
		for i, e := range evs {
			if e.ID >= before {
				return evs[:i], err
			}
		}
		return evs, err
	})
	if cp != nil {
		if err := t.LoadCheckpoint(cp); err != nil {
			return PruneResult{}, err
		}
	}
	summary, err := t.Checkpoint(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	list, err := t.List(ctx)
	if err != nil {
		return PruneResult{}, err
	}
	// The live projection must have folded what is about to go.
	if err := c.sessions.Sync(ctx); err != nil {
		return PruneResult{}, err
	}
	removed, err := m.Prune(ctx, before, through, summary)
	if err != nil {
		return PruneResult{}, err
	}
	res := PruneResult{Before: before, Removed: removed, Sessions: len(list)}
	data, err := json.Marshal(res)
	if err != nil {
		return res, fmt.Errorf("encode prune record: %w", err)
	}
	if _, err := c.Record(ctx, event.Event{Session: event.SystemSession, Type: event.LogPruned, Source: "warden/admin", Data: data}); err != nil {
		return res, fmt.Errorf("events pruned, but the record of it failed: %w", err)
	}
	c.logger.Info("event log pruned", "before", before, "removed", removed)
	return res, nil
}
