package testtools

import (
	"errors"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit waits until process pid (any process, not only a child of the
// test) has terminated, by polling a pidfd for its exit: a process that has
// exited but is not yet reaped (a zombie) counts as gone. It fails the test
// if pid still runs after timeout. An unknown pid is already gone.
func WaitExit(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatalf("pidfd_open %d: %v", pid, err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(timeout)
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms <= 0 {
			t.Fatalf("process %d still runs after %v", pid, timeout)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, ms)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			t.Fatalf("poll the pidfd of %d: %v", pid, err)
		}
		if n > 0 {
			return
		}
	}
}
