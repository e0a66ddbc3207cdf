//go:build !linux

package reaper

// Supported reports whether commands can run under a guard here: only
// Linux has child subreapers.
const Supported = false

// MaybeRun does nothing here: no command runs under a guard.
func MaybeRun() {}
