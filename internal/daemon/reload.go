package daemon

import (
	"log/slog"
	"maps"
	"reflect"
	"slices"

	"github.com/warden-dev/warden/internal/core"
)

// reload applies a new configuration to a running daemon (SIGHUP) and
// returns the configuration now in force. What is safe to swap while
// requests run is applied: the policy file's rules (core.SetPolicy; the
// overlay of standing decisions stays), the approval deadline of the asks
// to come, and the log level. A change of the policy file's path, the
// listeners, the control door's settings, the agents, agentSandbox, the
// limits or the log format needs a restart: the log says which, and the
// running values stay. A config that does not load changes nothing; a
// policy that does not load keeps the running policy.
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
			if name == "" {
				name = cur.PolicyFile
			}
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
	applied := cur
	if next.ApprovalTimeout != cur.ApprovalTimeout {
		c.SetApprovalTimeout(next.ApprovalTimeout)
		applied.ApprovalTimeout = next.ApprovalTimeout
		logger.Info("SIGHUP: approvals.timeout changed; asks from now on wait this long", "timeout", c.ApprovalTimeout())
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
	if next.LogSettings.Level != cur.LogSettings.Level {
		if cur.LogLevel != nil {
			cur.LogLevel.Set(ParseLogLevel(next.LogSettings.Level))
			applied.LogSettings.Level = next.LogSettings.Level
			logger.Info("SIGHUP: log level changed", "level", cur.LogLevel.Level())
		} else {
			restart = append(restart, "log.level")
		}
	}
	if next.LogSettings.Format != cur.LogSettings.Format {
		restart = append(restart, "log.format")
	}
	if len(restart) > 0 {
		logger.Warn("SIGHUP: these settings changed and take effect at the next restart (warden stop; warden serve)", "needRestart", restart)
	}
	// In force: the new policy rules, deadline and level, the old
	// everything else.
	return applied
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
