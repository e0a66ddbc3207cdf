package admin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/workspace"
)

// agents stop says whether there was an agent to stop: "stopped the agent"
// for a workspace where none was started misled.
func TestAgentStopSaysWhetherOneWasStopped(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	c := coretest.New(t, coretest.Options{})
	creds, err := credential.Open(credential.Options{Dir: dataDir, Record: c.Record})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := workspace.Open(filepath.Join(dataDir, workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(ws); err != nil {
		t.Fatal(err)
	}
	ws, _ = reg.Lookup(ws)
	sv, err := supervisor.New(supervisor.Options{Core: c, Registry: reg, AgentDir: filepath.Join(dataDir, "agents")})
	if err != nil {
		t.Fatal(err)
	}
	client := serveSocket(t, dataDir, &Server{Core: c, Credentials: creds, Supervisor: sv, Status: func() Status { return Status{} }})
	ctx := t.Context()

	// (a stop that ends a running OpenCode is cmd/warden's
	// TestAgentsStartAgainAndTerminalDiscovery, with the real program)
	res, err := client.AgentAction(ctx, "stop", ws, "")
	if err != nil || res.Stopped || res.Workspace != ws {
		t.Fatalf("stop with no agent: %+v, %v", res, err)
	}
}
