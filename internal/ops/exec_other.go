//go:build !linux

package ops

import "syscall"

// execSysProcAttr puts an Exec'd command in a process group of its own.
func execSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
