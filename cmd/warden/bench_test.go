package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkHookClaude measures `warden hook claude` answering a PreToolUse
// (an allowed Bash call, decided and made durable by a running daemon)
// against spawning `true`, the floor of any command hook, in the same run.
// It reports the medians and their ratio.
func BenchmarkHookClaude(b *testing.B) {
	dir := b.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(b, data)
	defer d.stop()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	payload, _ := json.Marshal(map[string]any{
		"session_id": "bench", "transcript_path": "/dev/null", "cwd": ws, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_use_id": "toolu_1", "permission_mode": "default",
	})
	env := append(isolatedEnv(b, filepath.Join(dir, "home")), "CLAUDE_PROJECT_DIR="+ws)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	hook := func() time.Duration {
		cmd := exec.Command(binary, "hook", "claude", "--data-dir", data)
		cmd.Env = env
		cmd.Stdin = bytes.NewReader(payload)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("hook: %v %s", err, out)
		}
		return time.Since(start)
	}
	spawn := func() time.Duration {
		start := time.Now()
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	hook() // warm caches
	b.ResetTimer()
	var hs, ts []time.Duration
	for i := 0; i < b.N; i++ {
		hs = append(hs, hook())
		ts = append(ts, spawn())
	}
	b.StopTimer()
	slices.Sort(hs)
	slices.Sort(ts)
	h, tr := hs[len(hs)/2], ts[len(ts)/2]
	b.ReportMetric(float64(h.Microseconds()), "hook-p50-µs")
	b.ReportMetric(float64(tr.Microseconds()), "true-p50-µs")
	b.ReportMetric(float64(h)/float64(tr), "ratio")
}
