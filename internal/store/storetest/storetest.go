// Package storetest is the conformance suite for store.Log. Every
// implementation (the embedded SQLite one now, PostgreSQL later) runs it
// unchanged from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, storetest.Factory{
//			Open:   func(t *testing.T) store.Log { ... a new, empty log ... },
//			Reopen: func(t *testing.T, closed store.Log) store.Log { ... },
//		})
//	}
//
// Beyond the comments in package store, the suite pins these choices, which
// every implementation must share:
//   - Data is stored byte for byte as appended (a PostgreSQL implementation
//     uses json or text, not jsonb); empty Data is stored as {}.
//   - Text fields must be valid UTF-8 without NUL (PostgreSQL's text cannot
//     hold either), and Data must be valid JSON; otherwise Append fails and
//     stores nothing.
//   - A failed Append consumes no sequence number.
//   - Within a session, ID order is Seq order, and a reader that follows the
//     log by AfterID never misses an event (IDs become visible in order).
//   - Filter.AfterSeq applies with or without Session (Seq > AfterSeq).
//   - Append never modifies its arguments; caller-set ID and Seq are ignored.
//   - Append with no events returns no events and no error.
//   - Times come back in UTC, equal to the appended instant to the
//     millisecond at least.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/store"
)

// Factory makes the logs the suite tests.
type Factory struct {
	// Open returns a new, empty log on storage of its own. The suite closes
	// every log it is given; Open should register the cleanup of the
	// storage itself (t.TempDir, a dropped schema) with t.Cleanup.
	Open func(t *testing.T) store.Log
	// Reopen, if set, returns a new log on the same storage as closed,
	// which the suite has already closed. When nil, the tests that need it
	// are skipped.
	Reopen func(t *testing.T, closed store.Log) store.Log
}

// Run runs the conformance suite as parallel subtests of t. A log must also
// implement store.Maintainer (restore, prune).
func Run(t *testing.T, f Factory) {
	t.Helper()
	if f.Open == nil {
		t.Fatal("storetest: Factory.Open is nil")
	}
	tests := []struct {
		name string
		fn   func(*testing.T, Factory)
	}{
		{"AppendAssignsIDsAndSeqs", testAppendAssigns},
		{"AppendEmpty", testAppendEmpty},
		{"AppendDoesNotModifyArgs", testAppendDoesNotModifyArgs},
		{"BatchOrder", testBatchOrder},
		{"MultiSessionBatch", testMultiSessionBatch},
		{"LargeBatch", testLargeBatch},
		{"TimeAssigned", testTimeAssigned},
		{"TimePreserved", testTimePreserved},
		{"DataRoundTrip", testDataRoundTrip},
		{"Fields", testFields},
		{"Filter", testFilter},
		{"LastID", testLastID},
		{"InvalidInput", testInvalidInput},
		{"ConcurrentWriters", testConcurrentWriters},
		{"ConcurrentWritersWithFailures", testConcurrentWithFailures},
		{"FollowByAfterID", testFollow},
		{"CanceledContext", testCanceled},
		{"DeadlinesUnderLoad", testDeadlines},
		{"Closed", testClosed},
		{"CloseWhileAppending", testCloseWhileAppending},
		{"Reopen", testReopen},
		{"Restore", testRestore},
		{"RestoreRefusesBadBatches", testRestoreRefuses},
		{"Prune", testPrune},
		{"PruneEverything", testPruneEverything},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, f)
		})
	}
}

// open opens a log and closes it when the test ends.
func open(t *testing.T, f Factory) store.Log {
	t.Helper()
	l := f.Open(t)
	if l == nil {
		t.Fatal("Factory.Open returned nil")
	}
	t.Cleanup(func() { closeLog(t, l) })
	return l
}

func closeLog(t *testing.T, l store.Log) {
	t.Helper()
	if err := l.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Errorf("Close: %v", err)
	}
}

func ctx(t *testing.T) context.Context { return t.Context() }

func ev(session string, typ event.Type, data string) event.Event {
	e := event.Event{Session: session, Type: typ, Source: "storetest/suite", Workspace: "/w"}
	if data != "" {
		e.Data = json.RawMessage(data)
	}
	return e
}

func mustAppend(t *testing.T, l store.Log, evs ...event.Event) []event.Event {
	t.Helper()
	out, err := l.Append(ctx(t), evs...)
	if err != nil {
		t.Fatalf("Append(%d events): %v", len(evs), err)
	}
	if len(out) != len(evs) {
		t.Fatalf("Append(%d events) returned %d", len(evs), len(out))
	}
	return out
}

func mustEvents(t *testing.T, l store.Log, f store.Filter) []event.Event {
	t.Helper()
	out, err := l.Events(ctx(t), f)
	if err != nil {
		t.Fatalf("Events(%+v): %v", f, err)
	}
	return out
}

func mustLastID(t *testing.T, l store.Log) int64 {
	t.Helper()
	id, err := l.LastID(ctx(t))
	if err != nil {
		t.Fatalf("LastID: %v", err)
	}
	return id
}

// sameEvent reports how a and b differ, or "" when they are the same event.
func sameEvent(a, b event.Event) string {
	switch {
	case a.ID != b.ID:
		return fmt.Sprintf("id %d vs %d", a.ID, b.ID)
	case a.Session != b.Session:
		return fmt.Sprintf("session %q vs %q", a.Session, b.Session)
	case a.Seq != b.Seq:
		return fmt.Sprintf("seq %d vs %d", a.Seq, b.Seq)
	case !a.Time.Equal(b.Time):
		return fmt.Sprintf("time %s vs %s", a.Time, b.Time)
	case a.Type != b.Type:
		return fmt.Sprintf("type %q vs %q", a.Type, b.Type)
	case a.Source != b.Source:
		return fmt.Sprintf("source %q vs %q", a.Source, b.Source)
	case a.Workspace != b.Workspace:
		return fmt.Sprintf("workspace %q vs %q", a.Workspace, b.Workspace)
	case string(a.Data) != string(b.Data):
		return fmt.Sprintf("data %q vs %q", a.Data, b.Data)
	}
	return ""
}

// sameEvents fails t unless got and want are the same events in the same order.
func sameEvents(t *testing.T, what string, got, want []event.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d\ngot  %v\nwant %v", what, len(got), len(want), ids(got), ids(want))
	}
	for i := range got {
		if d := sameEvent(got[i], want[i]); d != "" {
			t.Fatalf("%s: event %d differs: %s", what, i, d)
		}
	}
}

func ids(evs []event.Event) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}

// checkDense fails t unless, for each session, the events' seqs are exactly
// 1..n and ID order is seq order.
func checkDense(t *testing.T, evs []event.Event) map[string]int64 {
	t.Helper()
	bySession := map[string][]event.Event{}
	seenID := map[int64]bool{}
	for _, e := range evs {
		if e.ID <= 0 {
			t.Fatalf("event with id %d", e.ID)
		}
		if seenID[e.ID] {
			t.Fatalf("duplicate id %d", e.ID)
		}
		seenID[e.ID] = true
		bySession[e.Session] = append(bySession[e.Session], e)
	}
	last := map[string]int64{}
	for s, es := range bySession {
		slices.SortFunc(es, func(a, b event.Event) int { return int(a.Seq - b.Seq) })
		for i, e := range es {
			if e.Seq != int64(i+1) {
				t.Fatalf("session %q: seq %d at position %d (want %d): gap or duplicate", s, e.Seq, i, i+1)
			}
			if i > 0 && e.ID <= es[i-1].ID {
				t.Fatalf("session %q: seq %d has id %d, not above seq %d's id %d", s, e.Seq, e.ID, es[i-1].Seq, es[i-1].ID)
			}
		}
		last[s] = int64(len(es))
	}
	return last
}

func testAppendAssigns(t *testing.T, f Factory) {
	l := open(t, f)
	type want struct {
		session string
		seq     int64
	}
	plan := []want{{"a", 1}, {"b", 1}, {"a", 2}, {"a", 3}, {"c", 1}, {"b", 2}, {"a", 4}}
	var got []event.Event
	var lastID int64
	for i, p := range plan {
		out := mustAppend(t, l, ev(p.session, event.ToolCall, fmt.Sprintf(`{"i":%d}`, i)))
		e := out[0]
		if e.ID <= lastID {
			t.Fatalf("append %d: id %d not above previous %d", i, e.ID, lastID)
		}
		lastID = e.ID
		if e.Seq != p.seq {
			t.Fatalf("append %d to %q: seq %d, want %d", i, p.session, e.Seq, p.seq)
		}
		if e.Session != p.session || e.Type != event.ToolCall || e.Source != "storetest/suite" || e.Workspace != "/w" {
			t.Fatalf("append %d: returned %+v", i, e)
		}
		got = append(got, e)
	}
	sameEvents(t, "Events after appends", mustEvents(t, l, store.Filter{}), got)
}

func testAppendEmpty(t *testing.T, f Factory) {
	l := open(t, f)
	out, err := l.Append(ctx(t))
	if err != nil || len(out) != 0 {
		t.Fatalf("Append() = %v, %v; want no events, no error", out, err)
	}
	if id := mustLastID(t, l); id != 0 {
		t.Fatalf("LastID after empty Append = %d", id)
	}
}

func testAppendDoesNotModifyArgs(t *testing.T, f Factory) {
	l := open(t, f)
	data := []byte(`{"k":"v"}`)
	in := []event.Event{
		{ID: 999, Seq: 77, Session: "s", Type: event.MessageUser, Data: data},
		{Session: "s", Type: event.MessageAssistant},
	}
	keep := slices.Clone(in)
	out := mustAppend(t, l, in...)
	for i := range in {
		if d := sameEvent(in[i], keep[i]); d != "" {
			t.Fatalf("Append modified its argument %d: %s", i, d)
		}
	}
	if out[0].ID == 999 || out[0].Seq != 1 || out[1].Seq != 2 {
		t.Fatalf("caller-set ID/Seq were not replaced: %+v", out)
	}
	// Reusing the caller's buffer must not change what was stored.
	copy(data, `{"k":"X"}`)
	if got := mustEvents(t, l, store.Filter{Session: "s"}); string(got[0].Data) != `{"k":"v"}` {
		t.Fatalf("stored data changed with the caller's buffer: %s", got[0].Data)
	}
	if string(out[0].Data) != `{"k":"v"}` {
		t.Fatalf("returned data aliases the caller's buffer: %s", out[0].Data)
	}
}

func testBatchOrder(t *testing.T, f Factory) {
	l := open(t, f)
	mustAppend(t, l, ev("s", event.SessionStart, ""))
	var in []event.Event
	for i := range 20 {
		in = append(in, ev("s", event.ToolCall, fmt.Sprintf(`{"n":%d}`, i)))
	}
	out := mustAppend(t, l, in...)
	for i, e := range out {
		if e.Seq != int64(i+2) {
			t.Fatalf("batch member %d: seq %d, want %d", i, e.Seq, i+2)
		}
		if i > 0 && e.ID <= out[i-1].ID {
			t.Fatalf("batch member %d: id %d not above %d", i, e.ID, out[i-1].ID)
		}
		if want := fmt.Sprintf(`{"n":%d}`, i); string(e.Data) != want {
			t.Fatalf("batch member %d: data %s, want %s", i, e.Data, want)
		}
	}
	sameEvents(t, "batch read back", mustEvents(t, l, store.Filter{Session: "s", AfterSeq: 1}), out)
}

func testMultiSessionBatch(t *testing.T, f Factory) {
	l := open(t, f)
	mustAppend(t, l, ev("a", event.SessionStart, ""), ev("b", event.SessionStart, ""))
	out := mustAppend(t, l,
		ev("a", event.ToolCall, `{"x":1}`), ev("b", event.ToolCall, `{"x":2}`), ev("a", event.ToolResult, `{"x":3}`),
		ev("c", event.SessionStart, `{"x":4}`), ev("b", event.ToolResult, `{"x":5}`), ev("a", event.SessionEnd, `{"x":6}`))
	wantSeq := []struct {
		s   string
		seq int64
	}{{"a", 2}, {"b", 2}, {"a", 3}, {"c", 1}, {"b", 3}, {"a", 4}}
	for i, w := range wantSeq {
		if out[i].Session != w.s || out[i].Seq != w.seq {
			t.Fatalf("member %d: %s/%d, want %s/%d", i, out[i].Session, out[i].Seq, w.s, w.seq)
		}
		if i > 0 && out[i].ID <= out[i-1].ID {
			t.Fatalf("member %d: id %d not above %d", i, out[i].ID, out[i-1].ID)
		}
	}
	checkDense(t, mustEvents(t, l, store.Filter{}))
}

func testLargeBatch(t *testing.T, f Factory) {
	l := open(t, f)
	const n = 5000
	in := make([]event.Event, n)
	for i := range in {
		in[i] = ev(fmt.Sprintf("s%d", i%3), event.FileChanged, fmt.Sprintf(`{"i":%d}`, i))
	}
	out := mustAppend(t, l, in...)
	all := mustEvents(t, l, store.Filter{})
	sameEvents(t, "large batch", all, out)
	if last := checkDense(t, all); last["s0"] != 1667 || last["s1"] != 1667 || last["s2"] != 1666 {
		t.Fatalf("per-session counts %v", last)
	}
}

func testTimeAssigned(t *testing.T, f Factory) {
	l := open(t, f)
	before := time.Now().Add(-time.Millisecond)
	out := mustAppend(t, l, ev("s", event.MessageUser, ""), ev("s", event.MessageUser, ""))
	after := time.Now().Add(time.Millisecond)
	for i, e := range out {
		if e.Time.IsZero() || e.Time.Before(before) || e.Time.After(after) {
			t.Fatalf("event %d: assigned time %s, not within [%s, %s]", i, e.Time, before, after)
		}
		if e.Time.Location() != time.UTC {
			t.Fatalf("event %d: time %s is not UTC", i, e.Time)
		}
	}
	got := mustEvents(t, l, store.Filter{})
	for i := range got {
		if d := got[i].Time.Sub(out[i].Time).Abs(); d >= time.Millisecond {
			t.Fatalf("event %d: stored time %s, returned %s", i, got[i].Time, out[i].Time)
		}
	}
}

func testTimePreserved(t *testing.T, f Factory) {
	l := open(t, f)
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	times := []time.Time{
		time.Date(2026, 3, 4, 5, 6, 7, 891_234_567, zone),
		time.Date(2001, 9, 9, 1, 46, 40, 123_000_000, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 1_000_000, time.UTC),
		time.Date(2199, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		time.Now(), // with a monotonic reading
	}
	var in []event.Event
	for _, tm := range times {
		e := ev("s", event.ToolCall, "")
		e.Time = tm
		in = append(in, e)
	}
	out := mustAppend(t, l, in...)
	got := mustEvents(t, l, store.Filter{})
	for i, tm := range times {
		for what, e := range map[string]event.Event{"returned": out[i], "stored": got[i]} {
			if d := e.Time.Sub(tm).Abs(); d >= time.Millisecond {
				t.Fatalf("time %d %s as %s, appended %s (off by %s)", i, what, e.Time, tm, d)
			}
			if e.Time.Location() != time.UTC {
				t.Fatalf("time %d %s as %s: not UTC", i, what, e.Time)
			}
		}
	}
}

func testDataRoundTrip(t *testing.T, f Factory) {
	l := open(t, f)
	big := `{"blob":"` + strings.Repeat("x", 1<<20) + `"}`
	cases := []struct {
		in, want string
		nilData  bool
	}{
		{nilData: true, want: `{}`},
		{in: `{}`, want: `{}`},
		{in: `{"a":1,"b":[true,false,null],"c":{"d":"e"}}`},
		{in: `{ "spaced" : [ 1 , 2 ] ,"z":1, "a":2 }`}, // whitespace and key order kept
		{in: `{"dup":1,"dup":2}`},
		{in: `{"n":1.50,"big":123456789012345678901234567890,"e":1e-7}`},
		{in: `{"unicode":"héllo wörld ✓ 日本語 🎉","esc":"\u00e9\n\t\"\\\/","nul":"\u0000"}`},
		{in: `[1,"two",{"three":3}]`},
		{in: `"just a string"`},
		{in: `42`},
		{in: `null`},
		{in: "\n\t{\"lead\":\"ws\"}\n"},
		{in: big},
	}
	var in []event.Event
	for _, c := range cases {
		e := ev("s", event.ToolResult, "")
		if !c.nilData {
			e.Data = json.RawMessage(c.in)
		}
		in = append(in, e)
	}
	out := mustAppend(t, l, in...)
	got := mustEvents(t, l, store.Filter{})
	for i, c := range cases {
		want := c.want
		if want == "" {
			want = c.in
		}
		for what, e := range map[string]event.Event{"returned": out[i], "stored": got[i]} {
			if string(e.Data) != want {
				g := string(e.Data)
				if len(g) > 80 {
					g = g[:80] + "..."
				}
				t.Fatalf("case %d %s as %q, want the bytes appended", i, what, g)
			}
		}
	}
}

func testFields(t *testing.T, f Factory) {
	l := open(t, f)
	in := event.Event{
		Session:   "ses_ünïcödé/with spaces:and'quotes\"",
		Type:      event.Type("custom.type'; DROP TABLE events; --"),
		Source:    "claude-code/hooks",
		Workspace: "/home/u/proj with space/ü",
		Data:      json.RawMessage(`{"ok":true}`),
	}
	out := mustAppend(t, l, in)
	got := mustEvents(t, l, store.Filter{Session: in.Session})
	sameEvents(t, "odd field values", got, out)
	if got[0].Session != in.Session || got[0].Type != in.Type || got[0].Source != in.Source || got[0].Workspace != in.Workspace {
		t.Fatalf("fields changed: %+v", got[0])
	}
	long := strings.Repeat("s", 10_000)
	out = mustAppend(t, l, event.Event{Session: long, Type: event.SessionStart})
	if got := mustEvents(t, l, store.Filter{Session: long}); len(got) != 1 || got[0].ID != out[0].ID {
		t.Fatalf("long session name: %v", got)
	}
}

func testFilter(t *testing.T, f Factory) {
	l := open(t, f)
	types := []event.Type{event.ToolCall, event.ToolDecision, event.ToolResult, event.MessageUser}
	var all []event.Event
	for i := range 60 {
		s := []string{"a", "b", "c"}[i%3]
		all = append(all, mustAppend(t, l, ev(s, types[(i/3)%len(types)], fmt.Sprintf(`{"i":%d}`, i)))...)
	}
	pick := func(keep func(event.Event) bool) []event.Event {
		out := []event.Event{}
		for _, e := range all {
			if keep(e) {
				out = append(out, e)
			}
		}
		return out
	}
	first := func(evs []event.Event, n int) []event.Event { return evs[:min(n, len(evs))] }
	mid := all[25].ID
	cases := []struct {
		name string
		f    store.Filter
		want []event.Event
	}{
		{"all", store.Filter{}, all},
		{"session", store.Filter{Session: "b"}, pick(func(e event.Event) bool { return e.Session == "b" })},
		{"unknown session", store.Filter{Session: "nope"}, nil},
		{"session after seq", store.Filter{Session: "a", AfterSeq: 15}, pick(func(e event.Event) bool { return e.Session == "a" && e.Seq > 15 })},
		{"after seq past end", store.Filter{Session: "a", AfterSeq: 20}, nil},
		{"after seq without session", store.Filter{AfterSeq: 18}, pick(func(e event.Event) bool { return e.Seq > 18 })},
		{"after id", store.Filter{AfterID: mid}, pick(func(e event.Event) bool { return e.ID > mid })},
		{"after last id", store.Filter{AfterID: all[len(all)-1].ID}, nil},
		{"one type", store.Filter{Types: []event.Type{event.ToolResult}}, pick(func(e event.Event) bool { return e.Type == event.ToolResult })},
		{"two types", store.Filter{Types: []event.Type{event.ToolCall, event.MessageUser}}, pick(func(e event.Event) bool {
			return e.Type == event.ToolCall || e.Type == event.MessageUser
		})},
		{"repeated type", store.Filter{Types: []event.Type{event.ToolCall, event.ToolCall}}, pick(func(e event.Event) bool { return e.Type == event.ToolCall })},
		{"unknown type", store.Filter{Types: []event.Type{"no.such"}}, nil},
		{"limit", store.Filter{Limit: 7}, first(all, 7)},
		{"limit above count", store.Filter{Limit: 1000}, all},
		{"session+types+limit", store.Filter{Session: "c", Types: []event.Type{event.ToolDecision, event.MessageUser}, Limit: 4},
			first(pick(func(e event.Event) bool {
				return e.Session == "c" && (e.Type == event.ToolDecision || e.Type == event.MessageUser)
			}), 4)},
		{"session+after id+after seq", store.Filter{Session: "b", AfterID: mid, AfterSeq: 12},
			pick(func(e event.Event) bool { return e.Session == "b" && e.ID > mid && e.Seq > 12 })},
	}
	for _, c := range cases {
		got := mustEvents(t, l, c.f)
		sameEvents(t, c.name, got, c.want)
	}
	// Paging through the whole log by AfterID and Limit yields it exactly.
	var paged []event.Event
	var after int64
	for {
		page := mustEvents(t, l, store.Filter{AfterID: after, Limit: 8})
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1].ID
	}
	sameEvents(t, "paged by AfterID", paged, all)
	// Paging one session by AfterSeq.
	paged, after = nil, 0
	for {
		page := mustEvents(t, l, store.Filter{Session: "a", AfterSeq: after, Limit: 3})
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1].Seq
	}
	sameEvents(t, "paged by AfterSeq", paged, pick(func(e event.Event) bool { return e.Session == "a" }))
}

func testLastID(t *testing.T, f Factory) {
	l := open(t, f)
	if id := mustLastID(t, l); id != 0 {
		t.Fatalf("LastID of an empty log = %d", id)
	}
	out := mustAppend(t, l, ev("a", event.ToolCall, ""), ev("b", event.ToolCall, ""))
	if id := mustLastID(t, l); id != out[1].ID {
		t.Fatalf("LastID = %d, want %d", id, out[1].ID)
	}
	out = mustAppend(t, l, ev("a", event.ToolCall, ""))
	if id := mustLastID(t, l); id != out[0].ID {
		t.Fatalf("LastID = %d, want %d", id, out[0].ID)
	}
}

func testInvalidInput(t *testing.T, f Factory) {
	l := open(t, f)
	good := ev("s", event.ToolCall, `{"ok":1}`)
	withData := func(d string) event.Event { e := good; e.Data = json.RawMessage(d); return e }
	bad := map[string]event.Event{
		"empty session":            {Type: event.ToolCall},
		"empty type":               {Session: "s"},
		"truncated JSON":           withData(`{"a":`),
		"not JSON":                 withData(`nope`),
		"two JSON values":          withData(`{} {}`),
		"trailing comma":           withData(`{"a":1,}`),
		"invalid UTF-8 in data":    withData("{\"a\":\"\xff\"}"),
		"invalid UTF-8 in session": {Session: "s\xff", Type: event.ToolCall},
		"NUL in session":           {Session: "s\x00x", Type: event.ToolCall},
		"NUL in type":              {Session: "s", Type: "tool\x00call"},
		"NUL in source":            {Session: "s", Type: event.ToolCall, Source: "a\x00"},
		"NUL in workspace":         {Session: "s", Type: event.ToolCall, Workspace: "/w\x00"},
	}
	for name, b := range bad {
		for _, batch := range [][]event.Event{{b}, {good, good, b}, {b, good}, {good, b, withData(`{"other":"session"}`)}} {
			if out, err := l.Append(ctx(t), batch...); err == nil {
				t.Fatalf("%s in a batch of %d: Append succeeded: %+v", name, len(batch), out)
			}
		}
	}
	if id := mustLastID(t, l); id != 0 {
		t.Fatalf("failed appends stored something: LastID = %d", id)
	}
	if got := mustEvents(t, l, store.Filter{}); len(got) != 0 {
		t.Fatalf("failed appends stored %d events", len(got))
	}
	// Failed appends consumed no sequence numbers.
	if out := mustAppend(t, l, good); out[0].Seq != 1 {
		t.Fatalf("first good append after failures got seq %d, want 1", out[0].Seq)
	}
}

// writerPlan describes concurrent load: g goroutines, each doing n appends
// round-robin over sessions; every 10th append is a batch of three.
func runWriters(t *testing.T, l store.Log, g, n int, sessions []string, fail func(gr, i int) bool) (ok []event.Event, failed int) {
	t.Helper()
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	for gr := range g {
		wg.Go(func() {
			var mine []event.Event
			var nfail int
			for i := range n {
				s := sessions[(gr+i)%len(sessions)]
				batch := []event.Event{ev(s, event.ToolCall, fmt.Sprintf(`{"g":%d,"i":%d}`, gr, i))}
				if i%10 == 9 {
					batch = append(batch,
						ev(s, event.ToolDecision, fmt.Sprintf(`{"g":%d,"i":%d,"k":1}`, gr, i)),
						ev(sessions[(gr+i+1)%len(sessions)], event.ToolResult, fmt.Sprintf(`{"g":%d,"i":%d,"k":2}`, gr, i)))
				}
				poison := fail != nil && fail(gr, i)
				if poison {
					batch = append(batch, event.Event{Session: s, Type: event.ToolCall, Data: json.RawMessage(`{bad`)})
				}
				out, err := l.Append(context.Background(), batch...)
				switch {
				case poison && err == nil:
					mu.Lock()
					errs = append(errs, fmt.Errorf("goroutine %d append %d: bad batch accepted", gr, i))
					mu.Unlock()
				case poison:
					nfail++
				case err != nil:
					mu.Lock()
					errs = append(errs, fmt.Errorf("goroutine %d append %d: %w", gr, i, err))
					mu.Unlock()
				case len(out) != len(batch):
					mu.Lock()
					errs = append(errs, fmt.Errorf("goroutine %d append %d: %d events back for %d", gr, i, len(out), len(batch)))
					mu.Unlock()
				default:
					for k := 1; k < len(out); k++ {
						if out[k].ID <= out[k-1].ID || (out[k].Session == out[k-1].Session && out[k].Seq <= out[k-1].Seq) {
							mu.Lock()
							errs = append(errs, fmt.Errorf("goroutine %d append %d: batch order lost: %+v", gr, i, out))
							mu.Unlock()
						}
					}
					mine = append(mine, out...)
				}
			}
			mu.Lock()
			ok = append(ok, mine...)
			failed += nfail
			mu.Unlock()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return ok, failed
}

// checkStored fails t unless the log holds exactly acked, densely.
func checkStored(t *testing.T, l store.Log, acked []event.Event) {
	t.Helper()
	all := mustEvents(t, l, store.Filter{})
	if len(all) != len(acked) {
		t.Fatalf("log holds %d events, %d were acknowledged", len(all), len(acked))
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID <= all[i-1].ID {
			t.Fatalf("Events not in ascending id order at %d", i)
		}
	}
	byID := make(map[int64]event.Event, len(all))
	for _, e := range all {
		byID[e.ID] = e
	}
	for _, e := range acked {
		s, ok := byID[e.ID]
		if !ok {
			t.Fatalf("acknowledged event %d is not readable", e.ID)
		}
		if d := sameEvent(s, e); d != "" {
			t.Fatalf("event %d: stored differs from acknowledged: %s", e.ID, d)
		}
	}
	checkDense(t, all)
}

func testConcurrentWriters(t *testing.T, f Factory) {
	l := open(t, f)
	acked, _ := runWriters(t, l, 32, 200, []string{"s1", "s2", "s3", "s4", "s5"}, nil)
	if want := 32 * (200 + 20*2); len(acked) != want {
		t.Fatalf("%d events acknowledged, want %d", len(acked), want)
	}
	checkStored(t, l, acked)
	if id := mustLastID(t, l); id != slices.Max(ids(acked)) {
		t.Fatalf("LastID = %d, want %d", id, slices.Max(ids(acked)))
	}
}

func testConcurrentWithFailures(t *testing.T, f Factory) {
	l := open(t, f)
	acked, failed := runWriters(t, l, 16, 100, []string{"x", "y", "z"}, func(gr, i int) bool { return (gr+i)%7 == 3 })
	if failed == 0 {
		t.Fatal("no bad batch was tried")
	}
	checkStored(t, l, acked)
}

func testFollow(t *testing.T, f Factory) {
	l := open(t, f)
	stop := make(chan struct{})
	followed := make(chan []event.Event, 1)
	errc := make(chan error, 1)
	go func() {
		var seen []event.Event
		var after int64
		for done := false; ; {
			select {
			case <-stop:
				done = true
			default:
			}
			page, err := l.Events(context.Background(), store.Filter{AfterID: after})
			if err != nil {
				errc <- err
				return
			}
			for _, e := range page {
				if e.ID <= after {
					errc <- fmt.Errorf("id %d after %d", e.ID, after)
					return
				}
				after = e.ID
			}
			seen = append(seen, page...)
			if len(page) == 0 {
				if done {
					followed <- seen
					return
				}
				time.Sleep(200 * time.Microsecond)
			}
		}
	}()
	acked, _ := runWriters(t, l, 16, 100, []string{"f1", "f2", "f3"}, nil)
	close(stop)
	select {
	case err := <-errc:
		t.Fatalf("follower: %v", err)
	case seen := <-followed:
		slices.SortFunc(acked, func(a, b event.Event) int { return int(a.ID - b.ID) })
		sameEvents(t, "events seen by a follower polling AfterID", seen, acked)
	}
}

func testCanceled(t *testing.T, f Factory) {
	l := open(t, f)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if out, err := l.Append(c, ev("s", event.ToolCall, "")); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("Append with a canceled context = %v, %v; want an error wrapping context.Canceled", out, err)
	}
	if _, err := l.Events(c, store.Filter{}); err == nil {
		t.Fatal("Events with a canceled context succeeded")
	}
	if _, err := l.LastID(c); err == nil {
		t.Fatal("LastID with a canceled context succeeded")
	}
	if id := mustLastID(t, l); id != 0 {
		t.Fatalf("canceled Append stored something: LastID = %d", id)
	}
	// The log is still usable, and the canceled append consumed no seq.
	if out := mustAppend(t, l, ev("s", event.ToolCall, "")); out[0].Seq != 1 {
		t.Fatalf("seq after a canceled append = %d, want 1", out[0].Seq)
	}
}

// testDeadlines appends under load with deadlines so short that some expire
// mid-flight: whatever Append answered, the log agrees with it.
func testDeadlines(t *testing.T, f Factory) {
	l := open(t, f)
	var (
		mu        sync.Mutex
		acked     []event.Event
		failed    = map[string]bool{}
		wg        sync.WaitGroup
		otherErrs []error
	)
	for g := range 16 {
		wg.Go(func() {
			for i := range 60 {
				tag := fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)
				c, cancel := context.WithTimeout(context.Background(), time.Duration((g*7+i*13)%50)*50*time.Microsecond)
				out, err := l.Append(c, ev(fmt.Sprintf("d%d", i%4), event.ToolCall, tag))
				cancel()
				mu.Lock()
				switch {
				case err == nil:
					acked = append(acked, out...)
				case errors.Is(err, context.DeadlineExceeded):
					failed[tag] = true
				default:
					otherErrs = append(otherErrs, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(otherErrs...); err != nil {
		t.Fatal(err)
	}
	checkStored(t, l, acked)
	t.Logf("%d appends acknowledged, %d timed out", len(acked), len(failed))
}

func testClosed(t *testing.T, f Factory) {
	l := f.Open(t)
	mustAppend(t, l, ev("s", event.ToolCall, ""))
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := l.Append(ctx(t), ev("s", event.ToolCall, "")); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	if _, err := l.Append(ctx(t)); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("empty Append after Close = %v, want ErrClosed", err)
	}
	if _, err := l.Events(ctx(t), store.Filter{}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Events after Close = %v, want ErrClosed", err)
	}
	if _, err := l.LastID(ctx(t)); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("LastID after Close = %v, want ErrClosed", err)
	}
	if err := l.Close(); err != nil && !errors.Is(err, store.ErrClosed) {
		t.Fatalf("second Close = %v, want nil or ErrClosed", err)
	}
}

// testCloseWhileAppending closes the log under load: every Append either
// succeeds or fails with ErrClosed, and (when the log can be reopened)
// every success is in it.
func testCloseWhileAppending(t *testing.T, f Factory) {
	l := f.Open(t)
	var (
		mu    sync.Mutex
		acked []event.Event
		errs  []error
		wg    sync.WaitGroup
	)
	started := make(chan struct{}, 8)
	for g := range 8 {
		wg.Go(func() {
			signaled := false
			defer func() {
				if !signaled {
					started <- struct{}{}
				}
			}()
			for i := 0; ; i++ {
				out, err := l.Append(context.Background(), ev(fmt.Sprintf("c%d", g%3), event.ToolCall, fmt.Sprintf(`{"g":%d,"i":%d}`, g, i)))
				if i == 5 {
					signaled = true
					started <- struct{}{}
				}
				mu.Lock()
				if err != nil {
					if !errors.Is(err, store.ErrClosed) {
						errs = append(errs, err)
					}
					mu.Unlock()
					return
				}
				acked = append(acked, out...)
				mu.Unlock()
			}
		})
	}
	for range 8 {
		<-started
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close under load: %v", err)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("appends racing Close failed with something other than ErrClosed: %v", err)
	}
	if f.Reopen == nil {
		return
	}
	r := f.Reopen(t, l)
	t.Cleanup(func() { closeLog(t, r) })
	checkStored(t, r, acked)
}

func testReopen(t *testing.T, f Factory) {
	if f.Reopen == nil {
		t.Skip("Factory.Reopen is nil")
	}
	l := f.Open(t)
	first := mustAppend(t, l, ev("a", event.SessionStart, `{"n":1}`), ev("b", event.SessionStart, `{"n":2}`), ev("a", event.ToolCall, `{"n":3}`))
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	r := f.Reopen(t, l)
	t.Cleanup(func() { closeLog(t, r) })
	sameEvents(t, "after reopen", mustEvents(t, r, store.Filter{}), first)
	if id := mustLastID(t, r); id != first[2].ID {
		t.Fatalf("LastID after reopen = %d, want %d", id, first[2].ID)
	}
	next := mustAppend(t, r, ev("a", event.ToolResult, ""), ev("b", event.SessionEnd, ""), ev("new", event.SessionStart, ""))
	if next[0].ID <= first[2].ID {
		t.Fatalf("id after reopen %d not above %d", next[0].ID, first[2].ID)
	}
	if next[0].Seq != 3 || next[1].Seq != 2 || next[2].Seq != 1 {
		t.Fatalf("seqs after reopen %d,%d,%d; want 3,2,1", next[0].Seq, next[1].Seq, next[2].Seq)
	}
	checkDense(t, mustEvents(t, r, store.Filter{}))
}

func maintainer(t *testing.T, l store.Log) store.Maintainer {
	t.Helper()
	m, ok := l.(store.Maintainer)
	if !ok {
		t.Fatalf("%T does not implement store.Maintainer", l)
	}
	return m
}

// exported is what an export of a pruned log looks like: ids with gaps,
// seqs that start above 1.
func exported() []event.Event {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6000000, time.UTC)
	mk := func(id int64, session string, seq int64, typ event.Type, data string) event.Event {
		e := ev(session, typ, data)
		e.ID, e.Seq, e.Time = id, seq, at.Add(time.Duration(id)*time.Second)
		return e
	}
	return []event.Event{
		mk(5, "a", 3, event.ToolCall, `{"n":5}`),
		mk(6, "b", 1, event.SessionStart, `{"n":6}`),
		mk(9, "a", 4, event.ToolResult, `{"n":9}`),
		mk(10, "b", 2, event.SessionEnd, ""),
	}
}

func testRestore(t *testing.T, f Factory) {
	l := open(t, f)
	m := maintainer(t, l)
	want := exported()
	if err := m.Restore(ctx(t), want[:2]...); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if err := m.Restore(ctx(t), want[2:]...); err != nil {
		t.Fatalf("Restore (resumed): %v", err)
	}
	want[3].Data = json.RawMessage("{}")
	sameEvents(t, "restored", mustEvents(t, l, store.Filter{}), want)
	if id := mustLastID(t, l); id != 10 {
		t.Fatalf("LastID after restore = %d, want 10", id)
	}
	next := mustAppend(t, l, ev("a", event.ToolCall, ""), ev("c", event.SessionStart, ""))
	if next[0].ID != 11 || next[0].Seq != 5 || next[1].ID != 12 || next[1].Seq != 1 {
		t.Fatalf("append after restore: ids %d,%d seqs %d,%d; want 11,12 and 5,1", next[0].ID, next[1].ID, next[0].Seq, next[1].Seq)
	}
}

func testRestoreRefuses(t *testing.T, f Factory) {
	l := open(t, f)
	m := maintainer(t, l)
	if err := m.Restore(ctx(t), exported()[:2]...); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	before := mustEvents(t, l, store.Filter{})
	good := exported()[2]
	for name, bad := range map[string]func(e *event.Event){
		"id not above the last": func(e *event.Event) { e.ID = 6 },
		"seq gap":               func(e *event.Event) { e.Seq = 5 },
		"no time":               func(e *event.Event) { e.Time = time.Time{} },
		"no id":                 func(e *event.Event) { e.ID = 0 },
		"invalid data":          func(e *event.Event) { e.Data = json.RawMessage("{") },
	} {
		e := exported()[3]
		bad(&e)
		// A valid event first: the batch is atomic, so it is not kept either.
		if err := m.Restore(ctx(t), good, e); err == nil {
			t.Errorf("%s: Restore accepted it", name)
		}
		sameEvents(t, name+": after a refused restore", mustEvents(t, l, store.Filter{}), before)
	}
}

func testPrune(t *testing.T, f Factory) {
	l := open(t, f)
	m := maintainer(t, l)
	var all []event.Event
	for i := range 10 {
		all = append(all, mustAppend(t, l, ev([]string{"a", "b", "c"}[min(i%2+i/8*2, 2)], event.ToolCall, fmt.Sprintf(`{"i":%d}`, i)))...)
	}
	if through, cp, err := m.Checkpoint(ctx(t)); err != nil || through != 0 || cp != nil {
		t.Fatalf("Checkpoint of a log never pruned: %d %q %v", through, cp, err)
	}
	cut := all[6].ID
	removed, err := m.Prune(ctx(t), cut, 0, []byte(`{"summary":1}`))
	if err != nil || removed != 6 {
		t.Fatalf("Prune(before %d): removed %d, %v; want 6", cut, removed, err)
	}
	sameEvents(t, "after prune", mustEvents(t, l, store.Filter{}), all[6:])
	// A follower by id (an export resuming) reads on as before.
	sameEvents(t, "after prune, by AfterID", mustEvents(t, l, store.Filter{AfterID: all[7].ID}), all[8:])
	through, cp, err := m.Checkpoint(ctx(t))
	if err != nil || through != cut-1 || string(cp) != `{"summary":1}` {
		t.Fatalf("Checkpoint: %d %q %v; want %d and the checkpoint", through, cp, err, cut-1)
	}
	if _, err := m.Prune(ctx(t), cut+1, 0, nil); !errors.Is(err, store.ErrPruneConflict) {
		t.Fatalf("Prune on a stale checkpoint: %v, want ErrPruneConflict", err)
	}
	if _, err := m.Prune(ctx(t), mustLastID(t, l)+2, cut-1, nil); err == nil {
		t.Fatal("Prune past the last id + 1 accepted")
	}
	sameEvents(t, "after refused prunes", mustEvents(t, l, store.Filter{}), all[6:])
	// Seqs continue per session, with or without events left.
	next := mustAppend(t, l, ev("a", event.ToolCall, ""), ev("b", event.ToolCall, ""))
	last := map[string]int64{}
	for _, e := range all {
		last[e.Session] = e.Seq
	}
	if next[0].Seq != last["a"]+1 || next[1].Seq != last["b"]+1 || next[0].ID != all[9].ID+1 {
		t.Fatalf("after prune: seqs %d,%d ids %d; want %d,%d from id %d", next[0].Seq, next[1].Seq, next[0].ID, last["a"]+1, last["b"]+1, all[9].ID+1)
	}
	if f.Reopen == nil {
		return
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	r := f.Reopen(t, l)
	t.Cleanup(func() { closeLog(t, r) })
	if through, cp, err := maintainer(t, r).Checkpoint(ctx(t)); err != nil || through != cut-1 || string(cp) != `{"summary":1}` {
		t.Fatalf("Checkpoint after reopen: %d %q %v", through, cp, err)
	}
	sameEvents(t, "after prune and reopen", mustEvents(t, r, store.Filter{}), append(all[6:], next...))
}

func testPruneEverything(t *testing.T, f Factory) {
	l := open(t, f)
	m := maintainer(t, l)
	all := mustAppend(t, l, ev("a", event.SessionStart, ""), ev("a", event.ToolCall, ""), ev("b", event.SessionStart, ""))
	if removed, err := m.Prune(ctx(t), all[2].ID+1, 0, []byte(`[]`)); err != nil || removed != 3 {
		t.Fatalf("Prune everything: %d %v", removed, err)
	}
	if evs := mustEvents(t, l, store.Filter{}); len(evs) != 0 {
		t.Fatalf("%d events left", len(evs))
	}
	if id := mustLastID(t, l); id != all[2].ID {
		t.Fatalf("LastID after pruning everything = %d, want %d (ids are never reused)", id, all[2].ID)
	}
	next := mustAppend(t, l, ev("a", event.ToolResult, ""), ev("c", event.SessionStart, ""))
	if next[0].ID != all[2].ID+1 || next[0].Seq != 3 || next[1].Seq != 1 {
		t.Fatalf("after pruning everything: id %d seqs %d,%d; want id %d, seqs 3,1", next[0].ID, next[0].Seq, next[1].Seq, all[2].ID+1)
	}
	if _, err := m.Prune(ctx(t), all[2].ID+1, all[2].ID, nil); err == nil {
		t.Fatal("a prune that removes nothing new was accepted")
	}
}
