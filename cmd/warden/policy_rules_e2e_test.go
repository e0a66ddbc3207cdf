package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// followEvents streams `warden events --follow --json` of the daemon of
// data as parsed events, from now on: tests wait on what the log says.
func followEvents(t *testing.T, data string) <-chan ev {
	t.Helper()
	cmd := exec.Command(binary, "--data-dir", data, "events", "--follow", "--json", "--since", "0", "--limit", "0")
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ch := make(chan ev, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var e ev
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				ch <- e
			}
		}
	}()
	return ch
}

// nextEvent waits for the next event of type typ (30 s at most: the bound
// of a run gone wrong).
func nextEvent(t *testing.T, evs <-chan ev, typ string) ev {
	t.Helper()
	bound := time.NewTimer(30 * time.Second)
	defer bound.Stop()
	for {
		select {
		case e, ok := <-evs:
			if !ok {
				t.Fatalf("event stream ended before a %s", typ)
			}
			if e.Type == typ {
				return e
			}
		case <-bound.C:
			t.Fatalf("no %s within 30s", typ)
		}
	}
}

// wardenAt runs warden with --data-dir before the command (so it never
// lands after a "--").
func wardenAt(t *testing.T, data, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data-dir", data}, args...)...)
	cmd.Env = isolatedEnv(t, filepath.Join(filepath.Dir(data), "home"))
	cmd.Stdin = strings.NewReader(stdin)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func approvalID(t *testing.T, e ev) string {
	t.Helper()
	var d struct {
		ApprovalID string `json:"approvalId"`
	}
	if err := json.Unmarshal(e.Data, &d); err != nil || d.ApprovalID == "" {
		t.Fatalf("approval.requested without an id: %s", e.Data)
	}
	return d.ApprovalID
}

func TestStandingRulesAreJudgedListedAndRevoked(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	d := startDaemon(t, data, "--approval-timeout", "1m")
	ws := filepath.Join(dir, "proj")
	evs := followEvents(t, data)
	const cmdline = "git reset --hard HEAD~2"
	ask := func(callID string) chan string {
		got := make(chan string, 1)
		go func() {
			_, body := d.post(t, preExecute("ses_r", callID, cmdline, ws))
			got <- body
		}()
		return got
	}
	explain := func() string {
		out, errOut, code := wardenAt(t, data, "", "policy", "explain", "--workspace", ws, "--json", "--", cmdline)
		if code != 0 {
			t.Fatalf("policy explain: %d %s", code, errOut)
		}
		return out
	}
	if out := explain(); !strings.Contains(out, `"decision": "ask"`) {
		t.Fatalf("before: %s", out)
	}

	got := ask("c1")
	id := approvalID(t, nextEvent(t, evs, "approval.requested"))
	if out, errOut, code := wardenAt(t, data, "", "approve", id, "--always"); code != 0 {
		t.Fatalf("approve --always: %s %s", out, errOut)
	}
	if body := <-got; strings.Contains(body, `"block":true`) {
		t.Fatalf("approved call blocked: %s", body)
	}

	// policy rules lists it; explain, eval and check judge with it, as the daemon does.
	out, _, code := wardenAt(t, data, "", "policy", "rules", "--json")
	var rules []struct {
		ID     string `json:"id"`
		Effect string `json:"effect"`
	}
	if err := json.Unmarshal([]byte(out), &rules); err != nil || code != 0 || len(rules) != 1 || rules[0].ID != "always-"+id || rules[0].Effect != "allow" {
		t.Fatalf("policy rules --json: %d %q %v", code, out, err)
	}
	if out, _, _ := wardenAt(t, data, "", "policy", "rules"); !strings.Contains(out, "ID") || !strings.Contains(out, "always-"+id) || !strings.Contains(out, ws) {
		t.Fatalf("policy rules: %q", out)
	}
	if out := explain(); !strings.Contains(out, `"decision": "allow"`) || !strings.Contains(out, "always-"+id) {
		t.Fatalf("explain with the standing rule: %s", out)
	}
	call, _ := json.Marshal(map[string]any{"tool": "bash", "args": map[string]any{"command": cmdline}, "cwd": ws, "workspace": ws})
	if out, _, _ := wardenAt(t, data, string(call)+"\n", "policy", "eval"); !strings.Contains(out, `"decision":"allow"`) {
		t.Fatalf("eval with the standing rule: %s", out)
	}
	if out, _, code := wardenAt(t, data, "", "policy", "check"); code != 0 || !strings.Contains(out, "+ 1 standing rule(s) from "+filepath.Join(data, "policy-overlay.yaml")) {
		t.Fatalf("check: %d %s", code, out)
	}

	// The daemon allows the same call without asking...
	if body := <-ask("c2"); strings.Contains(body, `"block":true`) {
		t.Fatalf("standing rule not applied: %s", body)
	}
	// ...until it is revoked, with no restart.
	if _, errOut, code := wardenAt(t, data, "", "policy", "revoke", "always-nothing"); code == 0 || !strings.Contains(errOut, "warden policy rules") {
		t.Fatalf("revoke unknown: %d %s", code, errOut)
	}
	out, errOut, code := wardenAt(t, data, "", "policy", "revoke", "always-"+id)
	if code != 0 || !strings.Contains(out, "revoked always-"+id) {
		t.Fatalf("revoke: %d %s %s", code, out, errOut)
	}
	nextEvent(t, evs, "policy.rule_revoked")
	if out, _, _ := wardenAt(t, data, "", "policy", "rules"); !strings.Contains(out, "no standing rules") {
		t.Fatalf("rules after revoke: %q", out)
	}
	if out := explain(); !strings.Contains(out, `"decision": "ask"`) {
		t.Fatalf("explain after revoke: %s", out)
	}
	got = ask("c3")
	id3 := approvalID(t, nextEvent(t, evs, "approval.requested"))
	if _, errOut, code := wardenAt(t, data, "", "deny", id3); code != 0 {
		t.Fatalf("deny: %s", errOut)
	}
	if body := <-got; !strings.Contains(body, `"block":true`) {
		t.Fatalf("denied call ran: %s", body)
	}
	d.stop()
}
