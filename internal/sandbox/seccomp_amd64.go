//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_X86_64
	// x32 system calls: the same audit arch, numbers with __X32_SYSCALL_BIT.
	nativeIoctlAlt  = 0x40000000 | 514
	nativeSocketAlt = 0x40000000 | unix.SYS_SOCKET
	compatArch      = unix.AUDIT_ARCH_I386
	compatIoctl     = 54
	compatSocket    = 359
	// compatSocketcall is i386's multiplexed socketcall(2).
	compatSocketcall = 102
)
