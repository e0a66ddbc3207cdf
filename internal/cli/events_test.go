package cli

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/protocol/admin"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in    string
		since int64
		after time.Time
	}{
		{"", 0, time.Time{}},
		{"120", 120, time.Time{}},
		{"10m", 0, now.Add(-10 * time.Minute)},
		{"2h30m", 0, now.Add(-150 * time.Minute)},
		{"3d", 0, now.Add(-72 * time.Hour)},
		{"2026-03-01T00:00:00Z", 0, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
	} {
		var q admin.EventsQuery
		if err := parseSince(c.in, now, &q); err != nil || q.Since != c.since || !q.After.Equal(c.after) {
			t.Errorf("%q: since %d after %v err %v; want %d %v", c.in, q.Since, q.After, err, c.since, c.after)
		}
	}
	for _, bad := range []string{"-1", "yesterday", "10x", "-5m"} {
		var q admin.EventsQuery
		if err := parseSince(bad, now, &q); err == nil || !strings.Contains(err.Error(), "duration") {
			t.Errorf("%q: %v, want an error that says what --since takes", bad, err)
		}
	}
}

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

// FuzzParseSince: any --since either parses or is refused with the help.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"10m", "3d", "120", "2026-03-01T00:00:00Z", "-1", "1e9d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var q admin.EventsQuery
		if err := parseSince(s, time.Now(), &q); err == nil && q.Since < 0 {
			t.Fatalf("%q: negative since %d", s, q.Since)
		}
	})
}

func TestNoDesktopNoNotifier(t *testing.T) {
	if n := desktopNotifier(func(string) string { return "" }); n != nil && runtime.GOOS == "linux" {
		t.Fatal("a notifier without a D-Bus session")
	}
}
