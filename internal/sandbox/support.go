package sandbox

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
)

// Support is what the running kernel's Landlock can enforce.
type Support struct {
	// ABI is the Landlock ABI version in effect (0: no Landlock). An ABI 6
	// or later kernel without the signal-scoping fix counts as 5.
	ABI int `json:"abi"`
	// Files: reads, writes, executes, creations and removals outside the
	// grants are refused (ABI 1).
	Files bool `json:"files"`
	// Truncate: truncating files outside the writable grants is refused
	// (ABI 3).
	Truncate bool `json:"truncate"`
	// DeviceIoctl: ioctl on device files opened in the sandbox is limited
	// to the terminal grants (ABI 5).
	DeviceIoctl bool `json:"deviceIoctl"`
	// Signals: no signal reaches a process outside the sandbox (ABI 6).
	Signals bool `json:"signals"`
	// AbstractUnix: no connection to an abstract Unix socket outside the
	// sandbox (ABI 6).
	AbstractUnix bool `json:"abstractUnix"`
	// PathUnix: no connection to a Unix socket file created outside the
	// sandbox (ABI 9).
	PathUnix bool `json:"pathUnix"`
	// TerminalInjection: ioctl(TIOCSTI/TIOCLINUX) is refused, so a
	// confined command cannot type into the terminal it runs in (seccomp;
	// amd64 and arm64).
	TerminalInjection bool `json:"terminalInjection"`
	// NotEnforced says, one sentence each, what is not enforced on this
	// kernel (and what warden never restricts).
	NotEnforced []string `json:"notEnforced"`
}

// Enforced reports whether anything at all is enforced.
func (s Support) Enforced() bool { return s.ABI >= 1 }

// Complete reports whether everything the profile describes is enforced
// (files, signals and abstract sockets: ABI 6 or later).
func (s Support) Complete() bool { return s.ABI >= 6 }

// supportFor describes ABI version abi.
func supportFor(abi int) Support {
	s := Support{ABI: abi, Files: abi >= 1, Truncate: abi >= 3, DeviceIoctl: abi >= 5,
		Signals: abi >= 6, AbstractUnix: abi >= 6, PathUnix: abi >= 9, TerminalInjection: abi >= 1 && seccompAvailable}
	if abi < 1 {
		s.NotEnforced = append(s.NotEnforced,
			"Landlock is not available in this kernel: commands run unconfined (no file, signal or socket restriction)")
		return s
	}
	if abi < 3 {
		s.NotEnforced = append(s.NotEnforced, "truncating files outside the writable paths (truncate(2)) is not refused (needs Landlock ABI 3)")
	}
	if abi < 5 {
		s.NotEnforced = append(s.NotEnforced, "ioctl on device files is not limited (needs Landlock ABI 5)")
	}
	if abi < 6 {
		s.NotEnforced = append(s.NotEnforced,
			"signals to processes outside the sandbox are not blocked: a confined command can stop warden (needs Landlock ABI 6)",
			"abstract Unix sockets outside the sandbox are reachable (needs Landlock ABI 6)")
	}
	switch {
	case abi < 9 && seccompAvailable:
		s.NotEnforced = append(s.NotEnforced,
			"Landlock cannot tell Unix socket files inside the sandbox from the user's (needs ABI 9): new Unix sockets are refused altogether, unless the policy sets sandbox.unixSockets: true, which lets a confined command reach ssh-agent, tmux, D-Bus and Docker")
	case abi < 9:
		s.NotEnforced = append(s.NotEnforced,
			"Unix socket files outside the sandbox (ssh-agent, tmux, the D-Bus session bus, the Docker socket) can be connected to (needs Landlock ABI 9)")
	}
	if !seccompAvailable {
		s.NotEnforced = append(s.NotEnforced, "typing into the terminal (ioctl TIOCSTI) is not filtered on this architecture")
	}
	s.NotEnforced = append(s.NotEnforced,
		"network connections are not restricted (by design; see docs/policy.md)",
		"metadata of files outside the grants (chmod, chown, utimes, xattrs) is not restricted by Landlock; a confined command holds no capabilities, so only the owner's own files are exposed")
	return s
}

// Detect reports what the running kernel enforces.
func Detect() Support { return supportFor(detectABI()) }

// String is a one-line summary ("Landlock ABI 7: enforces files, ...,
// signals, ...; not enforced: ...").
func (s Support) String() string {
	if !s.Enforced() {
		return "no Landlock: " + strings.Join(s.NotEnforced, "; ")
	}
	var on []string
	for _, f := range []struct {
		ok   bool
		name string
	}{{s.Files, "files"}, {s.Truncate, "truncate"}, {s.DeviceIoctl, "device ioctl"}, {s.Signals, "signals"}, {s.AbstractUnix, "abstract sockets"}, {s.PathUnix, "socket files"}, {s.TerminalInjection, "no terminal injection"}} {
		if f.ok {
			on = append(on, f.name)
		}
	}
	return "Landlock ABI " + strconv.Itoa(s.ABI) + ": enforces " + strings.Join(on, ", ") + "; not enforced: " + strings.Join(s.NotEnforced, "; ")
}

// LogSupport logs what the sandbox enforces on this kernel: at warn level
// each thing that is not enforced (for `warden serve` at start), at info
// level the ABI.
func LogSupport(ctx context.Context, logger *slog.Logger) {
	s := Detect()
	if !s.Enforced() {
		logger.WarnContext(ctx, "sandbox: Landlock is not available; commands warden starts for agents cannot be confined", "abi", 0)
		return
	}
	level := slog.LevelInfo
	if !s.Complete() {
		level = slog.LevelWarn
	}
	logger.Log(ctx, level, "sandbox: Landlock", "abi", s.ABI, "signals", s.Signals, "notEnforced", strings.Join(s.NotEnforced, "; "))
}
