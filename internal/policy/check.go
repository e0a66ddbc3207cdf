package policy

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// Problem is one thing wrong in a policy file, placed where its author
// wrote it.
type Problem struct {
	// Line is the line in the file (1-based; 0 when it has none).
	Line int `json:"line,omitempty"`
	// Rule is the number of the rule in the file's own rules: list
	// (1-based; 0 when the problem is not a rule's).
	Rule int `json:"rule,omitempty"`
	// RuleID is that rule's id, when it has one.
	RuleID string `json:"ruleId,omitempty"`
	// Test is the number of the inline test that failed (1-based; 0 for
	// none).
	Test int `json:"test,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// String is "line 12: rule 3 ("no-curl"): missing effect".
func (p Problem) String() string {
	var b bytes.Buffer
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Rule > 0 {
		fmt.Fprintf(&b, "rule %d", p.Rule)
		if p.RuleID != "" {
			fmt.Fprintf(&b, " (%q)", p.RuleID)
		}
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// nodeSpan is one item of a top-level list (rules:, tests:) with where it
// starts.
type nodeSpan struct {
	line int
	id   string
}

// listItems returns the items of the top-level key's sequence, and the
// line after which the next top-level key starts (0: the end).
func listItems(root *yaml.Node, key string) ([]nodeSpan, int) {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil, 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key || n.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		end := 0
		if i+2 < len(n.Content) {
			end = n.Content[i+2].Line
		}
		var out []nodeSpan
		for _, item := range n.Content[i+1].Content {
			s := nodeSpan{line: item.Line}
			if item.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(item.Content); j += 2 {
					if item.Content[j].Value == "id" || (key == "tests" && item.Content[j].Value == "name") {
						s.id = item.Content[j+1].Value
					}
				}
			}
			out = append(out, s)
		}
		return out, end
	}
	return nil, 0
}

// itemAt returns the 1-based number of the item of items holding line
// (0: none).
func itemAt(items []nodeSpan, end, line int) int {
	if len(items) == 0 || line < items[0].line || (end > 0 && line >= end) {
		return 0
	}
	k := 0
	for i, it := range items {
		if it.line <= line {
			k = i + 1
		}
	}
	return k
}

var yamlLineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// Check reads a policy file as Parse does, but reports every problem at
// once, each with its line and the number of the rule (in the file's own
// rules: list) it is in: YAML type errors and unknown fields, every rule
// that does not compile, file-level settings, and then every inline test
// that fails. The policy is returned when it compiles (even when tests
// fail); problems is empty only when Parse would accept the file.
func Check(data []byte, env Env) (*Policy, []Problem) {
	if len(data) > MaxPolicySize {
		return nil, []Problem{{Message: fmt.Sprintf("the file is larger than %d bytes", MaxPolicySize)}}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, []Problem{yamlProblem(err.Error(), nil, 0)}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, []Problem{{Message: "the file is empty"}}
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return nil, []Problem{{Line: root.Content[0].Line, Message: "want a mapping with version, rules, tests"}}
	}
	rules, rulesEnd := listItems(&root, "rules")
	tests, _ := listItems(&root, "tests")
	var problems []Problem
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, []Problem{yamlProblem(err.Error(), rules, rulesEnd)}
		}
		for _, msg := range te.Errors {
			problems = append(problems, yamlProblem(msg, rules, rulesEnd))
		}
	}
	// Every rule on its own, so each problem names the author's rule.
	r := newRoots(env)
	celEnv := newCELEnv()
	seen := map[string]int{}
	for i, rule := range f.Rules {
		p := Problem{Rule: i + 1, RuleID: rule.ID}
		if i < len(rules) {
			p.Line = rules[i].line
		}
		if first, dup := seen[rule.ID]; dup && rule.ID != "" {
			p.Message = fmt.Sprintf("duplicate id (rule %d has it too)", first)
			problems = append(problems, p)
			continue
		}
		seen[rule.ID] = i + 1
		if _, err := compileRule(rule, r, celEnv); err != nil {
			p.Message = err.Error()
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	p, err := compileFile(&f, env, shell.Analyze, true)
	if err != nil {
		// file-level settings (version, extends, disable, default, sandbox)
		for _, e := range unjoin(err) {
			problems = append(problems, yamlProblem(e.Error(), rules, rulesEnd))
		}
		return nil, problems
	}
	for i, res := range p.Tests() {
		if res.Passed {
			continue
		}
		tp := Problem{Test: i + 1, Message: res.Name + ": " + res.Message}
		if i < len(tests) {
			tp.Line = tests[i].line
		}
		problems = append(problems, tp)
	}
	return p, problems
}

// unjoin splits an errors.Join error into its parts.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// yamlProblem places a decoder message ("line 12: field x not found ...").
func yamlProblem(msg string, rules []nodeSpan, rulesEnd int) Problem {
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return Problem{Message: msg}
	}
	line, _ := strconv.Atoi(m[1])
	p := Problem{Line: line, Message: m[2]}
	if k := itemAt(rules, rulesEnd, line); k > 0 {
		p.Rule, p.RuleID = k, rules[k-1].id
	}
	return p
}
