package agents

import (
	"errors"
	"fmt"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/ports"
)

func TestEveryTypeHasEveryComponent(t *testing.T) {
	deps := Deps{Dir: t.TempDir(), Ports: ports.New(), HookPort: 37124}
	for _, typ := range Types() {
		setup, err := SetupInfo(typ, deps)
		if err != nil || setup.Type() != typ || setup.Version() == "" {
			t.Fatalf("%s setup: %v %v", typ, setup, err)
		}
		if _, err := setup.BinaryURL("linux", "amd64"); err != nil {
			t.Errorf("%s: no download URL for linux/amd64: %v", typ, err)
		}
		m, err := ServerManager(typ, deps)
		if err != nil || m == nil {
			t.Fatalf("%s server manager: %v", typ, err)
		}
		p, err := Provider(typ, ProviderDeps{Workspace: t.TempDir(), Env: map[string]string{"WARDEN_MCP_PORT": "1"}})
		if err != nil {
			t.Fatalf("%s provider: %v", typ, err)
		}
		if p.Status() != agent.StatusNone {
			t.Errorf("%s: a new provider's status is %s, want none", typ, p.Status())
		}
		if p.Environment()["WARDEN_MCP_PORT"] != "1" {
			t.Errorf("%s: provider environment lost the base variables: %v", typ, p.Environment())
		}
		p.Dispose()
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]agent.Type{"opencode": agent.OpenCode, "claude": agent.ClaudeCode, "claude-code": agent.ClaudeCode} {
		if got, err := Parse(in); err != nil || got != want {
			t.Errorf("Parse(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "aider", "OpenCode "} {
		if _, err := Parse(bad); !errors.Is(err, agent.ErrUnknownType) {
			t.Errorf("Parse(%q): %v, want ErrUnknownType", bad, err)
		}
	}
	if _, err := Provider("aider", ProviderDeps{}); !errors.Is(err, agent.ErrUnknownType) {
		t.Errorf("Provider(aider): %v", err)
	}
}

func ExampleParse() {
	t, _ := Parse("claude")
	fmt.Println(t)
	_, err := Parse("aider")
	fmt.Println(err)
	// Output:
	// claude-code
	// agent: unknown agent type "aider": choose opencode or claude-code
}
