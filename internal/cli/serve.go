package cli

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func newServeCmd(o *options) *cobra.Command {
	var (
		policyFile      string
		approvalTimeout time.Duration
		logLevel        string
		logFormat       string
		newLog          bool
	)
	addrs := map[string]*string{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the warden daemon",
		Long: `Run the warden daemon: the event log, the policy, the approval queue and every door.

With no flags, data lives in $XDG_DATA_HOME/warden (else ~/.local/share/warden), the
monitor door listens on 127.0.0.1:37123, the Claude Code hook door on 127.0.0.1:37124, the
control door (WebSocket JSON-RPC, serving the directory serve starts in) on 127.0.0.1:19876 and
health on 127.0.0.1:8081. Give a door an
empty address (--health-addr=) to switch it off. SIGINT/SIGTERM shut down gracefully
(within seconds, even with requests in flight). SIGHUP reads the policy file and the config again
(the approval deadline and the log level change at once; the log says which other changed
settings need a restart).`,
		Example: `  warden serve
  warden serve --policy ./warden-policy.yaml --monitor-addr 127.0.0.1:47123
  warden serve --data-dir /tmp/w --health-addr=`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A credential in serve's own environment stays readable in
			// /proc/PID/environ by anything running as this user, whatever
			// the process unsets later: start again without it.
			if environ := withoutCredentials(os.Environ()); len(environ) != len(os.Environ()) {
				if exe, err := os.Executable(); err == nil {
					fmt.Fprintln(o.stderr, "warden: WARDEN_TOKEN is set in serve's environment, where anything running as you could read it (/proc/PID/environ); starting again without it (warden reads its token from the data dir)")
					err = syscall.Exec(exe, os.Args, environ)
					fmt.Fprintf(o.stderr, "warden: could not start again without it (%v); it is only removed from what this process hands on\n", err)
				}
			}
			// SIGHUP reloads (installed first, so an early one does not
			// kill the daemon); SIGINT/SIGTERM shut down.
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			build := func() (daemon.Config, error) {
				cfg, err := o.loadConfig()
				if err != nil {
					return daemon.Config{}, err
				}
				dataDir, err := o.resolveDataDir(cfg)
				if err != nil {
					return daemon.Config{}, err
				}
				if dataDir, err = filepath.Abs(dataDir); err != nil {
					return daemon.Config{}, err
				}
				if cmd.Flags().Changed("policy") {
					cfg.Policy = policyFile
				}
				if cmd.Flags().Changed("approval-timeout") {
					cfg.Approvals.Timeout = config.Duration(approvalTimeout)
				}
				if cmd.Flags().Changed("log-level") {
					cfg.Log.Level = logLevel
				}
				if cmd.Flags().Changed("log-format") {
					cfg.Log.Format = logFormat
				}
				if err := cfg.Control.Validate(); err != nil {
					return daemon.Config{}, err
				}
				flags := map[string]string{}
				for name, addr := range addrs {
					if cmd.Flags().Changed(name + "-addr") {
						flags[name] = *addr
					}
				}
				listeners, err := daemon.Listeners(cfg, flags)
				if err != nil {
					return daemon.Config{}, err
				}
				switch cfg.Log.Level {
				case "", "debug", "info", "warn", "error":
				default:
					return daemon.Config{}, fmt.Errorf("--log-level %q: want debug, info, warn or error", cfg.Log.Level)
				}
				switch cfg.Log.Format {
				case "", "text", "json":
				default:
					return daemon.Config{}, fmt.Errorf("--log-format %q: want text or json", cfg.Log.Format)
				}
				wd, _ := os.Getwd()
				env := o.selfEnv(policy.DefaultEnv(), dataDir)
				if cfg.Policy != "" {
					// agents may read the policy that judges them, never change it
					if abs, err := filepath.Abs(cfg.Policy); err == nil {
						env.PolicyFiles = append(env.PolicyFiles, abs)
					}
				}
				env.DaemonPIDs = append(env.DaemonPIDs, os.Getpid())
				// what holds the doors' ports is this daemon
				for _, addr := range listeners {
					if _, port, err := net.SplitHostPort(addr); err == nil {
						if n, err := strconv.Atoi(port); err == nil && n > 0 {
							env.DaemonPorts = append(env.DaemonPorts, n)
						}
					}
				}
				// warden's own agent reaches the providers the way their
				// own tools are configured, plus the config's providers:
				models, err := sdk.FromConfig(cfg.Providers, os.Getenv, nil)
				if err != nil {
					return daemon.Config{}, fmt.Errorf("model providers: %w", err)
				}
				// vectors for the code index, when the config file asks
				var emb index.Embedder
				if v := cfg.Index.Vectors; v != nil {
					base, key, err := v.Endpoint(os.Getenv)
					if err != nil {
						return daemon.Config{}, err
					}
					if emb, err = index.NewEmbedder(v.Provider, base, v.Model, key); err != nil {
						return daemon.Config{}, fmt.Errorf("index.vectors: %w", err)
					}
				}
				return daemon.Config{
					Embedder:         emb,
					DataDir:          dataDir,
					PolicyFile:       cfg.Policy,
					PolicyEnv:        env,
					Listeners:        listeners,
					ApprovalTimeout:  time.Duration(cfg.Approvals.Timeout),
					Control:          cfg.Control,
					ControlWorkspace: wd,
					AgentBinaries:    agentBinaries(cfg),
					AgentSandbox:     cfg.AgentSandboxOn(),
					NpmDirs:          binfind.DefaultNpmDirs("", home()),
					Version:          Version,
					LogSettings:      cfg.Log,
					Limits:           cfg.Limits,
					Models:           models,
				}, nil
			}
			dcfg, err := build()
			if err != nil {
				return err
			}
			dcfg.LogLevel = new(slog.LevelVar)
			dcfg.LogLevel.Set(daemon.ParseLogLevel(dcfg.LogSettings.Level))
			dcfg.Logger = newLogger(o, dcfg.LogSettings.Format, dcfg.LogLevel)
			dcfg.Reconfigure = build
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			reloads := make(chan struct{})
			go func() {
				for {
					select {
					case <-ctx.Done():
						return
					case <-hup:
						select {
						case reloads <- struct{}{}:
						case <-ctx.Done():
							return
						}
					}
				}
			}()
			dcfg.Reload = reloads
			dcfg.NewLog = newLog
			return daemon.Run(ctx, dcfg)
		},
	}
	cmd.Flags().StringVar(&policyFile, "policy", "", "policy file (YAML); default: the built-in policy")
	cmd.Flags().DurationVar(&approvalTimeout, "approval-timeout", core.DefaultApprovalTimeout, "how long an \"ask\" waits for a person before the call is denied")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	cmd.Flags().StringVar(&logFormat, "log-format", "text", "log format: text or json")
	cmd.Flags().BoolVar(&newLog, "new-log", false, "start a new, empty event log where events.db is missing or empty although the data dir had one (serve refuses that otherwise)")
	for _, d := range daemon.Doors() {
		addrs[d.Name] = cmd.Flags().String(d.Name+"-addr", d.DefaultAddr, fmt.Sprintf("address of the %s door (empty switches it off)", d.Name))
	}
	return cmd
}

// newLogger is the daemon's logger in format (text or json) at level (a
// SIGHUP may change it).
func newLogger(o *options, format string, level *slog.LevelVar) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(o.stderr, opts))
	}
	return slog.New(slog.NewTextHandler(o.stderr, opts))
}

func home() string {
	h, _ := os.UserHomeDir()
	return h
}

// agentBinaries are the configured agent programs: $WARDEN_OPENCODE_BIN and
// $WARDEN_CLAUDE_BIN, else the config file's agents.<type>.binary.
func agentBinaries(cfg config.Config) map[agent.Type]string {
	out := map[agent.Type]string{}
	for t, env := range map[agent.Type]string{agent.OpenCode: EnvOpenCodeBin, agent.ClaudeCode: EnvClaudeBin} {
		if v := os.Getenv(env); v != "" {
			out[t] = v
		} else if a, ok := cfg.Agents[string(t)]; ok {
			out[t] = a.Binary
		}
	}
	return out
}
