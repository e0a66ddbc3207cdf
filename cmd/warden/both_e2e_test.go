package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
	"github.com/warden-dev/warden/internal/fakemodel/openai"
)

// TestBothAgentsSideBySide runs the real Claude Code and the real OpenCode
// against one warden, as a user with both would, and checks that both
// sessions show up in `warden sessions` and `warden events` with their source.
func TestBothAgentsSideBySide(t *testing.T) {
	r := newClaudeRig(t, func(*claudeRig) anthropic.Script {
		return anthropic.ToolOnce("Bash", map[string]any{"command": "echo from-claude > claude.txt", "description": "write"})
	})
	d := r.start()
	if out, errOut, code := r.claude("make a file"); code != 0 {
		t.Fatalf("claude: %d\n%s\n%s", code, out, errOut)
	}
	oc := newOpenCodeRun(t, filepath.Join(r.dir, "oc"), openai.ToolOnce("bash", map[string]any{"command": "echo from-opencode > opencode.txt", "description": "write"}))
	oc.use(d)
	oc.run(t, "make a file")
	for _, f := range []string{filepath.Join(r.ws, "claude.txt"), filepath.Join(oc.proj, "opencode.txt")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}

	out, errOut, code := warden(t, r.data, "", "sessions", "--json")
	if code != 0 {
		t.Fatalf("sessions: %s", errOut)
	}
	var sessions []struct {
		ID        string `json:"id"`
		Source    string `json:"source"`
		Workspace string `json:"workspace"`
		ToolCalls int    `json:"toolCallCount"`
	}
	if err := json.Unmarshal([]byte(out), &sessions); err != nil {
		t.Fatal(err)
	}
	bySource := map[string]string{}
	for _, s := range sessions {
		if s.ToolCalls > 0 {
			bySource[s.Source] = s.Workspace
		}
	}
	if bySource["claude-code"] != r.ws || bySource["opencode"] != oc.proj {
		t.Fatalf("sessions side by side: %s", out)
	}
	sources := map[string]bool{}
	for _, e := range logOf(t, r.data) {
		sources[e.Source] = true
	}
	if !sources["claude-code/hooks"] || !sources["opencode/monitor"] {
		t.Fatalf("event sources: %v", sources)
	}
	out, _, _ = warden(t, r.data, "", "sessions")
	t.Logf("warden sessions:\n%s", out)
	d.stop()
}
