package opencode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/integrations/ports"
	"github.com/warden-dev/warden/internal/integrations/servers"
)

// SecretVar is the variable that fills the config template but is kept out
// of the server's environment: the workspace's scoped agent credential.
// OpenCode's bash tool runs with the server's environment, so an agent
// could read it there; the generated config (mode 0600, in warden's data
// dir, which the policy protects) is the only place it goes.
const SecretVar = agent.CredentialVar

// ServerOptions configure NewServerManager.
type ServerOptions struct {
	// Setup locates the program and writes the config.
	Setup agent.SetupInfo
	// ConfigDir receives one generated config per workspace; OpenCode
	// reads it through OPENCODE_CONFIG (merged over the user's own).
	ConfigDir string
	// Vars returns the WARDEN_* variables of a workspace (the MCP door's
	// port, the workspace path, and SecretVar: the scoped credential): they
	// fill the config template and, but for SecretVar, are set in the
	// server's environment.
	Vars func(workspace string, port int) (map[string]string, error)
	// Ports, Logger and LogDir are handed to the process manager.
	Ports  *ports.Manager
	Logger *slog.Logger
	LogDir string
	// StartTimeout, StopTimeout and the backoff bounds override the
	// process manager's defaults when set.
	StartTimeout, StopTimeout  time.Duration
	BackoffInitial, BackoffMax time.Duration
	ProbeInterval, StableAfter time.Duration
}

// NewServerManager returns the OpenCode ServerManager: one `opencode serve
// --port N --hostname 127.0.0.1` per workspace, run in the workspace
// directory with a generated config that points OpenCode's MCP client at
// warden, reported started once GET /global/health answers.
func NewServerManager(o ServerOptions) *servers.Manager {
	spec := servers.Spec{
		Name: string(agent.OpenCode),
		// OpenCode migrates its database in the user's home on start.
		SerialStart: true,
		Command: func(ws string, port int) ([]string, []string, error) {
			bin, err := o.Setup.Binary()
			if err != nil {
				hint := fmt.Sprintf("install it with `npm install -g opencode-ai@%s`, or give warden serve its path in $WARDEN_OPENCODE_BIN or the config's agents.opencode.binary", Version)
				var nf *binfind.NotFoundError
				if errors.As(err, &nf) {
					// the hint first; the places searched last (the CLI shows them with -v)
					return nil, nil, fmt.Errorf("%w: opencode not found: %s"+binfind.SearchedMarker+"%s)", agent.ErrNoBinary, hint, strings.Join(nf.Searched, ", "))
				}
				return nil, nil, fmt.Errorf("%w (%s)", err, hint)
			}
			vars := map[string]string{}
			if o.Vars != nil {
				if vars, err = o.Vars(ws, port); err != nil {
					return nil, nil, fmt.Errorf("opencode config for %s: %w", ws, err)
				}
			}
			vars["WARDEN_OPENCODE_PORT"] = strconv.Itoa(port)
			env := make([]string, 0, len(vars)+1)
			if o.ConfigDir != "" {
				cfg := filepath.Join(o.ConfigDir, "opencode-"+shortHash(ws)+".json")
				if err := o.Setup.GenerateConfig(cfg, vars); err != nil {
					return nil, nil, fmt.Errorf("opencode config for %s: %w", ws, err)
				}
				env = append(env, "OPENCODE_CONFIG="+cfg)
			}
			keys := make([]string, 0, len(vars))
			for k := range vars {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if k == SecretVar {
					continue // in the config file (0600) only: never where the agent's shell can read it
				}
				env = append(env, k+"="+vars[k])
			}
			return []string{bin, "serve", "--port", strconv.Itoa(port), "--hostname", "127.0.0.1"}, env, nil
		},
		Healthy: func(ctx context.Context, port int) error {
			_, err := NewClient(baseURL(port), nil, 2*time.Second).Health(ctx)
			return err
		},
	}
	return servers.New(servers.Options{
		Spec: spec, Ports: o.Ports, Logger: o.Logger, LogDir: o.LogDir,
		StartTimeout: o.StartTimeout, StopTimeout: o.StopTimeout, ProbeInterval: o.ProbeInterval,
		BackoffInitial: o.BackoffInitial, BackoffMax: o.BackoffMax, StableAfter: o.StableAfter,
	})
}

func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}
