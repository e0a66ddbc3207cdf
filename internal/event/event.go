// Package event defines warden's one event vocabulary and the bus that fans
// durable events out to live subscribers.
package event

import (
	"encoding/json"
	"time"
)

// Type names what happened. Every door maps its wire events onto these.
type Type string

// The event vocabulary shared by every door (specs/agent-api.md, extended).
const (
	SessionStart     Type = "session.start"
	SessionEnd       Type = "session.end"
	SessionFork      Type = "session.fork"
	SessionStatus    Type = "session.status"
	SessionError     Type = "session.error"
	MessageUser      Type = "message.user"
	MessageAssistant Type = "message.assistant"
	ToolCall         Type = "tool.call"
	ToolDecision     Type = "tool.decision"
	ToolResult       Type = "tool.result"
	// ToolConfined records that an allowed shell call was rewritten to run
	// under warden's kernel sandbox (package confine).
	ToolConfined      Type = "tool.confined"
	ApprovalRequested Type = "approval.requested"
	ApprovalResolved  Type = "approval.resolved"
	PatchProposed     Type = "patch.proposed"
	PatchApplied      Type = "patch.applied"
	FileChanged       Type = "file.changed"
	SubagentSpawn     Type = "subagent.spawn"
	SubagentProgress  Type = "subagent.progress"
	SubagentComplete  Type = "subagent.complete"
	ContextCompaction Type = "context.compaction"

	// Workspace and agent-supervision events, recorded in SystemSession.
	WorkspaceAdded    Type = "workspace.added"
	WorkspaceRemoved  Type = "workspace.removed"
	WorkspaceMetadata Type = "workspace.metadata"
	AgentServer       Type = "agent.server"
	AgentStatus       Type = "agent.status"

	// Scoped agent credentials minted and revoked, recorded in
	// SystemSession (never the secret).
	CredentialMinted  Type = "credential.minted"
	CredentialRevoked Type = "credential.revoked"

	// PolicyRuleRevoked is a standing "always" rule removed from the
	// policy overlay (`warden policy revoke`), recorded in SystemSession.
	PolicyRuleRevoked Type = "policy.rule_revoked"

	// AgentNotification is an agent's notice to its user (Claude Code's
	// Notification hook, e.g. "Claude needs your permission to use
	// Bash"): recorded and shown, it changes no status by itself.
	AgentNotification Type = "agent.notification"

	// AgentPermissionRequest is an agent showing its own permission prompt
	// to its user (Claude Code's PermissionRequest hook): the agent waits
	// for a person.
	AgentPermissionRequest Type = "agent.permission_request"

	// The log's own records, in SystemSession: LogDropped counts events
	// that could be neither recorded nor held while the log could not
	// write (a full disk), recorded once it can again; LogPruned says
	// which events `warden events prune` removed.
	LogDropped Type = "log.dropped"
	LogPruned  Type = "log.pruned"
)

// SourceClaudeCodeHooks is the source of the events Claude Code's hooks
// bring in (through the hook door, or its spool): what the Claude Code
// integration follows a workspace's status by.
const SourceClaudeCodeHooks = "claude-code/hooks"

// SourceControl is the source of the control door's records (the door's
// Source): its clients are editors and scripts, not agents, so session
// listings leave their sessions out unless asked.
const SourceControl = "control"

// SystemSession is the session of warden's own records (workspaces added
// and removed, agent servers started and stopped, agent status changes):
// events that belong to no agent session. Session listings leave it out.
const SystemSession = "warden"

// Event is one durable record in a session's log.
//
// ID, Seq and (when zero) Time are assigned by the store on Append; callers
// fill Session, Type, Source, Workspace and Data.
type Event struct {
	// ID is the global, strictly increasing id across all sessions.
	ID int64 `json:"id"`
	// Session is the session the event belongs to.
	Session string `json:"session"`
	// Seq is the per-session sequence number: 1, 2, 3 ... with no gaps.
	Seq int64 `json:"seq"`
	// Time is when the event happened (UTC, millisecond precision or better).
	Time time.Time `json:"time"`
	// Type is the event's kind from the vocabulary above.
	Type Type `json:"type"`
	// Source says which agent and door produced the event, e.g. "opencode/monitor".
	Source string `json:"source"`
	// Workspace is the absolute workspace path the event concerns, if any.
	Workspace string `json:"workspace"`
	// Data is the type-specific JSON payload; never nil once stored ("{}" at least).
	Data json.RawMessage `json:"data"`
}
