//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// filterTerminalInjection installs, on the calling thread (the one that
// execs), a seccomp filter that refuses ioctl(TIOCSTI) and
// ioctl(TIOCLINUX) with EPERM: pushing characters into a terminal's input
// queue would let a confined command type commands into the unconfined
// shell that started it (Landlock does not restrict ioctls on file
// descriptors inherited from outside). The native ABI and the 32-bit
// compat ABI are both checked. It needs no_new_privs, which Restrict set.
func filterTerminalInjection() error {
	const (
		ldW  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK = unix.BPF_RET | unix.BPF_K
		// offsets in struct seccomp_data
		offNr   = 0
		offArch = 4
		offArg1 = 24 // args[1], low 32 bits (little-endian)
	)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	deny := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	prog := []unix.SockFilter{
		/* 0 */ {Code: ldW, K: offArch},
		/* 1 */ {Code: jeqK, K: nativeArch, Jt: 0, Jf: 3}, // → 2 / 5
		/* 2 */ {Code: ldW, K: offNr},
		/* 3 */ {Code: jeqK, K: unix.SYS_IOCTL, Jt: 4, Jf: 0}, // → 8 / 4
		/* 4 */ {Code: jeqK, K: nativeIoctlAlt, Jt: 3, Jf: 6}, // → 8 / 11
		/* 5 */ {Code: jeqK, K: compatArch, Jt: 0, Jf: 5}, // → 6 / 11
		/* 6 */ {Code: ldW, K: offNr},
		/* 7 */ {Code: jeqK, K: compatIoctl, Jt: 0, Jf: 3}, // → 8 / 11
		/* 8 */ {Code: ldW, K: offArg1},
		/* 9 */ {Code: jeqK, K: unix.TIOCSTI, Jt: 2, Jf: 0}, // → 12 / 10
		/* 10 */ {Code: jeqK, K: unix.TIOCLINUX, Jt: 1, Jf: 0}, // → 12 / 11
		/* 11 */ {Code: retK, K: allow},
		/* 12 */ {Code: retK, K: deny},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter (TIOCSTI): %w", err)
	}
	return nil
}

// terminalInjectionFiltered reports whether this build filters TIOCSTI.
const terminalInjectionFiltered = true
