// Command warden is a local control plane for AI coding agents: it gates
// every tool call with one policy, records every session event in one
// durable log, and shows it all in a CLI.
package main

import (
	"os"

	"github.com/warden-dev/warden/internal/cli"
	"github.com/warden-dev/warden/internal/reaper"
	"github.com/warden-dev/warden/internal/sandbox"
)

func main() {
	// First: the hidden child mode of sandbox.Command (confine, then exec).
	sandbox.MaybeRunChild()
	// Then the hidden guard mode of the shell calls (internal/reaper).
	reaper.MaybeRun()
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
