package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestEventsSinceTypeDecisionAndDefaultLimit(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data)
	ws := filepath.Join(dir, "proj")
	// 60 calls: ls is allowed, rm -rf / denied.
	for i := range 60 {
		cmd := "ls"
		if i%10 == 0 {
			cmd = "rm -rf /"
		}
		if code, body := d.post(t, preExecute("ses_e", fmt.Sprintf("c%d", i), cmd, ws)); code != 200 {
			t.Fatalf("post: %d %s", code, body)
		}
	}
	rows := func(out string) []string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[1:] // the header
	}

	// The table shows the newest 100 and says how to see more.
	out, errOut, code := wardenAt(t, data, "", "events")
	if code != 0 || len(rows(out)) != 100 || !strings.Contains(errOut, "older events not shown") || !strings.Contains(errOut, "--limit 0") {
		t.Fatalf("events: exit %d, %d rows, stderr %q", code, len(rows(out)), errOut)
	}
	all, _, _ := wardenAt(t, data, "", "events", "--limit", "0")
	tail := rows(out)
	allRows := rows(all)
	if n := len(allRows); n < 120 || strings.Fields(allRows[n-1])[0] != strings.Fields(tail[len(tail)-1])[0] || strings.Fields(allRows[n-100])[0] != strings.Fields(tail[0])[0] {
		t.Fatalf("--limit 0: %d rows; the default table must be its tail", n)
	}
	// --json gives every event unless told otherwise.
	if js, _, _ := wardenAt(t, data, "", "events", "--json"); len(parseEvents(t, js)) != len(rows(all)) {
		t.Fatalf("--json: %d events, table has %d", len(parseEvents(t, js)), len(rows(all)))
	}

	// Decisions and types.
	js, _, code := wardenAt(t, data, "", "events", "--decision", "deny", "--json")
	denials := parseEvents(t, js)
	if code != 0 || len(denials) != 6 {
		t.Fatalf("--decision deny: %d events", len(denials))
	}
	for _, e := range denials {
		if e.Type != "tool.decision" || !strings.Contains(string(e.Data), `"deny"`) {
			t.Fatalf("--decision deny gave %+v", e)
		}
	}
	js, _, _ = wardenAt(t, data, "", "events", "--type", "tool.call", "--json", "--limit", "5")
	if calls := parseEvents(t, js); len(calls) != 5 || calls[4].Type != "tool.call" {
		t.Fatalf("--type tool.call --limit 5: %+v", calls)
	}

	// Durations: everything happened in the last 10 minutes, nothing in the future.
	js, _, code = wardenAt(t, data, "", "events", "--since", "10m", "--type", "tool.*", "--json")
	if n := len(parseEvents(t, js)); code != 0 || n < 120 {
		t.Fatalf("--since 10m: exit %d, %d tool events", code, n)
	}
	out, errOut, code = wardenAt(t, data, "", "events", "--since", "2999-01-01T00:00:00Z")
	if code != 0 || len(rows(out)) != 0 || !strings.Contains(errOut, "no events match") {
		t.Fatalf("--since in the future: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code = wardenAt(t, data, "", "events", "--since", "yesterday"); code == 0 || !strings.Contains(errOut, "10m") {
		t.Fatalf("--since yesterday: exit %d %q", code, errOut)
	}
	if _, errOut, code = wardenAt(t, data, "", "events", "--decision", "maybe"); code == 0 || !strings.Contains(errOut, "allow, deny or ask") {
		t.Fatalf("--decision maybe: exit %d %q", code, errOut)
	}
	d.stop()
}
