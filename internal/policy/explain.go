package policy

import (
	"fmt"
	"strings"
)

// Explanation is a decision with everything that led to it: the call as
// the policy saw it, the analysis (commands, effects and their target
// classes) and every rule that matched, enforced or audit.
type Explanation struct {
	// Decision is exactly what Decide returns for the call.
	Decision Decision `json:"decision"`
	// Tool is the tool's name; Kind its canonical kind ("" if unknown).
	Tool string `json:"tool"`
	Kind string `json:"kind,omitempty"`
	// Input is the command line, path or URL judged.
	Input string `json:"input,omitempty"`
	// Cwd and Workspace are as the policy used them (Workspace is the cwd
	// when the call named none).
	Cwd       string `json:"cwd,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// WorkspaceIgnored is set when the workspace was too broad to count
	// (/, the home dir or an ancestor, a temp dir): nothing is inside it.
	WorkspaceIgnored bool `json:"workspaceIgnored,omitempty"`
	// ParseError is the shell parser's complaint, if any.
	ParseError string `json:"parseError,omitempty"`
	// Commands are the commands (and cross-command findings) analysed.
	Commands []ExplainedCommand `json:"commands"`
	// Matches are all rule matches, in evaluation order.
	Matches []RuleMatch `json:"matches"`
}

// ExplainedCommand is one analysed command, or a finding (Name empty, Tags
// holding the finding), or the call itself for non-shell tools.
type ExplainedCommand struct {
	// Name is the normalised program name.
	Name string `json:"name,omitempty"`
	// Argv is the normalised argv.
	Argv []string `json:"argv,omitempty"`
	// Dir is the directory the command runs in.
	Dir string `json:"dir,omitempty"`
	// Span is the command's source text.
	Span string `json:"span,omitempty"`
	// Via lists the wrappers it was found inside (sudo, bash -c, ...).
	Via []string `json:"via,omitempty"`
	// Tags are the analyser's tags (or the finding's tag).
	Tags []string `json:"tags,omitempty"`
	// Attrs are the tags' details (branch names normalised).
	Attrs map[string]string `json:"attrs,omitempty"`
	// Effects are the command's effects with their targets placed.
	Effects []ExplainedEffect `json:"effects,omitempty"`
}

// ExplainedEffect is an effect with its target placed.
type ExplainedEffect struct {
	// Kind is delete, write, read, exec, network or privilege.
	Kind string `json:"kind"`
	// Target is the absolute path (or URL, program) as written.
	Target string `json:"target,omitempty"`
	// Resolved is the path after symlinks, when it differs.
	Resolved string `json:"resolved,omitempty"`
	// Class is the target class: workspace, temp, home, system, unknown.
	Class string `json:"class,omitempty"`
	// Unknown is set when the target cannot be known; Reason says why.
	Unknown bool   `json:"unknown,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Recursive is set for recursive operations.
	Recursive bool `json:"recursive,omitempty"`
	// Glob is the pattern when the target was written as a glob.
	Glob string `json:"glob,omitempty"`
	// Protected is set when the effect reaches into warden's own dirs.
	Protected bool `json:"protected,omitempty"`
}

// Explain decides the call like Decide and reports how.
func (p *Policy) Explain(c Call) (ex Explanation) {
	defer func() {
		if r := recover(); r != nil {
			ex.Decision = Decision{Action: Deny, Rule: "warden.policy-error", Reason: fmt.Sprintf("blocked: the policy failed on this call (%v)", r)}
		}
	}()
	e := p.prepare(c, true)
	ex.Decision = e.decide()
	ex.Tool, ex.Kind, ex.Input = c.Tool, e.c.canon, e.c.input
	ex.Cwd, ex.Workspace = e.c.cwd, e.c.rawWS
	ex.WorkspaceIgnored = e.c.rawWS != "" && e.c.ws == ""
	ex.ParseError = e.parseErr
	ex.Commands = []ExplainedCommand{}
	for _, s := range e.subjects {
		ec := ExplainedCommand{Span: s.span, Tags: s.tags, Attrs: s.attrs}
		if s.cmd != nil {
			ec.Name, ec.Argv, ec.Dir, ec.Via = s.cmd.Name, s.cmd.Argv, s.cmd.Dir, s.cmd.Via
		}
		for _, ef := range s.effs {
			ee := ExplainedEffect{Kind: string(ef.Kind), Target: ef.Target, Class: string(ef.class), Unknown: ef.Unknown, Reason: ef.Reason, Recursive: ef.Recursive, Glob: ef.Glob, Protected: ef.protected}
			if ef.resolved != ef.Target {
				ee.Resolved = ef.resolved
			}
			ec.Effects = append(ec.Effects, ee)
		}
		ex.Commands = append(ex.Commands, ec)
	}
	ex.Matches = e.found
	if ex.Matches == nil {
		ex.Matches = []RuleMatch{}
	}
	return ex
}

// String renders the explanation for people.
func (ex Explanation) String() string {
	var b strings.Builder
	d := ex.Decision
	fmt.Fprintf(&b, "decision: %s", strings.ToUpper(string(d.Action)))
	if d.Rule != "" {
		fmt.Fprintf(&b, " (rule %s)", d.Rule)
	}
	fmt.Fprintf(&b, "\nreason:   %s\n", d.Reason)
	if d.Span != "" {
		fmt.Fprintf(&b, "matched:  %s\n", d.Span)
	}
	kind := ex.Kind
	if kind == "" {
		kind = "unknown tool"
	}
	fmt.Fprintf(&b, "tool:     %s (%s)\n", ex.Tool, kind)
	if ex.Input != "" {
		fmt.Fprintf(&b, "input:    %s\n", ex.Input)
	}
	ws := ex.Workspace
	if ex.WorkspaceIgnored {
		ws += " (too broad to count as a workspace)"
	}
	fmt.Fprintf(&b, "cwd:      %s\nworkspace: %s\n", orNone(ex.Cwd), orNone(ws))
	if ex.ParseError != "" {
		fmt.Fprintf(&b, "parse error: %s\n", ex.ParseError)
	}
	b.WriteString("analysis:\n")
	for i, c := range ex.Commands {
		name := c.Name
		if name == "" && c.Argv == nil {
			name = "(" + strings.Join(c.Tags, ",") + ")"
		}
		fmt.Fprintf(&b, "  %d. %s", i+1, name)
		if len(c.Argv) > 0 {
			fmt.Fprintf(&b, "  argv=%q", c.Argv)
		}
		if len(c.Via) > 0 {
			fmt.Fprintf(&b, "  via=%s", strings.Join(c.Via, " > "))
		}
		if len(c.Tags) > 0 && c.Name != "" {
			fmt.Fprintf(&b, "  tags=%s", strings.Join(c.Tags, ","))
		}
		if len(c.Attrs) > 0 {
			fmt.Fprintf(&b, "  attrs=%v", c.Attrs)
		}
		b.WriteByte('\n')
		for _, e := range c.Effects {
			t := e.Target
			if e.Unknown {
				t = "? (" + e.Reason + ")"
			}
			fmt.Fprintf(&b, "       %s %s", e.Kind, t)
			if e.Class != "" {
				fmt.Fprintf(&b, " [%s]", e.Class)
			}
			if e.Resolved != "" {
				fmt.Fprintf(&b, " -> %s", e.Resolved)
			}
			if e.Glob != "" {
				fmt.Fprintf(&b, " glob %s", e.Glob)
			}
			if e.Recursive {
				b.WriteString(" recursive")
			}
			if e.Protected {
				b.WriteString(" (warden's own)")
			}
			b.WriteByte('\n')
		}
	}
	if len(ex.Matches) == 0 {
		b.WriteString("rules:    none matched\n")
	} else {
		b.WriteString("rules:\n")
		for _, m := range ex.Matches {
			mark := " "
			if m.Decisive {
				mark = "*"
			}
			fmt.Fprintf(&b, "  %s %-28s %-5s %-7s %s\n", mark, m.Rule, m.Effect, m.Mode, m.Reason)
		}
	}
	for _, a := range d.Audit {
		fmt.Fprintf(&b, "audit:    %s would %s: %s\n", a.Rule, a.Action, a.Reason)
	}
	return strings.TrimRight(b.String(), "\n")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
