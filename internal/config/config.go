// Package config reads warden's configuration file and fills in the
// embedded defaults, so `warden serve` with no flags just works.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// Default listener addresses, from the specs.
const (
	DefaultMonitorAddr = "127.0.0.1:37123"
	// DefaultHooksAddr is the Claude Code hook door. The spec's server takes
	// a dynamic port; warden's is fixed so installed settings stay static
	// (`warden hook claude` reads the bound address from daemon.json).
	DefaultHooksAddr  = "127.0.0.1:37124"
	DefaultHealthAddr = "127.0.0.1:8081"
	// DefaultMCPAddr is the MCP door. The spec gives no port; warden's sits
	// next to the monitor's and the hook door's.
	DefaultMCPAddr = "127.0.0.1:37125"
	// DefaultAgentAddr is the Agent API door (specs/agent-api.md's
	// production port; its development port is 8082).
	DefaultAgentAddr = "127.0.0.1:8080"
)

// Config is the whole of warden's configuration. Zero values mean "default".
type Config struct {
	// DataDir holds the log, the token, the socket and runtime files.
	DataDir string `yaml:"dataDir"`
	// Policy is a policy file (YAML); empty means the built-in default.
	Policy string `yaml:"policy"`
	// Listeners maps a door name to its address; an empty address switches
	// that door off. Doors not named keep their default address.
	Listeners map[string]string `yaml:"listeners"`
	// Approvals configures the approval queue.
	Approvals Approvals `yaml:"approvals"`
	// Log configures operational logging.
	Log Log `yaml:"log"`
	// Control configures the control door (specs/control-protocol.md).
	Control Control `yaml:"control"`
	// Agents configures the agents warden supervises, by type ("opencode",
	// "claude-code").
	Agents map[string]Agent `yaml:"agents"`
	// AgentSandbox switches confinement of external agents' allowed shell
	// calls (OpenCode's plugin, Claude Code's hook) under `warden sandbox`;
	// nil means on (where the kernel has Landlock). A workspace's metadata
	// key warden.sandbox (on|off) overrides it for that workspace.
	AgentSandbox *bool `yaml:"agentSandbox"`
	// Limits bounds what one client may hold of a door.
	Limits Limits `yaml:"limits"`
	// Providers are named model endpoints for warden's own agent, beside
	// those found from the environment (sdk.FromConfig).
	Providers []Provider `yaml:"providers"`
	// Index configures the workspaces' code index (vectors, off by
	// default).
	Index Index `yaml:"index"`
}

// Limits bounds what one client may hold of a door. Zero values mean the
// defaults.
type Limits struct {
	// BodyReadTimeout is how long a door waits for a request's whole body
	// (DefaultBodyReadTimeout); a body that trickles in slower is cut. It
	// does not apply to long-lived streams (SSE, WebSockets), whose requests
	// carry no body.
	BodyReadTimeout Duration `yaml:"bodyReadTimeout"`
	// AuthTimeout is how long a control door connection may stay
	// unauthenticated before it is closed (control.DefaultAuthTimeout).
	AuthTimeout Duration `yaml:"authTimeout"`
}

// DefaultBodyReadTimeout is how long a door waits for a request body.
const DefaultBodyReadTimeout = 30 * time.Second

// BodyRead returns the body read timeout in force.
func (l Limits) BodyRead() time.Duration {
	if l.BodyReadTimeout == 0 {
		return DefaultBodyReadTimeout
	}
	return time.Duration(l.BodyReadTimeout)
}

// AgentSandboxOn reports the global confinement setting (default on).
func (c Config) AgentSandboxOn() bool { return c.AgentSandbox == nil || *c.AgentSandbox }

// Agent configures one agent type.
type Agent struct {
	// Binary is the agent's program; "" finds it on PATH or in the npm
	// package folders ($WARDEN_OPENCODE_BIN / $WARDEN_CLAUDE_BIN win).
	Binary string `yaml:"binary"`
}

// Approvals configures how long an "ask" waits.
type Approvals struct {
	// Timeout is the deadline of an approval; when it passes the call is
	// denied. Default 120s.
	Timeout Duration `yaml:"timeout"`
}

// Log configures log/slog output.
type Log struct {
	// Level is debug, info, warn or error (default info).
	Level string `yaml:"level"`
	// Format is text or json (default text).
	Format string `yaml:"format"`
}

// Duration is a time.Duration written as "120s", "2m".
type Duration time.Duration

// UnmarshalYAML parses a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return fmt.Errorf("line %d: duration must be a string like \"120s\": %w", n.Line, err)
	}
	v, err := time.ParseDuration(s)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: bad duration %q (want e.g. \"120s\" or \"2m\")", n.Line, s)
	}
	*d = Duration(v)
	return nil
}

// CheckListeners reports a listeners: entry that names none of the known
// doors (the daemon's registry, daemon.DoorNames).
func (c Config) CheckListeners(known []string) error {
	names := make([]string, 0, len(c.Listeners))
	for name := range c.Listeners {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains(known, name) {
			return fmt.Errorf("unknown listener %q (known: %v)", name, known)
		}
	}
	return nil
}

// Load reads a config file. A missing path is an error; an empty path
// returns the defaults.
func Load(path string) (Config, error) {
	var c Config
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("read config: %w", err)
		}
		if err := Parse(data, &c); err != nil {
			return c, fmt.Errorf("config %s: %w", path, err)
		}
		if c.Policy != "" && !filepath.IsAbs(c.Policy) {
			c.Policy = filepath.Join(filepath.Dir(path), c.Policy)
		}
	}
	return c, nil
}

// Parse decodes YAML config strictly: unknown keys are errors. Door names
// in listeners: are checked against the daemon's registry by
// CheckListeners.
func Parse(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for name := range c.Agents {
		if name != "opencode" && name != "claude-code" {
			return fmt.Errorf("agents: unknown agent type %q (known: opencode, claude-code)", name)
		}
	}
	switch c.Log.Level {
	case "", "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("log.level %q: want debug, info, warn or error", c.Log.Level)
	}
	if err := c.Control.Validate(); err != nil {
		return err
	}
	if err := validateProviders(c.Providers); err != nil {
		return err
	}
	if err := c.Index.Vectors.validate(); err != nil {
		return err
	}
	switch c.Log.Format {
	case "", "text", "json":
	default:
		return fmt.Errorf("log.format %q: want text or json", c.Log.Format)
	}
	return nil
}

// DefaultDataDir is $XDG_DATA_HOME/warden, else ~/.local/share/warden.
func DefaultDataDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "warden"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find data dir: %w (set --data-dir or XDG_DATA_HOME)", err)
	}
	return filepath.Join(home, ".local", "share", "warden"), nil
}

// DefaultConfigFile is $XDG_CONFIG_HOME/warden/config.yaml, else
// ~/.config/warden/config.yaml. It is read only if it exists.
func DefaultConfigFile() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "warden", "config.yaml")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config", "warden", "config.yaml")
}
