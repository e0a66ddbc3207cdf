//go:build !linux || !(amd64 || arm64)

package sandbox

func seccompFilter(bool) error { return nil }

// seccompAvailable reports whether this build installs the filter.
const seccompAvailable = false
