package config

import (
	"fmt"
	"strings"
	"time"
)

// DefaultControlAddr is where the control door (specs/control-protocol.md)
// listens by default.
const DefaultControlAddr = "127.0.0.1:19876"

// Control is the `control:` section: the settings of specs/control-protocol.md's
// Configuration table, under warden's config file. The listener address is
// listeners.control (or --control-addr); port and host here, when set,
// override its parts.
type Control struct {
	// Enabled is the spec's enabled setting: false switches the control
	// door's listener off (as listeners.control: "" does; an explicit
	// --control-addr still serves it). Default true.
	Enabled *bool `yaml:"enabled"`
	// Port and Host override the parts of the control listener's address.
	Port int    `yaml:"port"`
	Host string `yaml:"host"`
	// Token authenticates clients; "" uses the daemon's token (the token
	// file in the data dir).
	Token string `yaml:"token"`
	// Workspace is the workspace served to clients that do not name one
	// (X-Workspace-Path header or ?workspace= on the upgrade); "" uses the
	// directory `warden serve` started in.
	Workspace string `yaml:"workspace"`
	// AllowedOrigins lists the browser origins allowed to open a connection.
	// Empty (the default) allows only clients that send no Origin and
	// loopback origins; "*" allows any origin, which lets any web page try.
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// RateLimit limits requests per second per client.
	RateLimit RateLimit `yaml:"rateLimit"`
	// Logging sets the door's level ("debug" adds data.stack to errors) and
	// whether it also logs to control.log in the data dir.
	Logging ControlLogging `yaml:"logging"`
	// SessionTimeout expires an authenticated session after this long
	// without a request (-32008); default 30m.
	SessionTimeout Duration `yaml:"sessionTimeout"`
	// MaxMessageBytes is the largest WebSocket message accepted (default 16 MiB).
	MaxMessageBytes int64 `yaml:"maxMessageBytes"`
	// Security holds the spec's security.* settings.
	Security ControlSecurity `yaml:"security"`
}

// RateLimit is control.rateLimit.
type RateLimit struct {
	// Enabled defaults to true.
	Enabled *bool `yaml:"enabled"`
	// RequestsPerSecond defaults to 100.
	RequestsPerSecond float64 `yaml:"requestsPerSecond"`
}

// ControlLogging is control.logging.
type ControlLogging struct {
	Level     string `yaml:"level"`
	LogToFile bool   `yaml:"logToFile"`
}

// ControlSecurity is control.security.
type ControlSecurity struct {
	// AllowFileSystemAccess, AllowTerminalAccess and AllowCommandExecution
	// default to true; false answers those methods with -32009.
	AllowFileSystemAccess *bool `yaml:"allowFileSystemAccess"`
	AllowTerminalAccess   *bool `yaml:"allowTerminalAccess"`
	AllowCommandExecution *bool `yaml:"allowCommandExecution"`
	// RestrictedPaths are globs of workspace paths clients may not touch.
	RestrictedPaths []string `yaml:"restrictedPaths"`
	// RestrictedCommands deny commands (terminal text, command.execute ids)
	// by glob; AllowedCommands, when not empty, allow only those and
	// override the deny-list.
	RestrictedCommands []string `yaml:"restrictedCommands"`
	AllowedCommands    []string `yaml:"allowedCommands"`
	// RequireApproval makes destructive operations wait in warden's approval
	// queue whatever the policy says.
	RequireApproval bool `yaml:"requireApproval"`
	// AllowedMethodCategories limits the categories (fs, editor, terminal,
	// ...) clients may call; empty allows all.
	AllowedMethodCategories []string `yaml:"allowedMethodCategories"`
}

// ControlCategories returns the method categories of the control protocol.
func ControlCategories() []string {
	return []string{"auth", "editor", "fs", "terminal", "command", "state", "search", "debug", "git"}
}

// Validate checks the section and fills defaults.
func (c *Control) Validate() error {
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("control.port %d: want 0-65535", c.Port)
	}
	if c.RateLimit.RequestsPerSecond < 0 {
		return fmt.Errorf("control.rateLimit.requestsPerSecond %v: want a positive number", c.RateLimit.RequestsPerSecond)
	}
	if c.RateLimit.RequestsPerSecond == 0 {
		c.RateLimit.RequestsPerSecond = 100
	}
	if c.RateLimit.Enabled == nil {
		t := true
		c.RateLimit.Enabled = &t
	}
	switch c.Logging.Level {
	case "", "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("control.logging.level %q: want debug, info, warn or error", c.Logging.Level)
	}
	if c.SessionTimeout == 0 {
		c.SessionTimeout = Duration(30 * time.Minute)
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = 16 << 20
	}
	for _, cat := range c.Security.AllowedMethodCategories {
		ok := false
		for _, k := range ControlCategories() {
			ok = ok || k == cat
		}
		if !ok {
			return fmt.Errorf("control.security.allowedMethodCategories: unknown category %q (known: %s)", cat, strings.Join(ControlCategories(), ", "))
		}
	}
	return nil
}

// On reports whether the control door is to be served (control.enabled,
// default true).
func (c *Control) On() bool { return Enabled(c.Enabled) }

// Enabled reports the value of an optional boolean setting that defaults to true.
func Enabled(b *bool) bool { return b == nil || *b }
