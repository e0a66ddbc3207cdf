//go:build linux || darwin || freebsd || netbsd || openbsd

package cli

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// keysMode switches the terminal fd to read single keys without echo
// (signals such as Ctrl-C still work) and returns what restores it.
func keysMode(fd int) (restore func(), err error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("terminal: %w", err)
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &t); err != nil {
		return nil, fmt.Errorf("terminal: %w", err)
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}
