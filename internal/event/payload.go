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
// a hook's claudeSession) travel in a payload's Extra.

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

// ToolResultData is the payload of tool.result, whichever door wrote it:
// the call, the tool, and how it ended (Success from the operations layer,
// IsError from a Claude Code hook, Error's text from either; a monitor
// result has a Title and an OutputLength, a hook result a DurationMs).
// Fields only one door reads (an operation's caller fields, a monitor
// event's wireType, a hook's claudeSession) travel in Extra, which is
// written flat beside the typed fields (as the doors always wrote them) and
// read back from any key the type does not name.
type ToolResultData struct {
	CallID   string `json:"callId,omitempty"`
	Tool     string `json:"tool,omitempty"`
	ToolName string `json:"toolName,omitempty"`
	Title    string `json:"title,omitempty"`
	Success  *bool  `json:"success,omitempty"`
	IsError  bool   `json:"isError,omitempty"`
	Error    string `json:"error,omitempty"`
	// DurationMs is how long the call ran, when the door was told.
	DurationMs *float64 `json:"durationMs,omitempty"`
	// OutputLength is the length of the tool's output (monitor door).
	OutputLength *int64 `json:"outputLength,omitempty"`
	// HasMetadata says whether the tool's output had metadata (monitor door).
	HasMetadata *bool `json:"hasMetadata,omitempty"`
	// Extra holds door-specific fields, written flat; a key that names a
	// typed field is ignored in favour of the field.
	Extra map[string]any `json:"-"`
}

// toolResultFields is ToolResultData without its methods, for the codec.
type toolResultFields ToolResultData

// MarshalJSON writes the typed fields and Extra's keys as one flat object.
func (r ToolResultData) MarshalJSON() ([]byte, error) {
	typed, err := json.Marshal(toolResultFields(r))
	if err != nil {
		return nil, err
	}
	if len(r.Extra) == 0 {
		return typed, nil
	}
	flat := make(map[string]json.RawMessage, len(r.Extra)+8)
	for k, v := range r.Extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("tool.result extra %q: %w", k, err)
		}
		flat[k] = b
	}
	var own map[string]json.RawMessage
	if err := json.Unmarshal(typed, &own); err != nil {
		return nil, err
	}
	for k := range flat {
		if isToolResultKey(k) {
			delete(flat, k)
		}
	}
	for k, v := range own {
		flat[k] = v
	}
	return json.Marshal(flat)
}

// UnmarshalJSON reads the typed fields and keeps every other key in Extra.
func (r *ToolResultData) UnmarshalJSON(b []byte) error {
	var f toolResultFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var all map[string]any
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	for k := range all {
		if isToolResultKey(k) {
			delete(all, k)
		}
	}
	if len(all) > 0 {
		f.Extra = all
	}
	*r = ToolResultData(f)
	return nil
}

// isToolResultKey reports whether k is the JSON name of one of
// ToolResultData's typed fields.
func isToolResultKey(k string) bool {
	switch k {
	case "callId", "tool", "toolName", "title", "success", "isError",
		"error", "durationMs", "outputLength", "hasMetadata":
		return true
	}
	return false
}

// Failed reports whether the result says the call failed.
func (r ToolResultData) Failed() bool {
	return r.IsError || r.Error != "" || (r.Success != nil && !*r.Success)
}

// DebugEventData is the payload of the tool.result a debug session writes
// for each event of its debuggee (stopped, output, exited, ...).
type DebugEventData struct {
	DebugSession string `json:"debugSession"`
	Kind         string `json:"kind"`
	Reason       string `json:"reason"`
	File         string `json:"file"`
	Line         int    `json:"line"`
	Function     string `json:"function"`
	Category     string `json:"category"`
	Output       string `json:"output"`
	ExitCode     int    `json:"exitCode"`
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
