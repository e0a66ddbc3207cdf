package cli

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// watchExit returns a channel closed when the process pid (not a child of
// ours) has ended: a pidfd becomes readable then.
func watchExit(pid int) (<-chan struct{}, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, fmt.Errorf("watch warden (pid %d): %w", pid, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f := os.NewFile(uintptr(fd), "pidfd")
		defer f.Close()
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				return
			}
		}
	}()
	return done, nil
}
