package admin

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

func TestBacklogSelectsByTimeTypeAndDecision(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	t0 := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	var evs []event.Event
	for i := range 30 {
		decision := []string{"allow", "deny", "ask"}[i%3]
		d, _ := json.Marshal(map[string]string{"decision": decision})
		evs = append(evs,
			event.Event{Session: "s1", Source: "test", Type: event.ToolCall, Time: t0.Add(time.Duration(i) * time.Minute), Data: json.RawMessage(`{}`)},
			event.Event{Session: "s1", Source: "test", Type: event.ToolDecision, Time: t0.Add(time.Duration(i) * time.Minute), Data: d})
	}
	if _, err := c.Record(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	upto, _ := c.LastID(t.Context())
	run := func(query string, limit, last int) ([]event.Event, int) {
		t.Helper()
		q, _ := url.ParseQuery(query)
		m, err := parseEventMatch(q)
		if err != nil {
			t.Fatal(err)
		}
		out, omitted, err := backlog(t.Context(), c.Events, store.Filter{}, upto, m, limit, last)
		if err != nil {
			t.Fatal(err)
		}
		return out, omitted
	}
	if out, om := run("", 0, 0); len(out) < 60 || om != 0 {
		t.Fatalf("all: %d events, %d omitted", len(out), om)
	}
	out, om := run("type=tool.decision&decision=deny", 0, 0)
	if len(out) != 10 || om != 0 {
		t.Fatalf("denials: %d, %d omitted", len(out), om)
	}
	out, _ = run("after="+url.QueryEscape(t0.Add(25*time.Minute).Format(time.RFC3339)), 0, 0)
	if len(out) != 10 || out[0].Type != event.ToolCall || !out[0].Time.Equal(t0.Add(25*time.Minute)) {
		t.Fatalf("after: %d events, first %+v", len(out), out[0])
	}
	out, om = run("type=tool.*", 0, 7)
	if len(out) != 7 || om != 53 || out[6].ID != upto {
		t.Fatalf("last 7 of tool.*: %d events, %d omitted, last id %d (want %d)", len(out), om, out[len(out)-1].ID, upto)
	}
	if out, _ = run("type=tool.call", 4, 0); len(out) != 4 || out[0].Time != t0 {
		t.Fatalf("first 4 calls: %+v", out)
	}
	for _, bad := range []string{"decision=maybe", "after=yesterday"} {
		q, _ := url.ParseQuery(bad)
		if _, err := parseEventMatch(q); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// FuzzParseEventMatch: any query either parses or is refused; a parsed
// selection never panics on an event.
func FuzzParseEventMatch(f *testing.F) {
	for _, s := range []string{"", "type=tool.*&decision=deny", "after=2026-01-02T15:04:05Z", "type=,.,.*&decision=allow,ask", "decision=x"} {
		f.Add(s, `{"decision":"deny"}`)
	}
	f.Fuzz(func(t *testing.T, query, data string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		m, err := parseEventMatch(q)
		if err != nil {
			return
		}
		m.match(event.Event{Type: event.ToolDecision, Data: json.RawMessage(data)})
		m.match(event.Event{Type: event.Type(query)})
	})
}
