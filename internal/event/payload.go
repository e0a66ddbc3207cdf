package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// The payloads of the events warden's core and its parts write. Writers
// and readers use these same types, so a field renamed here is renamed for
// both; the wire JSON is pinned by a golden test (testdata/payloads.golden).
// Door-specific extras that only a door reads (a monitor event's wireType,
// a hook's spoolId) stay in the door's own maps.

// ToolCallData is the payload of tool.call: the call as the policy judged
// it.
type ToolCallData struct {
	CallID    string         `json:"callId,omitempty"`
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args,omitempty"`
	Cwd       string         `json:"cwd,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	// Extra holds door-specific fields (the monitor's sessionStats, ...).
	Extra map[string]any `json:"extra,omitempty"`
}

// AuditHit is an audit rule that matched a call without deciding it.
type AuditHit struct {
	Rule     string `json:"rule"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// ToolDecisionData is the payload of tool.decision. Decision is "allow",
// "deny" or "ask"; Final is false for an ask (an approval.resolved
// follows).
type ToolDecisionData struct {
	CallID     string     `json:"callId,omitempty"`
	Tool       string     `json:"tool"`
	Decision   string     `json:"decision"`
	Final      bool       `json:"final"`
	Reason     string     `json:"reason"`
	Rule       string     `json:"rule"`
	Argv       []string   `json:"argv,omitempty"`
	Span       string     `json:"span,omitempty"`
	Audit      []AuditHit `json:"audit,omitempty"`
	ApprovalID string     `json:"approvalId,omitempty"`
}

// ApprovalData is the payload of approval.requested (the call, the reason,
// the deadline) and approval.resolved (the outcome, who, whether it
// stands).
type ApprovalData struct {
	ApprovalID string         `json:"approvalId"`
	CallID     string         `json:"callId,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	Args       map[string]any `json:"args,omitempty"`
	Cwd        string         `json:"cwd,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	Rule       string         `json:"rule,omitempty"`
	Deadline   *time.Time     `json:"deadline,omitempty"`
	Outcome    string         `json:"outcome,omitempty"`
	By         string         `json:"by,omitempty"`
	Always     bool           `json:"always,omitempty"`
}

// ToolConfinedData is the payload of tool.confined: an allowed shell call
// rewritten to run under `warden sandbox`.
type ToolConfinedData struct {
	CallID string `json:"callId,omitempty"`
	Tool   string `json:"tool"`
	// Command is what the agent asked for (and the policy judged).
	Command string `json:"command"`
	// Line is what runs instead.
	Line string `json:"line"`
}

// CredentialData is the payload of credential.minted and
// credential.revoked (never the secret). The fields are in the order the
// log has always had them (it was a map: keys sorted).
type CredentialData struct {
	Agent     string `json:"agent"`
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
}

// RuleRevokedData is the payload of policy.rule_revoked.
type RuleRevokedData struct {
	Rule        string `json:"rule"`
	Effect      string `json:"effect"`
	Description string `json:"description,omitempty"`
}

// SessionData is what the session tracker reads of session.start
// (parent), session.status (status) and session.error (error). Doors add
// their own fields to these events; these three mean the same everywhere.
type SessionData struct {
	Parent string `json:"parent,omitempty"`
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
}

// AgentServerData is the payload of agent.server: an agent server started
// (Port, PID, FailedAttempts of the streak it ends), stopped, crashed,
// failed to restart (Attempts, RetryIn, Error) or cannot be followed
// ("unsupported", Error). The fields are in the order the log has always
// had them (it was a map: keys sorted).
type AgentServerData struct {
	Action         string `json:"action"`
	Agent          string `json:"agent"`
	Attempts       int    `json:"attempts,omitempty"`
	Error          string `json:"error,omitempty"`
	FailedAttempts int    `json:"failedAttempts,omitempty"`
	PID            int    `json:"pid,omitempty"`
	Port           int    `json:"port,omitempty"`
	RetryIn        string `json:"retryIn,omitempty"`
}

// AgentStatusData is the payload of agent.status: a workspace's status
// changed (none, idle, busy, waiting).
type AgentStatusData struct {
	Agent     string `json:"agent,omitempty"`
	From      string `json:"from"`
	SessionID string `json:"sessionId,omitempty"`
	To        string `json:"to"`
}

// WorkspaceAddedData is the payload of workspace.added; Created and the
// project and branch are set for a workspace created as a git worktree.
type WorkspaceAddedData struct {
	Branch  string `json:"branch,omitempty"`
	Created bool   `json:"created,omitempty"`
	Name    string `json:"name"`
	Project string `json:"project,omitempty"`
}

// WorkspaceRemovedData is the payload of workspace.removed.
type WorkspaceRemovedData struct {
	Name            string `json:"name"`
	WorktreeRemoved bool   `json:"worktreeRemoved"`
}

// WorkspaceMetadataData is the payload of workspace.metadata: a key set
// (Value) or deleted.
type WorkspaceMetadataData struct {
	Deleted bool    `json:"deleted"`
	Key     string  `json:"key"`
	Value   *string `json:"value,omitempty"`
}

// ToolResultData is what every tool.result has, whichever door wrote it:
// the call, the tool, and how it ended (Success from the operations layer,
// IsError from a Claude Code hook, Error's text from either; a monitor
// result has a Title). Each door adds fields of its own (the monitor's
// outputLength, a hook's durationMs, an operation's caller fields), so the
// writers keep their maps and readers read this.
type ToolResultData struct {
	CallID  string `json:"callId,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Title   string `json:"title,omitempty"`
	Success *bool  `json:"success,omitempty"`
	IsError bool   `json:"isError,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Failed reports whether the result says the call failed.
func (r ToolResultData) Failed() bool {
	return r.IsError || r.Error != "" || (r.Success != nil && !*r.Success)
}

// Encode marshals a payload for Event.Data.
func Encode(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode event payload %T: %w", v, err)
	}
	return b, nil
}

// DataOf decodes e's payload as T. An event with no payload gives T's zero
// value.
func DataOf[T any](e Event) (T, error) {
	var v T
	if len(e.Data) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(e.Data, &v); err != nil {
		return v, fmt.Errorf("decode %s payload: %w", e.Type, err)
	}
	return v, nil
}
