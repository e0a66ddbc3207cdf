package core_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/session"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// openCore opens a core on the log in dir (a restart of warden when the
// dir already holds one).
func openCore(t *testing.T, dir string) (*core.Core, func()) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Default(coretest.Env())
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(core.Config{Log: st, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return c, func() { st.Close() }
}

func listSessions(t *testing.T, c *core.Core) []session.Session {
	t.Helper()
	l, err := c.Sessions().List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Pruned sessions stay listed with their stats: after the prune, after a
// restart, and as they go on.
func TestPruneKeepsSessionSummaries(t *testing.T) {
	dir := t.TempDir()
	c, closeLog := openCore(t, dir)
	for i := range 3 {
		req := bash(fmt.Sprintf("ls %d", i))
		c.Gate(t.Context(), req)
	}
	c.Gate(t.Context(), bash("rm -rf /"))
	if _, err := c.Record(t.Context(), event.Event{Session: "s2", Type: event.SessionStart, Source: "claude-code/hooks", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	before := listSessions(t, c)
	if len(before) != 2 || before[1].Denied != 1 || before[1].ToolCalls != 4 {
		t.Fatalf("sessions before the prune: %+v", before)
	}
	cut, err := c.CutBefore(t.Context(), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	n := len(events(t, c))
	res, err := c.Prune(t.Context(), cut)
	if err != nil {
		t.Fatal(err)
	}
	// Everything went; the log.pruned record itself is all that is left.
	if left := events(t, c); res.Removed != int64(n) || res.Sessions != 2 || len(left) != 1 || left[0].Type != event.LogPruned {
		t.Fatalf("prune %+v of %d events; left %+v", res, n, left)
	}
	if got := listSessions(t, c); !reflect.DeepEqual(got, before) {
		t.Fatalf("sessions after the prune:\n%+v\nwant\n%+v", got, before)
	}
	if _, err := c.Prune(t.Context(), cut); !errors.Is(err, core.ErrNothingToPrune) {
		t.Fatalf("a second prune with the same cut: %v", err)
	}
	closeLog()

	c, closeLog = openCore(t, dir)
	defer closeLog()
	if got := listSessions(t, c); !reflect.DeepEqual(got, before) {
		t.Fatalf("sessions after a restart:\n%+v\nwant\n%+v", got, before)
	}
	c.Gate(t.Context(), bash("ls again"))
	s1, ok, err := c.Sessions().Get(t.Context(), "s1")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if s1.Events != before[1].Events+2 || s1.ToolCalls != 5 || s1.LastSeq != before[1].LastSeq+2 {
		t.Fatalf("s1 going on after the prune: %+v (before %+v)", s1, before[1])
	}
	evs, err := c.Events(t.Context(), store.Filter{Session: "s1"})
	if err != nil || len(evs) != 2 || evs[0].Seq != before[1].LastSeq+1 {
		t.Fatalf("s1's events after the prune: %+v %v", evs, err)
	}
	// A second prune builds on the first one's summaries.
	if _, err := c.Prune(t.Context(), evs[1].ID+1); err != nil {
		t.Fatal(err)
	}
	s1b, _, _ := c.Sessions().Get(t.Context(), "s1")
	if !reflect.DeepEqual(s1b, s1) {
		t.Fatalf("s1 after the second prune: %+v, want %+v", s1b, s1)
	}
	var pruned []map[string]any
	for _, e := range events(t, c) {
		if e.Type == event.LogPruned {
			var d map[string]any
			_ = json.Unmarshal(e.Data, &d)
			pruned = append(pruned, d)
		}
	}
	if len(pruned) != 1 || pruned[0]["removed"] == nil {
		t.Fatalf("log.pruned records left: %v", pruned)
	}
}

func TestCutBefore(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var ids []int64
	for i := range 4 {
		evs, err := c.Record(t.Context(), event.Event{Session: "s", Type: event.ToolResult, Time: at.Add(time.Duration(i) * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, evs[0].ID)
	}
	for _, tc := range []struct {
		t    time.Time
		want int64
	}{
		{at.Add(-time.Hour), ids[0]},
		{at.Add(90 * time.Minute), ids[2]},
		{at.Add(2 * time.Hour), ids[2]},
		{at.Add(10 * time.Hour), ids[3] + 1},
	} {
		if got, err := c.CutBefore(t.Context(), tc.t); err != nil || got != tc.want {
			t.Errorf("CutBefore(%s) = %d, %v; want %d", tc.t, got, err, tc.want)
		}
	}
}
