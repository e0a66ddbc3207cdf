package sandbox

import (
	"github.com/warden-dev/warden/internal/policy/shell"
)

// ShellLine is the shell command line that runs command (a bash command
// line) confined: 'EXE' sandbox -w 'WORKSPACE' [EXTRA...] -- /bin/bash -c
// 'COMMAND', every word quoted for bash. It is what a hook or plugin puts
// in place of an agent's shell call.
func ShellLine(exe, workspace string, extraArgs []string, command string) string {
	words := []string{exe, "sandbox", "-w", workspace}
	words = append(words, extraArgs...)
	words = append(words, "--", "/bin/bash", "-c", command)
	return shell.Join(words...)
}
