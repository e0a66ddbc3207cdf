package policy

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/interpreter"

	"github.com/warden-dev/warden/internal/policy/shell"
)

// celCostLimit bounds the work one CEL expression may do per evaluation.
const celCostLimit = 1_000_000

// newCELEnv declares the variables a rule's `when` expression sees; see
// docs/policy.md.
func newCELEnv() *cel.Env {
	m := cel.MapType(cel.StringType, cel.DynType)
	env, err := cel.NewEnv(
		cel.Variable("call", m),
		cel.Variable("command", m),
		cel.Variable("effect", m),
		cel.Variable("commands", cel.ListType(m)),
		cel.Variable("effects", cel.ListType(m)),
		cel.Variable("env", m),
	)
	if err != nil {
		// The declarations are constant; this cannot fail at run time.
		panic(fmt.Sprintf("policy: CEL environment: %v", err))
	}
	return env
}

// crule is a compiled rule.
type crule struct {
	Rule
	index  int
	m      cmatch
	except *cmatch
	when   cel.Program
	reason []reasonPart
}

type cmatch struct {
	tools, sources, input, commands, args, tags []textPattern
	workspaces                                  []pathPattern
	wsEmpty                                     bool // workspaces lists "" (no workspace)
	argv                                        []argvPattern
	attrs                                       []attrCond
	effects                                     []shell.Kind
	targets                                     []Class
	paths                                       []pathPattern
	recursive                                   *bool
	protected                                   *bool
	reach                                       bool
	needCommand                                 bool // has command-level conditions
	needEffect                                  bool // has effect-level conditions
}

type attrCond struct {
	key      string
	values   []textPattern
	allowNil bool // "" listed: a missing or empty value matches
}

var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`)

// compileRules compiles rules in order; every problem is reported, each
// naming its rule.
func compileRules(rules []Rule, r *roots, env *cel.Env) ([]*crule, error) {
	var errs []error
	out := make([]*crule, 0, len(rules))
	seen := map[string]bool{}
	for i, rule := range rules {
		name := fmt.Sprintf("rule #%d", i+1)
		if rule.ID != "" {
			name = fmt.Sprintf("rule %q", rule.ID)
		}
		if seen[rule.ID] && rule.ID != "" {
			errs = append(errs, fmt.Errorf("%s: duplicate id", name))
			continue
		}
		seen[rule.ID] = true
		cr, err := compileRule(rule, r, env)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		cr.index = i
		out = append(out, cr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

func compileRule(rule Rule, r *roots, env *cel.Env) (*crule, error) {
	if rule.ID == "" {
		return nil, errors.New("missing id")
	}
	if !validID.MatchString(rule.ID) {
		return nil, fmt.Errorf("bad id (letters, digits and . _ : / - only)")
	}
	switch rule.Effect {
	case Allow, Deny, Ask:
	case "":
		return nil, errors.New("missing effect (allow, deny or ask)")
	default:
		return nil, fmt.Errorf("unknown effect %q (want allow, deny or ask)", rule.Effect)
	}
	switch rule.Mode {
	case "", Enforce, Audit:
	default:
		return nil, fmt.Errorf("unknown mode %q (want enforce or audit)", rule.Mode)
	}
	cr := &crule{Rule: rule}
	m, err := compileMatch(rule.Match, r)
	if err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	cr.m = m
	if rule.Except != nil {
		e, err := compileMatch(*rule.Except, r)
		if err != nil {
			return nil, fmt.Errorf("except: %w", err)
		}
		cr.except = &e
	}
	if strings.TrimSpace(rule.When) != "" {
		ast, iss := env.Compile(rule.When)
		if iss != nil && iss.Err() != nil {
			return nil, fmt.Errorf("when: %w", iss.Err())
		}
		if ast.OutputType() != cel.BoolType {
			return nil, fmt.Errorf("when: the expression is %s, not bool", ast.OutputType())
		}
		// constant regexes (.matches(r"...")) are compiled once, not per call
		prg, err := env.Program(ast, cel.CostLimit(celCostLimit), cel.OptimizeRegex(interpreter.MatchesRegexOptimization))
		if err != nil {
			return nil, fmt.Errorf("when: %w", err)
		}
		cr.when = prg
	}
	parts, err := parseReason(rule.Reason)
	if err != nil {
		return nil, fmt.Errorf("reason: %w", err)
	}
	cr.reason = parts
	return cr, nil
}

func compileTexts(list Patterns, fold bool, what string) ([]textPattern, error) {
	if len(list) == 0 {
		return nil, nil
	}
	out := make([]textPattern, 0, len(list))
	for _, p := range list {
		t, err := compileText(p, fold)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, t)
	}
	return out, nil
}

var knownKinds = map[string]shell.Kind{
	"delete": shell.Delete, "write": shell.Write, "read": shell.Read,
	"exec": shell.Exec, "network": shell.Network, "privilege": shell.Privilege,
}

var knownClasses = map[string]Class{
	"workspace": ClassWorkspace, "temp": ClassTemp, "home": ClassHome,
	"system": ClassSystem, "unknown": ClassUnknown,
}

func compileMatch(m Match, r *roots) (cmatch, error) {
	var c cmatch
	var err error
	if c.tools, err = compileTexts(m.Tools, true, "tools"); err != nil {
		return c, err
	}
	if c.sources, err = compileTexts(m.Sources, true, "sources"); err != nil {
		return c, err
	}
	if c.input, err = compileTexts(m.Input, false, "input"); err != nil {
		return c, err
	}
	if c.commands, err = compileTexts(m.Commands, false, "commands"); err != nil {
		return c, err
	}
	if c.args, err = compileTexts(m.Args, false, "args"); err != nil {
		return c, err
	}
	if c.tags, err = compileTexts(m.Tags, false, "tags"); err != nil {
		return c, err
	}
	for _, w := range m.Workspaces {
		if w == "" {
			c.wsEmpty = true
			continue
		}
		ps, err := compilePath(w, r.vars())
		if err != nil {
			return c, fmt.Errorf("workspaces: %w", err)
		}
		c.workspaces = append(c.workspaces, ps...)
	}
	if len(m.Workspaces) > 0 && len(c.workspaces) == 0 && !c.wsEmpty {
		c.workspaces = []pathPattern{} // listed but expanded to nothing: matches nothing
	}
	for _, a := range m.Argv {
		re, err := regexp.Compile(a)
		if err != nil {
			return c, fmt.Errorf("argv: bad regular expression %q: %w", a, err)
		}
		c.argv = append(c.argv, argvPattern{re: re, firsts: leadingLiterals(a)})
	}
	for key, vals := range m.Attrs {
		ac := attrCond{key: key}
		for _, v := range vals {
			for _, alt := range splitAlternatives(v) {
				if alt == "" {
					ac.allowNil = true
					continue
				}
				t, err := compileText(alt, false)
				if err != nil {
					return c, fmt.Errorf("attrs.%s: %w", key, err)
				}
				ac.values = append(ac.values, t)
			}
		}
		c.attrs = append(c.attrs, ac)
	}
	for _, e := range m.Effects {
		k, ok := knownKinds[e]
		if !ok {
			return c, fmt.Errorf("effects: unknown effect kind %q (want delete, write, read, exec, network or privilege)", e)
		}
		c.effects = append(c.effects, k)
	}
	for _, t := range m.Targets {
		cl, ok := knownClasses[t]
		if !ok {
			return c, fmt.Errorf("targets: unknown target class %q (want workspace, temp, home, system or unknown)", t)
		}
		c.targets = append(c.targets, cl)
	}
	pathsListed := len(m.Paths) > 0
	for _, p := range m.Paths {
		ps, err := compilePath(p, r.vars())
		if err != nil {
			return c, fmt.Errorf("paths: %w", err)
		}
		c.paths = append(c.paths, ps...)
	}
	if pathsListed && c.paths == nil {
		c.paths = []pathPattern{} // e.g. only $PROTECTED with no protected dirs
	}
	c.recursive = m.Recursive
	c.protected = m.Protected
	c.reach = m.Reach
	c.needCommand = len(c.commands) > 0 || len(c.args) > 0 || len(c.argv) > 0 || len(c.attrs) > 0
	c.needEffect = len(c.effects) > 0 || len(c.targets) > 0 || c.paths != nil || c.recursive != nil || c.protected != nil
	return c, nil
}

// splitAlternatives splits an attribute pattern on "|" (outside "re:").
func splitAlternatives(v string) []string {
	if strings.HasPrefix(v, "re:") {
		return []string{v}
	}
	return strings.Split(v, "|")
}

// reasonPart is a piece of a reason template: literal text or a placeholder.
type reasonPart struct {
	text string
	ph   string
}

var placeholders = map[string]bool{
	"target": true, "resolved": true, "class": true, "kind": true, "command": true,
	"argv": true, "span": true, "tool": true, "input": true, "unknown": true,
	"rule": true, "tag": true, "workspace": true,
}

func parseReason(s string) ([]reasonPart, error) {
	var parts []reasonPart
	for s != "" {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			parts = append(parts, reasonPart{text: s})
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			parts = append(parts, reasonPart{text: s})
			break
		}
		name := s[i+1 : i+j]
		if !placeholders[name] && !strings.HasPrefix(name, "attr.") {
			return nil, fmt.Errorf("unknown placeholder {%s}", name)
		}
		if i > 0 {
			parts = append(parts, reasonPart{text: s[:i]})
		}
		parts = append(parts, reasonPart{ph: name})
		s = s[i+j+1:]
	}
	return parts, nil
}

// argvPattern is an argv regex with the literal texts one of which a
// matching argv must start with (nil when the regex does not say), a
// cheap test that spares most regex runs: most argv rules name their
// program first (^(terraform|tofu) ...).
type argvPattern struct {
	re     *regexp.Regexp
	firsts []string
}

func (a *argvPattern) match(s string) bool {
	if a.firsts != nil {
		ok := false
		for _, f := range a.firsts {
			if strings.HasPrefix(s, f) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return a.re.MatchString(s)
}

// leadingLiterals returns, for a regex anchored at the start of the text,
// the literal prefixes one of which every match starts with; nil when
// there is no such set (unanchored, a class or a case-folded literal
// first).
func leadingLiterals(expr string) []string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	return literalStarts(re.Sub[1])
}

// literalStarts is the set of literal prefixes that every match of re
// starts with, or nil.
func literalStarts(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return literalStarts(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil
		}
		return literalStarts(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l := literalStarts(s)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	}
	return nil
}
