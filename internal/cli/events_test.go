package cli

import (
	"runtime"
	"strings"
	"testing"
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
