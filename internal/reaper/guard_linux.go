package reaper

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Supported reports whether commands can run under a guard here.
const Supported = true

// MaybeRun runs the guard when this process was started by Wrap, and
// never returns then; in any other start it returns at once.
func MaybeRun() {
	if len(os.Args) < 5 || os.Args[1] != Arg {
		return
	}
	os.Exit(guard(os.Args[2:]))
}

func guard(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "warden exec guard: malformed command line")
		return 125
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "warden exec guard: become a subreaper:", err)
		return 125
	}
	control := os.NewFile(controlFD, "warden-exec-control")
	gone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, control) // EOF: released, or the daemon died
		close(gone)
	}()
	cmd := &exec.Cmd{Path: args[0], Args: args[2:], Stdout: os.Stdout, Stderr: os.Stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "warden exec guard:", err)
		return 127
	}
	pid := cmd.Process.Pid
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &ws, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		exited <- ws
	}()
	var status syscall.WaitStatus
wait:
	for {
		select {
		case status = <-exited:
			break wait
		case <-gone:
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			status = <-exited
			break wait
		case s := <-sigs:
			sig := s.(syscall.Signal)
			_ = syscall.Kill(-pid, sig)
			for _, c := range children() {
				_ = syscall.Kill(c, sig)
			}
		}
	}
	sweep(pid)
	if status.Signaled() {
		signal.Reset()
		_ = syscall.Kill(os.Getpid(), status.Signal())
		return 128 + int(status.Signal())
	}
	return status.ExitStatus()
}

// sweep kills the command's group and every child the guard has (what the
// command left behind, reparented here), group and all, and reaps them,
// until none is left.
func sweep(pgid int) {
	for {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		for _, c := range children() {
			_ = syscall.Kill(-c, syscall.SIGKILL) // a setsid leader's group
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
			return
		}
	}
}

// children lists the processes whose parent is this one, from /proc.
func children() []int {
	me := os.Getpid()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(b); ok && ppid == me {
			out = append(out, pid)
		}
	}
	return out
}
