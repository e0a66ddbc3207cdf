package coretest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
)

// WaitTimeout is how long the Wait helpers wait for an event before they fail
// the test: generous, since a wait returns as soon as the event arrives.
const WaitTimeout = 30 * time.Second

// WaitEvent reads the core's bus from the start of the log and returns the
// first event of type typ for which match (nil matches all) is true. It fails
// the test if none arrives within WaitTimeout.
func WaitEvent(t testing.TB, c *core.Core, typ event.Type, match func(event.Event) bool) event.Event {
	t.Helper()
	ev, err := waitEvent(c, 0, typ, match)
	if err != nil {
		t.Fatalf("no %s event: %v", typ, err)
	}
	return ev
}

func waitEvent(c *core.Core, after int64, typ event.Type, match func(event.Event) bool) (event.Event, error) {
	sub := c.Bus().Subscribe(after)
	defer sub.Close()
	ctx, cancel := context.WithTimeout(context.Background(), WaitTimeout)
	defer cancel()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return event.Event{}, err
		}
		if ev.Type == typ && (match == nil || match(ev)) {
			return ev, nil
		}
	}
}

// WaitApproval waits on the core's bus for a pending approval for which
// match (nil matches all) is true and returns it. Approvals requested before
// the call count too (the bus replays the log), but only while still
// pending: one already resolved is passed over. The core makes a request
// pending before its approval.requested is in the log, so the returned
// request can be resolved at once. It fails the test after WaitTimeout.
func WaitApproval(t testing.TB, c *core.Core, match func(approval.Request) bool) approval.Request {
	t.Helper()
	found, err := waitApproval(c, match)
	if err != nil {
		t.Fatalf("no matching approval was requested: %v", err)
	}
	return found
}

func waitApproval(c *core.Core, match func(approval.Request) bool) (approval.Request, error) {
	var found approval.Request
	_, err := waitEvent(c, 0, event.ApprovalRequested, func(ev event.Event) bool {
		var d event.ApprovalData
		if json.Unmarshal(ev.Data, &d) != nil {
			return false
		}
		for _, r := range c.Approvals() {
			if r.ID == d.ApprovalID && (match == nil || match(r)) {
				found = r
				return true
			}
		}
		return false
	})
	return found, err
}

// ResolveWhenAsked answers, in the background, the first pending approval for
// which match is true with res. The returned channel yields the request once
// it is resolved; a wait that times out or a refused resolution fails the
// test (with Errorf, so it may be called from any goroutine's test).
func ResolveWhenAsked(t testing.TB, c *core.Core, match func(approval.Request) bool, res approval.Resolution) <-chan approval.Request {
	t.Helper()
	out := make(chan approval.Request, 1)
	go func() {
		defer close(out)
		found, err := waitApproval(c, match)
		if err != nil {
			t.Errorf("no matching approval was requested: %v", err)
			return
		}
		if _, err := c.Resolve(context.Background(), found.ID, res); err != nil {
			t.Errorf("resolve %s: %v", found.ID, err)
			return
		}
		out <- found
	}()
	return out
}

// WaitEvents waits on the core's bus until n events of type typ are in the
// log and returns the first n. It fails the test after WaitTimeout.
func WaitEvents(t testing.TB, c *core.Core, typ event.Type, n int) []event.Event {
	t.Helper()
	var out []event.Event
	_, err := waitEvent(c, 0, typ, func(ev event.Event) bool {
		out = append(out, ev)
		return len(out) == n
	})
	if err != nil {
		t.Fatalf("%d of %d %s events: %v", len(out), n, typ, err)
	}
	return out
}

// Follower reads the core's bus in order across several waits, so that a
// test waiting for the same kind of event twice sees the second one.
type Follower struct {
	sub *event.Subscription
}

// Follow returns a Follower from the start of the log, closed with the test.
func Follow(t testing.TB, c *core.Core) *Follower {
	f := &Follower{sub: c.Bus().Subscribe(0)}
	t.Cleanup(func() { f.sub.Close() })
	return f
}

// Next reads on to the next event of type typ for which match (nil matches
// all) is true. It fails the test after WaitTimeout.
func (f *Follower) Next(t testing.TB, typ event.Type, match func(event.Event) bool) event.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), WaitTimeout)
	defer cancel()
	for {
		ev, err := f.sub.Next(ctx)
		if err != nil {
			t.Fatalf("no %s event: %v", typ, err)
		}
		if ev.Type == typ && (match == nil || match(ev)) {
			return ev
		}
	}
}
