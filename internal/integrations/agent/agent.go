// Package agent is the seam between warden and the external coding agents it
// supervises per workspace (specs/agent-integrations.md). It defines the
// spec's four components as interfaces: SetupInfo (where the binary is, how
// to configure it), ServerManager (process lifecycle), Provider (status of
// one workspace) and the status aggregate (package status). Each agent type
// implements them in its own folder under internal/integrations/<type>/, and
// package agents holds the one factory per interface.
package agent

import (
	"context"
	"errors"
	"time"
)

// CredentialVar is the config-template variable that carries the
// workspace's scoped agent credential (the MCP door, this workspace only)
// into a generated agent config. It never goes into a process's
// environment, where the agent's shell could read it.
const CredentialVar = "WARDEN_MCP_TOKEN"

// Type names an agent type.
type Type string

// The agent types warden knows.
const (
	OpenCode   Type = "opencode"
	ClaudeCode Type = "claude-code"
)

// Status is what one workspace's agent is doing.
type Status string

// The statuses, in the spec's flow none → idle → busy → idle. Waiting is
// warden's name for the spec's "permission state override": a session that
// waits for a person's permission. It counts as idle (the agent is not
// working; a person is needed), and is reported separately so a person can
// see that they are the one holding things up.
const (
	StatusNone    Status = "none"
	StatusIdle    Status = "idle"
	StatusBusy    Status = "busy"
	StatusWaiting Status = "waiting"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusNone, StatusIdle, StatusBusy, StatusWaiting:
		return true
	}
	return false
}

// Errors shared by every implementation.
var (
	// ErrNotRunning: the workspace has no server.
	ErrNotRunning = errors.New("agent: no server runs for this workspace")
	// ErrUnknownType: no such agent type.
	ErrUnknownType = errors.New("agent: unknown agent type")
	// ErrNoBinary: the agent's program was not found.
	ErrNoBinary = errors.New("agent: program not found")
	// ErrUnsupported: the agent's server is a version warden cannot work
	// with (it lacks an API warden needs); retrying does not help.
	ErrUnsupported = errors.New("agent: unsupported version")
)

// SetupInfo is static knowledge about one agent type: which version warden
// is built against, where its program is, and how to write its config. It
// holds no per-workspace state and is safe for concurrent use.
type SetupInfo interface {
	// Type is the agent type.
	Type() Type
	// Version is the agent version warden pins and is tested against.
	Version() string
	// Binary locates the agent's program: the configured path, then PATH,
	// then the npm package folders warden knows. It returns ErrNoBinary
	// (wrapped, saying where it looked) when none is there.
	Binary() (string, error)
	// BinaryURL is where the pinned version's program for goos/goarch can
	// be downloaded.
	BinaryURL(goos, goarch string) (string, error)
	// GenerateConfig writes the agent's config for one workspace to target
	// (atomically), from the type's template with every ${VAR} replaced by
	// vars[VAR]. A placeholder with no value is an error and nothing is
	// written.
	GenerateConfig(target string, vars map[string]string) error
}

// StopResult says what StopServer did.
type StopResult struct {
	// Stopped is true when a server was running and is now gone.
	Stopped bool `json:"stopped"`
	// Killed is true when it had to be killed after the graceful timeout.
	Killed bool `json:"killed,omitempty"`
}

// ServerManager runs the agent's server processes: for OpenCode one `opencode
// serve` per workspace, for Claude Code the shared hook door (nothing to
// spawn). One manager serves every workspace. All methods are safe for
// concurrent use.
type ServerManager interface {
	// StartServer starts the workspace's server and returns its port once a
	// health probe answers; OnServerStarted callbacks fire before it
	// returns. Starting a running server returns its port.
	StartServer(ctx context.Context, workspace string) (int, error)
	// StopServer stops the workspace's server: gracefully, then killed
	// after the manager's timeout. Stopping a workspace with no server is
	// not an error (Stopped is false).
	StopServer(ctx context.Context, workspace string) (StopResult, error)
	// RestartServer stops and starts the server again on the same port
	// (another port only when the old one was taken meanwhile).
	RestartServer(ctx context.Context, workspace string) (int, error)
	// IsRunning reports whether the workspace's server runs.
	IsRunning(workspace string) bool
	// Port returns the port of the workspace's running server.
	Port(workspace string) (int, bool)
	// PID returns the process id of the workspace's server (0 when the
	// type spawns none).
	PID(workspace string) int
	// StopAllForProject stops the servers of every workspace at or under
	// project.
	StopAllForProject(ctx context.Context, project string) error
	// OnServerStarted registers fn, called with the workspace and port
	// each time a server becomes healthy (also after an automatic restart
	// of a crashed server). It returns the unsubscribe function.
	OnServerStarted(fn func(workspace string, port int)) (unsubscribe func())
	// OnServerStopped registers fn, called when a workspace's server
	// stops; crashed is true when it ended without being asked to.
	OnServerStopped(fn func(workspace string, crashed bool)) (unsubscribe func())
	// Dispose stops every server and releases the manager; later starts
	// fail.
	Dispose(ctx context.Context) error
}

// SessionInfo is what a terminal needs to attach to a workspace's agent.
type SessionInfo struct {
	Port      int    `json:"port,omitempty"`
	SessionID string `json:"sessionId"`
}

// Provider tracks one workspace's agent: it connects to the agent's server
// (or listens to its hooks) and derives the workspace's Status. All methods
// are safe for concurrent use.
type Provider interface {
	// Connect attaches to the agent's server at port and keeps the
	// connection (reconnecting with backoff) until Disconnect or Dispose.
	Connect(ctx context.Context, port int) error
	// Disconnect drops the connection but keeps what is known about the
	// session, for a restart.
	Disconnect()
	// Reconnect connects again to the last port.
	Reconnect(ctx context.Context) error
	// Status returns the current status.
	Status() Status
	// OnStatusChange registers fn; it is called with the current status at
	// once and then on every change, in order. It returns the unsubscribe
	// function.
	OnStatusChange(fn func(Status)) (unsubscribe func())
	// Session returns the session a terminal should attach to, if any.
	Session() (SessionInfo, bool)
	// Environment returns the environment variables (WARDEN_*) a terminal
	// in the workspace needs to reach the agent and warden.
	Environment() map[string]string
	// MarkActive notes that the agent has reached warden (its first MCP
	// request): a provider with no status yet reports idle.
	MarkActive()
	// Dispose disconnects for good and drops every subscriber.
	Dispose()
}

// Permission is a request of the agent's own permission system (OpenCode's
// "ask") that warden bridges into its approval queue.
type Permission struct {
	// ID is the agent's request id (OpenCode requestID / permissionID).
	ID string `json:"id"`
	// Session is the agent session that asked.
	Session string `json:"sessionId"`
	// Permission is the kind ("bash", "edit", ...).
	Permission string `json:"permission"`
	// Patterns are what is asked for (command lines, paths).
	Patterns []string `json:"patterns,omitempty"`
	// Metadata is the agent's detail as sent.
	Metadata map[string]any `json:"metadata,omitempty"`
	// CallID is the tool call that asked, when known.
	CallID string `json:"callId,omitempty"`
}

// Reply is an answer to a Permission, in OpenCode's words.
type Reply string

// The replies.
const (
	ReplyOnce   Reply = "once"
	ReplyAlways Reply = "always"
	ReplyReject Reply = "reject"
)

// PermissionSink receives the permission requests a provider sees. The
// provider calls it from its event loop; implementations must not block.
type PermissionSink interface {
	// Asked: the agent waits for a person on p.
	Asked(workspace string, p Permission)
	// Replied: p was answered (by warden or in the agent's own UI).
	Replied(workspace, id string)
	// Lost: after a reconnect the agent no longer knows these requests
	// (it restarted); they must never be answered.
	Lost(workspace string, ids []string)
}

// Replier answers the agent's permission requests.
type Replier interface {
	// Reply answers request id; it fails when the agent no longer knows
	// it.
	Reply(ctx context.Context, id string, r Reply) error
}

// RestartFailure describes a failed automatic restart of a crashed server.
type RestartFailure struct {
	// Attempts counts the failed restarts since the crash (1 for the
	// first).
	Attempts int `json:"attempts"`
	// Next is the pause before the next attempt (it grows to the
	// manager's cap).
	Next time.Duration `json:"next"`
	// Err says why the last attempt failed.
	Err error `json:"-"`
}

// RestartWatcher is implemented by a ServerManager that restarts crashed
// servers by itself: OnRestartFailed registers fn, called after every
// failed automatic restart (the next attempt follows after f.Next, until
// the server starts, OnServerStarted, or is stopped). It returns the
// unsubscribe function.
type RestartWatcher interface {
	OnRestartFailed(fn func(workspace string, f RestartFailure)) (unsubscribe func())
}
