package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is warden's release version, reported by `warden version` and
// /health.
const Version = "0.1.0"

// BuildInfo is what `warden version` reports: the release, the module
// version, and the commit and time of the source it was built from.
type BuildInfo struct {
	// Version is the release (Version).
	Version string `json:"version"`
	// Module is the Go module version ("(devel)" for a build from a checkout
	// without a tag, "devel" when the toolchain recorded none).
	Module string `json:"module"`
	// Commit is the VCS revision, "devel" when the build recorded none (go
	// run, go test).
	Commit string `json:"commit"`
	// Date is the commit time (vcs.time), "devel" when unknown.
	Date string `json:"date"`
	// Modified is true when the checkout had uncommitted changes.
	Modified bool `json:"modified,omitempty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

// readBuildInfo reads the build's metadata from the binary itself.
func readBuildInfo() BuildInfo {
	b := BuildInfo{Version: Version, Module: "devel", Commit: "devel", Date: "devel", Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := info.Main.Version; v != "" {
		b.Module = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				b.Commit = s.Value
			}
		case "vcs.time":
			if s.Value != "" {
				b.Date = s.Value
			}
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the one-line form: warden 0.1.0 (module M, commit C, built D, go1.x).
func (b BuildInfo) String() string {
	commit := b.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if b.Modified {
		commit += "+dirty"
	}
	return fmt.Sprintf("warden %s (module %s, commit %s, built %s, %s)", b.Version, b.Module, commit, b.Date, b.Go)
}

func newVersionCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print warden's version, module version, commit and build date",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b := readBuildInfo()
			if asJSON {
				return o.printJSON(b)
			}
			fmt.Fprintln(o.stdout, b)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
