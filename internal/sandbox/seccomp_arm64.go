//go:build linux

package sandbox

import "golang.org/x/sys/unix"

const (
	nativeArch = unix.AUDIT_ARCH_AARCH64
	// nativeIoctlAlt repeats the native ioctl: arm64 has no second ABI
	// under the same audit arch.
	nativeIoctlAlt = unix.SYS_IOCTL
	compatArch     = unix.AUDIT_ARCH_ARM
	compatIoctl    = 54
)
