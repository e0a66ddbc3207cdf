package sandbox

import (
	"github.com/warden-dev/warden/internal/policy/shell"
)

// ShellLine is the shell command line that runs command (a bash command
// line) confined: 'EXE' sandbox -w 'WORKSPACE' [EXTRA...] -- /bin/bash -c
// 'COMMAND', every word quoted for bash. It is what a hook or plugin puts
// in place of an agent's shell call. extraArgs go before "--": pass
// "--data-dir DIR" and "--policy FILE" when the daemon runs with
// non-default ones, so that the profile denies that data dir (the check
// that no grant contains it is what keeps a data dir under /tmp closed)
// and follows that policy's sandbox: section.
func ShellLine(exe, workspace string, extraArgs []string, command string) string {
	words := []string{exe, "sandbox", "-w", workspace}
	words = append(words, extraArgs...)
	words = append(words, "--", "/bin/bash", "-c", command)
	return shell.Join(words...)
}
