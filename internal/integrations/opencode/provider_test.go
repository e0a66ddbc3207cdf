package opencode

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// statusLog records what a subscriber receives.
type statusLog struct {
	mu      sync.Mutex
	seen    []agent.Status
	changed chan struct{}
	active  int // calls in progress, to catch overlaps
	overlap bool
}

func newStatusLog() *statusLog { return &statusLog{changed: make(chan struct{}, 1)} }

func (l *statusLog) record(s agent.Status) {
	l.mu.Lock()
	l.active++
	if l.active > 1 {
		l.overlap = true
	}
	l.seen = append(l.seen, s)
	l.mu.Unlock()
	// not a wait: the callback stays busy a moment (the scenario), so that
	// were calls ever made concurrently they would overlap and be caught
	time.Sleep(time.Millisecond)
	l.mu.Lock()
	l.active--
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *statusLog) all() []agent.Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.seen)
}

// waitFor waits until status want is recorded at index from or later and
// returns the index after it.
func (l *statusLog) waitFor(t *testing.T, from int, want agent.Status) int {
	t.Helper()
	deadline := time.After(45 * time.Second)
	for {
		seen := l.all()
		for i := from; i < len(seen); i++ {
			if seen[i] == want {
				return i + 1
			}
		}
		select {
		case <-l.changed:
		case <-deadline:
			t.Fatalf("status %s not seen after index %d; seen %v", want, from, seen)
		}
	}
}

// sinkLog records the permission bridge's calls.
type sinkLog struct {
	mu      sync.Mutex
	asked   []agent.Permission
	replied []string
	lost    [][]string
	ws      []string
	changed chan struct{}
}

func newSinkLog() *sinkLog { return &sinkLog{changed: make(chan struct{}, 1)} }

func (s *sinkLog) note(ws string, f func()) {
	s.mu.Lock()
	s.ws = append(s.ws, ws)
	f()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *sinkLog) Asked(ws string, p agent.Permission) {
	s.note(ws, func() { s.asked = append(s.asked, p) })
}
func (s *sinkLog) Replied(ws, id string) { s.note(ws, func() { s.replied = append(s.replied, id) }) }
func (s *sinkLog) Lost(ws string, ids []string) {
	s.note(ws, func() { s.lost = append(s.lost, slices.Clone(ids)) })
}

// wait waits until cond holds (checked under the lock).
func (s *sinkLog) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(45 * time.Second)
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.changed:
		case <-deadline:
			s.mu.Lock()
			defer s.mu.Unlock()
			t.Fatalf("sink: %s did not happen: asked %+v replied %v lost %v", what, s.asked, s.replied, s.lost)
		}
	}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}

func newTestProvider(t *testing.T, sink agent.PermissionSink, ownerPID func(int) int) *Provider {
	p := NewProvider(ProviderOptions{
		Workspace:      "/ws",
		Logger:         testLogger(t),
		Sink:           sink,
		Env:            map[string]string{"WARDEN_URL": "http://127.0.0.1:1"},
		RequestTimeout: 5 * time.Second,
		Backoff:        Backoff{Initial: 50 * time.Millisecond, Max: 400 * time.Millisecond},
		OwnerPID:       ownerPID,
	})
	t.Cleanup(p.Dispose)
	return p
}

func TestProviderRealBusyIdle(t *testing.T) {
	t.Parallel()
	oc := newOpenCode(t, false)
	ctx := testCtx(t)

	// Port reuse: the listener is not the process expected.
	wrong := newTestProvider(t, nil, func(int) int { return oc.pid() + 1 })
	if err := wrong.Connect(ctx, oc.port); !errors.Is(err, ErrPortReused) {
		t.Fatalf("connect to a reused port: %v, want ErrPortReused", err)
	}
	if wrong.Status() != agent.StatusNone {
		t.Fatalf("status %s after a refused connect", wrong.Status())
	}

	p := newTestProvider(t, nil, func(port int) int {
		if port != oc.port {
			t.Errorf("owner of port %d asked", port)
		}
		return oc.pid()
	})
	log := newStatusLog()
	unsub := p.OnStatusChange(log.record)
	defer unsub()
	if _, ok := p.Session(); ok {
		t.Fatal("a session before connecting")
	}
	if err := p.Reply(ctx, "per_1", agent.ReplyOnce); !errors.Is(err, agent.ErrNotRunning) {
		t.Fatalf("reply before connecting: %v", err)
	}
	if err := p.Connect(ctx, oc.port); err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); st != agent.StatusNone {
		t.Fatalf("status of a server without sessions: %s", st)
	}
	p.MarkActive()
	next := log.waitFor(t, 0, agent.StatusIdle)

	c := oc.client()
	s, err := c.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PromptAsync(ctx, s.ID, "say hello"); err != nil {
		t.Fatal(err)
	}
	next = log.waitFor(t, next, agent.StatusBusy)
	log.waitFor(t, next, agent.StatusIdle)

	info, ok := p.Session()
	if !ok || info.SessionID != s.ID || info.Port != oc.port {
		t.Fatalf("session %+v %v, want %s on %d", info, ok, s.ID, oc.port)
	}
	env := p.Environment()
	want := map[string]string{"WARDEN_URL": "http://127.0.0.1:1", EnvPort: strconv.Itoa(oc.port), EnvSessionID: s.ID}
	if fmt.Sprint(env) != fmt.Sprint(want) {
		t.Fatalf("environment %v, want %v", env, want)
	}
	env["WARDEN_URL"] = "changed"
	if p.Environment()["WARDEN_URL"] != "http://127.0.0.1:1" {
		t.Fatal("Environment returned the provider's own map")
	}

	// A second subscriber gets the current status at once.
	got := make(chan agent.Status, 10)
	unsub2 := p.OnStatusChange(func(s agent.Status) { got <- s })
	if s := <-got; s != agent.StatusIdle {
		t.Fatalf("current status on subscribe: %s", s)
	}
	unsub2()

	// Disconnect keeps the session; Reconnect finds the same state.
	p.Disconnect()
	if p.Status() != agent.StatusNone {
		t.Fatalf("status after disconnect: %s", p.Status())
	}
	if info, ok := p.Session(); !ok || info.SessionID != s.ID {
		t.Fatalf("session lost on disconnect: %+v", info)
	}
	if err := p.Reconnect(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Status() != agent.StatusIdle {
		t.Fatalf("status after reconnect: %s", p.Status())
	}
	if len(got) != 0 {
		t.Fatalf("an unsubscribed callback was called: %v", <-got)
	}
	seen := log.all()
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Fatalf("status %s delivered twice in a row: %v", seen[i], seen)
		}
	}
	log.mu.Lock()
	overlap := log.overlap
	log.mu.Unlock()
	if overlap {
		t.Fatal("status callbacks overlapped")
	}

	// A stream silent for longer than IdleTimeout (OpenCode's heartbeat
	// comes every 10 s) is dropped and made again.
	quiet := NewProvider(ProviderOptions{Logger: testLogger(t), IdleTimeout: 500 * time.Millisecond,
		Backoff: Backoff{Initial: 50 * time.Millisecond, Max: 100 * time.Millisecond}})
	defer quiet.Dispose()
	qlog := newStatusLog()
	defer quiet.OnStatusChange(qlog.record)()
	if err := quiet.Connect(ctx, oc.port); err != nil {
		t.Fatal(err)
	}
	i := qlog.waitFor(t, 0, agent.StatusIdle)
	i = qlog.waitFor(t, i, agent.StatusNone)
	qlog.waitFor(t, i, agent.StatusIdle)

	p.Dispose()
	if err := p.Connect(ctx, oc.port); !errors.Is(err, ErrDisposed) {
		t.Fatalf("connect after dispose: %v", err)
	}
	if err := p.Reply(ctx, "per_1", agent.ReplyOnce); !errors.Is(err, ErrDisposed) {
		t.Fatalf("reply after dispose: %v", err)
	}
}

func TestProviderRealPermissionKillRestart(t *testing.T) {
	t.Parallel()
	oc := newOpenCode(t, true)
	ctx := testCtx(t)
	sink := newSinkLog()
	p := newTestProvider(t, sink, func(int) int { return oc.pid() })
	log := newStatusLog()
	defer p.OnStatusChange(log.record)()
	if err := p.Connect(ctx, oc.port); err != nil {
		t.Fatal(err)
	}

	c := oc.client()
	s, err := c.CreateSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The model answers with a bash call; bash asks: waiting, and the
	// bridge learns of it.
	if err := c.PromptAsync(ctx, s.ID, "touch approved.txt"); err != nil {
		t.Fatal(err)
	}
	next := log.waitFor(t, 0, agent.StatusBusy)
	next = log.waitFor(t, next, agent.StatusWaiting)
	sink.wait(t, "asked", func() bool { return len(sink.asked) == 1 })
	asked := sink.asked[0]
	if asked.Session != s.ID || asked.Permission != "bash" || !slices.Equal(asked.Patterns, []string{"touch approved.txt"}) || asked.CallID == "" || asked.Metadata == nil {
		t.Fatalf("asked %+v", asked)
	}
	if _, err := os.Stat(filepath.Join(oc.dir, "approved.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}

	// Approving runs the command: busy, then idle.
	if err := p.Reply(ctx, asked.ID, agent.ReplyOnce); err != nil {
		t.Fatal(err)
	}
	sink.wait(t, "replied", func() bool { return slices.Equal(sink.replied, []string{asked.ID}) })
	next = log.waitFor(t, next, agent.StatusBusy)
	next = log.waitFor(t, next, agent.StatusIdle)
	if _, err := os.Stat(filepath.Join(oc.dir, "approved.txt")); err != nil {
		t.Fatalf("the approved command did not run: %v", err)
	}
	if err := p.Reply(ctx, asked.ID, agent.ReplyOnce); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second reply: %v, want ErrNotFound", err)
	}

	// Another request is pending when OpenCode dies.
	if err := c.PromptAsync(ctx, s.ID, "touch never.txt"); err != nil {
		t.Fatal(err)
	}
	next = log.waitFor(t, next, agent.StatusWaiting)
	sink.wait(t, "second asked", func() bool { return len(sink.asked) == 2 })
	pending := sink.asked[1]
	oc.kill()
	next = log.waitFor(t, next, agent.StatusNone)

	// OpenCode comes back on the same port: the provider reconnects by
	// itself, the request is lost, the session is known again.
	oc.start()
	log.waitFor(t, next, agent.StatusIdle)
	sink.wait(t, "lost", func() bool { return len(sink.lost) == 1 })
	if !slices.Equal(sink.lost[0], []string{pending.ID}) {
		t.Fatalf("lost %v, want [%s]", sink.lost, pending.ID)
	}
	if info, ok := p.Session(); !ok || info.SessionID != s.ID {
		t.Fatalf("session after the restart: %+v %v", info, ok)
	}
	if err := p.Reply(ctx, pending.ID, agent.ReplyOnce); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reply to a lost request: %v, want ErrNotFound", err)
	}
	if _, err := os.Stat(filepath.Join(oc.dir, "never.txt")); err == nil {
		t.Fatal("the lost request's command ran")
	}
	sink.mu.Lock()
	for _, ws := range sink.ws {
		if ws != "/ws" {
			t.Errorf("sink told workspace %q", ws)
		}
	}
	sink.mu.Unlock()
}

// A provider whose first connect fails stays disconnected; one whose server
// never comes back keeps trying until Disconnect, which returns promptly.
func TestProviderConnectFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := newTestProvider(t, nil, nil)
	if err := p.Connect(ctx, 0); err == nil {
		t.Fatal("port 0 accepted")
	}
	if err := p.Reconnect(ctx); !errors.Is(err, agent.ErrNotRunning) {
		t.Fatalf("reconnect before connect: %v", err)
	}
	port := freePort(t)
	if err := p.Connect(ctx, port); err == nil {
		t.Fatal("connect to a closed port succeeded")
	}
	if p.Status() != agent.StatusNone {
		t.Fatalf("status %s", p.Status())
	}
	p.MarkActive()
	if p.Status() != agent.StatusNone {
		t.Fatalf("MarkActive while disconnected: %s", p.Status())
	}
	done := make(chan struct{})
	go func() { p.Disconnect(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Disconnect hung")
	}
}

func TestListenerPID(t *testing.T) {
	t.Parallel()
	// ":0" listens on every address: a tcp6 socket where IPv6 exists.
	for _, addr := range []string{"127.0.0.1:0", ":0"} {
		network := addr
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Fatalf("%s: %v", network, err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		pid, err := ListenerPID(port)
		if err != nil || pid != os.Getpid() {
			t.Fatalf("%s: listener pid %d %v, want %d", network, pid, err, os.Getpid())
		}
		l.Close()
		if _, err := ListenerPID(port); !errors.Is(err, ErrNoListener) {
			t.Fatalf("%s: closed port: %v, want ErrNoListener", network, err)
		}
	}
}

func TestListenInodes(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 999 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0
   3: garbage
`
	got := map[string]bool{}
	if err := listenInodes(strings.NewReader(table), 0x1F90, got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got["12345"] {
		t.Fatalf("inodes %v, want only 12345 (LISTEN on 8080)", got)
	}
}

// The notifier: calls never overlap, arrive in order without repeats, may
// re-enter the provider, and the last one is the current status.
func TestProviderNotifier(t *testing.T) {
	t.Parallel()
	sink := newSinkLog()
	p := newTestProvider(t, sink, nil)
	log := newStatusLog()
	reentered := make(chan agent.Status, 1000)
	defer p.OnStatusChange(func(s agent.Status) {
		log.record(s)
		p.MarkActive() // re-entering must not deadlock
		reentered <- p.Status()
	})()
	p.update(func(*State) Changes { p.connected = true; return Changes{} })
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				sid := fmt.Sprintf("ses_%d", g)
				ev := statusEv(sid, []string{"busy", "idle", "retry"}[i%3])
				if i%7 == 0 {
					ev = askedEv(fmt.Sprintf("per_%d_%d", g, i), sid)
				}
				if i%7 == 1 {
					ev = repliedEv(fmt.Sprintf("per_%d_%d", g, i-1), sid)
				}
				p.apply(ev)
			}
		})
	}
	wg.Wait()
	seen := log.all()
	if len(seen) < 3 || seen[0] != agent.StatusNone {
		t.Fatalf("statuses %v", seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Fatalf("status %s twice in a row at %d", seen[i], i)
		}
	}
	if last := seen[len(seen)-1]; last != p.Status() {
		t.Fatalf("last delivered %s, current %s", last, p.Status())
	}
	log.mu.Lock()
	overlap := log.overlap
	log.mu.Unlock()
	if overlap {
		t.Fatal("callbacks overlapped")
	}
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if len(sink.asked) != 8*8 || len(sink.replied) != 8*7 {
		t.Fatalf("sink: %d asked, %d replied", len(sink.asked), len(sink.replied))
	}
}

// A first connection that fails (OpenCode answers its first GET /event
// with 503) is retried with the backoff: the provider connects once the
// server answers, without another Connect.
func TestProviderRetriesAFailedFirstConnect(t *testing.T) {
	t.Parallel()
	oc := newOpenCode(t, false)
	target, err := url.Parse(baseURL(oc.port))
	if err != nil {
		t.Fatal(err)
	}
	var refused atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // the event stream goes through as it comes
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/event" && refused.Add(1) <= 2 {
			http.Error(w, `{"error":"starting"}`, http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	port := front.Listener.Addr().(*net.TCPAddr).Port

	p := newTestProvider(t, nil, nil)
	log := newStatusLog()
	defer p.OnStatusChange(log.record)()
	p.MarkActive()
	err = p.Connect(testCtx(t), port)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("first connect = %v, want the 503", err)
	}
	if p.Status() != agent.StatusNone {
		t.Fatalf("status after a failed connect: %s", p.Status())
	}
	log.waitFor(t, 0, agent.StatusIdle)
	if n := refused.Load(); n < 3 {
		t.Fatalf("GET /event asked %d times, want the two refusals and a retry", n)
	}
	// Disconnect ends the retries and the connection.
	p.Disconnect()
	if p.Status() != agent.StatusNone {
		t.Fatalf("status after disconnect: %s", p.Status())
	}
}

// A server without OpenCode 1.x's permission API (GET /permission, the
// reply route POST /permission/{id}/reply; older servers reply through
// /session/{id}/permissions/{pid}) is refused with a message that says
// so, and not retried.
func TestProviderRefusesAServerWithoutThePermissionAPI(t *testing.T) {
	t.Parallel()
	oc := newOpenCode(t, false)
	target, err := url.Parse(baseURL(oc.port))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/permission") {
			http.NotFound(w, r) // as an OpenCode 0.x server answers
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	port := front.Listener.Addr().(*net.TCPAddr).Port

	p := newTestProvider(t, nil, nil)
	err = p.Connect(testCtx(t), port)
	if !errors.Is(err, ErrOldServer) || !errors.Is(err, agent.ErrUnsupported) ||
		!strings.Contains(err.Error(), "upgrade OpenCode") || !strings.Contains(err.Error(), Version) {
		t.Fatalf("connect to an old server = %v, want ErrOldServer", err)
	}
	p.mu.Lock()
	retrying := p.loopDone != nil
	p.mu.Unlock()
	if retrying {
		t.Fatal("the provider keeps retrying a server it cannot work with")
	}
	if p.Status() != agent.StatusNone {
		t.Fatalf("status %s", p.Status())
	}
}
