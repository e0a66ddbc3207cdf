package policy

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Mode says whether a rule is enforced or only recorded.
type Mode string

// The rule modes.
const (
	// Enforce rules take part in the decision (the default).
	Enforce Mode = "enforce"
	// Audit rules never change the decision; their matches are reported in
	// Decision.Audit.
	Audit Mode = "audit"
)

// StandingPriority is the priority of the rules RuleFor builds: a person's
// standing answer for one exact call outranks the policy file's rules.
const StandingPriority = 100

// Rule is one policy rule, exactly as written in a policy file.
type Rule struct {
	// ID names the rule in decisions, errors and overlays; unique in a policy.
	ID string `yaml:"id" json:"id"`
	// Description says what the rule is for.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Effect is what a match decides: allow, deny or ask.
	Effect Action `yaml:"effect" json:"effect"`
	// Mode is enforce (default) or audit.
	Mode Mode `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Priority orders rules matching the same thing: the highest priority
	// decides, and within one priority deny beats ask beats allow. Default 0.
	Priority int `yaml:"priority,omitempty" json:"priority,omitempty"`
	// Match holds the conditions; all must hold (a list holds if any of its
	// values does).
	Match Match `yaml:"match,omitempty" json:"match,omitempty"`
	// Except holds conditions that, when they all hold, cancel the match.
	Except *Match `yaml:"except,omitempty" json:"except,omitempty"`
	// When is an optional CEL expression that must evaluate to true.
	When string `yaml:"when,omitempty" json:"when,omitempty"`
	// Reason is the human reason template ({target}, {class}, {command}, ...).
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Match is the set of conditions of a rule. Empty conditions hold for
// everything. See docs/policy.md for the pattern syntax.
type Match struct {
	// Tools are tool-name patterns, case-insensitive, matched against the
	// tool's own name and its canonical kind (bash, read, write, edit,
	// patch, list, glob, grep, webfetch).
	Tools Patterns `yaml:"tools,omitempty" json:"tools,omitempty"`
	// Sources are patterns for the call's source agent, case-insensitive.
	Sources Patterns `yaml:"sources,omitempty" json:"sources,omitempty"`
	// Workspaces are path patterns for the call's workspace.
	Workspaces Patterns `yaml:"workspaces,omitempty" json:"workspaces,omitempty"`
	// Input are patterns for the call's whole input: the command line of a
	// shell tool, the path of a file tool, the URL of webfetch.
	Input Patterns `yaml:"input,omitempty" json:"input,omitempty"`
	// Commands are patterns for normalised program names (rm, git, ...).
	Commands Patterns `yaml:"commands,omitempty" json:"commands,omitempty"`
	// Args are patterns for single arguments (argv[1:]); any may match.
	Args Patterns `yaml:"args,omitempty" json:"args,omitempty"`
	// Argv are RE2 regular expressions searched in the normalised argv
	// joined by single spaces ("git push --force origin main").
	Argv Patterns `yaml:"argv,omitempty" json:"argv,omitempty"`
	// Tags are patterns for the analyser's tags and findings.
	Tags Patterns `yaml:"tags,omitempty" json:"tags,omitempty"`
	// Attrs map a tag attribute to value patterns ("main|master" or a list);
	// "" matches a missing or empty attribute.
	Attrs map[string]Patterns `yaml:"attrs,omitempty" json:"attrs,omitempty"`
	// Effects are effect kinds: delete, write, read, exec, network, privilege.
	Effects Patterns `yaml:"effects,omitempty" json:"effects,omitempty"`
	// Targets are target classes: workspace, temp, home, system, unknown.
	Targets Patterns `yaml:"targets,omitempty" json:"targets,omitempty"`
	// Paths are path patterns for the effect's target, matched against the
	// path as written (resolved against cwd) and after symlinks.
	Paths Patterns `yaml:"paths,omitempty" json:"paths,omitempty"`
	// Recursive, when set, requires the effect to be (or not be) recursive.
	Recursive *bool `yaml:"recursive,omitempty" json:"recursive,omitempty"`
	// Protected, when set, requires the effect to reach (or not reach) into
	// warden's own dirs (Env.ProtectedDirs): its target is in one (as written
	// or after symlinks), or it is a recursive effect on a directory that
	// holds one, or a glob that can name one or a path inside one.
	Protected *bool `yaml:"protected,omitempty" json:"protected,omitempty"`
	// Reach, when true, makes Paths hold for what an effect under home can
	// reach without naming it (and not for what it names, which a rule
	// without Reach matches): a recursive effect (not one on names
	// only) on a directory that holds a path a pattern names, and a glob that can name
	// one (expanded against the file system when its directory exists,
	// matched pattern to pattern when it does not). Only patterns rooted
	// at a directory (~/.mozilla/firefox/**, /etc/shadow) are reached
	// this way; a pattern of a name alone (.env, *.pem) is not.
	Reach bool `yaml:"reach,omitempty" json:"reach,omitempty"`
}

// Patterns is a list of patterns; in YAML a single string is a list of one.
type Patterns []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (p *Patterns) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			*p = nil
			return nil
		}
		*p = Patterns{n.Value}
		return nil
	case yaml.SequenceNode:
		out := make(Patterns, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				return fmt.Errorf("line %d: want a string, not a %s", c.Line, nodeKind(c))
			}
			out = append(out, c.Value)
		}
		*p = out
		return nil
	}
	return fmt.Errorf("line %d: want a string or a list of strings, not a %s", n.Line, nodeKind(n))
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return "scalar"
}

// MarshalRules encodes rules as a YAML list, the format of overlay files
// (and of a policy file's rules: key).
func MarshalRules(rules []Rule) ([]byte, error) {
	if rules == nil {
		rules = []Rule{}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(rules); err != nil {
		return nil, fmt.Errorf("encode rules: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode rules: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseRules decodes and validates a YAML list of rules (an overlay file).
// An empty document is no rules. Rules are compiled against an empty Env to
// check them; WithRules compiles them for real.
func ParseRules(data []byte) ([]Rule, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("parse rules: %w", err)
	}
	if root.Kind == 0 || (root.Kind == yaml.DocumentNode && len(root.Content) == 0) {
		return nil, nil
	}
	var rules []Rule
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&rules); err != nil {
		return nil, fmt.Errorf("parse rules: %w", annotateLines(err, ruleLines(&root)))
	}
	if _, err := compileRules(rules, newRoots(Env{}), newCELEnv()); err != nil {
		return nil, err
	}
	return rules, nil
}

// RuleFor builds the narrowest rule deciding a on exactly this call: the
// same tool and the same input (command line, path or URL) in the same
// workspace. It carries StandingPriority so it outranks the policy file's
// rules for that call and nothing else. Used for `warden approve --always`.
func RuleFor(c Call, a Action, id string) Rule {
	n := normalise(c)
	m := Match{
		Tools:      Patterns{escapeText(strings.ToLower(c.Tool))},
		Input:      Patterns{exactText(n.input)},
		Workspaces: Patterns{escapeGlob(n.rawWS)},
	}
	what := n.input
	if len(what) > 80 {
		what = what[:77] + "..."
	}
	where := n.rawWS
	if where == "" {
		where = "an unknown workspace"
	}
	verb := map[Action]string{Allow: "allowed", Deny: "denied", Ask: "asked about"}[a]
	return Rule{
		ID:          id,
		Description: fmt.Sprintf("standing decision: %s %q in %s", strings.ToLower(c.Tool), what, where),
		Effect:      a,
		Priority:    StandingPriority,
		Match:       m,
		Reason:      fmt.Sprintf("%s by a standing decision (%s) for exactly this call in %s", verb, id, where),
	}
}

// exactText is a text pattern matching exactly s.
func exactText(s string) string {
	if strings.HasPrefix(s, "re:") || strings.ContainsAny(s, `*?[]{}\`) {
		return "re:^" + regexp.QuoteMeta(s) + "$"
	}
	return s
}

// escapeText is exactText for names (tools), which are never regexes.
func escapeText(s string) string { return exactText(s) }

// ruleLines returns the first line of each rule in a YAML list of rules
// (or of the rules: key of a policy file), for error messages.
func ruleLines(root *yaml.Node) []ruleLine {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "rules" {
				n = n.Content[i+1]
				break
			}
		}
	}
	if n.Kind != yaml.SequenceNode {
		return nil
	}
	var out []ruleLine
	for i, r := range n.Content {
		rl := ruleLine{line: r.Line, id: fmt.Sprintf("#%d", i+1)}
		if r.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(r.Content); j += 2 {
				if r.Content[j].Value == "id" && r.Content[j+1].Value != "" {
					rl.id = fmt.Sprintf("%q", r.Content[j+1].Value)
				}
			}
		}
		out = append(out, rl)
	}
	return out
}

type ruleLine struct {
	line int
	id   string
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// annotateLines adds the rule a YAML error's line falls in.
func annotateLines(err error, rules []ruleLine) error {
	if len(rules) == 0 {
		return err
	}
	msg := err.Error()
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	var line int
	fmt.Sscanf(m[1], "%d", &line)
	id := ""
	for _, r := range rules {
		if r.line <= line {
			id = r.id
		}
	}
	if id == "" {
		return err
	}
	return fmt.Errorf("in rule %s: %w", id, err)
}
