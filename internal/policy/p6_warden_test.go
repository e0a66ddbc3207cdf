package policy

import "testing"

// TestP6WardenControls: a warden subcommand not known to be read-only —
// misspelled, given more words than it takes, or answering the approval
// queue — is one of warden's controls (denied); what only shows things
// stays allowed. Stopping what holds warden's ports is a signal to the
// daemon.
func TestP6WardenControls(t *testing.T) {
	env := DefaultEnv()
	env.Home = "/home/u"
	env.DaemonPorts = append(env.DaemonPorts, 8080)
	p, err := Default(env)
	if err != nil {
		t.Fatal(err)
	}
	sh := func(cmd string) Call {
		return Call{Tool: "bash", Args: map[string]any{"command": cmd}, Cwd: "/home/u/proj", Workspace: "/home/u/proj"}
	}
	runCases(t, p, []decideCase{
		{call: sh("warden approvals approve --all"), want: Deny, rule: "warden-admin"},
		{call: sh("warden approvalz approve --all"), want: Deny},
		{call: sh("warden approvals --watch"), want: Deny},
		{call: sh("warden approvals -W"), want: Deny},
		{call: sh("warden status --reset"), want: Allow}, // a flag: cobra refuses what it does not know
		{call: sh("warden status now"), want: Deny},
		{call: sh("warden events prune --before 0s"), want: Deny},
		{call: sh("warden events import x.jsonl"), want: Deny},
		{call: sh("warden sessions kill 3"), want: Deny},
		{call: sh("warden control call policy.reload '{}'"), want: Deny},
		{call: sh("warden index build"), want: Deny},
		{call: sh("warden version upgrade"), want: Deny},
		{call: sh("warden events export -o ~/.bashrc"), want: Deny},
		// read-only
		{call: sh("warden status"), want: Allow},
		{call: sh("warden approvals --json"), want: Allow},
		{call: sh("warden events --json --since 10m"), want: Allow},
		{call: sh("warden events export -o /tmp/events.jsonl"), want: Allow},
		{call: sh("warden sessions show 3"), want: Allow},
		{call: sh("warden policy rules"), want: Allow},
		{call: sh("warden index search --json parseOpts"), want: Allow},
		{call: sh("warden control methods"), want: Allow},
		{call: sh("warden help approvals"), want: Allow},
		{call: sh("warden version --json"), want: Allow},
		// warden's ports
		{call: sh("fuser -k 37123/tcp"), want: Deny, rule: "warden-signal"},
		{call: sh("fuser -k -n tcp 19876"), want: Deny},
		{call: sh("kill $(lsof -t -i :37124)"), want: Deny},
		{call: sh("kill -9 $(lsof -ti tcp:37125)"), want: Deny},
		{call: sh("lsof -t -i:19876 | xargs kill"), want: Deny},
		{call: sh("ss -K dport = :37123"), want: Deny},
		{call: sh("npx kill-port 37123"), want: Deny},
		{call: sh("fuser -k 8080/tcp"), want: Deny}, // the config has a door there
		// other ports are the developer's own servers
		{call: sh("fuser -k 3000/tcp"), want: Allow},
		{call: sh("kill $(lsof -t -i :5173)"), want: Allow},
		{call: sh("lsof -i :37123"), want: Allow},
		{call: sh("ss -tlnp"), want: Allow},
		{call: sh("fuser 37123/tcp"), want: Allow},
	})
}
