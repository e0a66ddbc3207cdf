//go:build !unix

package debug

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the adapter process.
func killGroup(p *os.Process) { _ = p.Kill() }

// processStart cannot identify processes here.
func processStart(int) string { return "" }

// killDebuggee cannot safely identify the debuggee here: it does nothing.
func killDebuggee(int, string) bool { return false }
