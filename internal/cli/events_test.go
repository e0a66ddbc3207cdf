package cli

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/event"
)

func TestFollowLinesKeepTheirColumns(t *testing.T) {
	a := followLine("1", "ses_short", "1", "12:00:00.000", "tool.call", "opencode", "bash ls")
	b := followLine("123456", "8f14e45f-ceea-467f-a0e6-1b4d3e2a9c11/agent_7", "9999", "12:00:01.000", "approval.requested", "claude-code/hooks", "x")
	if ia, ib := strings.Index(a, "12:00"), strings.Index(b, "12:00"); ia != ib {
		t.Fatalf("time column at %d and %d:\n%s\n%s", ia, ib, a, b)
	}
	if len(a)-len("bash ls") != len(b)-len("x") {
		t.Fatalf("summary column differs:\n%s\n%s", a, b)
	}
}

func TestNoDesktopNoNotifier(t *testing.T) {
	if n := desktopNotifier(func(string) string { return "" }); n != nil && runtime.GOOS == "linux" {
		t.Fatal("a notifier without a D-Bus session")
	}
}

// Every event warden itself writes has a summary in the table: a
// supervision or workspace event with an empty SUMMARY column leaves the
// user to guess what happened (warden events --type 'agent.*').
func TestSummariesOfWardensOwnEvents(t *testing.T) {
	v := "blue"
	for _, c := range []struct {
		typ  event.Type
		data any
		want []string
	}{
		{event.AgentServer, event.AgentServerData{Action: "started", Agent: "opencode", PID: 42, Port: 4096, FailedAttempts: 3}, []string{"opencode started", "4096", "pid 42", "3 failed"}},
		{event.AgentServer, event.AgentServerData{Action: "restart-failed", Agent: "opencode", Attempts: 2, RetryIn: "4s", Error: "exited before it was ready"}, []string{"restart-failed", "attempt 2", "4s", "exited before it was ready"}},
		{event.AgentServer, event.AgentServerData{Action: "crashed", Agent: "opencode"}, []string{"opencode crashed"}},
		{event.AgentStatus, event.AgentStatusData{Agent: "claude-code", From: "busy", To: "waiting", SessionID: "s9"}, []string{"busy -> waiting", "s9"}},
		{event.AgentPermissionRequest, map[string]any{"toolName": "Bash"}, []string{"Bash"}},
		{event.AgentNotification, map[string]any{"message": "Claude needs your permission to use Bash"}, []string{"needs your permission"}},
		{event.WorkspaceAdded, event.WorkspaceAddedData{Name: "fix-login", Created: true, Project: "/src/app", Branch: "fix-login"}, []string{"fix-login", "/src/app"}},
		{event.WorkspaceRemoved, event.WorkspaceRemovedData{Name: "fix-login", WorktreeRemoved: true}, []string{"fix-login", "worktree removed"}},
		{event.WorkspaceMetadata, event.WorkspaceMetadataData{Key: "color", Value: &v}, []string{"color=blue"}},
		{event.WorkspaceMetadata, event.WorkspaceMetadataData{Key: "color", Deleted: true}, []string{"color deleted"}},
		{event.CredentialMinted, event.CredentialData{ID: "5659422a2b83", Agent: "opencode", Workspace: "/w"}, []string{"5659422a2b83", "opencode"}},
		{event.CredentialRevoked, event.CredentialData{ID: "5659422a2b83", Agent: "opencode", Workspace: "/w"}, []string{"5659422a2b83"}},
		{event.PolicyRuleRevoked, event.RuleRevokedData{Rule: "always-7", Effect: "allow", Description: "git push"}, []string{"always-7", "allow", "git push"}},
		{event.ToolConfined, event.ToolConfinedData{Tool: "bash", Command: "make test", Line: "warden sandbox -- make test"}, []string{"bash make test"}},
		{event.LogDropped, map[string]any{"dropped": 12, "reason": "disk full"}, []string{"12 events dropped", "disk full"}},
		{event.LogPruned, map[string]any{"before": 500, "removed": 499, "sessions": 3}, []string{"499 events", "500"}},
		{event.SessionEnd, map[string]any{"reason": "client disconnected"}, []string{"client disconnected"}},
	} {
		b, err := json.Marshal(c.data)
		if err != nil {
			t.Fatal(err)
		}
		got := summarize(event.Event{Type: c.typ, Workspace: "/w", Data: b})
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %s: summary %q lacks %q", c.typ, b, got, w)
			}
		}
	}
}
