//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_X86_64
	// nativeIoctlAlt is ioctl in the x32 ABI (same audit arch, syscall
	// number with __X32_SYSCALL_BIT).
	nativeIoctlAlt = 0x40000000 | 514
	compatArch     = unix.AUDIT_ARCH_I386
	compatIoctl    = 54
)
