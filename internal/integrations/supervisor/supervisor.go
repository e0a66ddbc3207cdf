// Package supervisor runs warden's side of specs/agent-integrations.md for
// every workspace on the machine: it keeps the workspace registry, starts
// and stops each workspace's agent server through the type's
// ServerManager, follows its status through a Provider, aggregates status
// in the status manager, bridges the agent's own permission requests into
// warden's approvals, and records every change as an event (durable, then
// on the bus).
package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/agents"
	"github.com/warden-dev/warden/internal/integrations/ports"
	"github.com/warden-dev/warden/internal/integrations/status"
	"github.com/warden-dev/warden/internal/workspace"
)

// Source is the event source of the supervisor's own records.
const Source = "warden/supervisor"

// Options configure New.
type Options struct {
	// Core records events and holds approvals.
	Core *core.Core
	// Registry is the workspace registry.
	Registry *workspace.Registry
	// Logger receives operational records.
	Logger *slog.Logger
	// AgentDir is where generated agent configs and server logs go.
	AgentDir string
	// Env holds the base WARDEN_* variables every workspace's agent gets
	// (WARDEN_MCP_PORT, WARDEN_CONTROL_PORT, WARDEN_MONITOR_URL, ...);
	// WARDEN_WORKSPACE_PATH is added per workspace. It holds no
	// credential: New refuses agent.CredentialVar and WARDEN_TOKEN here.
	Env map[string]string
	// Credentials mints the scoped agent credential a generated agent
	// config carries (nil: configs cannot be generated, and starting an
	// OpenCode server fails saying so).
	Credentials Credentials
	// HookPort is the hook door's port (Claude Code), 0 when off.
	HookPort int
	// Binaries are configured agent program paths; NpmDirs are extra
	// node_modules folders to find them in.
	Binaries map[agent.Type]string
	NpmDirs  []string
	// Servers replaces the server manager of a type (tests).
	Servers map[agent.Type]agent.ServerManager
	// TickInterval is how often providers' inactivity clocks are checked
	// (default 30 s).
	TickInterval time.Duration
}

// Credentials mints scoped agent credentials.
type Credentials interface {
	// AgentToken returns the valid scoped credential of the agent of type
	// t in the workspace root (the MCP door, that workspace only), minting
	// one when there is none.
	AgentToken(ctx context.Context, root string, t agent.Type) (string, error)
	// RevokeWorkspace revokes every credential of the workspace root.
	RevokeWorkspace(ctx context.Context, root string) error
}

// Supervisor is the per-machine agent supervisor. Its methods are safe for
// concurrent use.
type Supervisor struct {
	opts    Options
	core    *core.Core
	reg     *workspace.Registry
	log     *slog.Logger
	status  *status.Manager
	servers map[agent.Type]agent.ServerManager
	bridge  *bridge

	mu        sync.Mutex
	providers map[string]*tracked
	unsubs    []func()
	// failing holds the workspaces whose crashed server cannot be
	// restarted: the last failure, until a start or a stop.
	failing map[string]agent.RestartFailure
	// lifecycle serialises the starts, stops and restarts of one
	// workspace's agent (a start the daemon makes on its own must not
	// undo a stop the user asked for meanwhile).
	lifecycle map[string]*sync.Mutex

	records   chan []event.Event
	recMu     sync.RWMutex
	recClosed bool
	done      chan struct{}

	// following is closed once Run follows the bus: events recorded from
	// then on reach it
	following     chan struct{}
	followingOnce sync.Once
}

// tracked is a workspace's provider and its type.
type tracked struct {
	typ agent.Type
	p   agent.Provider
}

// New builds a supervisor; Run starts it.
func New(opts Options) (*Supervisor, error) {
	if opts.Core == nil || opts.Registry == nil {
		return nil, errors.New("supervisor: Core and Registry are required")
	}
	for _, k := range []string{agent.CredentialVar, "WARDEN_TOKEN"} {
		if _, ok := opts.Env[k]; ok {
			return nil, fmt.Errorf("supervisor: Options.Env holds %s: no credential goes into an agent's environment", k)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.TickInterval <= 0 {
		opts.TickInterval = 30 * time.Second
	}
	s := &Supervisor{
		opts: opts, core: opts.Core, reg: opts.Registry, log: log, status: status.New(),
		servers: map[agent.Type]agent.ServerManager{}, providers: map[string]*tracked{},
		failing: map[string]agent.RestartFailure{}, lifecycle: map[string]*sync.Mutex{},
		records: make(chan []event.Event, 1024), done: make(chan struct{}),
		following: make(chan struct{}),
	}
	s.bridge = &bridge{s: s, pending: map[string]*bridged{}}
	deps := agents.Deps{
		Logger: log, Dir: opts.AgentDir, Ports: ports.New(), Binaries: opts.Binaries, NpmDirs: opts.NpmDirs,
		HookPort: opts.HookPort, Vars: s.configVars,
	}
	for _, t := range agents.Types() {
		if m, ok := opts.Servers[t]; ok {
			s.servers[t] = m
			continue
		}
		m, err := agents.ServerManager(t, deps)
		if err != nil {
			return nil, err
		}
		s.servers[t] = m
	}
	for t, m := range s.servers {
		s.unsubs = append(s.unsubs,
			m.OnServerStarted(func(ws string, port int) { s.serverStarted(t, ws, port) }),
			m.OnServerStopped(func(ws string, crashed bool) { s.serverStopped(t, ws, crashed) }),
		)
		if rw, ok := m.(agent.RestartWatcher); ok {
			s.unsubs = append(s.unsubs, rw.OnRestartFailed(func(ws string, f agent.RestartFailure) { s.restartFailed(t, ws, f) }))
		}
	}
	s.unsubs = append(s.unsubs, s.status.OnChange(s.statusChanged))
	return s, nil
}

// Status returns the status manager (every workspace's agent status).
func (s *Supervisor) Status() *status.Manager { return s.status }

// Run starts the agents the registry says run, follows Claude Code's hook
// events, and serves until ctx ends; then it stops every server it
// started and returns.
func (s *Supervisor) Run(ctx context.Context) error {
	go s.recorder()
	sub := s.core.Bus().Subscribe(s.lastID(ctx))
	defer sub.Close()
	s.followingOnce.Do(func() { close(s.following) })
	for _, w := range s.reg.List() {
		if w.Agent == "" {
			continue
		}
		t, err := agents.Parse(w.Agent)
		if err != nil {
			s.log.Warn("workspace names an unknown agent; not started", "workspace", w.Path, "agent", w.Agent)
			continue
		}
		go func() {
			defer s.lock(w.Path)()
			// the user may have stopped or changed the agent since the
			// listing: start only what the registry still names
			if cur, err := s.reg.Get(w.Path); err != nil || cur.Agent != w.Agent {
				return
			}
			if _, err := s.start(ctx, w.Path, t, false); err != nil {
				s.log.Error("could not start the workspace's agent", "workspace", w.Path, "agent", t, "err", err)
			}
		}()
	}
	evc := make(chan event.Event, 256)
	go func() {
		defer close(evc)
		for {
			e, err := sub.Next(ctx)
			if err != nil {
				return
			}
			select {
			case evc <- e:
			case <-ctx.Done(): // Run is gone; nobody reads evc
				return
			}
		}
	}()
	tick := time.NewTicker(s.opts.TickInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			s.shutdown()
			return nil
		case e, ok := <-evc:
			if !ok {
				s.shutdown()
				return nil
			}
			s.observe(ctx, e)
		case <-tick.C:
			s.tick()
		}
	}
}

func (s *Supervisor) lastID(ctx context.Context) int64 {
	id, err := s.core.LastID(ctx)
	if err != nil {
		s.log.Warn("could not read the log's last id; following live events only", "err", err)
	}
	return id
}

func (s *Supervisor) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, m := range s.servers {
		if err := m.Dispose(ctx); err != nil {
			s.log.Warn("stopping agent servers", "err", err)
		}
	}
	s.mu.Lock()
	provs := s.providers
	s.providers = map[string]*tracked{}
	s.mu.Unlock()
	for ws, t := range provs {
		s.status.Unregister(ws)
		t.p.Dispose()
	}
	for _, u := range s.unsubs {
		u()
	}
	s.recMu.Lock()
	s.recClosed = true
	close(s.records)
	s.recMu.Unlock()
	<-s.done
}

// recorder writes the supervisor's events in order, off the callers'
// paths (status callbacks must not wait for an fsync).
func (s *Supervisor) recorder() {
	defer close(s.done)
	for evs := range s.records {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if _, err := s.core.Record(ctx, evs...); err != nil {
			s.log.Error("could not record supervisor event", "type", evs[0].Type, "err", err)
		}
		cancel()
	}
}

func (s *Supervisor) record(ws string, t event.Type, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		b = []byte(`{}`)
	}
	e := event.Event{Session: event.SystemSession, Type: t, Source: Source, Workspace: ws, Data: b}
	// A full queue waits for the recorder (never drops a record); after
	// shutdown there is nothing left to record to.
	s.recMu.RLock()
	defer s.recMu.RUnlock()
	if s.recClosed {
		s.log.Warn("supervisor event after shutdown not recorded", "type", t, "workspace", ws)
		return
	}
	s.records <- []event.Event{e}
}

// recordNow records synchronously: for changes a caller is told about
// (workspace added, removed, metadata), durable before the reply.
func (s *Supervisor) recordNow(ctx context.Context, ws string, t event.Type, data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s: %w", t, err)
	}
	_, err = s.core.Record(ctx, event.Event{Session: event.SystemSession, Type: t, Source: Source, Workspace: ws, Data: b})
	return err
}

// baseEnv is the WARDEN_* environment of a workspace (no credential).
func (s *Supervisor) baseEnv(ws string) map[string]string {
	env := map[string]string{}
	for k, v := range s.opts.Env {
		env[k] = v
	}
	env["WARDEN_WORKSPACE_PATH"] = ws
	return env
}

// configVars fill an OpenCode server's config template: the environment
// and the workspace's scoped agent credential (agent.CredentialVar; the
// server manager writes it into the 0600 config in the protected data dir
// and never into the server's environment).
func (s *Supervisor) configVars(ws string, _ int) (map[string]string, error) {
	if s.opts.Credentials == nil {
		return nil, errors.New("this warden mints no agent credentials, so it cannot write the agent's config")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tok, err := s.opts.Credentials.AgentToken(ctx, ws, agent.OpenCode)
	if err != nil {
		return nil, fmt.Errorf("agent credential: %w", err)
	}
	vars := s.baseEnv(ws)
	vars[agent.CredentialVar] = tok
	return vars, nil
}

// provider returns (creating when needed) the workspace's provider of type
// t. A workspace has one provider; a different type replaces it.
func (s *Supervisor) provider(ws string, t agent.Type) (agent.Provider, error) {
	s.mu.Lock()
	cur, ok := s.providers[ws]
	s.mu.Unlock()
	if ok && cur.typ == t {
		return cur.p, nil
	}
	p, err := agents.Provider(t, agents.ProviderDeps{
		// the provider names its agent and workspace in its records itself
		Workspace: ws, Logger: s.log, Sink: s.bridge, Env: s.baseEnv(ws),
		OwnerPID: func(int) int { return s.servers[t].PID(ws) },
	})
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if cur, ok := s.providers[ws]; ok {
		if cur.typ == t { // created meanwhile
			s.mu.Unlock()
			p.Dispose()
			return cur.p, nil
		}
		s.providers[ws] = &tracked{typ: t, p: p}
		s.mu.Unlock()
		s.retire(ws, cur.p, fmt.Sprintf("the workspace's %s agent was replaced by %s; the request was not answered", cur.typ, t))
	} else {
		s.providers[ws] = &tracked{typ: t, p: p}
		s.mu.Unlock()
	}
	s.status.Register(ws, p)
	return p, nil
}

// drop forgets p as the workspace's provider, if it still is, and
// disposes it.
func (s *Supervisor) drop(ws string, p agent.Provider) {
	s.mu.Lock()
	cur, ok := s.providers[ws]
	if !ok || cur.p != p {
		s.mu.Unlock()
		return
	}
	delete(s.providers, ws)
	s.mu.Unlock()
	s.status.Unregister(ws)
	s.retire(ws, p, "the workspace's agent is gone; the request was not answered")
}

// retire disposes a provider that no longer tracks the workspace and
// closes its permission requests still waiting in warden as lost: nobody
// is left to pass an answer to.
func (s *Supervisor) retire(ws string, p agent.Provider, reason string) {
	p.Dispose()
	s.bridge.forget(ws, reason)
}

func (s *Supervisor) tracked(ws string) (*tracked, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.providers[ws]
	return t, ok
}

func (s *Supervisor) serverStarted(t agent.Type, ws string, port int) {
	data := event.AgentServerData{Agent: string(t), Action: "started", Port: port, PID: s.servers[t].PID(ws)}
	s.mu.Lock()
	if f, ok := s.failing[ws]; ok {
		data.FailedAttempts = f.Attempts
		delete(s.failing, ws)
	}
	s.mu.Unlock()
	s.record(ws, event.AgentServer, data)
	p, err := s.provider(ws, t)
	if err != nil {
		s.log.Error("no provider for the started server", "workspace", ws, "err", err)
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := p.Connect(ctx, port)
		switch {
		case errors.Is(err, agent.ErrUnsupported):
			s.log.Error("warden cannot follow this agent server", "workspace", ws, "port", port, "err", err)
			s.record(ws, event.AgentServer, event.AgentServerData{Agent: string(t), Action: "unsupported", Port: port, Error: err.Error()})
		case err != nil:
			s.log.Warn("could not connect to the agent server; the provider keeps trying", "workspace", ws, "port", port, "err", err)
		}
	}()
}

// restartFailed notes a failed automatic restart. Only the first of a
// streak is recorded (the server went from "restarting" to "cannot be
// restarted"); the count of later ones is shown by `warden agents` and
// recorded with the next start.
func (s *Supervisor) restartFailed(t agent.Type, ws string, f agent.RestartFailure) {
	s.mu.Lock()
	s.failing[ws] = f
	s.mu.Unlock()
	if f.Attempts != 1 {
		return
	}
	data := event.AgentServerData{Agent: string(t), Action: "restart-failed", Attempts: f.Attempts, RetryIn: f.Next.String()}
	if f.Err != nil {
		data.Error = f.Err.Error()
	}
	s.record(ws, event.AgentServer, data)
}

func (s *Supervisor) serverStopped(t agent.Type, ws string, crashed bool) {
	action := "stopped"
	if crashed {
		action = "crashed"
	} else {
		s.mu.Lock()
		delete(s.failing, ws)
		s.mu.Unlock()
	}
	s.record(ws, event.AgentServer, event.AgentServerData{Agent: string(t), Action: action})
}

func (s *Supervisor) statusChanged(c status.Change) {
	data := event.AgentStatusData{From: string(c.From), To: string(c.To)}
	if tr, ok := s.tracked(c.Workspace); ok {
		data.Agent = string(tr.typ)
		if si, ok := tr.p.Session(); ok {
			data.SessionID = si.SessionID
		}
	}
	s.record(c.Workspace, event.AgentStatus, data)
}

// observe feeds Claude Code's hook events to the workspace's provider
// (creating it on the first event of a registered workspace).
func (s *Supervisor) observe(_ context.Context, e event.Event) {
	if !strings.HasPrefix(e.Source, "claude-code/") || e.Workspace == "" {
		return
	}
	ws, ok := s.reg.Lookup(e.Workspace)
	if !ok {
		return
	}
	tr, ok := s.tracked(ws)
	if ok && tr.typ != agent.ClaudeCode {
		return // the workspace's agent is another type; its status wins
	}
	var p agent.Provider
	if ok {
		p = tr.p
	} else {
		var err error
		if p, err = s.provider(ws, agent.ClaudeCode); err != nil {
			s.log.Warn("no Claude Code provider", "workspace", ws, "err", err)
			return
		}
	}
	if o, ok := p.(interface{ Observe(event.Event) }); ok {
		e.Workspace = ws
		o.Observe(e)
	}
}

func (s *Supervisor) tick() {
	s.mu.Lock()
	list := make([]agent.Provider, 0, len(s.providers))
	for _, t := range s.providers {
		list = append(list, t.p)
	}
	s.mu.Unlock()
	for _, p := range list {
		if t, ok := p.(interface{ Tick() }); ok {
			t.Tick()
		}
	}
}

// AgentInfo is one row of `warden agents`.
type AgentInfo struct {
	Workspace string       `json:"workspace"`
	Name      string       `json:"name"`
	Agent     agent.Type   `json:"agent,omitempty"`
	Status    agent.Status `json:"status"`
	Session   string       `json:"sessionId,omitempty"`
	Running   bool         `json:"running"`
	Port      int          `json:"port,omitempty"`
	PID       int          `json:"pid,omitempty"`
	// Env is what a terminal in the workspace needs (WARDEN_*).
	Env map[string]string `json:"env,omitempty"`
	// RestartAttempts counts the failed restarts of a crashed server that
	// warden keeps retrying (0 when none fail); RestartError is the last
	// one's reason.
	RestartAttempts int    `json:"restartAttempts,omitempty"`
	RestartError    string `json:"restartError,omitempty"`
}

// Agents lists every registered workspace with its agent.
func (s *Supervisor) Agents() []AgentInfo {
	var out []AgentInfo
	for _, w := range s.reg.List() {
		out = append(out, s.info(w))
	}
	return out
}

// Agent returns the row of the workspace holding path.
func (s *Supervisor) Agent(path string) (AgentInfo, error) {
	root, err := s.reg.Root(path)
	if err != nil {
		return AgentInfo{}, err
	}
	w, err := s.reg.Get(root)
	if err != nil {
		return AgentInfo{}, err
	}
	return s.info(w), nil
}

func (s *Supervisor) info(w workspace.Workspace) AgentInfo {
	ai := AgentInfo{Workspace: w.Path, Name: w.Name, Status: agent.StatusNone}
	if w.Agent != "" {
		ai.Agent = agent.Type(w.Agent)
	}
	if tr, ok := s.tracked(w.Path); ok {
		ai.Agent = tr.typ
		ai.Status = s.status.Status(w.Path)
		if si, ok := tr.p.Session(); ok {
			ai.Session = si.SessionID
		}
		ai.Env = tr.p.Environment()
	}
	if m, ok := s.servers[ai.Agent]; ok {
		ai.Running = m.IsRunning(w.Path)
		ai.Port, _ = m.Port(w.Path)
		ai.PID = m.PID(w.Path)
	}
	if ai.Env == nil {
		ai.Env = s.baseEnv(w.Path)
	}
	s.mu.Lock()
	if f, ok := s.failing[w.Path]; ok {
		ai.RestartAttempts = f.Attempts
		if f.Err != nil {
			ai.RestartError = f.Err.Error()
		}
	}
	s.mu.Unlock()
	return ai
}

// StartAgent starts the workspace's agent of type t and remembers it, so
// the daemon starts it again next time.
func (s *Supervisor) StartAgent(ctx context.Context, path string, t agent.Type) (AgentInfo, error) {
	root, err := s.reg.Root(path)
	if err != nil {
		return AgentInfo{}, err
	}
	defer s.lock(root)()
	return s.start(ctx, root, t, true)
}

// lock takes the workspace's lifecycle lock and returns its release.
func (s *Supervisor) lock(root string) (unlock func()) {
	s.mu.Lock()
	m, ok := s.lifecycle[root]
	if !ok {
		m = &sync.Mutex{}
		s.lifecycle[root] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// start starts the workspace's agent; the caller holds its lifecycle lock.
func (s *Supervisor) start(ctx context.Context, root string, t agent.Type, remember bool) (AgentInfo, error) {
	m, ok := s.servers[t]
	if !ok {
		return AgentInfo{}, fmt.Errorf("%w %q", agent.ErrUnknownType, t)
	}
	if t == agent.ClaudeCode {
		return AgentInfo{}, errors.New("claude-code runs in your terminal, not as a server: start it with `warden run claude` in the workspace; warden follows it through its hooks")
	}
	if tr, ok := s.tracked(root); ok && tr.typ != t {
		if _, err := s.stop(ctx, root); err != nil {
			return AgentInfo{}, err
		}
	}
	p, err := s.provider(root, t)
	if err != nil {
		return AgentInfo{}, err
	}
	if _, err := m.StartServer(ctx, root); err != nil {
		// No server: drop the provider again, so it neither shows as the
		// workspace's agent nor hides the hook events of another type
		// (serverStarted makes a new one if the server comes up later).
		if !m.IsRunning(root) {
			s.drop(root, p)
		}
		return AgentInfo{}, err
	}
	if remember {
		if _, err := s.reg.SetAgent(root, string(t)); err != nil {
			return AgentInfo{}, err
		}
	}
	return s.Agent(root)
}

// StopAgent stops the workspace's agent server and forgets it (the daemon
// will not start it again).
func (s *Supervisor) StopAgent(ctx context.Context, path string) (agent.StopResult, error) {
	root, err := s.reg.Root(path)
	if err != nil {
		return agent.StopResult{}, err
	}
	defer s.lock(root)()
	return s.stop(ctx, root)
}

// stop stops the workspace's agent; the caller holds its lifecycle lock.
func (s *Supervisor) stop(ctx context.Context, root string) (agent.StopResult, error) {
	var res agent.StopResult
	tr, ok := s.tracked(root)
	if ok {
		var err error
		if res, err = s.servers[tr.typ].StopServer(ctx, root); err != nil {
			return res, err
		}
		s.mu.Lock()
		delete(s.providers, root)
		s.mu.Unlock()
		s.status.Unregister(root)
		s.retire(root, tr.p, "the agent was stopped (warden agents stop); the request was not answered")
	}
	if _, err := s.reg.SetAgent(root, ""); err != nil && !errors.Is(err, workspace.ErrNotFound) {
		return res, err
	}
	return res, nil
}

// RestartAgent restarts the workspace's agent server on the same port.
func (s *Supervisor) RestartAgent(ctx context.Context, path string) (AgentInfo, error) {
	root, err := s.reg.Root(path)
	if err != nil {
		return AgentInfo{}, err
	}
	defer s.lock(root)()
	tr, ok := s.tracked(root)
	if !ok || !s.servers[tr.typ].IsRunning(root) {
		return AgentInfo{}, fmt.Errorf("%w: %s (start it with `warden agents start opencode --workspace %s`)", agent.ErrNotRunning, root, root)
	}
	tr.p.Disconnect()
	if _, err := s.servers[tr.typ].RestartServer(ctx, root); err != nil {
		return AgentInfo{}, err
	}
	return s.Agent(root)
}

// TerminalEnv is what a new terminal in the workspace root gets from
// warden (the spec's port discovery for new terminals): the workspace's
// WARDEN_* variables and, when the workspace's agent is known, where it
// runs (WARDEN_OPENCODE_PORT and WARDEN_OPENCODE_SESSION_ID, or
// WARDEN_CLAUDE_SESSION_ID): the `env` of `warden agents --json`. It holds
// no credential.
func (s *Supervisor) TerminalEnv(root string) map[string]string {
	if tr, ok := s.tracked(root); ok {
		return tr.p.Environment()
	}
	return s.baseEnv(root)
}

// MarkActive notes the workspace's agent reached warden over MCP.
func (s *Supervisor) MarkActive(root string) {
	if tr, ok := s.tracked(root); ok {
		tr.p.MarkActive()
	}
}

// AddWorkspace registers path (a broad directory only with
// o.AllowBroad).
func (s *Supervisor) AddWorkspace(ctx context.Context, path string, o workspace.AddOptions) (workspace.Workspace, bool, error) {
	w, isNew, err := s.reg.AddWith(path, o)
	if err != nil || !isNew {
		return w, isNew, err
	}
	if err := s.recordNow(ctx, w.Path, event.WorkspaceAdded, event.WorkspaceAddedData{Name: w.Name}); err != nil {
		s.log.Warn("could not record workspace.added", "workspace", w.Path, "err", err)
	}
	return w, true, nil
}

// CreateWorkspace makes a new workspace NAME as a git worktree of the
// project holding path.
func (s *Supervisor) CreateWorkspace(ctx context.Context, project, name, base string) (workspace.Workspace, error) {
	w, err := s.reg.Create(ctx, workspace.CreateOptions{Project: project, Name: name, Base: base})
	if err != nil {
		return w, err
	}
	if err := s.recordNow(ctx, w.Path, event.WorkspaceAdded, event.WorkspaceAddedData{Name: w.Name, Project: w.Project, Branch: w.Branch, Created: true}); err != nil {
		s.log.Warn("could not record workspace.added", "workspace", w.Path, "err", err)
	}
	return w, nil
}

// RemoveWorkspace stops the workspace's agent, unregisters it and, for a
// worktree warden created, removes the worktree (force: even when dirty).
func (s *Supervisor) RemoveWorkspace(ctx context.Context, path string, force bool) (workspace.Workspace, error) {
	w, err := s.reg.Get(path)
	if err != nil {
		return w, err
	}
	if _, err := s.StopAgent(ctx, w.Path); err != nil {
		return w, fmt.Errorf("stop the workspace's agent: %w", err)
	}
	if _, err := s.reg.Delete(ctx, w.Path, force); err != nil {
		return w, err
	}
	// Its agents' credentials die with the registration (a scoped
	// credential opens only a registered workspace anyway).
	if s.opts.Credentials != nil {
		if err := s.opts.Credentials.RevokeWorkspace(ctx, w.Path); err != nil {
			s.log.Warn("could not revoke every credential of the removed workspace", "workspace", w.Path, "err", err)
		}
	}
	if err := s.recordNow(ctx, w.Path, event.WorkspaceRemoved, event.WorkspaceRemovedData{Name: w.Name, WorktreeRemoved: w.Managed}); err != nil {
		s.log.Warn("could not record workspace.removed", "workspace", w.Path, "err", err)
	}
	return w, nil
}

// SetMetadata sets (value non-nil) or deletes a metadata key; the change
// is recorded.
func (s *Supervisor) SetMetadata(ctx context.Context, path, key string, value *string) (workspace.Workspace, error) {
	w, err := s.reg.SetMetadata(path, key, value)
	if err != nil {
		return w, err
	}
	data := event.WorkspaceMetadataData{Key: key, Deleted: value == nil, Value: value}
	if err := s.recordNow(ctx, w.Path, event.WorkspaceMetadata, data); err != nil {
		s.log.Warn("could not record workspace.metadata", "workspace", w.Path, "err", err)
	}
	return w, nil
}

// Registry returns the workspace registry.
func (s *Supervisor) Registry() *workspace.Registry { return s.reg }

// WorkspaceStatus is what the MCP door's workspace.getStatus returns.
type WorkspaceStatus struct {
	Path     string            `json:"path"`
	Name     string            `json:"name"`
	Project  string            `json:"project,omitempty"`
	Branch   string            `json:"branch,omitempty"`
	Dirty    bool              `json:"dirty"`
	Agent    AgentInfo         `json:"agent"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// WorkspaceStatus returns the workspace's status: git dirty flag and agent.
func (s *Supervisor) WorkspaceStatus(ctx context.Context, root string) (WorkspaceStatus, error) {
	w, err := s.reg.Get(root)
	if err != nil {
		return WorkspaceStatus{}, err
	}
	ai := s.info(w)
	ai.Env = nil
	return WorkspaceStatus{Path: w.Path, Name: w.Name, Project: w.Project, Branch: w.Branch, Dirty: s.reg.Dirty(ctx, w.Path), Agent: ai, Metadata: w.Metadata}, nil
}

// PendingPermissions lists the agent permission requests waiting in warden,
// by workspace (for status displays).
func (s *Supervisor) PendingPermissions() map[string][]string {
	return s.bridge.pendingByWorkspace()
}
