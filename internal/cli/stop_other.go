//go:build !linux

package cli

import (
	"errors"
	"syscall"
	"time"
)

// watchExit returns a channel closed when the process pid (not a child of
// ours) has ended. Without pidfds the process is probed with signal 0.
func watchExit(pid int) (<-chan struct{}, error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for range t.C {
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				return
			}
		}
	}()
	return done, nil
}
