package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// ErrNotEnforced is returned when Landlock is not available and the caller
// did not allow running unconfined.
var ErrNotEnforced = errors.New("sandbox: this kernel has no Landlock, so nothing can be confined (run with --allow-unconfined to run anyway, unconfined)")

// restrictForExec confines the calling goroutine's OS thread with p (the
// goroutine stays locked to it: exec from it next). It reports what the
// kernel enforces. Without Landlock it returns ErrNotEnforced unless
// allowUnconfined, in which case it confines nothing.
func restrictForExec(p *Profile, s Support, allowUnconfined bool) (Support, error) {
	if err := p.Validate(); err != nil {
		return Support{}, err
	}
	if !s.Enforced() {
		if allowUnconfined {
			return s, nil
		}
		return s, ErrNotEnforced
	}
	if err := restrict(p, s.ABI); err != nil {
		return s, fmt.Errorf("sandbox: %w", err)
	}
	return s, nil
}

// Exec confines the calling process with p, then replaces it
// with argv (argv[0] looked up in PATH) and env, so the exit status is the
// command's. It returns only on error.
func Exec(p *Profile, argv, env []string, allowUnconfined bool) error {
	if len(argv) == 0 {
		return errors.New("sandbox: no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	env = withTempDir(p, env)
	if _, err := restrictForExec(p, Detect(), allowUnconfined); err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("sandbox: exec %s: %w", path, err)
	}
	return nil
}

// withTempDir points TMPDIR at a temp dir the command may write when the
// one env names (or the system's default, /tmp) is not granted: a home
// inside /tmp keeps /tmp closed (it would expose the home's secrets), and
// mktemp, compilers and test runners then use /var/tmp or /dev/shm
// instead of failing.
func withTempDir(p *Profile, env []string) []string {
	cur := "/tmp"
	idx := -1
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok {
			idx = i
			if v != "" {
				cur = v
			}
		}
	}
	if _, ok := p.Writable(cur); ok {
		return env
	}
	for _, g := range p.Grants {
		if g.Access == ReadWrite && g.Why == "temp dir" {
			out := append([]string(nil), env...)
			if idx >= 0 {
				out[idx] = "TMPDIR=" + g.Path
			} else {
				out = append(out, "TMPDIR="+g.Path)
			}
			return out
		}
	}
	return env
}

// childArg marks the hidden child mode of the current executable:
// EXE childArg PROFILE-JSON -- ARGV... It is spelled as a flag on purpose:
// a binary that forgot to call MaybeRunChild fails loudly on it ("flag
// provided but not defined" from a test binary, "unknown flag" from
// cobra) instead of running its own main (a test binary would run every
// test again, recursively).
const childArg = "-warden-sandbox-child"

// Command returns a command that runs argv confined by p: the current
// executable re-executed in its hidden child mode (see MaybeRunChild),
// which restricts itself and execs argv. Dir is the workspace; the caller
// may change Dir, Env, the streams and SysProcAttr before starting it.
// It fails with ErrNotEnforced when the kernel has no Landlock.
func Command(ctx context.Context, p *Profile, argv []string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: find warden's executable: %w", err)
	}
	return commandWith(ctx, exe, p, argv, false)
}

// CommandWith is Command re-executing exe, a copy of this program (the
// daemon keeps one in its data dir, where no confined command can replace
// it; the running executable may lie under a writable grant, as a `go
// run` build in /tmp does). exe must call MaybeRunChild first, as this
// program does.
func CommandWith(ctx context.Context, exe string, p *Profile, argv []string) (*exec.Cmd, error) {
	return commandWith(ctx, exe, p, argv, true)
}

// commandWith is CommandWith; guard refuses a confiner under a writable
// grant (Command re-executes the running program as it is: callers whose
// program may lie there, the daemon, use CommandWith with a kept copy).
func commandWith(ctx context.Context, exe string, p *Profile, argv []string, guard bool) (*exec.Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: no command")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if !Detect().Enforced() {
		return nil, ErrNotEnforced
	}
	if g, ok := p.Writable(exe); ok && guard {
		return nil, fmt.Errorf("sandbox: %s is writable inside the sandbox (under %s, %s): a confined command could replace the program that confines the next one", exe, g.Path, g.Why)
	}
	enc, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: encode profile: %w", err)
	}
	args := append([]string{childArg, string(enc), "--"}, argv...)
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Dir = p.Workspace
	return cmd, nil
}

// DecodeProfile reads a profile as Command encodes it, and validates it.
func DecodeProfile(data []byte) (*Profile, error) {
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("sandbox profile: %w", err)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// MaybeRunChild runs the hidden child mode when this process was started
// by Command: it confines itself and execs the command, and never returns
// (exit status 125 when it cannot confine or start the command). In any
// other start it returns at once. Call it first thing in main and in
// TestMain (see the package doc).
func MaybeRunChild() {
	if len(os.Args) < 4 || os.Args[1] != childArg {
		return
	}
	os.Exit(runChild(os.Args[2:]))
}

func runChild(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "warden sandbox: malformed child command line")
		return 125
	}
	// A Ctrl-C typed the moment a terminal opens reaches this process
	// before it has become the shell: catch it (a caught signal is reset
	// to its default by exec, so the command still gets its own Ctrl-C;
	// an ignored one would stay ignored).
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGQUIT, syscall.SIGTSTP)
	p, err := DecodeProfile([]byte(args[0]))
	if err != nil {
		fmt.Fprintln(os.Stderr, "warden sandbox:", err)
		return 125
	}
	err = Exec(p, args[2:], os.Environ(), false)
	fmt.Fprintln(os.Stderr, "warden sandbox:", err)
	return 125
}
