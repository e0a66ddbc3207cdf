package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

const withdrawSource = "test/withdraw"

// askedCall is a harmless call the policy allows, made to wait for a person
// with RequireApproval (as the OpenCode bridge does).
func askedCall(callID string) core.GateRequest {
	return core.GateRequest{
		Call:            policy.Call{Tool: "bash", Args: map[string]any{"command": "ls -la"}, Workspace: "/home/dev/proj", Session: "s-withdraw", Source: "test"},
		CallID:          callID,
		Source:          withdrawSource,
		RequireApproval: "the agent asked for a person",
	}
}

// gateAsync runs Gate in a goroutine and returns its verdict channel.
func gateAsync(c *core.Core, req core.GateRequest) <-chan core.Verdict {
	got := make(chan core.Verdict, 1)
	go func() { got <- c.Gate(context.Background(), req) }()
	return got
}

// pendingCall waits on the bus until the call callID waits for a person.
func pendingCall(t *testing.T, c *core.Core, callID string) approval.Request {
	t.Helper()
	return coretest.WaitApproval(t, c, func(r approval.Request) bool { return r.CallID == callID })
}

func verdictOf(t *testing.T, got <-chan core.Verdict) core.Verdict {
	t.Helper()
	select {
	case v := <-got:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("Gate did not return")
		return core.Verdict{}
	}
}

// resolvedOf returns the approval.resolved events of approval id.
func resolvedOf(t *testing.T, c *core.Core, id string) []map[string]any {
	t.Helper()
	evs, err := c.Events(context.Background(), store.Filter{Types: []event.Type{event.ApprovalResolved}})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, e := range evs {
		var m map[string]any
		if err := json.Unmarshal(e.Data, &m); err != nil {
			t.Fatalf("event %d: %v", e.ID, err)
		}
		if m["approvalId"] == id {
			if e.Source != withdrawSource || e.Session != "s-withdraw" || e.Workspace != "/home/dev/proj" {
				t.Fatalf("approval.resolved recorded as %s/%s/%s", e.Source, e.Session, e.Workspace)
			}
			out = append(out, m)
		}
	}
	return out
}

func TestWithdrawClosesAWaitingGateAsLost(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
	got := gateAsync(c, askedCall("call-lost"))
	req := pendingCall(t, c, "call-lost")
	if req.Source != withdrawSource || req.Decision.Rule != "warden.require-approval" {
		t.Fatalf("pending request %+v", req)
	}

	// Another source's call with the same id is not this one.
	if _, err := c.Withdraw(t.Context(), "other/source", "call-lost", approval.Resolution{Outcome: approval.Lost}); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("withdraw from another source = %v, want ErrNotFound", err)
	}
	if len(c.Approvals()) != 1 {
		t.Fatal("a withdraw from another source closed the approval")
	}

	res := approval.Resolution{Outcome: approval.Lost, By: "warden", Reason: "the agent restarted and forgot the request"}
	closed, err := c.Withdraw(t.Context(), withdrawSource, "call-lost", res)
	if err != nil {
		t.Fatal(err)
	}
	if closed.ID != req.ID || closed.CallID != "call-lost" {
		t.Fatalf("Withdraw returned %+v, want the request %s", closed, req.ID)
	}
	// The resolution is durable before the waiting call learns of it.
	v := verdictOf(t, got)
	if v.Allowed || v.Outcome != approval.Lost || v.ApprovalID != req.ID || v.Reason != res.Reason {
		t.Fatalf("verdict %+v: want blocked, outcome lost", v)
	}
	rs := resolvedOf(t, c, req.ID)
	if len(rs) != 1 {
		t.Fatalf("%d approval.resolved events, want 1", len(rs))
	}
	if rs[0]["outcome"] != "lost" || rs[0]["by"] != "warden" || rs[0]["callId"] != "call-lost" || rs[0]["reason"] != res.Reason {
		t.Fatalf("approval.resolved = %v", rs[0])
	}
	// The call's final decision is a deny.
	evs, err := c.Events(t.Context(), store.Filter{Types: []event.Type{event.ToolDecision}})
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1]
	var d map[string]any
	if err := json.Unmarshal(last.Data, &d); err != nil {
		t.Fatal(err)
	}
	if d["decision"] != "deny" || d["final"] != true || d["approvalId"] != req.ID {
		t.Fatalf("final decision = %v", d)
	}
	if l := c.Approvals(); len(l) != 0 {
		t.Fatalf("approvals still waiting: %+v", l)
	}

	// Closed once: a second Withdraw, or a person's late answer, finds nothing.
	if _, err := c.Withdraw(t.Context(), withdrawSource, "call-lost", res); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("second withdraw = %v, want ErrNotFound", err)
	}
	if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, By: "late"}); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("resolve after withdraw = %v, want ErrNotFound", err)
	}
	if n := len(resolvedOf(t, c, req.ID)); n != 1 {
		t.Fatalf("%d approval.resolved events after the late answers, want 1", n)
	}
}

func TestWithdrawUnknownCall(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	_, err := c.Withdraw(t.Context(), withdrawSource, "never-asked", approval.Resolution{Outcome: approval.Lost})
	if !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("withdraw of an unknown call = %v, want ErrNotFound", err)
	}
	evs, err := c.Events(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 0 {
		t.Fatalf("withdraw of an unknown call recorded %d events", len(evs))
	}
}

func TestWithdrawAfterAPersonAnsweredFails(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
	got := gateAsync(c, askedCall("call-answered"))
	req := pendingCall(t, c, "call-answered")
	if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Denied, By: "person"}); err != nil {
		t.Fatal(err)
	}
	v := verdictOf(t, got)
	if v.Allowed || v.Outcome != approval.Denied {
		t.Fatalf("verdict %+v", v)
	}
	if _, err := c.Withdraw(t.Context(), withdrawSource, "call-answered", approval.Resolution{Outcome: approval.Lost}); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("withdraw after the answer = %v, want ErrNotFound", err)
	}
	rs := resolvedOf(t, c, req.ID)
	if len(rs) != 1 || rs[0]["outcome"] != "denied" {
		t.Fatalf("approval.resolved = %v, want the person's denial only", rs)
	}
}

func TestWithdrawClosesOnlyTheNamedCall(t *testing.T) {
	c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
	gotA := gateAsync(c, askedCall("call-a"))
	gotB := gateAsync(c, askedCall("call-b"))
	pendingCall(t, c, "call-a")
	reqB := pendingCall(t, c, "call-b")

	// The agent answered call-a in its own UI.
	if _, err := c.Withdraw(t.Context(), withdrawSource, "call-a", approval.Resolution{Outcome: approval.Canceled, By: "agent", Reason: "answered in the agent"}); err != nil {
		t.Fatal(err)
	}
	if v := verdictOf(t, gotA); v.Allowed || v.Outcome != approval.Canceled {
		t.Fatalf("call-a verdict %+v", v)
	}
	l := c.Approvals()
	if len(l) != 1 || l[0].ID != reqB.ID {
		t.Fatalf("pending after withdrawing call-a: %+v, want only call-b", l)
	}
	// An agent cannot approve its own call by withdrawing it: refused,
	// and the call keeps waiting for a person.
	if _, err := c.Withdraw(t.Context(), withdrawSource, "call-b", approval.Resolution{Outcome: approval.Approved, By: "agent", Always: true}); !errors.Is(err, core.ErrWithdrawApproves) {
		t.Fatalf("an approving withdrawal: %v", err)
	}
	if l := c.Approvals(); len(l) != 1 || l[0].ID != reqB.ID {
		t.Fatalf("pending after the approving withdrawal: %+v, want call-b", l)
	}
	if rs := resolvedOf(t, c, reqB.ID); len(rs) != 0 {
		t.Fatalf("call-b resolved by a withdrawal: %v", rs)
	}
	// A denial by the agent closes it, blocked.
	if _, err := c.Withdraw(t.Context(), withdrawSource, "call-b", approval.Resolution{Outcome: approval.Denied, By: "agent"}); err != nil {
		t.Fatal(err)
	}
	if v := verdictOf(t, gotB); v.Allowed || v.Outcome != approval.Denied {
		t.Fatalf("call-b verdict %+v", v)
	}
	rs := resolvedOf(t, c, reqB.ID)
	if len(rs) != 1 || rs[0]["outcome"] != "denied" || rs[0]["by"] != "agent" {
		t.Fatalf("call-b approval.resolved = %v", rs)
	}
}

// heldLog holds an append that records approval.requested once it is
// durable, until the test lets it return.
type heldLog struct {
	store.Log
	appended chan int64 // the held event's id
	proceed  chan struct{}
}

func (l *heldLog) Append(ctx context.Context, evs ...event.Event) ([]event.Event, error) {
	stored, err := l.Log.Append(ctx, evs...)
	for _, e := range stored {
		if e.Type == event.ApprovalRequested {
			l.appended <- e.ID
			<-l.proceed
		}
	}
	return stored, err
}

// Whoever learns of approval.requested, from the log (a subscriber catching
// up) or live, can answer it at once: the request is pending by the time the
// event is durable, before Gate's append even returns.
func TestRequestedApprovalIsPendingOnceDurable(t *testing.T) {
	dir := t.TempDir()
	st, err := sqlite.Open(filepath.Join(dir, "events.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	p, err := policy.Default(coretest.Env())
	if err != nil {
		t.Fatal(err)
	}
	log := &heldLog{Log: st, appended: make(chan int64, 1), proceed: make(chan struct{})}
	c, err := core.New(core.Config{Log: log, Policy: p, ApprovalTimeout: time.Minute, OverlayPath: filepath.Join(dir, "overlay.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := gateAsync(c, bash("git reset --hard HEAD~3"))
	var id int64
	select {
	case id = <-log.appended:
	case <-time.After(coretest.WaitTimeout):
		t.Fatal("no approval.requested was appended")
	}
	evs, err := st.Events(t.Context(), store.Filter{Types: []event.Type{event.ApprovalRequested}})
	if err != nil || len(evs) != 1 || evs[0].ID != id {
		t.Fatalf("log while held: %v, %v", evs, err)
	}
	d, err := event.DataOf[event.ApprovalData](evs[0])
	if err != nil {
		t.Fatal(err)
	}
	// durable, Gate still inside its append: a reader of the log finds it
	// pending
	if l := c.Approvals(); len(l) != 1 || l[0].ID != d.ApprovalID {
		t.Fatalf("approvals once approval.requested is durable = %+v, want %s", l, d.ApprovalID)
	}
	resolved := make(chan error, 1)
	go func() {
		_, err := c.Resolve(context.Background(), d.ApprovalID, approval.Resolution{Outcome: approval.Denied, By: "test"})
		resolved <- err
	}()
	close(log.proceed)
	if err := <-resolved; err != nil {
		t.Fatalf("resolve as soon as requested: %v", err)
	}
	if v := verdictOf(t, got); v.Allowed || v.Outcome != approval.Denied {
		t.Fatalf("verdict %+v", v)
	}
	// the resolution follows the request in the log
	all, err := st.Events(t.Context(), store.Filter{Types: []event.Type{event.ApprovalRequested, event.ApprovalResolved}})
	if err != nil || len(all) != 2 || all[0].Type != event.ApprovalRequested || all[1].Type != event.ApprovalResolved {
		t.Fatalf("approval events %v, %v", all, err)
	}
}
