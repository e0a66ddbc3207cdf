// Package daemon runs `warden serve`: it opens the data dir, the log and the
// policy, builds the core, mounts every door on its listener, and shuts all
// of it down gracefully. Each door is an http.Handler; the daemon owns every
// listener's lifecycle.
package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warden-dev/warden/internal/atomicfile"
	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/confine"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/protocol/control"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/sandbox"
	"github.com/warden-dev/warden/internal/store/sqlite"
	"github.com/warden-dev/warden/internal/workspace"
)

// File names inside the data dir.
const (
	LogName     = "events.db"
	LockName    = "warden.lock"
	RuntimeName = "daemon.json"
	OverlayName = "policy-overlay.yaml"
)

// SpoolInterval is how often the daemon ingests Claude Code hook events
// that `warden hook claude` spooled while it could not reach the daemon.
const SpoolInterval = 2 * time.Second

// ShutdownGrace is how long in-flight requests may finish on their own at
// shutdown before their contexts are canceled; ShutdownTimeout bounds the
// whole shutdown of the doors.
const (
	ShutdownGrace   = 2 * time.Second
	ShutdownTimeout = 10 * time.Second
)

// Config is everything `warden serve` needs.
type Config struct {
	// DataDir holds the log, token, socket and runtime files.
	DataDir string
	// PolicyFile is a policy file; "" uses the built-in default.
	PolicyFile string
	// PolicyEnv tells the policy about home, temp and protected dirs.
	PolicyEnv policy.Env
	// Listeners maps door name to address; "" switches the door off, a
	// door not named listens on its DefaultAddr (see Listeners).
	Listeners map[string]string
	// ApprovalTimeout is the deadline of an "ask".
	ApprovalTimeout time.Duration
	// Version is reported by /health and status.
	Version string
	// Logger receives operational logs.
	Logger *slog.Logger
	// Control configures the control door; ControlWorkspace is the
	// workspace it serves to clients that name none.
	Control          config.Control
	ControlWorkspace string
	// AgentBinaries are configured agent program paths; NpmDirs are extra
	// node_modules folders to look for agent packages in.
	AgentBinaries map[agent.Type]string
	NpmDirs       []string
	// AgentSandbox is the global setting of confinement for external
	// agents (the config file's agentSandbox, default on): allowed shell
	// calls of OpenCode's plugin and Claude Code's hook are rewritten to run
	// under `warden sandbox` where the kernel has Landlock. A workspace's
	// metadata key warden.sandbox (on|off) overrides it.
	AgentSandbox bool
	// Reload, when it delivers (SIGHUP), makes the daemon read its
	// configuration again through Reconfigure and apply what can change
	// while it runs (the policy file's rules); what needs a restart is said
	// in the log.
	Reload <-chan struct{}
	// Reconfigure returns the configuration as it would be built now (the
	// config file and flags read again); nil reloads the policy file only.
	Reconfigure func() (Config, error)
	// Embedder, when set, gives the workspaces' code indexes vectors (the
	// config file's index.vectors); nil: text only.
	Embedder index.Embedder
	// Models are the model providers warden's own agent may use (the
	// Agent API door); nil means none is configured.
	Models *provider.Registry
	// Limits bound what one client may hold of a door (request body read
	// timeout, unauthenticated control connections).
	Limits config.Limits
	// LogSettings are the settings Logger was built from. On reload a new
	// level takes effect at once through LogLevel; a new format needs a
	// restart.
	LogSettings config.Log
	// NewLog starts a new, empty event log when the log file is missing or
	// empty although the data dir shows an earlier one (warden serve
	// --new-log): the stale generation marker and -wal/-shm files are kept
	// beside, renamed. A log with content is never replaced.
	NewLog bool
	// LogLevel is the level Logger's handler reads (ParseLogLevel of
	// LogSettings.Level); nil: a level change needs a restart too.
	LogLevel *slog.LevelVar
	// Ready, if set, is called once every listener is bound.
	Ready func(Runtime)
}

// ParseLogLevel is the slog level of a config's log.level (debug, info,
// warn, error; anything else is info).
func ParseLogLevel(s string) slog.Level {
	switch s {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// Runtime describes a running daemon; it is written to daemon.json in the
// data dir so other commands can find it.
type Runtime struct {
	PID       int               `json:"pid"`
	Version   string            `json:"version"`
	Started   time.Time         `json:"started"`
	DataDir   string            `json:"dataDir"`
	Socket    string            `json:"socket"`
	Listeners map[string]string `json:"listeners"`
	Policy    string            `json:"policy"`
}

// Run serves until ctx ends, then shuts down gracefully: listeners stop
// accepting, in-flight requests finish (waiting approvals are resolved as
// canceled, so their calls are blocked), and the log is flushed and closed.
func Run(ctx context.Context, cfg Config) (err error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	unlock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return err
	}
	defer unlock()

	// No process warden starts (agent servers, terminals, language
	// servers, debuggers) inherits a token from the daemon's own
	// environment.
	if _, ok := os.LookupEnv("WARDEN_TOKEN"); ok {
		logger.Warn("WARDEN_TOKEN is set in warden serve's environment; removed so no agent inherits it (warden reads its token from the data dir)")
		if err := os.Unsetenv("WARDEN_TOKEN"); err != nil {
			return fmt.Errorf("unset WARDEN_TOKEN: %w", err)
		}
	}
	// The doors' own keys: answers are signed, hook requests are MACed, so
	// the hook command and the OpenCode plugin know they talk to warden.
	doorKeys, err := proof.EnsureKeys(cfg.DataDir)
	if err != nil {
		return err
	}
	pol, policyName, err := loadPolicy(cfg.PolicyFile, cfg.PolicyEnv)
	if err != nil {
		return err
	}
	logPath := filepath.Join(cfg.DataDir, LogName)
	// The start-up integrity check: SQLite's quick_check, dense seqs, and
	// the generation marker (a log emptied, removed or replaced while the
	// data dir shows history is refused, never silently started afresh).
	// An earlier warden without a marker left its admin token behind, and
	// something only a daemon that ran writes (the workspace registry, the
	// overlay, agent configs): a token alone may be a person's provisioning.
	history := RanHere(cfg.DataDir)
	if cfg.NewLog {
		fresh, err := startNewLog(cfg.DataDir, logger)
		if err != nil {
			return err
		}
		history = history && !fresh
	}
	st, err := sqlite.Open(logPath, sqlite.WithLogger(logger),
		sqlite.WithGeneration(filepath.Join(cfg.DataDir, sqlite.GenerationName)),
		sqlite.WithHistory(history))
	if err != nil {
		var ie *sqlite.IntegrityError
		if errors.As(err, &ie) {
			return err
		}
		return fmt.Errorf("open event log %s: %w", logPath, err)
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close event log: %w", cerr)
		}
	}()
	c, err := core.New(core.Config{
		Log: st, Policy: pol, ApprovalTimeout: cfg.ApprovalTimeout,
		OverlayPath: filepath.Join(cfg.DataDir, OverlayName), Logger: logger,
	})
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	// The admin credential (<data-dir>/token) and the scoped agent
	// credentials; mints and revocations are recorded in the log.
	creds, err := credential.Open(credential.Options{
		Dir: cfg.DataDir, Record: c.Record, Logger: logger.With("part", "credentials"),
	})
	if err != nil {
		return err
	}

	rt := Runtime{
		PID: os.Getpid(), Version: cfg.Version, Started: time.Now().UTC(), DataDir: cfg.DataDir,
		Socket: filepath.Join(cfg.DataDir, admin.SocketName), Listeners: map[string]string{}, Policy: policyName,
	}
	machine, err := sandbox.CurrentMachine(cfg.DataDir, configDir())
	if err != nil {
		return err
	}
	reg, err := workspace.Open(filepath.Join(cfg.DataDir, workspace.FileName), workspace.Options{
		Home: cfg.PolicyEnv.Home, Protected: append([]string{cfg.DataDir}, cfg.PolicyEnv.ProtectedDirs...),
		// a directory the kernel sandbox could not open without exposing a
		// secret location (~/.ssh, another agent's config) is no workspace
		Refuse: func(root string) string {
			if _, err := sandbox.Build(c.Policy().Sandbox(), machine, root); err != nil {
				return err.Error()
			}
			return ""
		},
	})
	if err != nil {
		return err
	}
	if cfg.ControlWorkspace != "" {
		if _, _, err := reg.Add(cfg.ControlWorkspace); err != nil {
			logger.Warn("the current directory is not registered as a workspace; doors serve registered workspaces only (warden workspace add DIR)", "dir", cfg.ControlWorkspace, "err", err)
		}
	}
	// made once: the terminals' Launcher and the agents' rewrite share it
	kept, keptErr := confinerExe(cfg.DataDir)
	confiner := kept
	if keptErr != nil {
		// sandbox.CommandWith still refuses a program a confined command
		// could replace
		logger.Warn("confined commands start through warden's own program", "err", keptErr)
		confiner, _ = os.Executable()
	}

	// Every door's listener is bound first: agents are told where the doors
	// are, so the supervisor needs the bound addresses.
	type bound struct {
		name string
		ln   net.Listener
		h    http.Handler
	}
	var servers []bound
	closeAll := func() {
		for _, b := range servers {
			b.ln.Close()
		}
	}
	known := DoorNames()
	for name := range cfg.Listeners {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown listener %q (known: %v)", name, known)
		}
	}
	for _, spec := range Doors() {
		addr, ok := cfg.Listeners[spec.Name]
		if !ok {
			addr = spec.DefaultAddr
		}
		if addr == "" {
			reason := "its address is empty (listeners: or --" + spec.Name + "-addr=)"
			if spec.Off != nil {
				if r := spec.Off(cfg); r != "" {
					reason = r
				}
			}
			logger.Info("listener switched off", "door", spec.Name, "reason", reason)
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll()
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("%s listener: address %s is already in use (is another warden running? choose another with --%s-addr, or --%s-addr= to switch it off)", spec.Name, addr, spec.Name, spec.Name)
			}
			return fmt.Errorf("%s listener on %s: %w", spec.Name, addr, err)
		}
		servers = append(servers, bound{name: spec.Name, ln: ln})
		rt.Listeners[spec.Name] = ln.Addr().String()
	}

	sv, err := supervisor.New(supervisor.Options{
		Core: c, Registry: reg, Logger: logger.With("part", "supervisor"),
		AgentDir: filepath.Join(cfg.DataDir, "agents"),
		Env:      agentEnv(rt, cfg.DataDir), HookPort: portOf(rt.Listeners["hooks"]),
		Credentials: agentCredentials{creds},
		Binaries:    cfg.AgentBinaries, NpmDirs: cfg.NpmDirs,
	})
	if err != nil {
		closeAll()
		return err
	}
	// One operations layer for every door: one set of services (file
	// system, editor, language servers, git, terminals, debuggers) per
	// registered workspace. New terminals learn where the workspace's agent
	// runs from the supervisor (WARDEN_OPENCODE_PORT, ...), through a
	// hook: the operations layer does not know the supervisor.
	opsSvc, err := ops.New(ops.Options{
		Core: c, Registry: reg, Logger: logger.With("part", "ops"),
		Launcher:     sandboxLauncher{core: c, machine: machine, exe: confiner, guarded: append([]string{cfg.PolicyFile}, cfg.PolicyEnv.PolicyFiles...)},
		WorkspaceEnv: sv.TerminalEnv,
		IndexDir:     filepath.Join(cfg.DataDir, "index"),
		// shell calls run under warden's own guard (internal/reaper)
		ExecGuard: confiner,
		Embedder:  cfg.Embedder,
	})
	if err != nil {
		closeAll()
		return err
	}
	// Every registered workspace's code index starts now (in the
	// background), so the first search does not wait for a build.
	for _, ws := range reg.List() {
		if _, err := opsSvc.Workspace(ws.Path); err != nil {
			logger.Warn("starting a workspace's services", "workspace", ws.Path, "err", err)
		}
	}
	defer func() {
		if cerr := opsSvc.Close(); cerr != nil {
			logger.Warn("stopping workspace services", "err", cerr)
		}
	}()
	models := cfg.Models
	if models == nil {
		models = provider.NewRegistry()
	}
	deps := &Deps{
		Ctx: ctx, Config: cfg, Core: c, Ops: opsSvc, Credentials: creds, Supervisor: sv, Keys: doorKeys, Models: models,
		Runtime: rt, Confiner: agentConfiner(c, sv, cfg, kept, keptErr, logger), Logger: logger, built: map[string]Door{},
	}
	var built []Door
	closeDoors := sync.OnceFunc(func() {
		for _, d := range built {
			if err := d.Close(); err != nil {
				logger.Warn("closing a door", "err", err)
			}
		}
	})
	// Doors are closed before the listeners' in-flight requests are waited
	// for (below); this is for a start that fails half way.
	defer closeDoors()
	for _, spec := range Doors() {
		d, err := spec.New(deps)
		if err != nil {
			closeAll()
			return fmt.Errorf("%s door: %w", spec.Name, err)
		}
		deps.built[spec.Name] = d
		built = append(built, d)
	}
	for i := range servers {
		servers[i].h = deps.built[servers[i].name]
	}
	_ = os.Remove(rt.Socket) // a stale socket of a dead daemon; the lock says none runs
	sockLn, err := net.Listen("unix", rt.Socket)
	if err != nil {
		closeAll()
		return fmt.Errorf("admin socket %s: %w", rt.Socket, err)
	}
	if err := os.Chmod(rt.Socket, 0o600); err != nil {
		sockLn.Close()
		closeAll()
		return fmt.Errorf("admin socket %s: %w", rt.Socket, err)
	}
	adm := &admin.Server{Core: c, Credentials: creds, Logger: logger, Supervisor: sv, Status: func() admin.Status {
		return admin.Status{Version: rt.Version, PID: rt.PID, Started: rt.Started, DataDir: rt.DataDir, Listeners: rt.Listeners, Policy: rt.Policy}
	}}
	servers = append(servers, bound{"admin", sockLn, adm.Handler()})

	// Requests get a base context that outlives Shutdown's first phase but
	// is canceled if handlers overstay, so nothing blocks shutdown forever.
	baseCtx, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	errc := make(chan error, len(servers))
	var srvs []*http.Server
	for _, b := range servers {
		srv := &http.Server{
			// no ReadTimeout: it would also cancel long-lived streams
			// (events --follow, MCP, WebSockets); bodies get their own
			// deadline instead
			Handler:           bodyDeadline(b.h, cfg.Limits.BodyRead()),
			ReadHeaderTimeout: 10 * time.Second,
			IdleTimeout:       120 * time.Second,
			BaseContext:       func(net.Listener) context.Context { return baseCtx },
			ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		}
		srvs = append(srvs, srv)
		go func(name string, ln net.Listener) {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s listener: %w", name, err)
			}
		}(b.name, b.ln)
		logger.Info("listening", "door", b.name, "addr", b.ln.Addr().String())
	}
	if err := writeRuntime(filepath.Join(cfg.DataDir, RuntimeName), rt); err != nil {
		logger.Warn("could not write runtime file", "err", err)
	}
	defer os.Remove(filepath.Join(cfg.DataDir, RuntimeName))
	logger.Info("warden is serving", "version", cfg.Version, "dataDir", cfg.DataDir, "policy", policyName, "pid", rt.PID)
	sandbox.LogSupport(ctx, logger) // what the kernel cannot enforce, said at start
	if cfg.Ready != nil {
		cfg.Ready(rt)
	}
	svCtx, stopSupervisor := context.WithCancel(context.WithoutCancel(ctx))
	svDone := make(chan struct{})
	go func() {
		defer close(svDone)
		if err := sv.Run(svCtx); err != nil {
			logger.Error("agent supervisor stopped", "err", err)
		}
	}()
	// Agent servers stop after the doors (deferred calls run last first).
	defer func() { stopSupervisor(); <-svDone }()

	var runErr error
	running := cfg
serve:
	for {
		select {
		case <-ctx.Done():
			logger.Info("shutting down")
			break serve
		case runErr = <-errc:
			logger.Error("listener failed; shutting down", "err", runErr)
			break serve
		case <-cfg.Reload:
			running = reload(c, running, logger)
		}
	}
	// Shutdown is bounded (ShutdownTimeout) however stuck a request is:
	// after ShutdownGrace every in-flight request's context is canceled
	// (streams such as events --follow never finish on their own; a long
	// search stops), and whatever still runs at the deadline is abandoned.
	shutCtx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	grace := time.AfterFunc(ShutdownGrace, cancelBase)
	defer grace.Stop()
	// Calls waiting for a person are blocked now, with that reason recorded.
	c.CancelPending(shutCtx, "warden is shutting down")
	// Each door lets its long-lived clients go (control clients are told
	// server.shutdown; MCP sessions hold streams Shutdown would wait on).
	closed := make(chan struct{})
	go func() { closeDoors(); close(closed) }()
	select {
	case <-closed:
	case <-shutCtx.Done():
		logger.Warn("doors did not close in time; abandoning their requests", "timeout", ShutdownTimeout)
	}
	for _, srv := range srvs {
		if err := srv.Shutdown(shutCtx); err != nil {
			logger.Warn("shutdown", "err", err)
			srv.Close()
		}
	}
	os.Remove(rt.Socket)
	return runErr
}

func healthHandler(version string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if reason := netguard.Check(r); reason != "" {
			http.Error(w, "Forbidden: "+reason, http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok", "version": version})
	})
	return mux
}

func loadPolicy(file string, env policy.Env) (*policy.Policy, string, error) {
	if file == "" {
		p, err := policy.Default(env)
		if err != nil {
			return nil, "", fmt.Errorf("built-in policy: %w", err)
		}
		return p, "built-in default", nil
	}
	p, err := policy.LoadFile(file, env)
	if err != nil {
		return nil, "", fmt.Errorf("policy %s: %w (check it with: warden policy check %s)", file, err, file)
	}
	return p, file, nil
}

func writeRuntime(path string, rt Runtime) error {
	b, err := json.MarshalIndent(rt, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// ReadRuntime reads the runtime file of a running daemon.
func ReadRuntime(dataDir string) (Runtime, error) {
	var rt Runtime
	b, err := os.ReadFile(filepath.Join(dataDir, RuntimeName))
	if err != nil {
		return rt, err
	}
	return rt, json.Unmarshal(b, &rt)
}

// LockDataDir takes the data dir's daemon lock (what warden serve holds),
// for commands that write the log without a daemon (warden events import).
// It fails when a daemon runs there. Call the returned func to release it.
func LockDataDir(dir string) (func(), error) { return lockDataDir(dir) }

// lockDataDir takes an exclusive lock so two daemons never share a log.
func lockDataDir(dir string) (func(), error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		pid := ""
		if rt, rerr := ReadRuntime(dir); rerr == nil {
			pid = fmt.Sprintf(" (pid %d)", rt.PID)
		}
		return nil, fmt.Errorf("another warden is already running with data dir %s%s: stop it first, or use --data-dir", dir, pid)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// agentEnv is the WARDEN_* environment every supervised agent gets: where
// warden's doors are, never a credential (docs/protocols.md maps these to
// the spec's CODEHYDRA_* names). The agent's scoped credential goes into
// its generated config only.
func agentEnv(rt Runtime, dataDir string) map[string]string {
	env := map[string]string{"WARDEN_DATA_DIR": dataDir}
	for _, d := range Doors() {
		if a := rt.Listeners[d.Name]; a != "" && d.AgentEnv != nil {
			maps.Copy(env, d.AgentEnv(a))
		}
	}
	return env
}

func portOf(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(p)
	return n
}

// agentCredentials mints the scoped credentials of supervised agents'
// configs.
type agentCredentials struct{ s *credential.Store }

func (a agentCredentials) AgentToken(ctx context.Context, root string, t agent.Type) (string, error) {
	m, err := a.s.Mint(ctx, root, string(t))
	return m.Token, err
}

func (a agentCredentials) RevokeWorkspace(ctx context.Context, root string) error {
	_, err := a.s.RevokeWorkspace(ctx, root)
	return err
}

// sandboxLauncher confines what warden starts for agents (terminal shells)
// with the kernel sandbox: the policy's sandbox: section, read at each
// start. Where the section switches the sandbox off, or the kernel has no
// Landlock (said at start by sandbox.LogSupport), the shell runs
// unconfined and the policy alone judges what is typed into it.
type sandboxLauncher struct {
	core    *core.Core
	machine sandbox.Machine
	// exe is the program that confines (confinerExe)
	exe string
	// guarded are the files that decide what agents may do (the policy
	// file): a shell that could rewrite one is not started
	guarded []string
}

func (l sandboxLauncher) Command(ctx context.Context, root, name string, args ...string) (*exec.Cmd, error) {
	cfg := l.core.Policy().Sandbox()
	if !cfg.IsEnabled() || !sandbox.Detect().Enforced() {
		return exec.CommandContext(ctx, name, args...), nil
	}
	p, err := sandbox.Build(cfg, l.machine, root)
	if err != nil {
		return nil, fmt.Errorf("%w: sandbox profile for %s: %w", ops.ErrCannotConfine, root, err)
	}
	for _, f := range l.guarded {
		if f == "" {
			continue
		}
		if g, ok := p.Writable(f); ok {
			return nil, fmt.Errorf("%w: %s, which decides what agents may do, is writable inside the sandbox of %s (under %s, %s): keep it outside the workspace and the temp dirs", ops.ErrCannotConfine, f, root, g.Path, g.Why)
		}
	}
	return sandbox.CommandWith(ctx, l.exe, p, append([]string{name}, args...))
}

// startNewLog makes way for a new, empty log (--new-log) when the log file
// is missing or empty: the generation marker and any -wal/-shm files of the
// lost log are renamed with a ".replaced-TIME" suffix (a stale WAL must
// never be replayed into a new file). It reports whether it did; a log
// with content is left alone (and judged as always).
func startNewLog(dataDir string, logger *slog.Logger) (bool, error) {
	logPath := filepath.Join(dataDir, LogName)
	fi, err := os.Stat(logPath)
	switch {
	case err == nil && fi.Size() > 0:
		logger.Warn("--new-log: the event log holds data; it is never replaced (move it aside first to start a new one)", "log", logPath)
		return false, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("--new-log: %w", err)
	}
	suffix := ".replaced-" + time.Now().UTC().Format("20060102T150405Z")
	for _, p := range []string{filepath.Join(dataDir, sqlite.GenerationName), logPath + "-wal", logPath + "-shm"} {
		err := os.Rename(p, p+suffix)
		switch {
		case err == nil:
			logger.Warn("--new-log: kept what the lost log left beside it", "file", p+suffix)
		case !errors.Is(err, os.ErrNotExist):
			return false, fmt.Errorf("--new-log: %w", err)
		}
	}
	logger.Warn("--new-log: starting a new, empty event log", "log", logPath)
	return true, nil
}

// RanHere reports whether dataDir shows that a warden daemon ran in it
// before the log's generation marker existed: its admin token, and a file
// only a running daemon writes.
func RanHere(dataDir string) bool {
	if _, err := os.Stat(filepath.Join(dataDir, "token")); err != nil {
		return false
	}
	for _, name := range []string{workspace.FileName, OverlayName, "agents", "spool", "credentials.json"} {
		if _, err := os.Stat(filepath.Join(dataDir, name)); err == nil {
			return true
		}
	}
	return false
}

// ConfinerName is where, in the data dir, the daemon keeps the copy of
// its program that confined commands are started through.
const ConfinerName = "bin/warden"

// confinerExe returns the program confined commands are started through: a
// copy of this one in the data dir, which no confined command can reach
// (the running executable may lie under a writable grant: a `go run`
// build in /tmp, a binary in the workspace; a confined command that
// replaced it would run the next one unconfined). The copy is made anew at
// every start, so it is always this daemon's program.
func confinerExe(dataDir string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find warden's own program: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		return "", fmt.Errorf("read warden's own program %s: %w", exe, err)
	}
	dst := filepath.Join(dataDir, ConfinerName)
	if cur, err := os.ReadFile(dst); err == nil && bytes.Equal(cur, b) {
		return dst, nil
	}
	if err := atomicfile.Write(dst, b, 0o700, 0o700); err != nil {
		return "", fmt.Errorf("copy warden's program into the data dir: %w", err)
	}
	return dst, nil
}

// configDir is warden's config dir (that of the default config file), as
// `warden sandbox` finds it.
func configDir() string {
	if def := config.DefaultConfigFile(); def != "" {
		return filepath.Dir(def)
	}
	return ""
}

// mcpWorkspaces serves the MCP door's workspace tools from the supervisor.
type mcpWorkspaces struct{ sv *supervisor.Supervisor }

func (m mcpWorkspaces) Lookup(path string) (string, bool) { return m.sv.Registry().Lookup(path) }

func (m mcpWorkspaces) Status(ctx context.Context, root string) (any, error) {
	return m.sv.WorkspaceStatus(ctx, root)
}

func (m mcpWorkspaces) Metadata(_ context.Context, root string) (map[string]string, error) {
	w, err := m.sv.Registry().Get(root)
	if err != nil {
		return nil, err
	}
	if w.Metadata == nil {
		return map[string]string{}, nil
	}
	return w.Metadata, nil
}

func (m mcpWorkspaces) SetMetadata(ctx context.Context, root, key string, value *string) error {
	if strings.HasPrefix(key, confine.ReservedPrefix) {
		// warden.sandbox and its kind switch what confines the agent: only
		// a person sets them, with the CLI (the admin door).
		return fmt.Errorf("metadata key %q is warden's own: set it with `warden workspace meta %s VALUE`, not through an agent", key, key)
	}
	_, err := m.sv.SetMetadata(ctx, root, key, value)
	return err
}

func (m mcpWorkspaces) Create(ctx context.Context, root, name, base string) (string, error) {
	w, err := m.sv.CreateWorkspace(ctx, root, name, base)
	return w.Path, err
}

func (m mcpWorkspaces) Delete(ctx context.Context, root string) error {
	_, err := m.sv.RemoveWorkspace(ctx, root, false)
	return err
}

func (m mcpWorkspaces) MarkActive(root string) { m.sv.MarkActive(root) }

// controlCommands runs the MCP door's workspace.executeCommand through the
// control door's command registry.
type controlCommands struct{ ctl *control.Server }

func (c controlCommands) Execute(ctx context.Context, root, command string, args []json.RawMessage) (json.RawMessage, error) {
	return c.ctl.ExecuteCommand(ctx, root, "mcp", command, args)
}

// agentConfiner is the rule that rewrites external agents' allowed shell
// calls to run under `warden sandbox` (package confine): exe (the data
// dir's copy of this binary, or err when it could not be made), the
// daemon's data dir and policy file, the global setting, the workspace's
// warden.sandbox metadata, and whether this kernel enforces Landlock.
func agentConfiner(c *core.Core, sv *supervisor.Supervisor, cfg Config, exe string, err error, logger *slog.Logger) *confine.Rule {
	support := sandbox.Detect()
	switch {
	case err != nil:
		logger.Warn("agents' shell calls are not confined: warden cannot find its own program", "err", err)
		return nil
	case !support.Enforced():
		logger.Warn("agents' shell calls are not confined: this kernel has no Landlock", "support", support.String())
		return nil
	}
	extra := []string{"--data-dir", cfg.DataDir}
	if cfg.PolicyFile != "" {
		extra = append(extra, "--policy", cfg.PolicyFile)
	}
	reg := sv.Registry()
	logger.Info("agents' allowed shell calls run under warden sandbox", "default", cfg.AgentSandbox, "workspaceKey", confine.MetadataKey)
	return &confine.Rule{
		Recorder: c, Exe: exe, ExtraArgs: extra, Default: cfg.AgentSandbox, Supported: true,
		Line: sandbox.ShellLine,
		Setting: func(ws string) string {
			root, ok := reg.Lookup(ws)
			if !ok {
				return ""
			}
			w, err := reg.Get(root)
			if err != nil {
				return ""
			}
			return w.Metadata[confine.MetadataKey]
		},
	}
}
