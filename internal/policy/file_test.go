package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/policy/shell"
)

func mustParse(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := Parse([]byte(src), testEnv())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

func TestExtendsDefault(t *testing.T) {
	p := mustParse(t, `
version: 1
extends: default
rules:
  - id: no-npm
    description: this team uses pnpm
    effect: deny
    match: {commands: [npm]}
    reason: "use pnpm, not {command}"
  - id: cache-ok
    description: the go build cache may be cleaned
    effect: allow
    priority: 10
    match: {effects: [delete], paths: ["~/.cache/go-build", "~/.cache/go-build/**"]}
tests:
  - {command: "npm install", expect: deny, rule: no-npm}
  - {command: "pnpm install", expect: allow}
  - {command: "rm -rf ~/.cache/go-build", expect: allow, rule: cache-ok}
  - {command: "rm -rf ~/.config/other", expect: deny, rule: delete-outside-workspace}
  - {command: "rm -rf ~/.cache/go-build ~/Documents", expect: deny}
  - {command: "git reset --hard", expect: ask}
`)
	if d := p.Decide(bash("npm ci")); d.Action != Deny || d.Reason != "use pnpm, not npm" {
		t.Fatalf("%+v", d)
	}
	if got := len(p.Tests()); got != 6 {
		t.Fatalf("Tests: %d", got)
	}
	for _, r := range p.Tests() {
		if !r.Passed {
			t.Errorf("%s: %s", r.Name, r.Message)
		}
	}
	if p.DefaultAction() != Allow {
		t.Fatal(p.DefaultAction())
	}
}

func TestExtendsReplaceAndDisable(t *testing.T) {
	p := mustParse(t, `
extends: default
disable: [git-reset-hard]
rules:
  - id: publish
    effect: deny
    match: {tags: [publish]}
    reason: "never publish from an agent"
tests:
  - {command: "git reset --hard", expect: allow}
  - {command: "npm publish", expect: deny, rule: publish}
`)
	for _, r := range p.Rules() {
		if r.ID == "git-reset-hard" {
			t.Fatal("disabled rule still there")
		}
	}
	if _, err := Parse([]byte("extends: default\ndisable: [no-such-rule]\n"), testEnv()); err == nil || !strings.Contains(err.Error(), "no-such-rule") {
		t.Fatalf("disable of unknown rule: %v", err)
	}
}

func TestReplaceDefaultEntirely(t *testing.T) {
	p := mustParse(t, `
version: 1
default: deny
rules:
  - id: read-anything
    effect: allow
    match: {tools: [read, glob, grep, list]}
  - id: safe-commands
    effect: allow
    match: {commands: [ls, cat, echo, git, go]}
  - id: but-not-push
    effect: ask
    match: {commands: [git], args: [push]}
tests:
  - {command: "ls -la", expect: allow, rule: safe-commands}
  - {command: "rm -rf build", expect: deny, rule: default}
  - {command: "ls && rm x", expect: deny}
  - {command: "git push", expect: ask}
  - {call: {tool: read, args: {filePath: /etc/hosts}}, expect: allow}
  - {call: {tool: write, args: {filePath: x}, workspace: /w}, expect: deny}
`)
	if p.DefaultAction() != Deny {
		t.Fatal(p.DefaultAction())
	}
	if d := p.Decide(bash("git reset --hard")); d.Action != Allow {
		t.Fatalf("the default's rules should be gone: %+v", d)
	}
	d := p.Decide(bash("make"))
	if d.Action != Deny || d.Rule != "" || !strings.Contains(d.Reason, "default") {
		t.Fatalf("%+v", d)
	}
}

func TestAuditMode(t *testing.T) {
	p := mustParse(t, `
extends: default
rules:
  - id: watch-docker
    effect: deny
    mode: audit
    match: {commands: [docker]}
    reason: "docker {argv}"
tests:
  - {command: "docker ps", expect: allow}
`)
	d := p.Decide(bash("docker ps"))
	if d.Action != Allow {
		t.Fatalf("audit rule enforced: %+v", d)
	}
	if len(d.Audit) != 1 || d.Audit[0].Rule != "watch-docker" || d.Audit[0].Action != Deny || d.Audit[0].Reason != "docker docker ps" {
		t.Fatalf("audit: %+v", d.Audit)
	}
	// An audit hit rides along with an enforced deny.
	d = p.Decide(bash("docker ps; rm -rf /"))
	if d.Action != Deny || len(d.Audit) != 1 {
		t.Fatalf("%+v", d)
	}
}

func TestCELConditions(t *testing.T) {
	p := mustParse(t, `
default: allow
rules:
  - id: too-many-effects
    effect: ask
    when: 'call.kind == "bash" && size(effects) > 3'
    reason: "{input} does a lot"
  - id: opencode-no-curl
    effect: deny
    match: {commands: [curl], sources: [opencode]}
    when: 'command.argv.exists(a, a.startsWith("http://"))'
  - id: big-rm
    effect: deny
    match: {commands: [rm]}
    when: 'size(command.argv) > 5 && effect.class == "workspace"'
  - id: branch-attr
    effect: ask
    match: {tags: [git.push.force]}
    when: 'command.attrs.branch == "dev"'
  - id: env-home
    effect: deny
    match: {effects: [write]}
    when: 'effect.target.startsWith(env.home + "/secret")'
tests:
  - {command: "touch a b c d", expect: ask, rule: too-many-effects}
  - {command: "touch a", expect: allow}
  - {command: "git push -f origin dev", expect: ask, rule: branch-attr}
  - {command: "git push -f origin main", expect: allow}
  - {command: "echo x > ~/secret/a", expect: deny, rule: env-home}
`)
	c := bash("curl http://example.com")
	c.Source = "opencode"
	if d := p.Decide(c); d.Action != Deny || d.Rule != "opencode-no-curl" {
		t.Fatalf("%+v", d)
	}
	c.Source = "claude-code"
	if d := p.Decide(c); d.Action != Allow {
		t.Fatalf("%+v", d)
	}
	if d := p.Decide(bash("rm a b c d e")); d.Rule != "big-rm" && d.Rule != "too-many-effects" {
		t.Fatalf("%+v", d)
	}
}

func TestCELErrorIsFailClosed(t *testing.T) {
	p := mustParse(t, `
rules:
  - id: deny-on-error
    effect: deny
    when: 'call.args.nope == "x"'
  - id: allow-on-error
    effect: allow
    priority: 5
    when: 'call.args.nope == "x"'
`)
	if d := p.Decide(bash("ls")); d.Action != Deny || d.Rule != "deny-on-error" {
		t.Fatalf("a failing CEL condition must count for deny rules only: %+v", d)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"bad yaml", "rules: [", []string{"parse policy"}},
		{"empty", "", []string{"empty"}},
		{"not a mapping", "- a\n- b\n", []string{"mapping"}},
		{"unknown top-level field", "version: 1\nrulez: []\n", []string{"rulez"}},
		{"unknown rule field", "rules:\n  - id: r1\n    effect: deny\n    mtch: {}\n", []string{`rule "r1"`, "mtch"}},
		{"unknown match field", "rules:\n  - id: r2\n    effect: deny\n    match: {comands: [rm]}\n", []string{`rule "r2"`, "comands"}},
		{"unknown effect", "rules:\n  - id: r3\n    effect: block\n", []string{`rule "r3"`, `unknown effect "block"`}},
		{"missing effect", "rules:\n  - id: r4\n", []string{`rule "r4"`, "missing effect"}},
		{"missing id", "rules:\n  - effect: deny\n", []string{"rule #1", "missing id"}},
		{"duplicate id", "rules:\n  - {id: a, effect: deny}\n  - {id: a, effect: allow}\n", []string{`rule "a"`, "duplicate"}},
		{"bad mode", "rules:\n  - {id: m, effect: deny, mode: loud}\n", []string{`rule "m"`, "mode"}},
		{"bad CEL", "rules:\n  - id: c1\n    effect: deny\n    when: 'call.tool =='\n", []string{`rule "c1"`, "when"}},
		{"CEL not bool", "rules:\n  - id: c2\n    effect: deny\n    when: 'call.tool'\n", []string{`rule "c2"`, "not bool"}},
		{"CEL unknown variable", "rules:\n  - id: c3\n    effect: deny\n    when: 'foo == 1'\n", []string{`rule "c3"`, "foo"}},
		{"bad regex", "rules:\n  - id: x1\n    effect: deny\n    match: {argv: ['(']}\n", []string{`rule "x1"`, "argv"}},
		{"bad glob", "rules:\n  - id: x2\n    effect: deny\n    match: {paths: ['/a/[']}\n", []string{`rule "x2"`, "paths"}},
		{"unknown path variable", "rules:\n  - id: x3\n    effect: deny\n    match: {paths: ['$NOPE/x']}\n", []string{`rule "x3"`, "$NOPE"}},
		{"unknown kind", "rules:\n  - id: x4\n    effect: deny\n    match: {effects: [explode]}\n", []string{`rule "x4"`, "explode"}},
		{"unknown class", "rules:\n  - id: x5\n    effect: deny\n    match: {targets: [moon]}\n", []string{`rule "x5"`, "moon"}},
		{"bad placeholder", "rules:\n  - id: x6\n    effect: deny\n    reason: '{nope}'\n", []string{`rule "x6"`, "{nope}"}},
		{"bad default", "default: maybe\n", []string{"default", "maybe"}},
		{"bad version", "version: 2\n", []string{"version 2"}},
		{"bad extends", "extends: strict\n", []string{"extends"}},
		{"disable without extends", "disable: [x]\n", []string{"disable"}},
		{"failing test", "rules:\n  - {id: d, effect: deny, match: {commands: [rm]}}\ntests:\n  - {command: 'rm x', expect: allow}\n  - {command: 'ls', expect: deny}\n  - {command: 'ls', expect: allow, rule: d}\n",
			[]string{"3 of 3 policy tests failed", "test 1 (bash rm x): expected allow, got deny", "test 2", "expected rule d"}},
		{"bad expect", "tests:\n  - {command: ls, expect: yes}\n", []string{"expect"}},
		{"two errors at once", "rules:\n  - {id: e1, effect: nope}\n  - {id: e2, effect: deny, when: '1'}\n", []string{`rule "e1"`, `rule "e2"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), testEnv())
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte("extends: default\ntests:\n  - {command: 'rm -rf /', expect: deny}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadFile(path, testEnv())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tests()) != 1 {
		t.Fatal(p.Tests())
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.yaml"), testEnv()); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Fatalf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestDefaultYAMLRoundTrip(t *testing.T) {
	p, err := Parse(DefaultYAML(), testEnv())
	if err != nil {
		t.Fatal(err)
	}
	def := mustDefault(t)
	if len(p.Rules()) != len(def.Rules()) || len(p.Tests()) != len(def.Tests()) {
		t.Fatal("Parse(DefaultYAML()) differs from Default")
	}
	if len(def.Tests()) < 80 {
		t.Fatalf("the default policy has only %d inline tests", len(def.Tests()))
	}
	for _, r := range def.Tests() {
		if !r.Passed {
			t.Errorf("%s: %s", r.Name, r.Message)
		}
	}
	// DefaultYAML is a copy.
	b := DefaultYAML()
	b[0] = 'X'
	if DefaultYAML()[0] == 'X' {
		t.Fatal("DefaultYAML shares its buffer")
	}
}

func TestDefaultRunsInAnyEnv(t *testing.T) {
	// The inline tests run in their own test_env, so odd machines load too.
	for _, env := range []Env{{}, {Home: "/"}, {Home: "/tmp/home", TempDirs: []string{"/tmp"}}, {Home: "/root"}} {
		if _, err := Default(env); err != nil {
			t.Errorf("%+v: %v", env, err)
		}
	}
}

func TestOverlayRuleFor(t *testing.T) {
	base := mustDefault(t)
	c := bash("git reset --hard HEAD~1")
	if d := base.Decide(c); d.Action != Ask {
		t.Fatalf("%+v", d)
	}
	r := RuleFor(c, Allow, "always-ap_1")
	p, err := base.WithRules(r)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(c); d.Action != Allow || d.Rule != "always-ap_1" {
		t.Fatalf("standing rule: %+v", d)
	}
	// Exactly this call: another command, another workspace and another
	// tool are unaffected, and so is the base policy.
	if d := p.Decide(bash("git reset --hard HEAD~2")); d.Action != Ask {
		t.Fatalf("other command: %+v", d)
	}
	other := c
	other.Workspace, other.Cwd = "/home/dev/other", "/home/dev/other"
	if d := p.Decide(other); d.Action != Ask {
		t.Fatalf("other workspace: %+v", d)
	}
	if d := base.Decide(c); d.Action != Ask {
		t.Fatal("WithRules changed the receiver")
	}
	// A command with glob characters is matched literally.
	g := bash("rm -rf *")
	pg, err := base.WithRules(RuleFor(g, Allow, "always-glob"))
	if err != nil {
		t.Fatal(err)
	}
	if d := pg.Decide(g); d.Action != Allow {
		t.Fatalf("%+v", d)
	}
	if d := pg.Decide(bash("rm -rf ./")); d.Action != Ask {
		t.Fatalf("glob rule matched another command: %+v", d)
	}
	// File tools: the path.
	w := tool("write", "filePath", "/etc/hosts")
	pw, err := base.WithRules(RuleFor(w, Deny, "always-w"))
	if err != nil {
		t.Fatal(err)
	}
	if d := pw.Decide(w); d.Rule != "always-w" {
		t.Fatalf("%+v", d)
	}
	// Duplicate ids are refused.
	if _, err := p.WithRules(r); err == nil {
		t.Fatal("duplicate overlay id accepted")
	}
	// Tests are the base's.
	if len(p.Tests()) != len(base.Tests()) {
		t.Fatal("overlay changed Tests")
	}
	for _, tr := range p.Tests() {
		if !tr.Passed {
			t.Errorf("%s: %s", tr.Name, tr.Message)
		}
	}
}

func TestMarshalParseRules(t *testing.T) {
	rules := []Rule{
		RuleFor(bash("git reset --hard HEAD~1"), Allow, "always-1"),
		RuleFor(bash(`echo "a*b" > [x]`), Deny, "always-2"),
		RuleFor(tool("write", "filePath", "/etc/hosts"), Allow, "always-3"),
		RuleFor(Call{Tool: "bash", Args: map[string]any{"command": "ls"}}, Allow, "always-4"),
		{ID: "custom", Effect: Ask, Mode: Audit, Match: Match{Commands: Patterns{"rm"}, Attrs: map[string]Patterns{"branch": {"main"}}}, When: "true"},
	}
	data, err := MarshalRules(rules)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseRules(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	a, _ := json.Marshal(rules)
	b, _ := json.Marshal(back)
	if string(a) != string(b) {
		t.Fatalf("round trip:\n%s\n%s\n%s", a, b, data)
	}
	p, err := mustDefault(t).WithRules(back...)
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(bash(`echo "a*b" > [x]`)); d.Rule != "always-2" {
		t.Fatalf("%+v", d)
	}
	if d := p.Decide(Call{Tool: "bash", Args: map[string]any{"command": "ls"}}); d.Rule != "always-4" {
		t.Fatalf("unknown workspace rule: %+v", d)
	}
	if rs, err := ParseRules(nil); err != nil || rs != nil {
		t.Fatalf("empty overlay: %v %v", rs, err)
	}
	if out, err := MarshalRules(nil); err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := ParseRules([]byte("- {id: x, effect: nope}\n")); err == nil || !strings.Contains(err.Error(), `rule "x"`) {
		t.Fatalf("%v", err)
	}
	if _, err := ParseRules([]byte("- {id: x, effect: deny, bogus: 1}\n")); err == nil || !strings.Contains(err.Error(), `rule "x"`) {
		t.Fatalf("%v", err)
	}
}

func TestPatterns(t *testing.T) {
	p := mustParse(t, `
rules:
  - id: scalar-list
    effect: deny
    match: {commands: rm, args: "-*r*"}
  - id: regex
    effect: ask
    match: {commands: ["re:^py(thon)?[0-9.]*$"]}
  - id: braces
    effect: deny
    match: {effects: [write], paths: ["**/*.{lock,sum}"]}
  - id: workspace-rel
    effect: deny
    match: {effects: [write], paths: ["$WORKSPACE/vendor/**"]}
  - id: tools-case
    effect: deny
    match: {tools: [WebFetch]}
  - id: ws-glob
    effect: ask
    match: {workspaces: ["~/secret-*"], effects: [write]}
tests:
  - {command: "rm -rf x", expect: deny, rule: scalar-list}
  - {command: "rm x", expect: allow}
  - {command: "python3.12 -V", expect: ask}
  - {command: "py -V", expect: ask}
  - {command: "echo > go.sum", expect: deny}
  - {command: "echo > a/b/yarn.lock", expect: deny}
  - {command: "echo > go.mod", expect: allow}
  - {command: "echo > vendor/x/y.go", expect: deny}
  - {command: "echo > src/vendor/x.go", expect: allow}
  - {call: {tool: webfetch, args: {url: "https://x"}}, expect: deny}
  - {call: {tool: write, args: {filePath: a}, workspace: ~/secret-proj}, expect: ask}
  - {call: {tool: write, args: {filePath: a}, workspace: ~/public}, expect: allow}
`)
	_ = p
}

func TestSymlinks(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	wsDir := filepath.Join(home, "proj")
	outside := filepath.Join(root, "etc")
	for _, d := range []string{wsDir, outside, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"etc-link":     outside,                               // a dir outside
		"key":          filepath.Join(home, ".ssh", "id_rsa"), // a secret
		"dangling":     filepath.Join(outside, "new", "file"),
		"inside":       filepath.Join(wsDir, "src"),
		"home-link":    home,
		"relative-out": "../../etc",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(wsDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(wsDir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The workspace itself reached through a symlink.
	wsLink := filepath.Join(root, "ws-link")
	if err := os.Symlink(wsDir, wsLink); err != nil {
		t.Fatal(err)
	}
	env := Env{Home: home, TempDirs: []string{filepath.Join(root, "scratch")}}
	p, err := Default(env)
	if err != nil {
		t.Fatal(err)
	}
	call := func(cmd, w string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: w, Workspace: w}
	}
	cases := []decideCase{
		{name: "rm through a link to a dir outside", call: call("rm -rf etc-link/", wsDir), want: Deny},
		{name: "write through a link outside", call: call("echo x > etc-link/passwd", wsDir), want: Deny},
		{name: "write through a relative link outside", call: call("echo x > relative-out/hosts", wsDir), want: Deny},
		{name: "write through a dangling link", call: call("echo x > dangling", wsDir), want: Deny},
		{name: "write through a link to home", call: call("echo x >> home-link/.bashrc", wsDir), want: Deny},
		{name: "read a secret through a link", call: call("cat key", wsDir), want: Deny},
		{name: "link inside the workspace", call: call("rm -rf inside/x", wsDir), want: Allow},
		{name: "plain workspace file", call: call("echo x > a.txt", wsDir), want: Allow},
		{name: "workspace reached through a symlink", call: call("echo x > a.txt", wsLink), want: Allow},
		{name: "absolute path via the other spelling", call: call("echo x > "+filepath.Join(wsDir, "b.txt"), wsLink), want: Allow},
		{name: "new nested file inside", call: call("mkdir -p a/b/c && echo x > a/b/c/d", wsDir), want: Allow},
	}
	runCases(t, p, cases)
	// File tools take the same path.
	w := Call{Tool: "write", Args: map[string]any{"filePath": filepath.Join(wsDir, "etc-link", "x")}, Workspace: wsDir}
	if d := p.Decide(w); d.Action != Deny {
		t.Fatalf("file tool through a link: %+v", d)
	}
	ex := p.Explain(w)
	if len(ex.Commands) != 1 || len(ex.Commands[0].Effects) != 1 || ex.Commands[0].Effects[0].Resolved != filepath.Join(outside, "x") {
		t.Fatalf("explain does not show the resolved path: %+v", ex.Commands)
	}
}

func TestExplain(t *testing.T) {
	p := mustDefault(t)
	ex := p.Explain(bash("cd src && rm -rf ../build ~/x; sudo ls"))
	if ex.Decision.Action != Deny || ex.Decision.Rule != "delete-outside-workspace" {
		t.Fatalf("%+v", ex.Decision)
	}
	if d := p.Decide(bash("cd src && rm -rf ../build ~/x; sudo ls")); d.Action != ex.Decision.Action || d.Rule != ex.Decision.Rule || d.Reason != ex.Decision.Reason {
		t.Fatalf("Explain and Decide differ: %+v vs %+v", d, ex.Decision)
	}
	if ex.Decision.Span == "" || len(ex.Decision.Argv) == 0 || ex.Decision.Argv[0] != "rm" {
		t.Fatalf("span/argv: %+v", ex.Decision)
	}
	var classes []string
	for _, c := range ex.Commands {
		for _, e := range c.Effects {
			classes = append(classes, e.Target+"="+e.Class)
		}
	}
	joined := strings.Join(classes, " ")
	if !strings.Contains(joined, ws+"/build=workspace") || !strings.Contains(joined, "/home/dev/x=home") {
		t.Fatalf("classes: %s", joined)
	}
	// sudo ls asks (privilege), which the deny outranks: one match decides
	decisive, others := 0, 0
	for _, m := range ex.Matches {
		if m.Decisive {
			decisive++
		} else {
			others++
		}
	}
	if decisive != 1 || others == 0 {
		t.Fatalf("matches: %+v", ex.Matches)
	}
	b, err := json.Marshal(ex)
	if err != nil || !strings.Contains(string(b), `"matches"`) {
		t.Fatalf("%s %v", b, err)
	}
	s := ex.String()
	for _, want := range []string{"DENY", "delete-outside-workspace", "[home]", "*"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() lacks %q:\n%s", want, s)
		}
	}
	// A call nothing matches still explains.
	ex = p.Explain(Call{Tool: "mystery"})
	if ex.Decision.Action != Allow || ex.Matches == nil || ex.Commands == nil {
		t.Fatalf("%+v", ex)
	}
	if !strings.Contains(ex.String(), "none matched") {
		t.Fatal(ex.String())
	}
}

// TestAnalyserSeam checks the engine on hand-built analyses, independent of
// the shell analyser.
func TestAnalyserSeam(t *testing.T) {
	p := mustDefault(t)
	fake := func(a *shell.Analysis, err error) *Policy {
		np := *p
		np.analyze = func(string, shell.Options) (*shell.Analysis, error) { return a, err }
		return &np
	}
	cmd := func(name string, effs ...shell.Effect) shell.Command {
		return shell.Command{Name: name, Argv: []string{name}, Span: shell.Span{Text: name + " ..."}, Effects: effs}
	}
	cases := []struct {
		name string
		p    *Policy
		want Action
		rule string
	}{
		{"delete home", fake(&shell.Analysis{Commands: []shell.Command{cmd("x", shell.Effect{Kind: shell.Delete, Target: "/home/dev/a", Recursive: true})}}, nil), Deny, "delete-outside-workspace"},
		{"write workspace", fake(&shell.Analysis{Commands: []shell.Command{cmd("x", shell.Effect{Kind: shell.Write, Target: ws + "/a"})}}, nil), Allow, ""},
		{"unknown delete", fake(&shell.Analysis{Commands: []shell.Command{cmd("x", shell.Effect{Kind: shell.Delete, Unknown: true, Reason: "unset variable $X"})}}, nil), Ask, "unknown-target"},
		{"delete with empty target", fake(&shell.Analysis{Commands: []shell.Command{cmd("x", shell.Effect{Kind: shell.Delete})}}, nil), Ask, "unknown-target"},
		{"relative target", fake(&shell.Analysis{Commands: []shell.Command{cmd("x", shell.Effect{Kind: shell.Write, Target: "../../etc/x"})}}, nil), Deny, ""},
		{"finding", fake(&shell.Analysis{Findings: []shell.Finding{{Tag: shell.TagRemoteExec, Reason: "r", Span: shell.Span{Text: "curl | sh"}}}}, nil), Deny, "remote-code-exec"},
		{"force push refspec", fake(&shell.Analysis{Commands: []shell.Command{{Name: "git", Argv: []string{"git", "push"}, Tags: []string{shell.TagGitForcePush}, Attrs: map[string]string{"branch": "feature,HEAD:refs/heads/main"}}}}, nil), Deny, "force-push-protected"},
		{"parse error", fake(nil, os.ErrInvalid), Ask, "unparsable-command"},
		{"nil analysis", fake(nil, nil), Ask, "unparsable-command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.p.Decide(bash("whatever"))
			if d.Action != tc.want || (tc.rule != "" && d.Rule != tc.rule) {
				t.Fatalf("%+v, want %s %s", d, tc.want, tc.rule)
			}
		})
	}
	// A panicking analyser is a parse failure (ask), never a crash.
	np := *p
	np.analyze = func(string, shell.Options) (*shell.Analysis, error) { panic("boom") }
	if d := np.Decide(bash("x")); d.Action == Allow {
		t.Fatalf("panic allowed: %+v", d)
	}
}

func TestDecideNeverPanics(t *testing.T) {
	p := mustDefault(t)
	np := *p
	np.crules = append([]*crule{nil}, p.crules...) // corrupt on purpose
	d := np.Decide(bash("ls"))
	if d.Action != Deny || d.Rule != "warden.policy-error" {
		t.Fatalf("%+v", d)
	}
	ex := np.Explain(bash("ls"))
	if ex.Decision.Action != Deny {
		t.Fatalf("%+v", ex.Decision)
	}
	// Odd argument types do not crash the normaliser.
	for _, c := range []Call{
		{Tool: "bash", Args: map[string]any{"command": 42}},
		{Tool: "bash", Args: map[string]any{"command": []any{1, nil, "x"}}},
		{Tool: "write", Args: map[string]any{"filePath": map[string]any{}}},
		{Tool: "read", Args: map[string]any{"paths": "x"}},
		{Tool: "", Args: nil},
	} {
		_ = p.Decide(c)
		_ = p.Explain(c)
	}
}

func TestDefaultEnv(t *testing.T) {
	t.Setenv("HOME", "/home/someone")
	t.Setenv("XDG_DATA_HOME", "/data")
	t.Setenv("XDG_CONFIG_HOME", "")
	env := DefaultEnv()
	if env.Home != "/home/someone" {
		t.Fatal(env.Home)
	}
	want := map[string]bool{"/data/warden": true, "/home/someone/.config/warden": true}
	for _, d := range env.ProtectedDirs {
		delete(want, d)
	}
	if len(want) != 0 {
		t.Fatalf("protected dirs %v", env.ProtectedDirs)
	}
	hasTmp := false
	for _, d := range env.TempDirs {
		hasTmp = hasTmp || d == "/tmp"
	}
	if !hasTmp {
		t.Fatalf("temp dirs %v", env.TempDirs)
	}
}
