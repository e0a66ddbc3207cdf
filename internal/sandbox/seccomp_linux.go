//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompFilter installs, on the calling thread (the one that execs), a
// seccomp filter for what Landlock leaves open:
//
//   - ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with EPERM: pushing
//     characters into a terminal's input queue would let a confined command
//     type commands into the unconfined shell that started it (Landlock does
//     not restrict ioctls on file descriptors inherited from outside);
//   - with blockUnixSockets, socket(AF_UNIX, ...) fails with EACCES (and,
//     for 32-bit programs, socketcall(2) as a whole): before Landlock ABI 9
//     nothing stops a connect(2) to the user's socket files (ssh-agent,
//     tmux, D-Bus, Docker). socketpair(2) stays allowed.
//
// The native ABI and the 32-bit compat ABI are both checked. It needs
// no_new_privs, which restrict set.
func seccompFilter(blockUnixSockets bool) error {
	const (
		offNr   = 0
		offArch = 4
		offArg0 = 16 // args[0], low 32 bits (little-endian)
		offArg1 = 24 // args[1], low 32 bits
	)
	var a bpfAsm
	a.load(offArch)
	a.jeq(nativeArch, "native")
	a.jeq(compatArch, "compat")
	a.ret("allow")

	a.label("native")
	a.load(offNr)
	a.jeq(unix.SYS_IOCTL, "ioctl")
	a.jeq(nativeIoctlAlt, "ioctl")
	if blockUnixSockets {
		a.jeq(unix.SYS_SOCKET, "socket")
		a.jeq(nativeSocketAlt, "socket")
	}
	a.ret("allow")

	a.label("compat")
	a.load(offNr)
	a.jeq(compatIoctl, "ioctl")
	if blockUnixSockets {
		a.jeq(compatSocket, "socket")
		if sc := compatSocketcall; sc >= 0 {
			a.jeq(uint32(sc), "eacces")
		}
	}
	a.ret("allow")

	a.label("ioctl")
	a.load(offArg1)
	a.jeq(unix.TIOCSTI, "eperm")
	a.jeq(unix.TIOCLINUX, "eperm")
	a.ret("allow")

	a.label("socket")
	a.load(offArg0)
	a.jeq(unix.AF_UNIX, "eacces")
	a.ret("allow")

	a.label("allow")
	a.retK(unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.retK(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.label("eacces")
	a.retK(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))

	prog, err := a.assemble()
	if err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp filter: %w", err)
	}
	return nil
}

// seccompAvailable reports whether this build installs the filter.
const seccompAvailable = true

// bpfAsm assembles a classic BPF program with named forward jumps.
type bpfAsm struct {
	ins    []bpfIns
	labels map[string]int
}

type bpfIns struct {
	code uint16
	k    uint32
	jt   string // jump target when equal ("" = next)
}

func (a *bpfAsm) load(off uint32) {
	a.ins = append(a.ins, bpfIns{code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, k: off})
}

// jeq jumps to label when the accumulator equals k, else falls through.
func (a *bpfAsm) jeq(k uint32, label string) {
	a.ins = append(a.ins, bpfIns{code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, k: k, jt: label})
}

// ret jumps to label unconditionally.
func (a *bpfAsm) ret(label string) {
	a.ins = append(a.ins, bpfIns{code: unix.BPF_JMP | unix.BPF_JA, jt: label})
}

func (a *bpfAsm) retK(k uint32) {
	a.ins = append(a.ins, bpfIns{code: unix.BPF_RET | unix.BPF_K, k: k})
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.ins)
}

func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	out := make([]unix.SockFilter, len(a.ins))
	for i, in := range a.ins {
		f := unix.SockFilter{Code: in.code, K: in.k}
		if in.jt != "" {
			to, ok := a.labels[in.jt]
			if !ok || to <= i {
				return nil, fmt.Errorf("bpf: bad jump to %q at %d", in.jt, i)
			}
			off := to - i - 1
			if in.code == unix.BPF_JMP|unix.BPF_JA {
				f.K = uint32(off)
			} else {
				if off > 255 {
					return nil, fmt.Errorf("bpf: jump to %q too far", in.jt)
				}
				f.Jt = uint8(off)
			}
		}
		out[i] = f
	}
	return out, nil
}
