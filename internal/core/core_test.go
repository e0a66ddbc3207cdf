package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func bash(cmd string) core.GateRequest {
	return core.GateRequest{
		Call:   policy.Call{Tool: "bash", Args: map[string]any{"command": cmd}, Workspace: "/home/dev/proj", Session: "s1", Source: "test"},
		CallID: "c-" + cmd,
		Source: "test/unit",
	}
}

func events(t *testing.T, c *core.Core) []event.Event {
	t.Helper()
	evs, err := c.Events(context.Background(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func data(t *testing.T, e event.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("event %d data: %v", e.ID, err)
	}
	return m
}

func TestGateAllowAndDenyAreRecordedBeforeTheAnswer(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	v := c.Gate(t.Context(), bash("ls -la"))
	if !v.Allowed {
		t.Fatalf("ls -la: %+v", v)
	}
	v = c.Gate(t.Context(), bash("rm -rf /important"))
	if v.Allowed || v.Rule == "" || v.Reason == "" {
		t.Fatalf("rm -rf /important: %+v", v)
	}
	evs := events(t, c)
	if len(evs) != 4 {
		t.Fatalf("want call+decision twice, got %d events", len(evs))
	}
	for i, want := range []event.Type{event.ToolCall, event.ToolDecision, event.ToolCall, event.ToolDecision} {
		if evs[i].Type != want || evs[i].Seq != int64(i+1) {
			t.Fatalf("event %d = %s seq %d", i, evs[i].Type, evs[i].Seq)
		}
	}
	d := data(t, evs[3])
	if d["decision"] != "deny" || d["rule"] != v.Rule || d["final"] != true {
		t.Fatalf("deny record: %v", d)
	}
}

func waitPending(t *testing.T, c *core.Core) approval.Request {
	t.Helper()
	return coretest.WaitApproval(t, c, nil)
}

func TestAskWaitsForAPerson(t *testing.T) {
	for _, tc := range []struct {
		outcome approval.Outcome
		allowed bool
	}{{approval.Approved, true}, {approval.Denied, false}} {
		t.Run(string(tc.outcome), func(t *testing.T) {
			c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
			got := make(chan core.Verdict, 1)
			go func() { got <- c.Gate(context.Background(), bash("git reset --hard HEAD~3")) }()
			req := waitPending(t, c)
			s, _, _ := c.Sessions().Get(t.Context(), "s1")
			if s.Status != "waiting" {
				t.Fatalf("session status while asking = %s, want waiting", s.Status)
			}
			if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: tc.outcome, By: "test"}); err != nil {
				t.Fatal(err)
			}
			v := <-got
			if v.Allowed != tc.allowed || v.ApprovalID != req.ID || v.Outcome != tc.outcome {
				t.Fatalf("verdict %+v", v)
			}
			if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved}); !errors.Is(err, approval.ErrNotFound) {
				t.Fatalf("second resolve = %v, want ErrNotFound", err)
			}
			evs := events(t, c)
			var types []event.Type
			for _, e := range evs {
				types = append(types, e.Type)
			}
			want := []event.Type{event.ToolCall, event.ToolDecision, event.ApprovalRequested, event.ApprovalResolved, event.ToolDecision}
			if len(types) != len(want) {
				t.Fatalf("events %v", types)
			}
			for i := range want {
				if types[i] != want[i] {
					t.Fatalf("events %v, want %v", types, want)
				}
			}
			if d := data(t, evs[3]); d["outcome"] != string(tc.outcome) || d["approvalId"] != req.ID {
				t.Fatalf("resolution record %v", d)
			}
			s, _, _ = c.Sessions().Get(t.Context(), "s1")
			if s.Status == "waiting" || len(s.PendingApprovals) != 0 {
				t.Fatalf("session after resolution: %+v", s)
			}
		})
	}
}

func TestAskDeadlineDenies(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: 50 * time.Millisecond})
	v := c.Gate(t.Context(), bash("git reset --hard HEAD~3"))
	if v.Allowed || v.Outcome != approval.Expired {
		t.Fatalf("expired ask must deny: %+v", v)
	}
	evs := events(t, c)
	if last := data(t, evs[len(evs)-1]); last["decision"] != "deny" || last["final"] != true {
		t.Fatalf("final decision %v", last)
	}
	if len(c.Approvals()) != 0 {
		t.Fatal("expired approval still listed")
	}
}

func TestAskCanceledWhenCallerLeaves(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan core.Verdict, 1)
	go func() { got <- c.Gate(ctx, bash("git clean -fdx")) }()
	waitPending(t, c)
	cancel()
	if v := <-got; v.Allowed || v.Outcome != approval.Canceled {
		t.Fatalf("verdict %+v", v)
	}
}

func TestConcurrentResolveAndDeadlineHaveOneWinner(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: 30 * time.Millisecond})
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Gate(context.Background(), bash("git reset --hard"))
		}()
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range c.Approvals() {
			_, _ = c.Resolve(context.Background(), r.ID, approval.Resolution{Outcome: approval.Approved})
		}
	}
	wg.Wait()
	resolved := map[string]int{}
	for _, e := range events(t, c) {
		if e.Type == event.ApprovalResolved {
			resolved[data(t, e)["approvalId"].(string)]++
		}
	}
	if len(resolved) != 10 {
		t.Fatalf("%d approvals resolved, want 10", len(resolved))
	}
	for id, n := range resolved {
		if n != 1 {
			t.Fatalf("approval %s resolved %d times", id, n)
		}
	}
}

// brokenLog fails every append, as a full disk would.
type brokenLog struct{ store.Log }

func (brokenLog) Append(context.Context, ...event.Event) ([]event.Event, error) {
	return nil, errors.New("disk full")
}

func TestGateBlocksWhenTheLogFails(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "e.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	p, err := policy.Default(coretest.Env())
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(core.Config{Log: brokenLog{st}, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Gate(t.Context(), bash("ls"))
	if v.Allowed {
		t.Fatal("a call whose decision could not be recorded was allowed")
	}
	if v.Reason == "" {
		t.Fatal("no reason")
	}
}

func TestRestartExpiresWaitingApprovals(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Default(coretest.Env())
	if err != nil {
		t.Fatal(err)
	}
	c, err := core.New(core.Config{Log: st, Policy: p, ApprovalTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Simulate a crash: the log holds the request; nothing resolves it.
		c.Gate(ctx, bash("git reset --hard"))
	}()
	req := waitPending(t, c)
	// Take the log away before the gate can record its cancellation.
	st.Close()
	cancel()
	<-done

	c2 := coretest.New(t, coretest.Options{Dir: dir})
	var outcome string
	for _, e := range events(t, c2) {
		if e.Type == event.ApprovalResolved && data(t, e)["approvalId"] == req.ID {
			outcome = data(t, e)["outcome"].(string)
		}
	}
	if outcome != string(approval.Expired) {
		t.Fatalf("approval %s after restart: outcome %q, want expired", req.ID, outcome)
	}
	s, _, _ := c2.Sessions().Get(t.Context(), "s1")
	if s.Status == "waiting" {
		t.Fatal("session still waiting after restart")
	}
}

func TestAlwaysAddsAStandingRule(t *testing.T) {
	dir := t.TempDir()
	c := coretest.New(t, coretest.Options{Dir: dir, ApprovalTimeout: time.Minute})
	got := make(chan core.Verdict, 1)
	go func() { got <- c.Gate(context.Background(), bash("git reset --hard HEAD~1")) }()
	req := waitPending(t, c)
	if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, Always: true}); err != nil {
		t.Fatal(err)
	}
	if v := <-got; !v.Allowed {
		t.Fatalf("%+v", v)
	}
	// The same call in the same workspace is no longer asked...
	if v := c.Gate(t.Context(), bash("git reset --hard HEAD~1")); !v.Allowed || v.ApprovalID != "" {
		t.Fatalf("standing rule not applied: %+v", v)
	}
	// ...and the rule survives a restart (it lives in the overlay file).
	c2 := coretest.New(t, coretest.Options{Dir: dir})
	if d := c2.Policy().Decide(bash("git reset --hard HEAD~1").Call); d.Action != policy.Allow {
		t.Fatalf("after restart: %+v", d)
	}
	// Another workspace is still asked.
	other := bash("git reset --hard HEAD~1")
	other.Call.Workspace = "/home/dev/other"
	if d := c2.Policy().Decide(other.Call); d.Action != policy.Ask {
		t.Fatalf("other workspace: %+v", d)
	}
}

func TestBusSeesOnlyDurableEvents(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	sub := c.Bus().Subscribe(0)
	defer sub.Close()
	c.Gate(t.Context(), bash("ls"))
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for i := 1; i <= 2; i++ {
		e, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := c.Events(ctx, store.Filter{AfterID: e.ID - 1, Limit: 1})
		if err != nil || len(stored) != 1 || stored[0].ID != e.ID {
			t.Fatalf("bus delivered event %d that the log does not hold", e.ID)
		}
	}
}

func TestRequireApprovalAsksForAllowedCalls(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: 50 * time.Millisecond})
	req := bash("rm -f build/a.o")
	req.RequireApproval = "deleting files needs approval (security.requireApproval)"
	v := c.Gate(t.Context(), req)
	if v.Allowed || v.Decision.Action != policy.Ask || v.Rule != "warden.require-approval" || v.ApprovalID == "" || v.Outcome != approval.Expired {
		t.Fatalf("verdict %+v: want an ask that expired", v)
	}
	// a deny stands
	req = bash("rm -rf /")
	req.RequireApproval = "x"
	v = c.Gate(t.Context(), req)
	if v.Allowed || v.Decision.Action != policy.Deny {
		t.Fatalf("verdict %+v: want the policy's deny", v)
	}
}
