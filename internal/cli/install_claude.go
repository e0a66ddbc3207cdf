package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/integrations/claudecode"
)

func newInstallClaudeCmd(o *options) *cobra.Command {
	var (
		project     string
		user        bool
		uninstall   bool
		autoApprove bool
		asJSON      bool
		allowTemp   bool
		binary      string
	)
	cmd := &cobra.Command{
		Use:   "claude",
		Short: "Install warden's hooks into Claude Code's settings",
		Long: `Install warden's hooks into Claude Code's settings: DIR/.claude/settings.json with
--project DIR (the default, with the current directory), or ~/.claude/settings.json with
--user. Every hook event runs "warden hook claude"; PreToolUse gates every tool and
blocks when warden cannot answer (fail-closed). Your own hooks and settings are left
alone; running it twice changes nothing; --uninstall removes only warden's hooks.

With --auto-approve, a call warden allows is also allowed in Claude (its own permission
prompt is skipped); without it, Claude's permission rules still apply after warden's.
The data dir given with --data-dir (or $WARDEN_DATA_DIR) is written into the command.

The PreToolUse hook exits 2 (Claude's "block") whenever the command fails, so a
missing or broken warden binary blocks every tool call instead of letting it run.
For the same reason, a temporary build (go run) is refused: install warden with
"go install ./cmd/warden" first, or name the program with --binary.`,
		Example: `  warden install claude
  warden install claude --project ~/src/app
  warden install claude --user
  warden install claude --uninstall`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if project != "" && user {
				return fmt.Errorf("give --project DIR or --user, not both")
			}
			path, err := claudeSettingsPath(project, user)
			if err != nil {
				return err
			}
			var ch claudecode.Change
			if uninstall {
				ch, err = claudecode.Uninstall(path)
			} else {
				var command string
				if command, err = o.hookCommand(binary, autoApprove, allowTemp); err != nil {
					return err
				}
				ch, err = claudecode.Install(path, command)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(ch)
			}
			switch ch.Action {
			case "unchanged":
				if uninstall {
					fmt.Fprintf(o.stdout, "nothing to remove: no warden hooks in %s\n", ch.Path)
				} else {
					fmt.Fprintf(o.stdout, "already installed: %s\n", ch.Path)
				}
			case "absent":
				fmt.Fprintf(o.stdout, "nothing to remove: %s does not exist\n", ch.Path)
			default:
				fmt.Fprintf(o.stdout, "%s %s: %s\n", ch.Action, ch.Path, strings.Join(ch.Changes, ", "))
			}
			if !uninstall {
				fmt.Fprintf(o.stdout, "hook command: %s\n", ch.Command)
				fmt.Fprintln(o.stdout, "Start warden with `warden serve`; Claude Code's tool calls now ask it first, and are blocked when it does not answer.")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", "", "install into DIR/.claude/settings.json (default: the current directory)")
	cmd.Flags().BoolVar(&user, "user", false, "install into ~/.claude/settings.json")
	cmd.Flags().BoolVar(&uninstall, "uninstall", false, "remove warden's hooks")
	cmd.Flags().BoolVar(&autoApprove, "auto-approve", false, "let calls warden allows skip Claude's own permission prompt")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&allowTemp, "allow-temp-binary", false, "install even when the hook's warden is a temporary `go run` build")
	cmd.Flags().StringVar(&binary, "binary", "", "the warden program the hooks run (default: this one)")
	// install opencode says --global for the user's own config: the same
	// word works here
	flagAlias(cmd, "global", "user")
	return cmd
}

// claudeSettingsPath picks the settings file of --project DIR or --user.
func claudeSettingsPath(project string, user bool) (string, error) {
	if user {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find home dir: %w", err)
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	if project == "" {
		project = "."
	}
	abs, err := filepath.Abs(project)
	if err != nil {
		return "", fmt.Errorf("project dir %s: %w", project, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("project dir %s is not a directory", abs)
	}
	return filepath.Join(abs, ".claude", "settings.json"), nil
}

// hookCommand is the command line the installed hooks run: this binary (or
// --binary), "hook claude", the data dir when one was chosen explicitly, and
// --auto-approve when asked for.
func (o *options) hookCommand(binary string, autoApprove, allowTemp bool) (string, error) {
	var exe string
	if binary != "" {
		abs, err := filepath.Abs(binary)
		if err != nil {
			return "", fmt.Errorf("--binary %s: %w", binary, err)
		}
		fi, err := os.Stat(abs)
		if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("--binary %s is not an executable file", abs)
		}
		exe = abs
		if isTemporaryBuild(exe) && !allowTemp {
			return "", fmt.Errorf("--binary %s is a temporary go build, deleted when its go command ends: go install ./cmd/warden and name that (or pass --allow-temp-binary)", exe)
		}
	} else {
		if err := refuseTemporaryBuild(allowTemp); err != nil {
			return "", err
		}
		var err error
		if exe, err = selfPath(); err != nil {
			return "", err
		}
	}
	var extra []string
	dir := o.dataDir
	if dir == "" {
		dir = os.Getenv("WARDEN_DATA_DIR")
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("data dir %s: %w", dir, err)
		}
		extra = append(extra, "--data-dir", abs)
	}
	if autoApprove {
		extra = append(extra, "--auto-approve")
	}
	return claudecode.Command(exe, extra...), nil
}
