package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	var c Config
	err := Parse([]byte(`
dataDir: /var/lib/warden
policy: policy.yaml
listeners:
  monitor: 127.0.0.1:4000
  health: ""
approvals:
  timeout: 30s
log:
  level: debug
  format: json
agents:
  opencode: {binary: /opt/opencode/bin/opencode}
`), &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/var/lib/warden" || c.Listeners["monitor"] != "127.0.0.1:4000" || c.Listeners["health"] != "" {
		t.Fatalf("unexpected config %+v", c)
	}
	if _, ok := c.Listeners["health"]; !ok {
		t.Fatal("an empty listener address must be kept (it switches the door off)")
	}
	if c.Agents["opencode"].Binary != "/opt/opencode/bin/opencode" {
		t.Fatalf("agents = %+v", c.Agents)
	}
	if time.Duration(c.Approvals.Timeout) != 30*time.Second {
		t.Fatalf("timeout = %v", time.Duration(c.Approvals.Timeout))
	}
}

func TestCheckListeners(t *testing.T) {
	var c Config
	if err := Parse([]byte("listeners: {control2: x, monitor: y}"), &c); err != nil {
		t.Fatal(err)
	}
	err := c.CheckListeners([]string{"control", "monitor"})
	if err == nil || !strings.Contains(err.Error(), `unknown listener "control2"`) {
		t.Fatalf("CheckListeners = %v, want unknown listener control2", err)
	}
	c.Listeners = map[string]string{"monitor": ""}
	if err := c.CheckListeners([]string{"control", "monitor"}); err != nil {
		t.Fatalf("CheckListeners of a known door = %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nope: 1", "field nope not found"},
		{"approvals: {timeout: soon}", "bad duration"},
		{"log: {level: loud}", "log.level"},
		{"agents: {aider: {binary: x}}", "unknown agent type"},
		{"agents: {opencode: {bin: x}}", "field bin not found"},
		{"log: {format: xml}", "log.format"},
		{"[", "did not find"},
	} {
		var c Config
		err := Parse([]byte(tc.in), &c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want error containing %q", tc.in, err, tc.want)
		}
	}
	var c Config
	if err := Parse(nil, &c); err != nil {
		t.Errorf("empty config: %v", err)
	}
}

func TestLoadResolvesPolicyRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(p, []byte("policy: rules.yaml\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Policy != filepath.Join(dir, "rules.yaml") {
		t.Fatalf("policy = %q", c.Policy)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("a missing config file must be an error")
	}
}

func TestDefaultDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/x/data")
	if d, _ := DefaultDataDir(); d != "/x/data/warden" {
		t.Fatalf("got %q", d)
	}
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("HOME", "/home/u")
	if d, _ := DefaultDataDir(); d != "/home/u/.local/share/warden" {
		t.Fatalf("got %q", d)
	}
}

func TestAgentSandboxDefaultsOn(t *testing.T) {
	for yml, want := range map[string]bool{"": true, "agentSandbox: true\n": true, "agentSandbox: false\n": false} {
		var c Config
		if err := Parse([]byte(yml), &c); err != nil {
			t.Fatalf("%q: %v", yml, err)
		}
		if c.AgentSandboxOn() != want {
			t.Errorf("%q: AgentSandboxOn %v, want %v", yml, c.AgentSandboxOn(), want)
		}
	}
	var c Config
	if err := Parse([]byte("agentSandbox: maybe\n"), &c); err == nil {
		t.Fatal("agentSandbox: maybe was accepted")
	}
}

func TestControlEnabled(t *testing.T) {
	var c Config
	if err := Parse([]byte("control: {port: 0}"), &c); err != nil {
		t.Fatal(err)
	}
	if !c.Control.On() {
		t.Fatal("the control door is on by default")
	}
	c = Config{}
	if err := Parse([]byte("control:\n  enabled: false\n"), &c); err != nil {
		t.Fatalf("control.enabled refused: %v", err)
	}
	if c.Control.On() {
		t.Fatal("control.enabled: false left the door on")
	}
}

func TestParseProviders(t *testing.T) {
	var c Config
	err := Parse([]byte(`
providers:
  - name: local
    type: openai
    baseURL: http://127.0.0.1:8000/v1
    models:
      - {name: qwen, contextWindow: 32768, maxOutput: 4096}
  - name: work
    type: anthropic
    apiKeyEnv: WORK_ANTHROPIC_KEY
  - name: box
    type: ollama
    baseURL: box.lan:11434
`), &c)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Providers) != 3 || c.Providers[0].Models[0].ContextWindow != 32768 || c.Providers[1].APIKeyEnv != "WORK_ANTHROPIC_KEY" {
		t.Fatalf("providers %+v", c.Providers)
	}
	for _, bad := range []string{
		"providers: [{type: openai}]",
		"providers: [{name: a/b, type: openai}]",
		"providers: [{name: a, type: gemini}]",
		"providers: [{name: a, type: openai}, {name: a, type: ollama}]",
		"providers: [{name: a, type: openai, apiKey: k, apiKeyEnv: K}]",
		"providers: [{name: a, type: openai, models: [{contextWindow: 5}]}]",
		"providers: [{name: a, type: openai, models: [{name: m, contextWindow: -1}]}]",
		"providers: [{name: a, type: openai, key: x}]",
	} {
		var c Config
		if err := Parse([]byte(bad), &c); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
