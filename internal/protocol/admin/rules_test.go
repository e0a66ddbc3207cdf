package admin

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/approval"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/policy"
)

func TestStandingRulesListAndRevoke(t *testing.T) {
	dataDir := t.TempDir()
	c := coretest.New(t, coretest.Options{Dir: t.TempDir(), ApprovalTimeout: 10 * time.Minute})
	creds, err := credential.Open(credential.Options{Dir: dataDir, Record: c.Record})
	if err != nil {
		t.Fatal(err)
	}
	client := serveSocket(t, dataDir, &Server{Core: c, Credentials: creds, Status: func() Status { return Status{} }})
	ctx := t.Context()

	if rules, err := client.StandingRules(ctx); err != nil || rules == nil || len(rules) != 0 {
		t.Fatalf("no rules yet: %#v %v", rules, err)
	}
	// "approve --always" makes a standing rule.
	call := policy.Call{Tool: "bash", Args: map[string]any{"command": "git push --force"}, Workspace: "/home/dev/proj", Cwd: "/home/dev/proj", Session: "s1", Source: "test"}
	sub := c.Bus().Subscribe(0)
	defer sub.Close()
	done := make(chan core.Verdict, 1)
	go func() {
		done <- c.Gate(ctx, core.GateRequest{Call: call, CallID: "c1", Source: "test", RequireApproval: "test asks"})
	}()
	var id string
	for id == "" {
		e, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == event.ApprovalRequested {
			for _, a := range c.Approvals() {
				id = a.ID
			}
		}
	}
	if _, err := c.Resolve(ctx, id, approval.Resolution{Outcome: approval.Approved, Always: true, By: "test"}); err != nil {
		t.Fatal(err)
	}
	<-done
	rules, err := client.StandingRules(ctx)
	if err != nil || len(rules) != 1 || rules[0].ID != "always-"+id {
		t.Fatalf("rules: %+v %v", rules, err)
	}
	if _, err := client.RevokeRule(ctx, "always-nothing"); err == nil || !strings.Contains(err.Error(), "warden policy rules") {
		t.Fatalf("unknown rule: %v", err)
	}
	if code, body := rawDo(t, dataDir, "POST", "/v1/policy/rules/always-nothing/revoke", creds.AdminToken(), ""); code != http.StatusNotFound {
		t.Fatalf("unknown rule: %d %s", code, body)
	}
	res, err := client.RevokeRule(ctx, rules[0].ID)
	if err != nil || res.Rule.ID != rules[0].ID || res.Warning != "" {
		t.Fatalf("revoke: %+v %v", res, err)
	}
	if rules, err := client.StandingRules(ctx); err != nil || len(rules) != 0 {
		t.Fatalf("after revoke: %+v %v", rules, err)
	}
	// Only the admin may: anything else is refused before the core sees it.
	if code, _ := rawDo(t, dataDir, "GET", "/v1/policy/rules", "not-the-token", ""); code != http.StatusUnauthorized {
		t.Fatalf("without the admin credential: %d", code)
	}
}
