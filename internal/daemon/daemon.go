// Package daemon runs `warden serve`: it opens the data dir, the log and the
// policy, builds the core, mounts every door on its listener, and shuts all
// of it down gracefully. Each door is an http.Handler; the daemon owns every
// listener's lifecycle.
package daemon

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/netguard"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/protocol/control"
	"github.com/warden-dev/warden/internal/protocol/hooks"
	"github.com/warden-dev/warden/internal/protocol/monitor"
	"github.com/warden-dev/warden/internal/store/sqlite"
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

// Config is everything `warden serve` needs.
type Config struct {
	// DataDir holds the log, token, socket and runtime files.
	DataDir string
	// PolicyFile is a policy file; "" uses the built-in default.
	PolicyFile string
	// PolicyEnv tells the policy about home, temp and protected dirs.
	PolicyEnv policy.Env
	// Listeners maps door name to address; "" switches the door off.
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
	// Ready, if set, is called once every listener is bound.
	Ready func(Runtime)
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

	token, err := ensureToken(filepath.Join(cfg.DataDir, admin.TokenName))
	if err != nil {
		return err
	}
	pol, policyName, err := loadPolicy(cfg.PolicyFile, cfg.PolicyEnv)
	if err != nil {
		return err
	}
	logPath := filepath.Join(cfg.DataDir, LogName)
	st, err := sqlite.Open(logPath)
	if err != nil {
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

	rt := Runtime{
		PID: os.Getpid(), Version: cfg.Version, Started: time.Now().UTC(), DataDir: cfg.DataDir,
		Socket: filepath.Join(cfg.DataDir, admin.SocketName), Listeners: map[string]string{}, Policy: policyName,
	}
	hookDoor := hooks.NewHandler(c, token, logger)
	// Claude Code events spooled while warden was down go in first, before
	// any door accepts newer ones.
	spool := hooks.NewIngester(hookDoor, filepath.Join(cfg.DataDir, hooks.SpoolDirName))
	if n, err := spool.Ingest(ctx); err != nil {
		logger.Warn("could not ingest the whole hook spool; will retry", "ingested", n, "err", err)
	} else if n > 0 {
		logger.Info("ingested spooled Claude Code events", "count", n)
	}
	ctlLogger := logger
	if cfg.Control.Logging.LogToFile {
		// control.logging.logToFile: the door's records also go to
		// control.log in the data dir, at the door's own level
		f, err := os.OpenFile(filepath.Join(cfg.DataDir, "control.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("control.logging.logToFile: %w", err)
		}
		defer f.Close()
		level := slog.LevelInfo
		_ = level.UnmarshalText([]byte(cfg.Control.Logging.Level))
		ctlLogger = slog.New(slog.NewMultiHandler(logger.Handler(), slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level})))
	}
	ctl, err := control.New(control.Options{
		Core: c, Settings: cfg.Control, Token: token, Workspace: cfg.ControlWorkspace, Logger: ctlLogger,
	})
	if err != nil {
		return err
	}
	defer ctl.Close()
	handlers := map[string]http.Handler{
		"monitor": monitor.NewHandler(c, logger),
		"hooks":   hookDoor,
		"health":  healthHandler(cfg.Version),
		"control": ctl,
	}
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
	names := make([]string, 0, len(cfg.Listeners))
	for name := range cfg.Listeners {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		addr := cfg.Listeners[name]
		if addr == "" {
			logger.Info("listener switched off", "door", name)
			continue
		}
		h, ok := handlers[name]
		if !ok {
			closeAll()
			return fmt.Errorf("unknown listener %q", name)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			closeAll()
			if errors.Is(err, syscall.EADDRINUSE) {
				return fmt.Errorf("%s listener: address %s is already in use (is another warden running? choose another with --%s-addr, or --%s-addr= to switch it off)", name, addr, name, name)
			}
			return fmt.Errorf("%s listener on %s: %w", name, addr, err)
		}
		servers = append(servers, bound{name, ln, h})
		rt.Listeners[name] = ln.Addr().String()
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
	adm := &admin.Server{Core: c, Token: token, Logger: logger, Status: func() admin.Status {
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
			Handler:           b.h,
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
	if cfg.Ready != nil {
		cfg.Ready(rt)
	}
	spoolCtx, stopSpool := context.WithCancel(ctx)
	spoolDone := make(chan struct{})
	go func() {
		defer close(spoolDone)
		spool.Run(spoolCtx, SpoolInterval)
	}()
	defer func() { stopSpool(); <-spoolDone }()

	var runErr error
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case runErr = <-errc:
		logger.Error("listener failed; shutting down", "err", runErr)
	}
	// Calls waiting for a person are blocked now, with that reason recorded.
	c.CancelPending(context.Background(), "warden is shutting down")
	// control clients are told (server.shutdown) before their sockets close
	ctl.Close()
	shutCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		// Streams (events --follow) never finish on their own.
		select {
		case <-time.After(2 * time.Second):
			cancelBase()
		case <-shutCtx.Done():
		}
	}()
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

// ensureToken reads the token file, creating it (mode 0600) on first run.
func ensureToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		if tok := strings.TrimSpace(string(b)); tok != "" {
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
				if err := os.Chmod(path, 0o600); err != nil {
					return "", fmt.Errorf("token %s is readable by others and cannot be fixed: %w", path, err)
				}
			}
			return tok, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read token: %w", err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	tok := hex.EncodeToString(raw[:])
	if err := os.WriteFile(path, []byte(tok+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token: %w", err)
	}
	return tok, nil
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
