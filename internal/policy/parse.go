package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/warden-dev/warden/internal/policy/shell"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the built-in policy file (a copy).
func DefaultYAML() []byte { return bytes.Clone(defaultYAML) }

// MaxPolicySize is the largest policy file LoadFile reads.
const MaxPolicySize = 4 << 20

// file is the policy file format; see docs/policy.md.
type file struct {
	Version int    `yaml:"version"`
	Extends string `yaml:"extends"`
	Default Action `yaml:"default"`
	// Disable drops rules of the extended policy by id.
	Disable []string `yaml:"disable"`
	Rules   []Rule   `yaml:"rules"`
	Tests   []Test   `yaml:"tests"`
	// TestEnv, when set, is the Env the inline tests run in, so they give
	// the same answers on every machine.
	TestEnv *Env `yaml:"test_env"`
	// Sandbox is what processes warden starts may touch (sandbox.go).
	Sandbox *SandboxConfig `yaml:"sandbox"`
}

// Test is one inline test of a policy file.
type Test struct {
	// Name labels the test (default: its number and input).
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Call is the call to decide. Cwd, Workspace and path arguments may
	// start with "~".
	Call Call `yaml:"call,omitempty" json:"call"`
	// Command is shorthand for a bash call with this command line in the
	// workspace ~/project (unless Call sets cwd or workspace).
	Command string `yaml:"command,omitempty" json:"command,omitempty"`
	// Expect is the decision the call must get.
	Expect Action `yaml:"expect" json:"expect"`
	// Rule, when set, is the id of the rule that must decide ("default"
	// for the default effect).
	Rule string `yaml:"rule,omitempty" json:"rule,omitempty"`
}

// TestResult is the outcome of one inline test.
type TestResult struct {
	// Name labels the test.
	Name string `json:"name"`
	// Passed is true when the decision (and rule, if given) was as expected.
	Passed bool `json:"passed"`
	// Expect and Rule are what the test wanted.
	Expect Action `json:"expect"`
	Rule   string `json:"rule,omitempty"`
	// Got is the decision the policy made.
	Got Decision `json:"got"`
	// Message says what was wrong ("" when passed).
	Message string `json:"message,omitempty"`
}

// Default returns the built-in policy for env. Its inline tests run (in
// their own fixed test env) and must pass.
func Default(env Env) (*Policy, error) {
	p, err := parse(defaultYAML, env, shell.Analyze, false)
	if err != nil {
		return nil, fmt.Errorf("built-in policy: %w", err)
	}
	return p, nil
}

// Parse reads a policy file. With `extends: default` its rules are added to
// the built-in ones (a rule with a built-in rule's id replaces it; disable:
// drops built-in rules); without it the file replaces the built-in policy.
// The file's inline tests run; if any fails, Parse returns an error listing
// each failing test.
func Parse(data []byte, env Env) (*Policy, error) {
	return parse(data, env, shell.Analyze, true)
}

// LoadFile reads and parses the policy file at path.
func LoadFile(path string, env Env) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open policy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicySize+1))
	if err != nil {
		return nil, fmt.Errorf("read policy %s: %w", path, err)
	}
	if len(data) > MaxPolicySize {
		return nil, fmt.Errorf("policy %s is larger than %d bytes", path, MaxPolicySize)
	}
	return Parse(data, env)
}

func decodeFile(data []byte) (*file, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("parse policy: %w", err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, errors.New("parse policy: the file is empty")
	}
	if root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("parse policy: line %d: want a mapping with version, rules, tests", root.Content[0].Line)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse policy: %w", annotateLines(err, ruleLines(&root)))
	}
	return &f, nil
}

func parse(data []byte, env Env, analyze analyzeFunc, allowExtends bool) (*Policy, error) {
	f, err := decodeFile(data)
	if err != nil {
		return nil, err
	}
	p, err := compileFile(f, env, analyze, allowExtends)
	if err != nil {
		return nil, err
	}
	if err := p.checkTests(); err != nil {
		return nil, err
	}
	return p, nil
}

// compileFile builds the policy of a decoded file, without running its
// inline tests.
func compileFile(f *file, env Env, analyze analyzeFunc, allowExtends bool) (*Policy, error) {
	var err error
	if f.Version != 0 && f.Version != 1 {
		return nil, fmt.Errorf("policy version %d is not supported (want 1)", f.Version)
	}
	rules := f.Rules
	def := f.Default
	sandbox := f.Sandbox
	switch f.Extends {
	case "":
		if len(f.Disable) > 0 {
			return nil, errors.New("disable: only makes sense with extends: default")
		}
	case "default":
		if !allowExtends {
			return nil, errors.New("the built-in policy cannot extend itself")
		}
		base, err := decodeFile(defaultYAML)
		if err != nil {
			return nil, fmt.Errorf("built-in policy: %w", err)
		}
		if rules, err = mergeRules(base.Rules, f.Disable, f.Rules); err != nil {
			return nil, err
		}
		if def == "" {
			def = base.Default
		}
		if sandbox == nil {
			sandbox = base.Sandbox
		}
	default:
		return nil, fmt.Errorf("extends: %q is not supported (only \"default\")", f.Extends)
	}
	switch def {
	case "":
		def = Allow
	case Allow, Deny, Ask:
	default:
		return nil, fmt.Errorf("default: unknown effect %q (want allow, deny or ask)", def)
	}
	p, err := build(rules, def, env, analyze)
	if err != nil {
		return nil, err
	}
	if sandbox != nil {
		if err := sandbox.Validate(); err != nil {
			return nil, err
		}
		p.sandbox = *sandbox
	}
	p.tests = f.Tests
	p.testPolicy = p
	if f.TestEnv != nil {
		if p.testPolicy, err = build(rules, def, *f.TestEnv, analyze); err != nil {
			return nil, fmt.Errorf("test_env: %w", err)
		}
		p.testPolicy.tests = f.Tests
	}
	return p, nil
}

// build compiles rules for env.
func build(rules []Rule, def Action, env Env, analyze analyzeFunc) (*Policy, error) {
	celEnv := newCELEnv()
	r := newRoots(env)
	cr, err := compileRules(rules, r, celEnv)
	if err != nil {
		return nil, err
	}
	return &Policy{env: env, roots: r, cel: celEnv, rules: rules, crules: cr, def: def, analyze: analyze}, nil
}

// mergeRules puts a file's rules over the built-in ones.
func mergeRules(base []Rule, disable []string, extra []Rule) ([]Rule, error) {
	drop := map[string]bool{}
	known := map[string]bool{}
	for _, r := range base {
		known[r.ID] = true
	}
	var errs []error
	for _, id := range disable {
		if !known[id] {
			errs = append(errs, fmt.Errorf("disable: the built-in policy has no rule %q", id))
		}
		drop[id] = true
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	replace := map[string]Rule{}
	var added []Rule
	for _, r := range extra {
		if known[r.ID] && !drop[r.ID] {
			if _, dup := replace[r.ID]; !dup {
				replace[r.ID] = r
				continue
			}
		}
		added = append(added, r)
	}
	out := make([]Rule, 0, len(base)+len(added))
	for _, r := range base {
		if drop[r.ID] {
			continue
		}
		if nr, ok := replace[r.ID]; ok {
			r = nr
		}
		out = append(out, r)
	}
	return append(out, added...), nil
}

// Tests runs the policy file's inline tests again and reports each.
func (p *Policy) Tests() []TestResult {
	tp := p.testPolicy
	if tp == nil {
		tp = p
	}
	out := make([]TestResult, 0, len(p.tests))
	for i, t := range p.tests {
		out = append(out, tp.runTest(i, t))
	}
	return out
}

func (p *Policy) checkTests() error {
	var failed []string
	for _, r := range p.Tests() {
		if !r.Passed {
			failed = append(failed, "  "+r.Name+": "+r.Message)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d policy tests failed:\n%s", len(failed), len(p.tests), strings.Join(failed, "\n"))
	}
	return nil
}

// testCall turns a test into the call it describes.
func (p *Policy) testCall(t Test) Call {
	c := t.Call
	if t.Command != "" {
		if c.Tool == "" {
			c.Tool = "bash"
		}
		args := map[string]any{}
		for k, v := range c.Args {
			args[k] = v
		}
		args["command"] = t.Command
		c.Args = args
		if c.Workspace == "" && c.Cwd == "" {
			c.Workspace = "~/project"
		}
	}
	home := p.roots.home
	tilde := func(s string) string {
		if home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
			return home + s[1:]
		}
		return s
	}
	c.Cwd, c.Workspace = tilde(c.Cwd), tilde(c.Workspace)
	if len(c.Args) > 0 {
		args := make(map[string]any, len(c.Args))
		for k, v := range c.Args {
			if s, ok := v.(string); ok && k != "command" {
				v = tilde(s)
			}
			args[k] = v
		}
		c.Args = args
	}
	return c
}

func (p *Policy) runTest(i int, t Test) TestResult {
	c := p.testCall(t)
	name := t.Name
	if name == "" {
		in := normalise(c).input
		if len(in) > 60 {
			in = in[:57] + "..."
		}
		name = fmt.Sprintf("test %d (%s %s)", i+1, strings.ToLower(c.Tool), in)
	} else {
		name = fmt.Sprintf("test %d (%s)", i+1, name)
	}
	res := TestResult{Name: name, Expect: t.Expect, Rule: t.Rule}
	switch t.Expect {
	case Allow, Deny, Ask:
	default:
		res.Message = fmt.Sprintf("expect: %q is not allow, deny or ask", t.Expect)
		return res
	}
	if c.Tool == "" {
		res.Message = "the test has no call.tool (or command)"
		return res
	}
	d := p.Decide(c)
	res.Got = d
	gotRule := d.Rule
	if gotRule == "" {
		gotRule = "default"
	}
	switch {
	case d.Action != t.Expect:
		res.Message = fmt.Sprintf("expected %s, got %s (rule %s: %s)", t.Expect, d.Action, gotRule, d.Reason)
	case t.Rule != "" && t.Rule != gotRule:
		res.Message = fmt.Sprintf("expected rule %s, got rule %s (%s)", t.Rule, gotRule, d.Reason)
	default:
		res.Passed = true
	}
	return res
}
