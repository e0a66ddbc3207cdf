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
	"github.com/spf13/pflag"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/daemon"
)

// options are the flags every command shares.
type options struct {
	dataDir    string
	configFile string
	verbose    bool
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
	root.PersistentFlags().BoolVarP(&o.verbose, "verbose", "v", false, "say more: e.g. every place searched for a missing agent program")
	root.PersistentFlags().StringVar(&o.configFile, "config", "", "config file (default $XDG_CONFIG_HOME/warden/config.yaml if it exists)")
	root.AddCommand(
		newServeCmd(o),
		newStatusCmd(o),
		newEventsCmd(o),
		newSessionsCmd(o),
		newChatCmd(o),
		newApprovalsCmd(o),
		newApproveCmd(o),
		newDenyCmd(o),
		newCredentialsCmd(o),
		newPolicyCmd(o),
		newInstallCmd(o),
		newHookCmd(o),
		newControlCmd(o),
		newIndexCmd(o),
		newWorkspaceCmd(o),
		newAgentsCmd(o),
		newRunCmd(o),
		newSandboxCmd(o),
		newDoctorCmd(o),
		newVersionCmd(o),
		newStopCmd(o),
		newServiceCmd(o),
	)
	root.Version = readBuildInfo().String()
	root.SetVersionTemplate("{{.Version}}\n")
	// cobra adds --version and --help only when it executes, after it has
	// looked for the subcommand: until then an unknown flag is taken to
	// have a value, so `warden --version --data-dir D` read "--data-dir" as
	// the version flag's value and D as a command. Declared now, they are
	// known while the command is found, whatever flags come around them.
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpFlag()
	root.InitDefaultCompletionCmd()
	suggestSubcommands(root)
	usageOnArgErrors(root)
	// a wrong flag points at the help of the command it was given to
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		hint := ""
		if name, ok := strings.CutPrefix(err.Error(), "unknown flag: --"); ok {
			if near := nearFlags(c, name); len(near) > 0 {
				hint = "\n\nDid you mean this?\n\t--" + strings.Join(near, "\n\t--")
			}
		}
		return fmt.Errorf("%w%s\nRun '%s --help' for usage", err, hint, c.CommandPath())
	})
	return root
}

// suggestSubcommands makes every command with subcommands refuse an unknown
// one the way cobra does only for the root: exit non-zero, with the nearest
// names ("Did you mean this?"). Without it `warden workspace lst` prints the
// help and exits 0, and a parent whose own Args is cobra.NoArgs says
// "unknown command" with no suggestion.
func suggestSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		suggestSubcommands(sub)
	}
	if !c.HasSubCommands() || !c.HasParent() {
		if c.HasSubCommands() {
			c.SuggestionsMinimumDistance = 2
		}
		return
	}
	c.SuggestionsMinimumDistance = 2
	own := c.Args
	runnable := c.Runnable()
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if own != nil {
				return own(cmd, args)
			}
			return nil
		}
		if runnable && own != nil {
			if err := own(cmd, args); err == nil {
				return nil
			}
		}
		if runnable && own == nil {
			return nil
		}
		return unknownSubcommand(cmd, args[0])
	}
	if !runnable {
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// usageOnArgErrors makes a command's wrong arguments ("accepts at most 2
// arg(s), received 3") show its usage line and where its help is.
func usageOnArgErrors(c *cobra.Command) {
	for _, sub := range c.Commands() {
		usageOnArgErrors(sub)
	}
	if c.Args == nil {
		return
	}
	own := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		err := own(cmd, args)
		if err == nil || strings.Contains(err.Error(), "--help' for usage") {
			return err
		}
		return fmt.Errorf("%w\nUsage: %s\nRun '%s --help' for usage", err, cmd.UseLine(), cmd.CommandPath())
	}
}

// unknownSubcommand is cobra's error for an unknown command, with its
// suggestions and where to look next.
func unknownSubcommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n"
		for _, n := range s {
			msg += "\t" + n + "\n"
		}
	} else {
		// nothing near: say what there is
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		msg += fmt.Sprintf("\n%s has: %s", cmd.CommandPath(), strings.Join(names, ", "))
	}
	return fmt.Errorf("%s\nRun '%s --help' for usage", strings.TrimRight(msg, "\n"), cmd.CommandPath())
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
		if (strings.HasPrefix(err.Error(), "unknown command") || strings.HasPrefix(err.Error(), "unknown flag")) &&
			!strings.Contains(err.Error(), "--help' for usage") {
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

// nearFlags returns the names of c's flags within two edits of name (or
// that it is a prefix of), for "did you mean".
func nearFlags(c *cobra.Command, name string) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if editDistance(name, f.Name) <= 2 || (len(name) >= 3 && strings.HasPrefix(f.Name, name)) {
			out = append(out, f.Name)
		}
	})
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
