package admin

import (
	"strings"
	"testing"
	"time"
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
		var q EventsQuery
		if err := q.ParseSince(c.in, now); err != nil || q.Since != c.since || !q.After.Equal(c.after) {
			t.Errorf("%q: since %d after %v err %v; want %d %v", c.in, q.Since, q.After, err, c.since, c.after)
		}
	}
	for _, bad := range []string{"-1", "yesterday", "10x", "-5m"} {
		var q EventsQuery
		if err := q.ParseSince(bad, now); err == nil || !strings.Contains(err.Error(), "duration") {
			t.Errorf("%q: %v, want an error that says what --since takes", bad, err)
		}
	}
}

// FuzzParseSince: any --since either parses or is refused with the help.
func FuzzParseSince(f *testing.F) {
	for _, s := range []string{"10m", "3d", "120", "2026-03-01T00:00:00Z", "-1", "1e9d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var q EventsQuery
		if err := q.ParseSince(s, time.Now()); err == nil && q.Since < 0 {
			t.Fatalf("%q: negative since %d", s, q.Since)
		}
	})
}
