//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"runtime"
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
// terminal-injection filter. Only this thread is confined: execve(2) ends
// every other thread, and until then they run only warden's own code (the
// pattern go-landlock documents for enforcing just before an exec; the
// all-threads path through libpsx costs ~15 ms per start).
func restrict(p *Profile, abi int) error {
	runtime.LockOSThread() // never unlocked: the thread is replaced by exec
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	rules := make([]landlock.Rule, 0, len(p.Grants))
	for _, g := range p.Grants {
		r, ok, err := rule(g, abi)
		if err != nil {
			return err
		}
		if ok {
			rules = append(rules, r)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	// Files and IPC scopes; the network stays open (docs/policy.md).
	cfg := landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}.BestEffort()
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("landlock: nothing to enforce on this kernel")
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return filterTerminalInjection()
}

const (
	readFile = ll.AccessFSReadFile
	readDir  = ll.AccessFSReadDir
)

// rule is the Landlock rule for one grant, or ok=false when the path does
// not exist (and is not to be created).
func rule(g Entry, abi int) (r landlock.Rule, ok bool, err error) {
	if g.Create {
		// A cache the first build fills; failure to create it only means
		// it is not granted.
		_ = os.MkdirAll(g.Path, 0o700)
	}
	fi, err := os.Stat(g.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("grant %s: %w", g.Path, err)
	}
	dir := fi.IsDir()
	var fr landlock.FSRule
	switch {
	case g.Access == ReadWrite && dir:
		fr = landlock.RWDirs(g.Path)
		if abi >= 2 {
			// Moving files between directories (git objects, package
			// managers); without it the kernel answers EXDEV. Only on ABI
			// 2+: asking for it on ABI 1 would disable Landlock entirely.
			fr = fr.WithRefer()
		}
	case g.Access == ReadWrite:
		fr = landlock.RWFiles(g.Path)
	case g.Access == ReadExec && dir:
		fr = landlock.RODirs(g.Path)
	case g.Access == ReadExec:
		fr = landlock.ROFiles(g.Path)
	case g.Access == ReadOnly && dir:
		fr = landlock.PathAccess(readFile|readDir, g.Path)
	case g.Access == ReadOnly:
		fr = landlock.PathAccess(readFile, g.Path)
	default:
		return nil, false, fmt.Errorf("grant %s: unknown access %q", g.Path, g.Access)
	}
	if g.Device {
		fr = fr.WithIoctlDev()
	}
	return fr, true, nil
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
