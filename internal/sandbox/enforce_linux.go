//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// detectABI is the Landlock ABI in effect, as go-landlock counts it: an
// ABI 6+ kernel without the signal-scoping fix (erratum 2) counts as 5.
func detectABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		errata, err := ll.LandlockGetErrata()
		if err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}

// restrict confines the calling OS thread, which stays locked to the
// goroutine so that the exec that follows happens on it: capabilities
// dropped, no new privileges, Landlock with p's grants and IPC scoping, the
// seccomp filter (terminal injection; Unix sockets below ABI 9). Only this thread is confined: execve(2) ends
// every other thread, and until then they run only warden's own code (the
// pattern go-landlock documents for enforcing just before an exec; the
// all-threads path through libpsx costs ~15 ms per start).
//
// Each grant is opened once (O_PATH) and handed to the kernel by that file
// descriptor; a grant whose file is not the one Build checked (its device
// and inode differ: something was swapped in since) fails the whole
// confinement.
func restrict(p *Profile, abi int) error {
	runtime.LockOSThread() // never unlocked: the thread is replaced by exec
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	// Files and IPC scopes; the network stays open (docs/policy.md).
	cfg := landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}.BestEffort()
	rulesetFD, flags, err := cfg.NewRulesetFD()
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if rulesetFD < 0 {
		return errors.New("landlock: nothing to enforce on this kernel")
	}
	defer unix.Close(rulesetFD)
	handled := uint64(landlock.V11.HandledAccessFS) & fsSupported(abi)
	for _, g := range append(slices.Clone(p.Grants), ownTerminals()...) {
		if err := addGrant(rulesetFD, g, handled, abi); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(rulesetFD, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return seccompFilter(abi < 9 && !p.AllowUnixSockets)
}

// ownTerminals are the pseudo-terminals the command's standard streams are
// on (/dev/pts/N), so that reopening its own terminal by name works while
// the user's other terminals stay out of reach.
func ownTerminals() []Entry {
	var out []Entry
	for fd := 0; fd <= 2; fd++ {
		target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil || !strings.HasPrefix(target, "/dev/pts/") || slices.ContainsFunc(out, func(e Entry) bool { return e.Path == target }) {
			continue
		}
		out = append(out, Entry{Path: target, Access: ReadWrite, Why: "the command's terminal", Device: true})
	}
	return out
}

// fsSupported is the set of file-system rights Landlock ABI abi knows.
func fsSupported(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return 1<<13 - 1
	case abi == 2:
		return 1<<14 - 1
	case abi <= 4:
		return 1<<15 - 1
	case abi <= 8:
		return 1<<16 - 1
	}
	return 1<<17 - 1
}

// The access sets of the grants (go-landlock's RWDirs, RODirs, ...).
const (
	accessFile  = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSReadFile | ll.AccessFSIoctlDev
	accessRead  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	accessWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
)

// addGrant adds one grant to the ruleset, by a file descriptor opened
// once; a path that does not exist (and is not to be created) is skipped.
func addGrant(rulesetFD int, g Entry, handled uint64, abi int) error {
	if g.Create {
		// A cache the first build fills; failure to create it only means
		// it is not granted.
		_ = os.MkdirAll(g.Path, 0o700)
	}
	fd, err := unix.Open(g.Path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("grant %s: %w", g.Path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("grant %s: %w", g.Path, err)
	}
	if g.Ino != 0 && (st.Ino != g.Ino || uint64(st.Dev) != g.Dev) {
		return fmt.Errorf("grant %s: it is no longer the directory or file the profile was built for (replaced since)", g.Path)
	}
	dir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	var access uint64
	switch g.Access {
	case ReadWrite:
		access = accessRead | accessWrite
		if dir && abi >= 2 {
			// Moving files between directories (git objects, package
			// managers); without it the kernel answers EXDEV.
			access |= ll.AccessFSRefer
		}
	case ReadExec:
		access = accessRead
	case ReadOnly:
		access = ll.AccessFSReadFile | ll.AccessFSReadDir
	default:
		return fmt.Errorf("grant %s: unknown access %q", g.Path, g.Access)
	}
	if g.Device {
		access |= ll.AccessFSIoctlDev
	}
	if !dir {
		access &= accessFile
	}
	access &= handled
	if access == 0 {
		return nil
	}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: access}, 0); err != nil {
		return fmt.Errorf("grant %s: landlock_add_rule: %w", g.Path, err)
	}
	return nil
}

// dropCapabilities empties the calling thread's capability sets, bounding
// set and ambient set, so that a confined command run by root is an
// ordinary uid 0 process: no CAP_SYS_PTRACE (which would let it read other
// processes' /proc/PID/environ past Landlock), no CAP_SYS_ADMIN, no module
// loading. A process that holds no capability has nothing to drop.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	for c := 0; c <= capLastCap(); c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

func capLastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n >= 0 && n < 64 {
			return n
		}
	}
	return 63
}
