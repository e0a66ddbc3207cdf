// Package coretest builds a real core (SQLite log in a temp dir, the
// built-in policy) for the tests of doors and commands.
package coretest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// Env is the policy environment tests judge paths in.
func Env() policy.Env {
	return policy.Env{Home: "/home/dev", TempDirs: []string{"/tmp", "/var/tmp"}, ProtectedDirs: []string{"/home/dev/.local/share/warden"}}
}

// Options tune New.
type Options struct {
	// Policy replaces the built-in default.
	Policy *policy.Policy
	// ApprovalTimeout of the core (default 5s).
	ApprovalTimeout time.Duration
	// Dir is where the log lives (default a fresh t.TempDir()).
	Dir string
	// Log, when set, wraps the SQLite log the core writes to (a test that
	// watches or holds appends).
	Log func(store.Log) store.Log
}

// New returns a started core whose log is closed when the test ends.
func New(t testing.TB, o Options) *core.Core {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Policy == nil {
		p, err := policy.Default(Env())
		if err != nil {
			t.Fatalf("default policy: %v", err)
		}
		o.Policy = p
	}
	if o.ApprovalTimeout == 0 {
		o.ApprovalTimeout = 5 * time.Second
	}
	st, err := sqlite.Open(filepath.Join(o.Dir, "events.db"))
	if err != nil {
		t.Fatalf("open log: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	var log store.Log = st
	if o.Log != nil {
		log = o.Log(st)
	}
	c, err := core.New(core.Config{Log: log, Policy: o.Policy, ApprovalTimeout: o.ApprovalTimeout, OverlayPath: filepath.Join(o.Dir, "overlay.yaml")})
	if err != nil {
		t.Fatalf("core: %v", err)
	}
	if err := c.Start(t.Context()); err != nil {
		t.Fatalf("start core: %v", err)
	}
	return c
}
