package monitor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"unicode/utf16"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

// The five event types of the spec.
const (
	TypeSessionStarted = "session.started"
	TypePreExecute     = "tool.pre_execute"
	TypePostExecute    = "tool.post_execute"
	TypeSessionIdle    = "session.idle"
	TypeSessionError   = "session.error"
)

// SpecCommandLimit is how many characters of args.command the spec's plugin
// sends (JavaScript string length, UTF-16 code units).
const SpecCommandLimit = 100

// SessionStats is the plugin's own count, sent with tool.pre_execute.
type SessionStats struct {
	ToolCallCount int64 `json:"toolCallCount"`
	UniqueTools   int64 `json:"uniqueTools"`
	Duration      int64 `json:"duration"`
}

// FinalStats is sent with session.idle.
type FinalStats struct {
	Duration       int64    `json:"duration"`
	TotalToolCalls int64    `json:"totalToolCalls"`
	UniqueTools    []string `json:"uniqueTools"`
}

// Message is one decoded monitor request: the base fields and the fields of
// every event type (only those of Type are set).
type Message struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Project   string `json:"project"`
	Directory string `json:"directory"`
	Worktree  string `json:"worktree"`
	SessionID string `json:"sessionID"`

	// session.started
	StartTime int64 `json:"startTime,omitempty"`
	// tool.pre_execute and tool.post_execute
	Tool         string         `json:"tool,omitempty"`
	CallID       string         `json:"callID,omitempty"`
	Args         map[string]any `json:"args,omitempty"`
	SessionStats *SessionStats  `json:"sessionStats,omitempty"`
	// CommandFull is warden's extension: its own plugin sends the whole
	// command here, since the spec truncates args.command to 100 characters.
	CommandFull string `json:"commandFull,omitempty"`
	// tool.post_execute
	Title        string `json:"title,omitempty"`
	OutputLength int64  `json:"outputLength,omitempty"`
	HasMetadata  bool   `json:"hasMetadata,omitempty"`
	// session.idle
	FinalStats *FinalStats `json:"finalStats,omitempty"`
	// session.error: a string in the spec; objects are kept as their JSON.
	Error json.RawMessage `json:"error,omitempty"`
}

// Decode parses and validates one request body. It fails on malformed JSON,
// a body that is not one JSON object, JSON nested deeper than
// event.MaxDepth, a missing or unknown type, a field of the wrong JSON type,
// and a tool.pre_execute without a tool, without args (or args null), or
// whose args.command is not a string.
func Decode(body []byte) (*Message, error) {
	if err := event.CheckDepth(body, event.MaxDepth); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m Message
	if err := dec.Decode(&m); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, fmt.Errorf("field %q must be a JSON %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), typeErr.Value)
		}
		return nil, fmt.Errorf("malformed JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("malformed JSON: more than one value in the body")
	}
	switch m.Type {
	case "":
		return nil, errors.New(`missing "type"`)
	case TypeSessionStarted, TypePostExecute, TypeSessionIdle, TypeSessionError:
	case TypePreExecute:
		if m.Tool == "" {
			return nil, errors.New(`tool.pre_execute needs "tool"`)
		}
		if m.Args == nil {
			return nil, errors.New(`tool.pre_execute needs "args" (a JSON object)`)
		}
		if cmd, ok := m.Args["command"]; ok {
			if _, isString := cmd.(string); !isString {
				return nil, errors.New(`"args.command" must be a JSON string`)
			}
		}
	default:
		return nil, fmt.Errorf("unknown type %q (want session.started, tool.pre_execute, tool.post_execute, session.idle or session.error)", m.Type)
	}
	if len(m.Error) > 0 && !json.Valid(m.Error) {
		return nil, errors.New(`malformed "error"`)
	}
	m.Args = normaliseNumbers(m.Args)
	return &m, nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "int64", "int", "float64":
		return "number"
	case "bool":
		return "boolean"
	case "map", "struct", "ptr":
		return "object"
	case "slice":
		return "array"
	}
	return goKind
}

// normaliseNumbers turns json.Number back into float64 or int64 so args
// marshal the way they arrived.
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

// session returns the session id, or a stand-in for a client that sent none.
func (m *Message) session() string {
	if m.SessionID != "" {
		return m.SessionID
	}
	return "opencode-unknown-session"
}

func (m *Message) base() map[string]any {
	return map[string]any{
		"timestamp": m.Timestamp,
		"project":   m.Project,
		"directory": m.Directory,
		"worktree":  m.Worktree,
	}
}

// GateRequest maps a tool.pre_execute onto the core's call.
func (m *Message) GateRequest() core.GateRequest {
	extra := m.base()
	if m.SessionStats != nil {
		extra["sessionStats"] = m.SessionStats
	}
	ws := workspaceOf(m.Directory, m.Worktree)
	args := m.Args
	truncated := false
	if cmd, ok := args["command"].(string); ok {
		switch {
		case m.CommandFull != "":
			args = maps.Clone(args)
			args["command"] = m.CommandFull
			extra["specCommand"] = cmd
		case len(utf16.Encode([]rune(cmd))) >= SpecCommandLimit:
			// A spec-only client cut the command: the rest is unseen.
			truncated = true
		}
	}
	return core.GateRequest{
		Truncated: truncated,
		Call: policy.Call{
			Tool: m.Tool, Args: args, Cwd: m.Directory, Workspace: ws,
			Session: m.session(), Source: "opencode",
		},
		CallID: m.CallID,
		Source: Source,
		Extra:  extra,
	}
}

// Event maps a non-gating message onto the event vocabulary.
func (m *Message) Event() event.Event {
	data := m.base()
	var t event.Type
	switch m.Type {
	case TypeSessionStarted:
		t = event.SessionStart
		data["startTime"] = m.StartTime
		data["workingDirectory"] = m.Directory
	case TypePostExecute:
		data["wireType"] = m.Type
		b, _ := json.Marshal(event.ToolResultData{ // only plain values: cannot fail
			Tool: m.Tool, CallID: m.CallID, Title: m.Title,
			OutputLength: &m.OutputLength, HasMetadata: &m.HasMetadata, Extra: data,
		})
		return event.Event{Session: m.session(), Type: event.ToolResult, Source: Source, Workspace: workspaceOf(m.Directory, m.Worktree), Data: b}
	case TypeSessionIdle:
		t = event.SessionStatus
		data["status"] = "idle"
		if m.FinalStats != nil {
			data["finalStats"] = m.FinalStats
		}
	case TypeSessionError:
		t = event.SessionError
		var s string
		if json.Unmarshal(m.Error, &s) == nil {
			data["error"] = s
		} else if len(m.Error) > 0 {
			data["error"] = string(m.Error)
		}
	}
	data["wireType"] = m.Type
	b, _ := json.Marshal(data) // only plain values: cannot fail
	return event.Event{
		Session:   m.session(),
		Type:      t,
		Source:    Source,
		Workspace: workspaceOf(m.Directory, m.Worktree),
		Data:      b,
	}
}
