//go:build !linux

package servers

import "syscall"

// sysProcAttr puts a server in its own process group (so stop reaches its
// children).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
