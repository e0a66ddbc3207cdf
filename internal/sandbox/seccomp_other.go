//go:build !linux || !(amd64 || arm64)

package sandbox

func filterTerminalInjection() error { return nil }

// terminalInjectionFiltered reports whether this build filters TIOCSTI.
const terminalInjectionFiltered = false
