package main

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

// The end-to-end tests wait on events, never on a clock: the daemon's log
// followed live over the admin socket (what `warden events --follow`
// reads), a line a process prints, a process's exit. Each wait has a
// limit, after which it fails the test saying what never came; the limit
// bounds a broken run, it is not how the test learns that something
// happened.

// errFound ends a follow once the awaited event came.
var errFound = errors.New("found")

// findEvent follows the log of the daemon with data dir data from after id
// since (0: from its first event) and returns the first event match
// accepts, with how many events it saw; it ends with ctx (nil error, not
// found) or with an error when the daemon ends the stream.
func findEvent(ctx context.Context, data string, since int64, match func(event.Event) bool) (found event.Event, ok bool, seen int, err error) {
	c, err := admin.Dial(data)
	if err != nil {
		return found, false, 0, err
	}
	err = c.Events(ctx, admin.EventsQuery{Since: since, Follow: true}, func(e event.Event) error {
		seen++
		if match(e) {
			found = e
			return errFound
		}
		return nil
	})
	switch {
	case errors.Is(err, errFound):
		return found, true, seen, nil
	case err == nil && ctx.Err() == nil:
		err = errors.New("the daemon closed the stream")
	}
	return found, false, seen, err
}

// waitEvent is findEvent for the test's goroutine: it fails the test
// when no event match accepts came within limit, or the stream ended.
func waitEvent(t testing.TB, data string, since int64, limit time.Duration, what string, match func(event.Event) bool) event.Event {
	t.Helper()
	return waitEventUnless(t, data, since, limit, nil, what, match)
}

// waitEventUnless is waitEvent that fails the test at once when unless
// closes first (the agent whose call it waits for ended).
func waitEventUnless(t testing.TB, data string, since int64, limit time.Duration, unless <-chan struct{}, what string, match func(event.Event) bool) event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var ended atomic.Bool
	if unless != nil {
		go func() {
			select {
			case <-unless:
				ended.Store(true)
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	start := time.Now()
	e, ok, seen, err := findEvent(ctx, data, since, match)
	switch {
	case ok:
		t.Logf("%s: event %d after %v", what, e.ID, time.Since(start).Round(time.Millisecond))
		return e
	case err != nil:
		t.Fatalf("the daemon's log stream ended before %s: %v", what, err)
	case ended.Load():
		t.Fatalf("it ended before %s (%d events after id %d, none of them it)", what, seen, since)
	default:
		t.Fatalf("%s did not happen within %v (%d events after id %d, none of them it)", what, limit, seen, since)
	}
	return e
}

// lastEventID is the id of the newest durable event: what a test waits on
// after it comes later than everything already in the log.
func lastEventID(t testing.TB, data string) int64 {
	t.Helper()
	c, err := admin.Dial(data)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Status(context.Background())
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st.LastEventID
}

// logCursor is a place in a daemon's log: each next waits for the first
// matching event after it and moves past that event, so a sequence of
// waits sees events in the order the log holds them.
type logCursor struct {
	t    testing.TB
	data string
	at   int64
}

// followLog returns a cursor after everything the log holds now.
func followLog(t testing.TB, data string) *logCursor {
	t.Helper()
	return &logCursor{t: t, data: data, at: lastEventID(t, data)}
}

// next waits (up to limit) for the first event after the cursor that match
// accepts, and moves the cursor to it.
func (c *logCursor) next(limit time.Duration, what string, match func(event.Event) bool) event.Event {
	c.t.Helper()
	e := waitEvent(c.t, c.data, c.at, limit, what, match)
	c.at = e.ID
	return e
}

// statusTo matches the agent.status event that moves workspace ws to
// status to.
func statusTo(ws, to string) func(event.Event) bool {
	return func(e event.Event) bool {
		if e.Type != event.AgentStatus || e.Workspace != ws {
			return false
		}
		d, err := event.DataOf[event.AgentStatusData](e)
		return err == nil && d.To == to
	}
}

// serverAction matches the agent.server event of workspace ws with this
// action (started, crashed, stopped, ...).
func serverAction(ws, action string) func(event.Event) bool {
	return func(e event.Event) bool {
		if e.Type != event.AgentServer || e.Workspace != ws {
			return false
		}
		d, err := event.DataOf[event.AgentServerData](e)
		return err == nil && d.Action == action
	}
}

// approvalAsked matches an approval.requested event for which accept (nil:
// any) holds; approvalOf returns its id.
func approvalAsked(accept func(event.Event) bool) func(event.Event) bool {
	return func(e event.Event) bool {
		return e.Type == event.ApprovalRequested && (accept == nil || accept(e))
	}
}

// approvalOf is the id of the approval an approval.* event concerns.
func approvalOf(t testing.TB, e event.Event) string {
	t.Helper()
	d, err := event.DataOf[event.ApprovalData](e)
	if err != nil || d.ApprovalID == "" {
		t.Fatalf("%s without an approval id: %v %s", e.Type, err, e.Data)
	}
	return d.ApprovalID
}
