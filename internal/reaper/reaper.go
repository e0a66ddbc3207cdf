// Package reaper keeps what an agent's shell call starts from outliving
// the call or the daemon. A command runs under a guard: warden's own
// program re-executed in a hidden mode (Arg) that becomes a child
// subreaper (PR_SET_CHILD_SUBREAPER), starts the command in a process
// group of its own and waits. Whatever the command leaves behind (a
// `sleep 300 &`, a grandchild that called setsid and left the group) is
// reparented to the guard instead of init once its parent exits, so the
// guard can find it. The guard ends the group and every descendant it can
// see, reaps them, and only then exits, when:
//
//   - the command exits (the call ended): nothing it started survives it;
//   - the daemon closes the control pipe (an abort's grace ran out);
//   - the daemon dies, kill -9 included: the control pipe's write end was
//     the daemon's alone, so the guard reads EOF. This does not lean on
//     Pdeathsig, which fires when the thread that forked exits, not the
//     process (a Go program's threads come and go with LockOSThread).
//
// A SIGTERM to the guard (the daemon's abort) is passed on to the group and
// to every child of the guard; the command then has the grace the daemon
// gives it before the control pipe closes.
//
// Programs that serve the guard call MaybeRun first thing in main (and in
// TestMain of tests that run guarded commands).
package reaper

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Arg marks the hidden guard mode: EXE Arg PATH -- ARGV... Spelled as a
// flag, so a program that forgot MaybeRun fails loudly on it.
const Arg = "-warden-exec-guard"

// controlFD is the guard's file descriptor of the control pipe's read end
// (the first of exec.Cmd.ExtraFiles).
const controlFD = 3

// Guarded is a command wrapped in a guard.
type Guarded struct {
	// Cmd runs the guard; the caller may set its streams, Dir, Env and
	// SysProcAttr (keep Pdeathsig off: the control pipe does that job),
	// then Start it. Its exit status is the command's (a command a signal
	// ended makes the guard end by the same signal).
	Cmd     *exec.Cmd
	control *os.File
	read    *os.File
}

// Wrap returns cmd run under a guard started from exe (a copy of a
// program that calls MaybeRun). cmd's Path and Args are taken; its Dir,
// Env and streams are copied to the guard, which hands them down.
func Wrap(exe string, cmd *exec.Cmd) (*Guarded, error) {
	if exe == "" {
		return nil, errors.New("reaper: no guard program")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("reaper: control pipe: %w", err)
	}
	g := exec.Command(exe, append([]string{Arg, cmd.Path, "--"}, cmd.Args...)...)
	g.Dir, g.Env = cmd.Dir, cmd.Env
	g.Stdin, g.Stdout, g.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	g.ExtraFiles = []*os.File{r}
	return &Guarded{Cmd: g, control: w, read: r}, nil
}

// Started closes the daemon's copy of the control pipe's read end; call
// it once Cmd has started (or failed to).
func (g *Guarded) Started() { _ = g.read.Close() }

// Release closes the control pipe: the guard ends the command's group and
// every descendant, reaps them and exits. Safe to call more than once.
func (g *Guarded) Release() {
	_ = g.read.Close()
	_ = g.control.Close()
}
