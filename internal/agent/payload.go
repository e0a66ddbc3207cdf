package agent

import (
	"encoding/json"

	"github.com/warden-dev/warden/internal/provider"
)

// The payloads of the events warden's agent writes (source Source), with
// the key fields of specs/agent-api.md's event reference. The engine
// writes them and reads them back to compute the model's view, so a
// session's history is its log and nothing else.

// StartData is the payload of session.start.
type StartData struct {
	// Parent is the session that spawned this one (a subagent), as the
	// session tracker reads it.
	Parent           string `json:"parent,omitempty"`
	WorkingDirectory string `json:"workingDirectory"`
	// Model is "provider/model".
	Model    string `json:"model"`
	Provider string `json:"provider"`
	// Depth is 0 for a session a client created, parent's + 1 for a
	// subagent.
	Depth int `json:"depth,omitempty"`
	// Task is a subagent's task.
	Task string `json:"task,omitempty"`
}

// ForkData is the payload of session.fork, the first event of a forked
// session (the copied events follow it).
type ForkData struct {
	SourceSessionID  string `json:"sourceSessionId"`
	SourceEventID    int64  `json:"sourceEventId"`
	SourceSeq        int64  `json:"sourceSeq"`
	WorkingDirectory string `json:"workingDirectory"`
	Model            string `json:"model"`
	Provider         string `json:"provider"`
	Depth            int    `json:"depth,omitempty"`
}

// EndData is the payload of session.end.
type EndData struct {
	Reason  string `json:"reason"`
	Summary string `json:"summary,omitempty"`
}

// StatusData is the payload of session.status: Status is "busy" or
// "idle" (as the session tracker reads it); StopReason says why a turn
// ended; Model is set when model.switch changed the session's model.
type StatusData struct {
	Status     string          `json:"status"`
	StopReason string          `json:"stopReason,omitempty"`
	Model      string          `json:"model,omitempty"`
	Provider   string          `json:"provider,omitempty"`
	Turn       int             `json:"turn,omitempty"`
	TokenUsage *provider.Usage `json:"tokenUsage,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// Attachment is a file or text a client sends with a message.
type Attachment struct {
	// Name is a label (a file name).
	Name string `json:"name,omitempty"`
	// Path is a workspace file whose content the agent should read.
	Path string `json:"path,omitempty"`
	// Content is inline text.
	Content string `json:"content,omitempty"`
}

// UserData is the payload of message.user.
type UserData struct {
	Content     string       `json:"content"`
	Turn        int          `json:"turn"`
	Attachments []Attachment `json:"attachments,omitempty"`
	// Kind is "respond" for agent.respond's answer to the assistant.
	Kind string `json:"kind,omitempty"`
}

// AssistantData is the payload of message.assistant: one step's answer.
type AssistantData struct {
	// Content is the text of the answer.
	Content string `json:"content"`
	// Parts is the whole message as the provider gave it (thinking with
	// its signatures, tool calls), what the next request sends back.
	Parts      []provider.Part `json:"parts"`
	TokenUsage provider.Usage  `json:"tokenUsage"`
	StopReason string          `json:"stopReason,omitempty"`
	Model      string          `json:"model"`
	Turn       int             `json:"turn"`
	Step       int             `json:"step"`
	Warning    string          `json:"warning,omitempty"`
	// Partial marks an answer cut short while it streamed (an abort, or
	// the provider failing mid-stream): Content and Parts hold what had
	// been streamed (text, and the tool calls announced, with empty
	// arguments; each of those has a "not run" tool.result), StopReason
	// is "aborted" or "error".
	Partial bool `json:"partial,omitempty"`
}

// ResultData is the payload of the tool.result warden's agent records for
// each tool call: exactly one per call.
type ResultData struct {
	// CallID and ToolID are the model's id for the call (CallID as every
	// tool.result has it, ToolID as specs/agent-api.md names it).
	CallID  string `json:"callId"`
	ToolID  string `json:"toolId"`
	Tool    string `json:"tool"`
	Content string `json:"content"`
	IsError bool   `json:"isError,omitempty"`
	// Duration is how long the call took, in milliseconds.
	Duration int64 `json:"duration"`
	// Outcome is "ok", "error", "denied", "aborted", "interrupted" or
	// "not_executed".
	Outcome string `json:"outcome"`
}

// SubagentData is the payload of subagent.spawn, subagent.progress and
// subagent.complete, recorded in both the parent's and the child's
// session.
type SubagentData struct {
	SessionID       string          `json:"sessionId"`
	ParentSessionID string          `json:"parentSessionId"`
	Task            string          `json:"task,omitempty"`
	Model           string          `json:"model,omitempty"`
	ToolID          string          `json:"toolId,omitempty"`
	Turn            int             `json:"turn,omitempty"`
	Step            int             `json:"step,omitempty"`
	Status          string          `json:"status,omitempty"`
	Result          string          `json:"result,omitempty"`
	TokenUsage      *provider.Usage `json:"tokenUsage,omitempty"`
}

// CompactionData is the payload of context.compaction: a marker that the
// model's view replaces the events with seq in [FromSeq, ToSeq] by Summary
// (Mode "summary"), or keeps them with their tool outputs trimmed (Mode
// "trim"). The events themselves stay in the log as they were.
type CompactionData struct {
	FromSeq     int64  `json:"fromSeq"`
	ToSeq       int64  `json:"toSeq"`
	Mode        string `json:"mode"`
	Summary     string `json:"summary,omitempty"`
	TurnsBefore int    `json:"turnsBefore"`
	TurnsAfter  int    `json:"turnsAfter"`
	TokensSaved int    `json:"tokensSaved"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshalError": err.Error()})
	}
	return b
}
