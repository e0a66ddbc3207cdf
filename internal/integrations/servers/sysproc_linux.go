package servers

import "syscall"

// sysProcAttr puts a server in its own process group (so stop reaches its
// children) and asks the kernel to SIGTERM it if warden dies without
// stopping it (kill -9, a crash), so no server outlives its supervisor.
// (The kernel ties this to the thread that started the child; Go's runtime
// keeps its threads unless a goroutine locked to one exits, which warden's
// do not.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
