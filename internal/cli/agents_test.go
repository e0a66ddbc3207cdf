package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/supervisor"
)

// A server warden cannot restart shows in the table with its count of
// failed attempts, not as merely stopped.
func TestAgentsTableShowsFailingRestarts(t *testing.T) {
	var out, errOut bytes.Buffer
	o := &options{stdout: &out, stderr: &errOut}
	list := []supervisor.AgentInfo{
		{Workspace: "/w/a", Name: "a", Agent: "opencode", Status: "none", RestartAttempts: 4, RestartError: "exited"},
		{Workspace: "/w/b", Name: "b", Agent: "opencode", Status: "none"},
	}
	if err := printAgents(o, list, false); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], "restart failing (4 attempts)") || !strings.Contains(lines[2], "stopped") {
		t.Fatalf("table:\n%s", out.String())
	}
}
