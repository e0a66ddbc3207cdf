package daemon

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core/coretest"
)

// syncBuffer is a bytes.Buffer a logger may write to from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// SIGHUP applies the approval deadline and the log level of the config at
// once (they were "take effect at the next restart"), names the policy file
// that fails to load (the record said policy=""), and leaves what needs a
// restart (the log format) as it runs, saying so.
func TestReloadAppliesDeadlineAndLevel(t *testing.T) {
	dir := t.TempDir()
	c := coretest.New(t, coretest.Options{ApprovalTimeout: time.Minute})
	policyFile := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policyFile, []byte("rules: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	level := new(slog.LevelVar)
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))
	cur := Config{
		PolicyFile: policyFile, ApprovalTimeout: time.Minute,
		LogSettings: config.Log{Level: "info", Format: "text"}, LogLevel: level,
	}
	next := cur
	next.ApprovalTimeout = 5 * time.Minute
	next.LogSettings = config.Log{Level: "debug", Format: "json"}
	next.LogLevel = nil
	cur.Reconfigure = func() (Config, error) { return next, nil }

	got := reload(c, cur, logger)
	if c.ApprovalTimeout() != 5*time.Minute || got.ApprovalTimeout != 5*time.Minute {
		t.Errorf("approval deadline %s (in force %s), want 5m", c.ApprovalTimeout(), got.ApprovalTimeout)
	}
	if level.Level() != slog.LevelDebug || got.LogSettings.Level != "debug" {
		t.Errorf("log level %s (in force %q), want debug", level.Level(), got.LogSettings.Level)
	}
	if got.LogSettings.Format != "text" {
		t.Errorf("log format %q in force, want text until a restart", got.LogSettings.Format)
	}
	out := logs.String()
	for _, want := range []string{"policy=" + policyFile, "needRestart=[log.format]", "approvals.timeout changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("the reload's records lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `policy=""`) {
		t.Errorf("a policy that does not load is not named:\n%s", out)
	}
}
