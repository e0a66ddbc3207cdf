// Package cli is warden's command line: the daemon (`serve`) and the
// commands that inspect and steer it, in the manner of gh and kubectl:
// subcommands, `--json` on every listing, tables otherwise, completion, and
// errors that say what to do next.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/daemon"
)

// Version is warden's version, reported by `warden version` and /health.
const Version = "0.1.0"

// options are the flags every command shares.
type options struct {
	dataDir    string
	configFile string
	stdout     io.Writer
	stderr     io.Writer
	stdin      io.Reader
}

// NewRoot returns the root command. Streams are injected for tests.
func NewRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	o := &options{stdout: stdout, stderr: stderr, stdin: stdin}
	root := &cobra.Command{
		Use:   "warden",
		Short: "A local control plane for AI coding agents",
		Long: `warden gates every tool call of your coding agents with one policy (allow, deny,
or ask a person; fail-closed), records every session event in one durable log,
and shows it all in this CLI.

Start the daemon with "warden serve", then point agents at it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().StringVar(&o.dataDir, "data-dir", "", "data directory (default $XDG_DATA_HOME/warden or ~/.local/share/warden; env WARDEN_DATA_DIR)")
	root.PersistentFlags().StringVar(&o.configFile, "config", "", "config file (default $XDG_CONFIG_HOME/warden/config.yaml if it exists)")
	root.AddCommand(
		newServeCmd(o),
		newStatusCmd(o),
		newEventsCmd(o),
		newSessionsCmd(o),
		newApprovalsCmd(o),
		newApproveCmd(o),
		newDenyCmd(o),
		newCredentialsCmd(o),
		newPolicyCmd(o),
		newInstallCmd(o),
		newHookCmd(o),
		newControlCmd(o),
		newWorkspaceCmd(o),
		newAgentsCmd(o),
		newRunCmd(o),
		newSandboxCmd(o),
		newDoctorCmd(o),
		newVersionCmd(o),
	)
	return root
}

// Main runs the CLI and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		var ec exitCode
		if errors.As(err, &ec) {
			if ec.msg != "" {
				fmt.Fprintln(stderr, "error:", ec.msg)
			}
			return ec.code
		}
		fmt.Fprintln(stderr, "error:", err)
		if strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag") {
			fmt.Fprintln(stderr, "Run 'warden --help' for usage.")
		}
		return 1
	}
	return 0
}

// exitCode is an error that asks for a specific exit status.
type exitCode struct {
	code int
	msg  string
}

func (e exitCode) Error() string { return e.msg }

// loadConfig reads --config, or the default config file when it exists.
func (o *options) loadConfig() (config.Config, error) {
	path := o.configFile
	if path == "" {
		if def := config.DefaultConfigFile(); def != "" {
			if _, err := os.Stat(def); err == nil {
				path = def
			}
		}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return cfg, err
	}
	if err := cfg.CheckListeners(daemon.DoorNames()); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// resolveDataDir picks the data dir: --data-dir, $WARDEN_DATA_DIR, the
// config file, then the default.
func (o *options) resolveDataDir(cfg config.Config) (string, error) {
	switch {
	case o.dataDir != "":
		return o.dataDir, nil
	case os.Getenv("WARDEN_DATA_DIR") != "":
		return os.Getenv("WARDEN_DATA_DIR"), nil
	case cfg.DataDir != "":
		return cfg.DataDir, nil
	}
	return config.DefaultDataDir()
}

func (o *options) printJSON(v any) error {
	enc := json.NewEncoder(o.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (o *options) table() *tabwriter.Writer {
	return tabwriter.NewWriter(o.stdout, 0, 4, 2, ' ', 0)
}

func newVersionCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print warden's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if asJSON {
				return o.printJSON(map[string]string{"version": Version})
			}
			fmt.Fprintf(o.stdout, "warden %s\n", Version)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
