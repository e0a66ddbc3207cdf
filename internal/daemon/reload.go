package daemon

import (
	"log/slog"
	"maps"
	"reflect"
	"slices"

	"github.com/warden-dev/warden/internal/core"
)

// reload applies a new configuration to a running daemon (SIGHUP) and
// returns the configuration now in force. Only what is safe to swap while
// requests run is applied: the policy file's rules (core.SetPolicy; the
// overlay of standing decisions stays). A change of the policy file's path,
// the listeners, the control door's settings, the approval deadline, the
// agents or agentSandbox needs a restart: the log says which, and the
// running values stay. A config or policy that does not load changes
// nothing.
func reload(c *core.Core, cur Config, logger *slog.Logger) Config {
	next := cur
	if cur.Reconfigure != nil {
		n, err := cur.Reconfigure()
		if err != nil {
			logger.Error("SIGHUP: the configuration does not load; nothing reloaded", "err", err)
			return cur
		}
		next = n
	}
	var restart []string
	if next.PolicyFile != cur.PolicyFile {
		// The policy file's path is guarded (agents may not write it) and
		// handed to `warden sandbox`; a new path takes a restart.
		restart = append(restart, "policy (path "+cur.PolicyFile+" -> "+next.PolicyFile+")")
	} else {
		pol, name, err := loadPolicy(cur.PolicyFile, cur.PolicyEnv)
		if err == nil {
			err = c.SetPolicy(pol)
		}
		if err != nil {
			logger.Error("SIGHUP: the policy does not load; the running policy stays", "policy", name, "err", err)
		} else {
			logger.Info("SIGHUP: policy reloaded", "policy", name)
		}
	}
	if !maps.Equal(withDefaults(next.Listeners), withDefaults(cur.Listeners)) {
		restart = append(restart, "listeners")
	}
	if !reflect.DeepEqual(next.Control, cur.Control) || next.ControlWorkspace != cur.ControlWorkspace {
		restart = append(restart, "control")
	}
	if next.ApprovalTimeout != cur.ApprovalTimeout {
		restart = append(restart, "approvals.timeout")
	}
	if !maps.Equal(next.AgentBinaries, cur.AgentBinaries) || !slices.Equal(next.NpmDirs, cur.NpmDirs) {
		restart = append(restart, "agents")
	}
	if next.AgentSandbox != cur.AgentSandbox {
		restart = append(restart, "agentSandbox")
	}
	if next.Limits != cur.Limits {
		restart = append(restart, "limits")
	}
	if next.DataDir != cur.DataDir {
		restart = append(restart, "dataDir")
	}
	if next.LogSettings != cur.LogSettings {
		restart = append(restart, "log")
	}
	if len(restart) > 0 {
		logger.Warn("SIGHUP: these settings changed and take effect at the next restart (warden stop; warden serve)", "needRestart", restart)
	}
	// In force: the new policy rules, the old everything else.
	return cur
}

// withDefaults fills in every registered door's default address.
func withDefaults(l map[string]string) map[string]string {
	out := map[string]string{}
	for _, d := range Doors() {
		out[d.Name] = d.DefaultAddr
	}
	maps.Copy(out, l)
	return out
}
