package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

// Claude Code's hook event names (hook_event_name).
const (
	EventSessionStart       = "SessionStart"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventStop               = "Stop"
	EventStopFailure        = "StopFailure"
	EventSubagentStart      = "SubagentStart"
	EventSubagentStop       = "SubagentStop"
	EventPreCompact         = "PreCompact"
	EventSessionEnd         = "SessionEnd"
	EventNotification       = "Notification"
	EventPermissionRequest  = "PermissionRequest"
)

// Event types this door adds to the vocabulary for hook events that have no
// counterpart in it. They are recorded and shown but change no status.
const (
	// TypeNotification records Claude's Notification hook (Claude shows the
	// user a notice, e.g. "Claude needs your permission to use Bash").
	TypeNotification = event.AgentNotification
	// TypePermissionRequest records Claude's PermissionRequest hook: Claude
	// is about to show its own permission dialog. warden's own gate already
	// ran in PreToolUse; this is Claude's second opinion, kept for the audit.
	TypePermissionRequest = event.AgentPermissionRequest
	// TypeHook records a hook event this door does not know (a newer Claude),
	// kept as-is: data.hookEventName and data.payload.
	TypeHook event.Type = "agent.hook"
)

// Payload is one decoded hook request: the fields warden reads, leniently
// typed (a newer Claude may add or change fields), and the whole payload.
type Payload struct {
	// SessionID is Claude's session_id.
	SessionID string
	// HookEventName is the hook that fired.
	HookEventName string
	// Cwd is the directory Claude runs in.
	Cwd string
	// AgentID and AgentType are set for events of a subagent.
	AgentID   string
	AgentType string
	// ToolName, ToolInput and ToolUseID are set for tool events.
	ToolName  string
	ToolInput map[string]any
	ToolUseID string
	// Raw is the whole payload as Claude sent it.
	Raw map[string]any
}

// Decode parses and validates one hook body: one JSON object with a
// non-empty string session_id and hook_event_name, nested no deeper than
// event.MaxDepth. A PreToolUse needs a tool_name and a tool_input object
// whose command, when present, is a string; any other tool_input, when
// present, must be an object.
func Decode(body []byte) (*Payload, error) {
	if err := event.CheckDepth(body, event.MaxDepth); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("malformed JSON: more than one value in the body")
	}
	if raw == nil {
		return nil, errors.New("the body must be a JSON object")
	}
	raw = normaliseNumbers(raw)
	p := &Payload{Raw: raw}
	var err error
	if p.SessionID, err = str(raw, "session_id"); err != nil {
		return nil, err
	}
	if p.HookEventName, err = str(raw, "hook_event_name"); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, errors.New(`missing "session_id"`)
	}
	if p.HookEventName == "" {
		return nil, errors.New(`missing "hook_event_name"`)
	}
	for key, dst := range map[string]*string{"cwd": &p.Cwd, "agent_id": &p.AgentID, "agent_type": &p.AgentType, "tool_name": &p.ToolName, "tool_use_id": &p.ToolUseID} {
		if *dst, err = str(raw, key); err != nil {
			return nil, err
		}
	}
	switch in := raw["tool_input"].(type) {
	case nil:
	case map[string]any:
		p.ToolInput = in
	default:
		return nil, errors.New(`"tool_input" must be a JSON object`)
	}
	if p.HookEventName == EventPreToolUse {
		if p.ToolName == "" {
			return nil, errors.New(`PreToolUse needs "tool_name"`)
		}
		if p.ToolInput == nil {
			return nil, errors.New(`PreToolUse needs "tool_input" (a JSON object)`)
		}
		if cmd, ok := p.ToolInput["command"]; ok {
			if _, isString := cmd.(string); !isString {
				return nil, errors.New(`"tool_input.command" must be a JSON string`)
			}
		}
	}
	return p, nil
}

// str reads an optional string field; any other JSON type is an error.
func str(m map[string]any, key string) (string, error) {
	switch v := m[key].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", fmt.Errorf("field %q must be a JSON string", key)
	}
}

// text reads a field as text: a string as-is, anything else as its JSON.
func text(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// normaliseNumbers turns json.Number back into int64 or float64.
func normaliseNumbers(m map[string]any) map[string]any {
	for k, v := range m {
		m[k] = normaliseValue(v)
	}
	return m
}

func normaliseValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		return normaliseNumbers(x)
	case []any:
		for i := range x {
			x[i] = normaliseValue(x[i])
		}
	}
	return v
}

// ChildSession is the session id warden gives a subagent of session: the
// parent's id, a slash, and Claude's agent_id.
func ChildSession(session, agentID string) string { return session + "/" + agentID }

// Session is the session the event belongs to: Claude's session_id, or the
// subagent's child session when the event comes from a subagent.
func (p *Payload) Session() string {
	if p.AgentID != "" {
		return ChildSession(p.SessionID, p.AgentID)
	}
	return p.SessionID
}

// toolNames maps Claude's tool names to the names warden records and the
// policy reads; other tools keep Claude's name.
var toolNames = map[string]string{
	"Bash": "bash", "Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "multiedit",
	"NotebookEdit": "notebookedit", "NotebookRead": "notebookread", "Glob": "glob", "Grep": "grep",
	"LS": "list", "WebFetch": "webfetch",
}

// Tool returns the recorded tool name of a Claude tool name.
func Tool(claudeName string) string {
	if n, ok := toolNames[claudeName]; ok {
		return n
	}
	return claudeName
}

// Args maps Claude's tool_input onto policy.Call args: everything is kept,
// and the path of a file tool (file_path, notebook_path) is also given as
// filePath, the name every door uses.
func Args(input map[string]any) map[string]any {
	args := maps.Clone(input)
	if args == nil {
		args = map[string]any{}
	}
	if _, ok := args["filePath"]; !ok {
		for _, k := range []string{"file_path", "notebook_path"} {
			if s, ok := args[k].(string); ok && s != "" {
				args["filePath"] = s
				break
			}
		}
	}
	return args
}

// common holds the fields every recorded hook event carries.
func (p *Payload) common() map[string]any {
	d := map[string]any{"hookEventName": p.HookEventName, "claudeSession": p.SessionID}
	if p.AgentID != "" {
		d["agentId"] = p.AgentID
	}
	if p.AgentType != "" {
		d["agentType"] = p.AgentType
	}
	if p.Cwd != "" {
		d["cwd"] = p.Cwd
	}
	if s := text(p.Raw, "permission_mode"); s != "" {
		d["permissionMode"] = s
	}
	if s := text(p.Raw, "transcript_path"); s != "" {
		d["transcriptPath"] = s
	}
	return d
}

// GateRequest maps a PreToolUse onto the core's call.
func (p *Payload) GateRequest(workspace string) core.GateRequest {
	extra := p.common()
	extra["toolName"] = p.ToolName
	return core.GateRequest{
		Call: policy.Call{
			Tool: Tool(p.ToolName), Args: Args(p.ToolInput), Cwd: p.Cwd, Workspace: workspace,
			Session: p.Session(), Source: Agent,
		},
		CallID: p.ToolUseID,
		Source: Source,
		Extra:  extra,
	}
}

// Events maps a non-gating hook event onto the event vocabulary. Most hooks
// give one event; SubagentStart and SubagentStop give one in the parent
// session and one in the subagent's child session. spoolID, when not empty,
// is kept in every event's data (data.spoolId) so a spooled event is
// ingested once; at, when not zero, is the event's time.
func (p *Payload) Events(workspace, spoolID string, at time.Time) []event.Event {
	data := p.common()
	data["payload"] = p.Raw
	if spoolID != "" {
		data["spoolId"] = spoolID
	}
	mk := func(session string, t event.Type, d any) event.Event {
		b, err := json.Marshal(d)
		if err != nil { // only decoded JSON values: cannot happen
			b, _ = json.Marshal(map[string]string{"marshalError": err.Error()})
		}
		e := event.Event{Session: session, Type: t, Source: Source, Workspace: workspace, Data: b}
		if !at.IsZero() {
			e.Time = at.UTC()
		}
		return e
	}
	r := p.Raw
	set := func(key, rawKey string) {
		if s := text(r, rawKey); s != "" {
			data[key] = s
		}
	}
	session := p.Session()
	switch p.HookEventName {
	case EventSessionStart:
		set("startSource", "source")
		set("model", "model")
		return []event.Event{mk(session, event.SessionStart, data)}
	case EventUserPromptSubmit:
		set("text", "prompt")
		set("promptId", "prompt_id")
		return []event.Event{mk(session, event.MessageUser, data)}
	case EventPostToolUse, EventPostToolUseFailure:
		res := event.ToolResultData{Tool: Tool(p.ToolName), ToolName: p.ToolName, CallID: p.ToolUseID, Extra: data}
		switch d := r["duration_ms"].(type) {
		case int64: // Decode's numbers are int64 when whole
			f := float64(d)
			res.DurationMs = &f
		case float64:
			res.DurationMs = &d
		}
		if p.HookEventName == EventPostToolUseFailure {
			res.IsError = true
			res.Error = text(r, "error")
		}
		return []event.Event{mk(session, event.ToolResult, res)}
	case EventStop:
		data["status"] = "idle"
		set("lastAssistantMessage", "last_assistant_message")
		return []event.Event{mk(session, event.SessionStatus, data)}
	case EventStopFailure:
		if s := text(r, "error"); s != "" {
			data["error"] = s
		} else {
			data["error"] = "Claude Code stopped with an error"
		}
		return []event.Event{mk(session, event.SessionError, data)}
	case EventSubagentStart, EventSubagentStop:
		if p.AgentID == "" {
			// No child to speak of: record it in the session as it came.
			t := event.SubagentSpawn
			if p.HookEventName == EventSubagentStop {
				t = event.SubagentComplete
			}
			return []event.Event{mk(p.SessionID, t, data)}
		}
		child := ChildSession(p.SessionID, p.AgentID)
		parentData := maps.Clone(data)
		parentData["childSession"] = child
		childData := maps.Clone(data)
		childData["parent"] = p.SessionID
		delete(childData, "payload") // once, in the parent's event, is enough
		if p.HookEventName == EventSubagentStart {
			return []event.Event{
				mk(p.SessionID, event.SubagentSpawn, parentData),
				mk(child, event.SessionStart, childData),
			}
		}
		set := func(key, rawKey string) {
			if s := text(r, rawKey); s != "" {
				parentData[key] = s
			}
		}
		set("lastAssistantMessage", "last_assistant_message")
		set("agentTranscriptPath", "agent_transcript_path")
		childData["reason"] = "subagent stopped"
		return []event.Event{
			mk(p.SessionID, event.SubagentComplete, parentData),
			mk(child, event.SessionEnd, childData),
		}
	case EventPreCompact:
		set("trigger", "trigger")
		set("customInstructions", "custom_instructions")
		return []event.Event{mk(session, event.ContextCompaction, data)}
	case EventSessionEnd:
		set("reason", "reason")
		return []event.Event{mk(session, event.SessionEnd, data)}
	case EventNotification:
		set("message", "message")
		set("title", "title")
		set("notificationType", "notification_type")
		return []event.Event{mk(session, TypeNotification, data)}
	case EventPermissionRequest:
		data["tool"] = Tool(p.ToolName)
		data["toolName"] = p.ToolName
		if p.ToolUseID != "" {
			data["callId"] = p.ToolUseID
		}
		return []event.Event{mk(session, TypePermissionRequest, data)}
	}
	return []event.Event{mk(session, TypeHook, data)}
}
