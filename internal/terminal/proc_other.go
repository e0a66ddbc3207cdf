//go:build !linux

package terminal

// blockUntilExited returns at once where waitid(WNOWAIT) is not used; the
// waiter's cmd.Wait then does the waiting.
func blockUntilExited(int) {}

// sessionMembers is only implemented on Linux; elsewhere Dispose's SIGKILL
// reaches the shell's and the foreground process groups only.
func sessionMembers(int) []int { return nil }
