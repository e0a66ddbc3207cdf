package policy

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
