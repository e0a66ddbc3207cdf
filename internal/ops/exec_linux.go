package ops

import "syscall"

// execSysProcAttr puts an Exec'd command in a process group of its own,
// ended with the daemon should the daemon die first.
func execSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
