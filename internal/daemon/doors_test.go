package daemon

import (
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
)

func TestListenersFromRegistry(t *testing.T) {
	cfg := config.Config{
		Listeners: map[string]string{"health": "", "monitor": "127.0.0.1:4000"},
		Control:   config.Control{Port: 5000},
	}
	got, err := Listeners(cfg, map[string]string{"hooks": "127.0.0.1:4001"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"agent":   config.DefaultAgentAddr,
		"control": "127.0.0.1:5000", // the control door's own settings
		"health":  "",               // switched off by the config
		"hooks":   "127.0.0.1:4001", // the flag wins
		"mcp":     config.DefaultMCPAddr,
		"monitor": "127.0.0.1:4000",
	}
	if len(got) != len(want) {
		t.Fatalf("Listeners = %v, want %v", got, want)
	}
	for name, addr := range want {
		if got[name] != addr {
			t.Errorf("%s = %q, want %q", name, got[name], addr)
		}
	}
	if _, err := Listeners(config.Config{Listeners: map[string]string{"nope": "x"}}, nil); err == nil || !strings.Contains(err.Error(), `unknown listener "nope"`) {
		t.Errorf("unknown door in the config: %v", err)
	}
	if _, err := Listeners(config.Config{}, map[string]string{"nope": "x"}); err == nil {
		t.Error("unknown door in the flags: no error")
	}
}

func TestDoorRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Doors() {
		if d.Name == "" || d.DefaultAddr == "" || d.New == nil {
			t.Errorf("door %+v: a name, a default address and a constructor are required", d)
		}
		if seen[d.Name] {
			t.Errorf("door %s registered twice", d.Name)
		}
		seen[d.Name] = true
	}
	if !seen["control"] || !seen["mcp"] {
		t.Fatal("control and mcp doors missing")
	}
}

func TestControlEnabledSwitchesTheListenerOff(t *testing.T) {
	off := false
	cfg := config.Config{Control: config.Control{Enabled: &off, Port: 5000}}
	got, err := Listeners(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := got["control"]; !ok || a != "" {
		t.Fatalf("control = %q (%v), want switched off", a, ok)
	}
	if r := controlOff(Config{Control: cfg.Control}); !strings.Contains(r, "control.enabled") {
		t.Fatalf("reason %q does not name control.enabled", r)
	}
	if r := controlOff(Config{}); r != "" {
		t.Fatalf("default config gives a reason %q", r)
	}
	// an explicit --control-addr still serves it
	got, err = Listeners(cfg, map[string]string{"control": "127.0.0.1:6000"})
	if err != nil || got["control"] != "127.0.0.1:6000" {
		t.Fatalf("with a flag: %v, %v", got, err)
	}
}

// Each door tells supervised agents where it listens; a door switched off
// adds nothing.
func TestAgentEnvFromTheRegistry(t *testing.T) {
	env := agentEnv(Runtime{Listeners: map[string]string{
		"mcp": "127.0.0.1:1001", "control": "127.0.0.1:1002", "monitor": "127.0.0.1:1003", "health": "127.0.0.1:1004",
	}}, "/data")
	want := map[string]string{
		"WARDEN_DATA_DIR": "/data", "WARDEN_MCP_PORT": "1001", "WARDEN_MCP_URL": "http://127.0.0.1:1001/mcp",
		"WARDEN_CONTROL_PORT": "1002", "WARDEN_MONITOR_URL": "http://127.0.0.1:1003/agent-monitor",
	}
	if len(env) != len(want) {
		t.Fatalf("agentEnv = %v, want %v", env, want)
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
}
