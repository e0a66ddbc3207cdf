package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/integrations/opencode"
	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/protocol/monitor"
)

// newInstallCmd is the parent of `warden install <agent>`; each agent's
// subcommand lives in its own file.
func newInstallCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Connect an agent to warden (OpenCode plugin, Claude Code hooks)",
	}
	cmd.AddCommand(newInstallOpenCodeCmd(o))
	cmd.AddCommand(newInstallClaudeCmd(o))
	return cmd
}

func newInstallOpenCodeCmd(o *options) *cobra.Command {
	var (
		project   string
		global    bool
		uninstall bool
		asJSON    bool
		allowTemp bool
	)
	cmd := &cobra.Command{
		Use:   "opencode",
		Short: "Install warden's monitor plugin into OpenCode",
		Long: `Install warden's monitor plugin into OpenCode: into DIR/.opencode/plugin/ with
--project DIR, or into ~/.config/opencode/plugin/ with --global (the default when no
--project is given). Idempotent; other plugins are left alone.

The plugin records warden's data dir (--data-dir, $WARDEN_DATA_DIR, the config file,
or the default): it reads warden's public key there, to check that every answer
really comes from warden, and the running daemon's monitor address (daemon.json), so
a daemon on another port is found. $WARDEN_MONITOR_URL and $WARDEN_DATA_DIR in
OpenCode's environment override both. It blocks every tool call when warden cannot
answer, or when what answers is not warden.`,
		Example: `  warden install opencode --project .
  warden install opencode --global
  warden install opencode --project . --uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project != "" && global {
				return fmt.Errorf("give --project DIR or --global, not both")
			}
			dataDir := ""
			if !uninstall {
				if err := refuseTemporaryBuild(allowTemp); err != nil {
					return err
				}
				cfg, err := o.loadConfig()
				if err != nil {
					return err
				}
				if dataDir, err = o.resolveDataDir(cfg); err != nil {
					return err
				}
				if dataDir, err = filepath.Abs(dataDir); err != nil {
					return fmt.Errorf("data dir: %w", err)
				}
			}
			tgt := opencode.Target{Project: project, ConfigHome: configHome(), DataDir: dataDir}
			var (
				ch  opencode.Change
				err error
			)
			if uninstall {
				ch, err = opencode.Uninstall(tgt)
			} else {
				ch, err = opencode.Install(tgt)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(ch)
			}
			switch ch.Action {
			case "unchanged":
				fmt.Fprintf(o.stdout, "already installed: %s\n", ch.Path)
			case "absent":
				fmt.Fprintf(o.stdout, "nothing to remove: %s does not exist\n", ch.Path)
			default:
				fmt.Fprintf(o.stdout, "%s %s\n", ch.Action, ch.Path)
			}
			if !uninstall {
				o.describeMonitor(dataDir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "install into this project's .opencode/plugin/")
	cmd.Flags().BoolVar(&global, "global", false, "install into ~/.config/opencode/plugin/ (default without --project)")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove warden's plugin")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&allowTemp, "allow-temp-binary", false, "install even when this warden is a temporary `go run` build")
	// install claude says --user for the user's own settings: the same
	// word works here
	flagAlias(cmd, "user", "global")
	return cmd
}

// flagAlias makes --alias a second name of cmd's flag --name (not listed
// in the help).
func flagAlias(cmd *cobra.Command, alias, name string) {
	cmd.Flags().SetNormalizeFunc(func(_ *pflag.FlagSet, n string) pflag.NormalizedName {
		if n == alias {
			n = name
		}
		return pflag.NormalizedName(n)
	})
}

// describeMonitor says where the installed plugin will find warden: the data
// dir, and the running daemon's monitor URL when it is not the default.
func (o *options) describeMonitor(dataDir string) {
	fmt.Fprintf(o.stdout, "The plugin finds warden through %s (its public key %s and daemon.json).\n", dataDir, proof.DoorPubName)
	rt, err := daemon.ReadRuntime(dataDir)
	switch {
	case err != nil:
		fmt.Fprintln(o.stdout, "warden is not running: start it with `warden serve`; until then the plugin blocks every tool call.")
	case rt.Listeners["monitor"] == "":
		fmt.Fprintln(o.stdout, "warning: the running warden's monitor door is switched off (serve --monitor-addr); the plugin blocks every tool call until it is on.")
	case rt.Listeners["monitor"] != monitor.DefaultAddr:
		fmt.Fprintf(o.stdout, "warden's monitor door: http://%s%s (not the default %s); the plugin reads it from daemon.json.\n", rt.Listeners["monitor"], monitor.Path, monitor.DefaultAddr)
	default:
		fmt.Fprintf(o.stdout, "warden's monitor door: http://%s%s; OpenCode's tool calls now ask it first.\n", rt.Listeners["monitor"], monitor.Path)
	}
}

// isTemporaryBuild reports whether path is a program Go built in its
// temporary build dir (go run, go test: $GOTMPDIR or the temp dir, in a
// go-build* directory), which is deleted when that command ends.
func isTemporaryBuild(path string) bool {
	for _, el := range strings.Split(filepath.ToSlash(path), "/") {
		if strings.HasPrefix(el, "go-build") {
			return true
		}
	}
	return false
}

// selfPath is this program's path, symlinks resolved (a variable for tests).
var selfPath = func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find warden's own path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// refuseTemporaryBuild refuses to install from a `go run` build: the binary
// is deleted when `go run` exits, and whatever was installed would point at
// nothing.
func refuseTemporaryBuild(allow bool) error {
	exe, err := selfPath()
	if err != nil {
		return err
	}
	if allow || !isTemporaryBuild(exe) {
		return nil
	}
	return errors.New("this warden is a temporary build (" + exe + "), made by `go run` and deleted when it exits: " +
		"install warden first with `go install ./cmd/warden` and run `warden install` from there " +
		"(or pass --allow-temp-binary to install anyway)")
}

// configHome is $XDG_CONFIG_HOME, else ~/.config.
func configHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".config")
}
