//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_AARCH64
	// arm64 has no second ABI under the same audit arch: repeat the native
	// numbers.
	nativeIoctlAlt  = unix.SYS_IOCTL
	nativeSocketAlt = unix.SYS_SOCKET
	compatArch      = unix.AUDIT_ARCH_ARM
	compatIoctl     = 54
	compatSocket    = 281
	// compatSocketcall: ARM EABI has no socketcall(2).
	compatSocketcall = -1
)
