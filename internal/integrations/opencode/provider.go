package opencode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// The environment variables a provider adds for terminals.
const (
	EnvPort      = "WARDEN_OPENCODE_PORT"
	EnvSessionID = "WARDEN_OPENCODE_SESSION_ID"
)

// ErrPortReused is returned by Connect when the process listening on the
// port is not the one expected to (OpenCode died and another program took
// its port).
var ErrPortReused = errors.New("opencode: another process reused the port")

// ErrDisposed is returned by a provider's methods after Dispose.
var ErrDisposed = errors.New("opencode: provider disposed")

// Backoff is the reconnection schedule: Initial, doubling after every failed
// attempt, up to Max.
type Backoff struct {
	// Initial is the first delay.
	Initial time.Duration
	// Max caps the delay.
	Max time.Duration
}

// The spec's reconnection schedule: 1s, 2s, 4s ... 30s.
const (
	DefaultBackoffInitial = time.Second
	DefaultBackoffMax     = 30 * time.Second
)

// DefaultIdleTimeout is how long a silent event stream is trusted.
const DefaultIdleTimeout = 35 * time.Second

// next returns the delay after d.
func (b Backoff) next(d time.Duration) time.Duration {
	return min(2*d, b.Max)
}

// ProviderOptions configures a Provider.
type ProviderOptions struct {
	// Workspace is the workspace the provider tracks (as told to Sink).
	Workspace string
	// Logger receives the provider's records (slog.Default() when nil).
	Logger *slog.Logger
	// Sink receives the permission requests (may be nil).
	Sink agent.PermissionSink
	// Env holds the base WARDEN_* variables for Environment.
	Env map[string]string
	// HTTPClient is used for every request (a new client when nil). It must
	// have no Timeout: it would cut the event stream.
	HTTPClient *http.Client
	// RequestTimeout bounds each request (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Backoff is the reconnection schedule (DefaultBackoffInitial and
	// DefaultBackoffMax for zero fields).
	Backoff Backoff
	// IdleTimeout closes a stream that sent nothing (OpenCode sends a
	// heartbeat every 10 s) for so long, to reconnect (DefaultIdleTimeout
	// when 0).
	IdleTimeout time.Duration
	// OwnerPID, when set, returns the pid expected to listen on port (0:
	// unknown). When the listener is another process the provider does not
	// connect.
	OwnerPID func(port int) int
	// ListenerPID finds the pid listening on a loopback port (the package's
	// ListenerPID when nil). Only used with OwnerPID.
	ListenerPID func(port int) (int, error)
}

// Provider tracks one workspace's OpenCode server: it follows the server's
// event stream (reconnecting with backoff), derives the workspace's status
// with a State, bridges permission requests to a PermissionSink and answers
// them. It implements agent.Provider and agent.Replier.
type Provider struct {
	opts ProviderOptions
	log  *slog.Logger

	// life serializes Connect, Disconnect and Dispose.
	life sync.Mutex

	mu        sync.Mutex
	state     *State
	port      int
	connected bool
	active    bool
	disposed  bool
	status    agent.Status
	loopStop  context.CancelFunc
	loopDone  chan struct{}
	subs      map[int]func(agent.Status)
	nextSub   int
	queue     []notice
	notifying bool
}

var (
	_ agent.Provider = (*Provider)(nil)
	_ agent.Replier  = (*Provider)(nil)
)

// notice is one delivery of the serialized notifier: a status to some
// subscribers, or permission changes to the sink.
type notice struct {
	status  agent.Status
	subs    []int
	changes Changes
}

// NewProvider returns a disconnected provider (status none).
func NewProvider(opts ProviderOptions) *Provider {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Backoff.Initial <= 0 {
		opts.Backoff.Initial = DefaultBackoffInitial
	}
	if opts.Backoff.Max <= 0 {
		opts.Backoff.Max = DefaultBackoffMax
	}
	opts.Backoff.Max = max(opts.Backoff.Max, opts.Backoff.Initial)
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.ListenerPID == nil {
		opts.ListenerPID = ListenerPID
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	opts.Env = maps.Clone(opts.Env)
	return &Provider{
		opts:   opts,
		log:    opts.Logger.With("agent", string(agent.OpenCode), "workspace", opts.Workspace),
		state:  NewState(),
		status: agent.StatusNone,
		subs:   map[int]func(agent.Status){},
	}
}

func (p *Provider) client(port int) *Client {
	return NewClient(baseURL(port), p.opts.HTTPClient, p.opts.RequestTimeout)
}

// Connect attaches to the OpenCode server at port: it opens the event
// stream, then reads the sessions, their statuses and the pending permission
// requests, and follows the stream in the background, reconnecting with
// backoff when it ends, until Disconnect or Dispose. A connection already
// running is dropped first. When the first attempt fails (the server
// answers GET /event with an error, is not up yet, another process holds
// the port) its error is returned and the provider stays disconnected
// (status none), but keeps trying in the background with the same backoff
// until an attempt succeeds, or Disconnect, Dispose or another Connect;
// ctx bounds the first attempt only. A server warden cannot work with
// (ErrOldServer, matching agent.ErrUnsupported) is not retried.
func (p *Provider) Connect(ctx context.Context, port int) error {
	if port <= 0 || port > 65535 {
		return fmt.Errorf("opencode: connect: bad port %d", port)
	}
	p.life.Lock()
	defer p.life.Unlock()
	if p.isDisposed() {
		return ErrDisposed
	}
	p.stopLoop()
	p.update(func(s *State) Changes { p.port = port; p.connected = false; s.Reset(); return Changes{} })

	loopCtx, stop := context.WithCancel(context.Background())
	stream, early, err := p.attempt(ctx, loopCtx, port)
	if errors.Is(err, agent.ErrUnsupported) {
		stop()
		p.log.Error("not following this opencode server", "port", port, "err", err)
		return err
	}
	done := make(chan struct{})
	p.mu.Lock()
	p.loopStop, p.loopDone = stop, done
	p.mu.Unlock()
	go p.loop(loopCtx, done, port, stream, early)
	if err != nil {
		p.log.Warn("could not connect to opencode; retrying with backoff", "port", port, "err", err)
	}
	return err
}

func (p *Provider) isDisposed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.disposed
}

// attempt makes one connection: the pid check, the stream, the REST reads.
// On success the state is loaded and the provider is connected; the events
// read while waiting for server.connected are returned to be applied.
//
// The stream lives in streamCtx; ctx bounds the attempt.
func (p *Provider) attempt(ctx, streamCtx context.Context, port int) (*EventStream, []Event, error) {
	if err := p.checkOwner(port); err != nil {
		return nil, nil, err
	}
	c := p.client(port)
	stream, err := c.Events(streamCtx)
	if err == nil && ctx.Err() != nil {
		stream.Close()
		err = ctx.Err()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opencode: connect to port %d: %w", port, err)
	}
	// OpenCode subscribes the stream to its bus before it sends
	// server.connected: wait for that so no event between the stream and
	// the reads below is missed.
	var early []Event
	timeout := c.timeout
	timer := time.AfterFunc(timeout, func() { stream.Close() })
	for {
		ev, err := stream.Next()
		if errors.Is(err, ErrBadEvent) {
			continue
		}
		if err != nil {
			timer.Stop()
			stream.Close()
			return nil, nil, fmt.Errorf("opencode: connect to port %d: waiting for server.connected: %w", port, err)
		}
		if ev.Type == "server.connected" {
			break
		}
		early = append(early, ev)
	}
	if !timer.Stop() {
		stream.Close()
		return nil, nil, fmt.Errorf("opencode: connect to port %d: no server.connected within %v", port, timeout)
	}
	sessions, err := c.Sessions(ctx)
	var statuses map[string]SessionStatus
	var perms []PermissionRequest
	if err == nil {
		statuses, err = c.SessionStatuses(ctx)
	}
	if err == nil {
		perms, err = c.Permissions(ctx)
	}
	if err != nil {
		stream.Close()
		return nil, nil, fmt.Errorf("opencode: connect to port %d: %w", port, err)
	}
	p.update(func(s *State) Changes {
		p.connected = true
		return s.Load(sessions, statuses, perms)
	})
	p.log.Info("connected to opencode", "port", port, "sessions", len(sessions), "pendingPermissions", len(perms))
	return stream, early, nil
}

// checkOwner compares the listener of port with the expected owner.
func (p *Provider) checkOwner(port int) error {
	if p.opts.OwnerPID == nil {
		return nil
	}
	want := p.opts.OwnerPID(port)
	if want <= 0 {
		return nil
	}
	got, err := p.opts.ListenerPID(port)
	if err != nil {
		p.log.Debug("cannot tell who listens on the port", "port", port, "err", err)
		return nil
	}
	if got != want {
		p.log.Warn("another process reused the port; not connecting", "port", port, "expectedPid", want, "listenerPid", got)
		return fmt.Errorf("%w: port %d: listener pid %d, expected %d", ErrPortReused, port, got, want)
	}
	return nil
}

// loop follows the stream and reconnects until ctx ends. A nil stream (the
// first attempt failed) starts with a reconnect.
func (p *Provider) loop(ctx context.Context, done chan struct{}, port int, stream *EventStream, early []Event) {
	defer close(done)
	for {
		if stream != nil {
			p.follow(ctx, stream, early)
			stream.Close()
			if ctx.Err() != nil {
				return
			}
			p.update(func(s *State) Changes { p.connected = false; s.Reset(); return Changes{} })
		}
		var err error
		stream, early, err = p.reconnect(ctx, port)
		if err != nil {
			return // ctx ended, or the server is not supported
		}
	}
}

// reconnect retries with backoff until a connection is made or ctx ends.
func (p *Provider) reconnect(ctx context.Context, port int) (*EventStream, []Event, error) {
	delay := p.opts.Backoff.Initial
	for {
		p.log.Info("reconnecting to opencode", "port", port, "in", delay)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, ctx.Err()
		case <-t.C:
		}
		stream, early, err := p.attempt(ctx, ctx, port)
		if err == nil {
			return stream, early, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if errors.Is(err, agent.ErrUnsupported) {
			// A restarted server of an unsupported version: retrying
			// changes nothing.
			p.log.Error("not following this opencode server", "port", port, "err", err)
			return nil, nil, err
		}
		p.log.Info("opencode reconnect failed", "port", port, "err", err)
		delay = p.opts.Backoff.next(delay)
	}
}

// follow applies the stream's events until it ends, fails, stays silent for
// IdleTimeout or ctx ends.
func (p *Provider) follow(ctx context.Context, stream *EventStream, early []Event) {
	for _, ev := range early {
		p.apply(ev)
	}
	stop := context.AfterFunc(ctx, func() { stream.Close() })
	defer stop()
	idle := time.AfterFunc(p.opts.IdleTimeout, func() { stream.Close() })
	defer idle.Stop()
	for {
		ev, err := stream.Next()
		idle.Reset(p.opts.IdleTimeout)
		switch {
		case errors.Is(err, ErrBadEvent):
			p.log.Warn("skipping a malformed opencode event", "err", err)
			continue
		case err != nil:
			if ctx.Err() == nil {
				p.log.Warn("opencode event stream ended", "err", err)
			}
			return
		}
		p.apply(ev)
	}
}

func (p *Provider) apply(ev Event) {
	p.log.Debug("opencode event", "type", ev.Type, "id", ev.ID)
	p.update(func(s *State) Changes { return s.Apply(ev) })
}

// stopLoop ends the background loop, if any, and waits for it.
func (p *Provider) stopLoop() {
	p.mu.Lock()
	stop, done := p.loopStop, p.loopDone
	p.loopStop, p.loopDone = nil, nil
	p.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// Disconnect drops the connection (status none) and the pending permission
// requests but keeps the port and the session for Reconnect.
func (p *Provider) Disconnect() {
	p.life.Lock()
	defer p.life.Unlock()
	p.disconnect()
}

func (p *Provider) disconnect() {
	p.stopLoop()
	p.update(func(s *State) Changes { p.connected = false; s.Reset(); return Changes{} })
}

// Reconnect connects again to the last port.
func (p *Provider) Reconnect(ctx context.Context) error {
	p.mu.Lock()
	port := p.port
	p.mu.Unlock()
	if port == 0 {
		return fmt.Errorf("opencode: reconnect: never connected: %w", agent.ErrNotRunning)
	}
	return p.Connect(ctx, port)
}

// Dispose disconnects for good and drops every subscriber.
func (p *Provider) Dispose() {
	p.life.Lock()
	defer p.life.Unlock()
	p.mu.Lock()
	p.disposed = true
	p.mu.Unlock()
	p.disconnect()
	p.mu.Lock()
	clear(p.subs)
	p.mu.Unlock()
}

// Status returns the current status.
func (p *Provider) Status() agent.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// OnStatusChange registers fn: it gets the current status, then every
// change, in order. Calls never overlap: one notifier at a time delivers
// them, possibly on another goroutine than the change's (such as the event
// loop's). fn must not block, and must not call Connect, Disconnect,
// Reconnect or Dispose (they wait for the event loop); the other methods are
// fine. After unsubscribe returns no new call starts.
func (p *Provider) OnStatusChange(fn func(agent.Status)) (unsubscribe func()) {
	p.mu.Lock()
	if p.disposed {
		p.mu.Unlock()
		return func() {}
	}
	id := p.nextSub
	p.nextSub++
	p.subs[id] = fn
	p.queue = append(p.queue, notice{status: p.status, subs: []int{id}})
	p.drainLocked()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			delete(p.subs, id)
			p.mu.Unlock()
		})
	}
}

// update runs f on the state under the lock, recomputes the status and
// queues the notices. f may also change the provider's fields.
func (p *Provider) update(f func(*State) Changes) {
	p.mu.Lock()
	ch := f(p.state)
	if !ch.Empty() {
		p.queue = append(p.queue, notice{changes: ch})
	}
	st := p.computeLocked()
	if st != p.status {
		p.log.Debug("status changed", "from", p.status, "to", st)
		p.status = st
		p.queue = append(p.queue, notice{status: st, subs: slices.Sorted(maps.Keys(p.subs))})
	}
	p.drainLocked()
}

func (p *Provider) computeLocked() agent.Status {
	if !p.connected {
		return agent.StatusNone
	}
	st := p.state.Status()
	if st == agent.StatusNone && p.active {
		return agent.StatusIdle
	}
	return st
}

// drainLocked delivers the queued notices unless another goroutine already
// does; it is called with p.mu held and returns with it released.
func (p *Provider) drainLocked() {
	if p.notifying {
		p.mu.Unlock()
		return
	}
	p.notifying = true
	for len(p.queue) > 0 {
		n := p.queue[0]
		p.queue = p.queue[1:]
		if !n.changes.Empty() {
			p.mu.Unlock()
			p.deliverChanges(n.changes)
			p.mu.Lock()
			continue
		}
		for _, id := range n.subs {
			fn, ok := p.subs[id]
			if !ok {
				continue
			}
			p.mu.Unlock()
			fn(n.status)
			p.mu.Lock()
		}
	}
	p.notifying = false
	p.mu.Unlock()
}

func (p *Provider) deliverChanges(c Changes) {
	for _, perm := range c.Asked {
		p.log.Info("opencode asks for permission", "id", perm.ID, "session", perm.Session, "permission", perm.Permission, "patterns", perm.Patterns)
	}
	for _, id := range c.Lost {
		p.log.Info("opencode permission request lost", "id", id)
	}
	sink := p.opts.Sink
	if sink == nil {
		return
	}
	for _, perm := range c.Asked {
		sink.Asked(p.opts.Workspace, perm)
	}
	for _, id := range c.Replied {
		sink.Replied(p.opts.Workspace, id)
	}
	if len(c.Lost) > 0 {
		sink.Lost(p.opts.Workspace, c.Lost)
	}
}

// Session returns the port and the main session (the most recently created
// or updated root session).
func (p *Provider) Session() (agent.SessionInfo, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok := p.state.MainSession()
	if !ok || p.port == 0 {
		return agent.SessionInfo{}, false
	}
	return agent.SessionInfo{Port: p.port, SessionID: id}, true
}

// Environment returns a copy of the base variables plus WARDEN_OPENCODE_PORT
// and WARDEN_OPENCODE_SESSION_ID when they are known.
func (p *Provider) Environment() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	env := maps.Clone(p.opts.Env)
	if env == nil {
		env = map[string]string{}
	}
	if p.port != 0 {
		env[EnvPort] = strconv.Itoa(p.port)
	}
	if id, ok := p.state.MainSession(); ok {
		env[EnvSessionID] = id
	}
	return env
}

// MarkActive notes that the agent reached warden: a connected provider with
// no session yet reports idle instead of none. Only the first call changes
// anything (the MCP door calls it on every request).
func (p *Provider) MarkActive() {
	p.mu.Lock()
	done := p.active || p.disposed
	p.mu.Unlock()
	if done {
		return
	}
	p.log.Info("opencode reached warden over MCP")
	p.update(func(*State) Changes { p.active = true; return Changes{} })
}

// Reply answers OpenCode's permission request id. It fails (matching
// ErrNotFound) when OpenCode does not know the request, and with
// agent.ErrNotRunning when the provider never connected. The state changes
// when OpenCode's permission.replied event arrives.
func (p *Provider) Reply(ctx context.Context, id string, r agent.Reply) error {
	p.mu.Lock()
	port, disposed := p.port, p.disposed
	p.mu.Unlock()
	if disposed {
		return ErrDisposed
	}
	if port == 0 {
		return fmt.Errorf("opencode: reply %s: %w", id, agent.ErrNotRunning)
	}
	if err := p.client(port).Reply(ctx, id, r); err != nil {
		return fmt.Errorf("reply to opencode permission %s: %w", id, err)
	}
	return nil
}

// ErrNoListener is returned by ListenerPID when nothing listens on the port
// or the listening process cannot be seen.
var ErrNoListener = errors.New("opencode: no visible process listens on the port")

// ListenerPID returns the pid of the process listening on TCP port port
// (Linux: the LISTEN socket's inode from /proc/net/tcp and tcp6, then the
// process whose /proc/PID/fd holds socket:[inode]).
func ListenerPID(port int) (int, error) {
	return listenerPID("/proc", port)
}

func listenerPID(proc string, port int) (int, error) {
	inodes := map[string]bool{}
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(proc, "net", name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			return 0, fmt.Errorf("listener of port %d: %w", port, err)
		}
		err = listenInodes(f, port, inodes)
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("listener of port %d: %s: %w", port, name, err)
		}
	}
	if len(inodes) == 0 {
		return 0, fmt.Errorf("%w: %d", ErrNoListener, port)
	}
	dirs, err := os.ReadDir(proc)
	if err != nil {
		return 0, fmt.Errorf("listener of port %d: %w", port, err)
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 0 {
			continue
		}
		fdDir := filepath.Join(proc, d.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue // gone, or not ours to see
		}
		for _, fd := range fds {
			link, err := os.Readlink(filepath.Join(fdDir, fd.Name()))
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return pid, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: %d (socket owner not found)", ErrNoListener, port)
}

// listenInodes adds the inodes of the LISTEN sockets on port found in a
// /proc/net/tcp{,6} table.
func listenInodes(r io.Reader, port int, into map[string]bool) error {
	sc := bufio.NewScanner(r)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" {
			continue
		}
		i := strings.LastIndexByte(f[1], ':')
		if i < 0 {
			continue
		}
		lp, err := strconv.ParseUint(f[1][i+1:], 16, 16)
		if err != nil || int(lp) != port {
			continue
		}
		if f[9] != "0" {
			into[f[9]] = true
		}
	}
	return sc.Err()
}
