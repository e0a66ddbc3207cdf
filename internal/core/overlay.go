package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/warden-dev/warden/internal/atomicfile"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

// ErrNoRule is RevokeRule's error when no standing rule has the id.
var ErrNoRule = errors.New("no standing rule with that id")

// alwaysPrefix starts the id of the rule an "always" approval added; the
// approval's id follows.
const alwaysPrefix = "always-"

// StandingRules returns the standing rules ("always" decisions kept in the
// policy overlay), oldest first. The slice is the caller's.
func (c *Core) StandingRules() []policy.Rule {
	c.policyMu.Lock()
	defer c.policyMu.Unlock()
	return slices.Clone(c.overlay)
}

// RevokeRule removes the standing rule id (a rule id, or the id of the
// approval that made it: "ap_x" stands for "always-ap_x") from the
// overlay: the overlay file is rewritten first, then the policy without the
// rule is put in force (the next call is judged without it, no restart),
// then the revocation is recorded. An error from recording is returned with
// the removed rule: the revocation holds.
func (c *Core) RevokeRule(ctx context.Context, id string) (policy.Rule, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return policy.Rule{}, fmt.Errorf("revoke: %w: the id is empty", ErrNoRule)
	}
	c.policyMu.Lock()
	i := slices.IndexFunc(c.overlay, func(r policy.Rule) bool { return r.ID == id || r.ID == alwaysPrefix+id })
	if i < 0 {
		c.policyMu.Unlock()
		return policy.Rule{}, fmt.Errorf("revoke %s: %w (warden policy rules lists them)", id, ErrNoRule)
	}
	removed := c.overlay[i]
	rules := slices.Delete(slices.Clone(c.overlay), i, i+1)
	combined, err := c.base.WithRules(rules...)
	if err == nil {
		var data []byte
		if data, err = policy.MarshalRules(rules); err == nil {
			err = atomicfile.Write(c.overlayPath, data, 0o600, 0o700)
		}
	}
	if err != nil {
		c.policyMu.Unlock()
		return policy.Rule{}, fmt.Errorf("revoke %s: %w", id, err)
	}
	c.overlay = rules
	c.policy.Store(combined)
	c.policyMu.Unlock()
	ev := withData(event.Event{Session: event.SystemSession, Source: "warden"}, event.PolicyRuleRevoked,
		event.RuleRevokedData{Rule: removed.ID, Effect: string(removed.Effect), Description: removed.Description})
	if _, err := c.Record(ctx, ev); err != nil {
		return removed, fmt.Errorf("revoked %s, but could not record it: %w", removed.ID, err)
	}
	return removed, nil
}
