package core_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

func TestRevokeRemovesAStandingRuleAtOnceAndForGood(t *testing.T) {
	dir := t.TempDir()
	c := coretest.New(t, coretest.Options{Dir: dir, ApprovalTimeout: time.Minute})
	got := make(chan core.Verdict, 1)
	go func() { got <- c.Gate(context.Background(), bash("git reset --hard HEAD~1")) }()
	req := waitPending(t, c)
	if _, err := c.Resolve(t.Context(), req.ID, approval.Resolution{Outcome: approval.Approved, Always: true}); err != nil {
		t.Fatal(err)
	}
	<-got
	rules := c.StandingRules()
	if len(rules) != 1 || rules[0].ID != "always-"+req.ID || rules[0].Effect != policy.Allow {
		t.Fatalf("standing rules %+v", rules)
	}
	if _, err := c.RevokeRule(t.Context(), "always-nope"); !errors.Is(err, core.ErrNoRule) {
		t.Fatalf("unknown id: %v, want ErrNoRule", err)
	}
	// The approval's id names its rule too.
	r, err := c.RevokeRule(t.Context(), req.ID)
	if err != nil || r.ID != "always-"+req.ID {
		t.Fatalf("revoke: %+v %v", r, err)
	}
	if n := len(c.StandingRules()); n != 0 {
		t.Fatalf("%d rules left", n)
	}
	// In force at once: the call is asked again...
	if d := c.Policy().Decide(bash("git reset --hard HEAD~1").Call); d.Action != policy.Ask {
		t.Fatalf("after revoke: %+v", d)
	}
	// ...recorded...
	var seen bool
	for _, e := range events(t, c) {
		if e.Type == event.PolicyRuleRevoked && e.Session == event.SystemSession && data(t, e)["rule"] == r.ID {
			seen = true
		}
	}
	if !seen {
		t.Fatal("no policy.rule_revoked event")
	}
	// ...and for good: a restart reads the rewritten overlay.
	c2 := coretest.New(t, coretest.Options{Dir: dir})
	if d := c2.Policy().Decide(bash("git reset --hard HEAD~1").Call); d.Action != policy.Ask {
		t.Fatalf("after restart: %+v", d)
	}
	if _, err := c2.RevokeRule(t.Context(), r.ID); !errors.Is(err, core.ErrNoRule) {
		t.Fatalf("second revoke: %v", err)
	}
}
