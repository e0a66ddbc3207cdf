package admin

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

// eventMatch is the part of GET /v1/events that selects events beyond the
// log's own filter: a time, types and decisions.
type eventMatch struct {
	after     time.Time           // only events at or after it (zero: any)
	types     []string            // exact types, or prefixes ending in "." ("tool.")
	decisions map[string]bool     // tool.decision events with these decisions only
	exact     map[event.Type]bool // the exact types, for a quick check
}

// parseEventMatch reads after=RFC3339, type=T[,T...] (T may end in ".*"
// or "." for every type under it) and decision=allow|deny|ask[,...].
func parseEventMatch(q url.Values) (eventMatch, error) {
	var m eventMatch
	if s := q.Get("after"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return m, fmt.Errorf("after: want an RFC 3339 time, got %q", s)
		}
		m.after = t
	}
	for _, v := range q["type"] {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			switch {
			case t == "":
			case strings.HasSuffix(t, ".*"):
				m.types = append(m.types, strings.TrimSuffix(t, "*"))
			case strings.HasSuffix(t, "."):
				m.types = append(m.types, t)
			default:
				if m.exact == nil {
					m.exact = map[event.Type]bool{}
				}
				m.exact[event.Type(t)] = true
				m.types = append(m.types, t)
			}
		}
	}
	for _, v := range q["decision"] {
		for _, d := range strings.Split(v, ",") {
			d = strings.TrimSpace(d)
			switch d {
			case "":
			case "allow", "deny", "ask":
				if m.decisions == nil {
					m.decisions = map[string]bool{}
				}
				m.decisions[d] = true
			default:
				return m, fmt.Errorf("decision: want allow, deny or ask, got %q", d)
			}
		}
	}
	return m, nil
}

// match reports whether e is selected.
func (m eventMatch) match(e event.Event) bool {
	if !m.after.IsZero() && e.Time.Before(m.after) {
		return false
	}
	if len(m.types) > 0 && !m.exact[e.Type] {
		ok := false
		for _, t := range m.types {
			if strings.HasSuffix(t, ".") && strings.HasPrefix(string(e.Type), t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if m.decisions != nil {
		if e.Type != event.ToolDecision {
			return false
		}
		d, err := event.DataOf[event.ToolDecisionData](e)
		if err != nil || !m.decisions[d.Decision] {
			return false
		}
	}
	return true
}

// any reports whether m selects every event.
func (m eventMatch) any() bool { return m.after.IsZero() && len(m.types) == 0 && m.decisions == nil }

// eventsPage is how many events the backlog is read in at a time.
const eventsPage = 2000

// backlog reads the events of f up to the id upto that m selects: the first
// limit of them (0: all), or, with last > 0, the newest last of them. It
// returns them in log order, and how many selected events were left out.
func backlog(ctx context.Context, read func(context.Context, store.Filter) ([]event.Event, error), f store.Filter, upto int64, m eventMatch, limit, last int) ([]event.Event, int, error) {
	if m.any() && last == 0 {
		f.Limit = limit
		evs, err := read(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		for i, e := range evs {
			if e.ID > upto {
				return evs[:i], 0, nil
			}
		}
		return evs, 0, nil
	}
	var out []event.Event
	omitted := 0
	f.Limit = eventsPage
	for {
		page, err := read(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		for _, e := range page {
			if e.ID > upto {
				return out, omitted, nil
			}
			if !m.match(e) {
				continue
			}
			out = append(out, e)
			switch {
			case last > 0 && len(out) > 2*last:
				// keep the newest last; drop the rest in one go
				omitted += len(out) - last
				out = append(out[:0:0], out[len(out)-last:]...)
			case last == 0 && limit > 0 && len(out) == limit:
				return out, 0, nil
			}
		}
		if len(page) < eventsPage {
			break
		}
		last := page[len(page)-1]
		if f.Session != "" {
			f.AfterSeq = last.Seq
		} else {
			f.AfterID = last.ID
		}
	}
	if last > 0 && len(out) > last {
		omitted += len(out) - last
		out = out[len(out)-last:]
	}
	return out, omitted, nil
}
