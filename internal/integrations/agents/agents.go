// Package agents holds the one factory per component of
// specs/agent-integrations.md: given an agent type it builds that type's
// SetupInfo, ServerManager and Provider. Adding an agent type means a new
// folder under internal/integrations/ and one case in each switch here.
package agents

import (
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
	"github.com/warden-dev/warden/internal/integrations/opencode"
	"github.com/warden-dev/warden/internal/integrations/ports"
)

// Types lists the agent types warden supervises.
func Types() []agent.Type { return []agent.Type{agent.OpenCode, agent.ClaudeCode} }

// Parse turns a user's word into a type ("claude" is accepted for
// claude-code).
func Parse(s string) (agent.Type, error) {
	switch s {
	case string(agent.OpenCode):
		return agent.OpenCode, nil
	case string(agent.ClaudeCode), "claude", "claudecode":
		return agent.ClaudeCode, nil
	}
	return "", fmt.Errorf("%w %q: choose opencode or claude-code", agent.ErrUnknownType, s)
}

// Deps is what the setup and server factories need.
type Deps struct {
	// Logger receives operational records.
	Logger *slog.Logger
	// Dir is warden's folder for agent files: generated configs and
	// server logs (<data dir>/agents).
	Dir string
	// Ports hands out server ports.
	Ports *ports.Manager
	// Binaries are configured program paths per type (optional).
	Binaries map[agent.Type]string
	// NpmDirs are node_modules folders to look for agent packages in.
	NpmDirs []string
	// Vars returns the WARDEN_* variables of a workspace's server (and
	// its scoped credential, agent.CredentialVar, for the config only).
	Vars func(workspace string, port int) (map[string]string, error)
	// HookPort is the port of warden's hook door (Claude Code's shared
	// "server"); 0 when it is off.
	HookPort int
}

// SetupInfo builds t's SetupInfo.
func SetupInfo(t agent.Type, d Deps) (agent.SetupInfo, error) {
	switch t {
	case agent.OpenCode:
		return opencode.NewSetupInfo(opencode.SetupOptions{Configured: d.Binaries[t], NpmDirs: d.NpmDirs}), nil
	case agent.ClaudeCode:
		return claudecode.NewSetupInfo(claudecode.SetupOptions{Configured: d.Binaries[t], NpmDirs: d.NpmDirs}), nil
	}
	return nil, fmt.Errorf("%w %q", agent.ErrUnknownType, t)
}

// ServerManager builds t's ServerManager.
func ServerManager(t agent.Type, d Deps) (agent.ServerManager, error) {
	switch t {
	case agent.OpenCode:
		setup, err := SetupInfo(t, d)
		if err != nil {
			return nil, err
		}
		return opencode.NewServerManager(opencode.ServerOptions{
			Setup: setup, ConfigDir: filepath.Join(d.Dir, "config"), Vars: d.Vars,
			Ports: d.Ports, Logger: d.Logger, LogDir: filepath.Join(d.Dir, "logs"),
		}), nil
	case agent.ClaudeCode:
		return claudecode.NewServerManager(d.HookPort), nil
	}
	return nil, fmt.Errorf("%w %q", agent.ErrUnknownType, t)
}

// ProviderDeps is what the provider factory needs for one workspace.
type ProviderDeps struct {
	Workspace string
	Logger    *slog.Logger
	// Sink receives the agent's own permission requests (OpenCode).
	Sink agent.PermissionSink
	// Env is the workspace's base WARDEN_* variables.
	Env map[string]string
	// OwnerPID returns the pid of the server warden started on a port, to
	// notice another process reusing it (OpenCode).
	OwnerPID func(port int) int
}

// Provider builds t's Provider for one workspace.
func Provider(t agent.Type, d ProviderDeps) (agent.Provider, error) {
	switch t {
	case agent.OpenCode:
		return opencode.NewProvider(opencode.ProviderOptions{
			Workspace: d.Workspace, Logger: d.Logger, Sink: d.Sink, Env: d.Env, OwnerPID: d.OwnerPID,
		}), nil
	case agent.ClaudeCode:
		return claudecode.NewProvider(claudecode.ProviderOptions{Workspace: d.Workspace, Logger: d.Logger, Env: d.Env}), nil
	}
	return nil, fmt.Errorf("%w %q", agent.ErrUnknownType, t)
}
