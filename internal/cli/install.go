package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/integrations/opencode"
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
	)
	cmd := &cobra.Command{
		Use:   "opencode",
		Short: "Install warden's monitor plugin into OpenCode",
		Long: `Install warden's monitor plugin into OpenCode: into DIR/.opencode/plugin/ with
--project DIR, or into ~/.config/opencode/plugin/ with --global (the default when no
--project is given). Idempotent; other plugins are left alone. The plugin posts to
$WARDEN_MONITOR_URL (default http://localhost:37123/agent-monitor) and blocks every
tool call when warden cannot answer.`,
		Example: `  warden install opencode --project .
  warden install opencode --global
  warden install opencode --project . --uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project != "" && global {
				return fmt.Errorf("give --project DIR or --global, not both")
			}
			tgt := opencode.Target{Project: project, ConfigHome: configHome()}
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
				fmt.Fprintln(o.stdout, "Start warden with `warden serve`; OpenCode's tool calls now ask it first.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "install into this project's .opencode/plugin/")
	cmd.Flags().BoolVar(&global, "global", false, "install into ~/.config/opencode/plugin/ (default without --project)")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove warden's plugin")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
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
