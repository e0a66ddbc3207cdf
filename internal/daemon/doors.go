package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/confine"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/protocol/agentapi"
	"github.com/warden-dev/warden/internal/protocol/control"
	"github.com/warden-dev/warden/internal/protocol/hooks"
	"github.com/warden-dev/warden/internal/protocol/mcp"
	"github.com/warden-dev/warden/internal/protocol/monitor"
	"github.com/warden-dev/warden/internal/provider"
)

// Door is one wire protocol, served on its own TCP listener: an
// http.Handler the daemon mounts, and a Close the daemon calls once when it
// shuts down, after the door's listener stopped accepting and before
// in-flight requests are waited for. Close tells the door's long-lived
// clients (streams, WebSockets) to go and stops the door's own background
// work; it must not block on requests that are still running.
type Door interface {
	http.Handler
	Close() error
}

// DoorSpec registers a door: its name (the key of the config file's
// listeners: map and of the --NAME-addr flag), its default address, and its
// constructor from the daemon's dependencies. Adding a door is one entry in
// Doors and the door's own package.
type DoorSpec struct {
	// Name names the door in the config, the flags, daemon.json and logs.
	Name string
	// DefaultAddr is where the door listens when neither the config nor a
	// flag says otherwise.
	DefaultAddr string
	// Addr, if set, adjusts the address from the door's own settings in the
	// config file (control.host/port).
	Addr func(addr string, cfg config.Config) string
	// Off, if set, says why the door's own settings switch its listener
	// off ("" when they do not), for the log.
	Off func(cfg Config) string
	// AgentEnv, if set, is the WARDEN_* environment that tells a
	// supervised agent where the door listens (addr: its bound address).
	AgentEnv func(addr string) map[string]string
	// New builds the door. Every door is built, even one whose listener is
	// switched off: other doors may use it (the MCP door runs the control
	// door's commands) and its background work (the hook spool) still runs.
	New func(*Deps) (Door, error)
}

// Deps are the daemon's parts a door's constructor may use.
type Deps struct {
	// Ctx ends when the daemon shuts down.
	Ctx         context.Context
	Config      Config
	Core        *core.Core
	Ops         *ops.Service
	Credentials *credential.Store
	Supervisor  *supervisor.Supervisor
	// Models are the model providers of warden's own agent.
	Models *provider.Registry
	Keys   proof.Keys
	// Runtime has the bound address of every listener.
	Runtime Runtime
	// Confiner rewrites agents' allowed shell calls (nil: not confined).
	Confiner *confine.Rule
	Logger   *slog.Logger

	built map[string]Door
}

// door returns a door built before the one being built (registry order).
func (d *Deps) door(name string) Door { return d.built[name] }

// Doors is the registry of the doors this build serves, in the order they
// are built.
func Doors() []DoorSpec {
	return []DoorSpec{
		{Name: "agent", DefaultAddr: config.DefaultAgentAddr, New: newAgentDoor},
		{Name: "control", DefaultAddr: config.DefaultControlAddr, Addr: controlAddr, Off: controlOff, New: newControlDoor,
			AgentEnv: func(a string) map[string]string {
				return map[string]string{"WARDEN_CONTROL_PORT": strconv.Itoa(portOf(a))}
			}},
		{Name: "health", DefaultAddr: config.DefaultHealthAddr, New: newHealthDoor},
		{Name: "hooks", DefaultAddr: config.DefaultHooksAddr, New: newHooksDoor,
			AgentEnv: func(a string) map[string]string {
				return map[string]string{"WARDEN_HOOKS_PORT": strconv.Itoa(portOf(a))}
			}},
		{Name: "mcp", DefaultAddr: config.DefaultMCPAddr, New: newMCPDoor,
			AgentEnv: func(a string) map[string]string {
				return map[string]string{"WARDEN_MCP_PORT": strconv.Itoa(portOf(a)), "WARDEN_MCP_URL": "http://" + a + "/mcp"}
			}},
		{Name: "monitor", DefaultAddr: config.DefaultMonitorAddr, New: newMonitorDoor,
			// what warden's OpenCode plugin posts to
			AgentEnv: func(a string) map[string]string {
				return map[string]string{"WARDEN_MONITOR_URL": "http://" + a + monitor.Path}
			}},
	}
}

// DoorNames returns the names of the registered doors.
func DoorNames() []string {
	var names []string
	for _, d := range Doors() {
		names = append(names, d.Name)
	}
	return names
}

// Listeners returns every door's address: its default, then the config
// file's listeners: entry and the door's own settings, then flags (a name
// in flags wins, "" switches the door off). A name that no door has is an
// error.
func Listeners(cfg config.Config, flags map[string]string) (map[string]string, error) {
	if err := cfg.CheckListeners(DoorNames()); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, d := range Doors() {
		addr := d.DefaultAddr
		if a, ok := cfg.Listeners[d.Name]; ok {
			addr = a
		}
		if addr != "" && d.Addr != nil {
			addr = d.Addr(addr, cfg)
		}
		if a, ok := flags[d.Name]; ok {
			addr = a
		}
		out[d.Name] = addr
	}
	for name := range flags {
		if _, ok := out[name]; !ok {
			return nil, fmt.Errorf("unknown listener %q (known: %v)", name, DoorNames())
		}
	}
	return out, nil
}

// closer adapts a handler with no background work of its own to Door.
type closer struct{ http.Handler }

func (closer) Close() error { return nil }

func controlAddr(addr string, cfg config.Config) string { return control.Addr(addr, cfg.Control) }

func controlOff(cfg Config) string {
	if !cfg.Control.On() {
		return "control.enabled is false in the config file"
	}
	return ""
}

// controlDoor is the control door and the log file of its own records.
type controlDoor struct {
	*control.Server
	logFile *os.File
}

func (c controlDoor) Close() error {
	err := c.Server.Close()
	if c.logFile != nil {
		err = errors.Join(err, c.logFile.Close())
	}
	return err
}

func newControlDoor(d *Deps) (Door, error) {
	cfg := d.Config
	ctlLogger := d.Logger
	var f *os.File
	if cfg.Control.Logging.LogToFile {
		// control.logging.logToFile: the door's records also go to
		// control.log in the data dir, at the door's own level
		var err error
		f, err = os.OpenFile(filepath.Join(cfg.DataDir, "control.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("control.logging.logToFile: %w", err)
		}
		level := slog.LevelInfo
		_ = level.UnmarshalText([]byte(cfg.Control.Logging.Level))
		ctlLogger = slog.New(slog.NewMultiHandler(d.Logger.Handler(), slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level})))
	}
	ctl, err := control.New(control.Options{
		Core: d.Core, Ops: d.Ops, Settings: cfg.Control, Token: d.Credentials.AdminToken(), Workspace: cfg.ControlWorkspace, Logger: ctlLogger,
		AuthTimeout: time.Duration(cfg.Limits.AuthTimeout),
	})
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, err
	}
	return controlDoor{Server: ctl, logFile: f}, nil
}

func newHealthDoor(d *Deps) (Door, error) {
	return closer{healthHandler(d.Config.Version)}, nil
}

// hooksDoor is the Claude Code hook door and the ingestion of its spool
// (events `warden hook claude` kept while it could not reach warden).
type hooksDoor struct {
	http.Handler
	stop func()
}

func (h hooksDoor) Close() error { h.stop(); return nil }

func newHooksDoor(d *Deps) (Door, error) {
	h := hooks.NewHandler(d.Core, proof.NewRequestVerifier(d.Keys.HookKey), d.Logger)
	if d.Confiner != nil {
		h.Confiner = d.Confiner
	}
	// Claude Code events spooled while warden was down go in first, before
	// any door serves newer ones.
	spool := hooks.NewIngester(h, filepath.Join(d.Config.DataDir, hooks.SpoolDirName))
	if n, err := spool.Ingest(d.Ctx); err != nil {
		d.Logger.Warn("could not ingest the whole hook spool; will retry", "ingested", n, "err", err)
	} else if n > 0 {
		d.Logger.Info("ingested spooled Claude Code events", "count", n)
	}
	ctx, cancel := context.WithCancel(d.Ctx)
	var wg sync.WaitGroup
	wg.Go(func() { spool.Run(ctx, SpoolInterval) })
	return hooksDoor{
		Handler: proof.SignAnswers(proof.DoorHooks, d.Keys.Signer, h),
		stop:    sync.OnceFunc(func() { cancel(); wg.Wait() }),
	}, nil
}

func newMonitorDoor(d *Deps) (Door, error) {
	h := monitor.NewHandler(d.Core, d.Logger)
	if d.Confiner != nil {
		h.Confiner = d.Confiner
	}
	return closer{proof.SignAnswers(proof.DoorMonitor, d.Keys.Signer, h)}, nil
}

func newMCPDoor(d *Deps) (Door, error) {
	ctl, ok := d.door("control").(controlDoor)
	if !ok {
		return nil, errors.New("the MCP door runs the control door's commands: build the control door first")
	}
	return mcp.New(mcp.Options{
		Core: d.Core, Credentials: d.Credentials, Workspaces: mcpWorkspaces{d.Supervisor}, Commands: controlCommands{ctl.Server}, Ops: d.Ops,
		Logger: d.Logger.With("door", "mcp"), Version: d.Config.Version,
	})
}

// agentDoor is the Agent API door and the engine of warden's own agent it
// serves.
type agentDoor struct {
	*agentapi.Server
	engine *agent.Engine
}

// Close tells the door's clients to go, then aborts the turns still
// running and waits for their teardown (every call gets its result).
func (a agentDoor) Close() error {
	return errors.Join(a.Server.Close(), a.engine.Close())
}

func newAgentDoor(d *Deps) (Door, error) {
	eng, err := agent.New(agent.Options{Core: d.Core, Ops: d.Ops, Models: d.Models, Logger: d.Logger.With("part", "agent")})
	if err != nil {
		return nil, err
	}
	// calls a killed warden left open get their result before anyone
	// can continue a session
	if err := eng.Start(d.Ctx); err != nil {
		eng.Close()
		return nil, err
	}
	srv, err := agentapi.New(agentapi.Options{Engine: eng, Credentials: d.Credentials, Logger: d.Logger.With("door", "agent")})
	if err != nil {
		eng.Close()
		return nil, err
	}
	return agentDoor{Server: srv, engine: eng}, nil
}
