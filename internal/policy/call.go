package policy

import "fmt"

// Call is one tool call an agent wants to make, as every door hands it to the
// policy: the same shape whether it came from the OpenCode plugin, a Claude
// Code hook, warden's own agent or the control protocol.
type Call struct {
	// Tool is the tool's name: "bash" (or another shell tool), "read",
	// "write", "edit", "glob", "grep", "list", "webfetch", "mcp__server__tool", ...
	Tool string `json:"tool"`
	// Args are the tool's arguments. Shell tools put the command line in
	// "command"; file tools put the path in "filePath" (also accepted: "path",
	// "file_path"); webfetch puts the address in "url".
	Args map[string]any `json:"args,omitempty"`
	// Cwd is the directory the call runs in ("" means the workspace).
	Cwd string `json:"cwd,omitempty"`
	// Workspace is the absolute path of the workspace root the agent works in.
	Workspace string `json:"workspace,omitempty"`
	// Session is the agent session the call belongs to.
	Session string `json:"session,omitempty"`
	// Source names the agent and door, e.g. "opencode", "claude-code".
	Source string `json:"source,omitempty"`
}

// Action is the outcome of a decision.
type Action string

// The three actions a policy can take.
const (
	Allow Action = "allow"
	Deny  Action = "deny"
	Ask   Action = "ask"
)

// Decision is the policy's answer for one call, with everything needed to
// explain it to a person.
type Decision struct {
	// Action is allow, deny or ask.
	Action Action `json:"decision"`
	// Reason is a human sentence saying why.
	Reason string `json:"reason"`
	// Rule is the id of the rule that decided ("" when the default effect applied).
	Rule string `json:"rule"`
	// Argv is the normalised argv of the command that decided, if a shell command did.
	Argv []string `json:"argv,omitempty"`
	// Span is the part of the input that matched (e.g. "rm -rf /important").
	Span string `json:"span,omitempty"`
	// Audit lists rules in audit mode that matched but were not enforced.
	Audit []AuditHit `json:"audit,omitempty"`
}

// AuditHit is a match of a rule running in audit mode: recorded, not enforced.
type AuditHit struct {
	Rule   string `json:"rule"`
	Action Action `json:"decision"`
	Reason string `json:"reason"`
}

// Malformed says why the call cannot be judged as it was sent, or "" when
// it can: a shell tool (bash, ...) with no command line, or whose command
// is neither a string nor an argv array (null, a number, an object). Such
// a call is refused as malformed, never judged as an empty command.
func (c Call) Malformed() string {
	if toolKindOf(c.Tool, c.Args) != kindShell {
		return ""
	}
	for _, key := range []string{"command", "cmd", "script"} {
		v, ok := c.Args[key]
		if !ok {
			continue
		}
		switch v.(type) {
		case string, []any, []string:
			return ""
		}
		return fmt.Sprintf("malformed %s call: args.%s must be a string, not %s", c.Tool, key, jsonKind(v))
	}
	return fmt.Sprintf("malformed %s call: no args.command", c.Tool)
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "a number"
}
