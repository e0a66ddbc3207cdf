//go:build unix

package debug

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group, so that
// killing the group also kills what the adapter started in it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the process group led by pid, and pid itself.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}

// processStart identifies the incarnation of process pid (its start time
// from /proc), or "" when unknown (process gone, no /proc).
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// Fields after the command (which may hold spaces) in parentheses;
	// starttime is field 22 overall, 20th after ")".
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return ""
	}
	f := strings.Fields(rest)
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// killDebuggee kills a launched debuggee the adapter left behind (adapters
// start it in its own process group), but only if pid is still the process
// that started at start.
func killDebuggee(pid int, start string) bool {
	if pid <= 0 || start == "" || processStart(pid) != start {
		return false
	}
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	return true
}
