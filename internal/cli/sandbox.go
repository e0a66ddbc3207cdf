package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/sandbox"
)

// sandboxExit is the exit status of `warden sandbox` when it cannot confine
// or start the command (as env(1) and container runtimes use 125).
const sandboxExit = 125

type sandboxFlags struct {
	workspace  string
	policyFile string
}

func (f *sandboxFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.workspace, "workspace", "w", "", "the workspace (a directory, or a registered workspace's name): read-write inside the sandbox (default: the current directory)")
	cmd.Flags().StringVar(&f.policyFile, "policy", "", "policy file whose sandbox: section to use (default: the config file's policy, else the built-in default)")
}

// profile builds the sandbox profile for the flags: the policy's sandbox
// section, the machine, warden's data and config dirs.
func (f *sandboxFlags) profile(o *options) (*sandbox.Profile, policy.SandboxConfig, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return nil, policy.SandboxConfig{}, err
	}
	dataDir, err := o.resolveDataDir(cfg)
	if err != nil {
		return nil, policy.SandboxConfig{}, err
	}
	var sc policy.SandboxConfig
	policyFile := f.policyFile
	if policyFile == "" {
		policyFile = cfg.Policy
	}
	if policyFile != "" {
		if sc, err = policy.LoadSandboxFile(policyFile); err != nil {
			return nil, sc, err
		}
	}
	configDir := ""
	if def := config.DefaultConfigFile(); def != "" {
		configDir = filepath.Dir(def)
	}
	m, err := sandbox.CurrentMachine(dataDir, configDir)
	if err != nil {
		return nil, sc, err
	}
	ws := f.workspace
	if ws == "" {
		if ws, err = os.Getwd(); err != nil {
			return nil, sc, fmt.Errorf("current directory: %w", err)
		}
	} else if ws, err = o.workspacePath(context.Background(), ws); err != nil {
		return nil, sc, err
	}
	p, err := sandbox.Build(sc, m, ws)
	if err != nil {
		return nil, sc, err
	}
	// The files that say what the sandbox allows must not be writable from
	// inside it: a confined command would widen the next one's profile.
	for _, file := range []string{policyFile, o.configFile} {
		if file == "" {
			continue
		}
		if g, ok := p.Writable(file); ok {
			return nil, sc, fmt.Errorf("%s is writable inside the sandbox (under %s, %s): a confined command could rewrite what the sandbox allows; keep it outside the workspace and the temp dirs", file, g.Path, g.Why)
		}
	}
	return p, sc, nil
}

func newSandboxCmd(o *options) *cobra.Command {
	var f sandboxFlags
	var allowUnconfined bool
	cmd := &cobra.Command{
		Use:   "sandbox [-w DIR] [--policy FILE] -- CMD [ARGS...]",
		Short: "Run one command confined by the kernel (Landlock)",
		Long: `Run one command confined by the Linux kernel's Landlock: the workspace, the temp
dirs and the build caches read-write, the system and toolchains read-only,
everything else in the home (SSH keys, cloud credentials, browser profiles,
other agents' credentials, shell history) and warden's own data dir
unreachable, and no signals to processes outside the sandbox. The profile is
the policy's sandbox: section (see "warden sandbox explain").

The command replaces warden, so its exit status is the command's; 125 means
warden could not confine or start it. Without Landlock, warden refuses to run
the command unless --allow-unconfined.`,
		Example: `  warden sandbox -w . -- go test ./...
  warden sandbox -- bash -c 'cat ~/.ssh/id_rsa'     # Permission denied
  warden sandbox explain -w .`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, sc, err := f.profile(o)
			if err != nil {
				return exitCode{sandboxExit, err.Error()}
			}
			for _, d := range p.Dropped {
				fmt.Fprintf(o.stderr, "warden sandbox: not granting %s (%s): %s\n", d.Path, d.Why, d.Reason)
			}
			if !sc.IsEnabled() {
				fmt.Fprintln(o.stderr, "warden sandbox: the policy's sandbox.enabled is false: running unconfined")
				allowUnconfined = true
				p = nil
			}
			if p == nil {
				err = execUnconfined(args)
			} else {
				if s := sandbox.Detect(); !s.Enforced() && allowUnconfined {
					fmt.Fprintln(o.stderr, "warden sandbox: WARNING: no Landlock in this kernel: running unconfined (--allow-unconfined)")
				}
				err = sandbox.Exec(p, args, os.Environ(), allowUnconfined)
			}
			return exitCode{sandboxExit, err.Error()}
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&allowUnconfined, "allow-unconfined", false, "run the command even when the kernel cannot confine it (no Landlock)")
	cmd.Flags().SetInterspersed(false)
	cmd.AddCommand(newSandboxExplainCmd(o))
	return cmd
}

// execUnconfined replaces warden with argv, unconfined (the policy
// switched the sandbox off).
func execUnconfined(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	return nil
}

func newSandboxExplainCmd(o *options) *cobra.Command {
	var f sandboxFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [-w DIR] [--policy FILE] [--json]",
		Short: "Show what a confined command may touch, and what this kernel enforces",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			p, sc, err := f.profile(o)
			if err != nil {
				return err
			}
			s := sandbox.Detect()
			if asJSON {
				return o.printJSON(struct {
					Enabled bool                 `json:"enabled"`
					Profile *sandbox.Profile     `json:"profile"`
					Kernel  sandbox.Support      `json:"kernel"`
					Config  policy.SandboxConfig `json:"config"`
				}{sc.IsEnabled(), p, s, sc})
			}
			fmt.Fprintf(o.stdout, "workspace: %s\n", p.Workspace)
			if !sc.IsEnabled() {
				fmt.Fprintln(o.stdout, "sandbox:   DISABLED by the policy (sandbox.enabled: false): commands run unconfined")
			}
			if s.Enforced() {
				fmt.Fprintf(o.stdout, "kernel:    Landlock ABI %d\n", s.ABI)
			} else {
				fmt.Fprintln(o.stdout, "kernel:    no Landlock: nothing can be confined")
			}
			for _, n := range s.NotEnforced {
				fmt.Fprintf(o.stdout, "  not enforced: %s\n", n)
			}
			fmt.Fprintln(o.stdout)
			tw := o.table()
			fmt.Fprintln(tw, "ACCESS\tPATH\tWHY")
			absent := 0
			for _, g := range p.Grants {
				why := g.Why
				switch {
				case g.Missing && g.Create:
					why += " (missing: created at start)"
				case g.Missing:
					absent++
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", g.Access, g.Path, why)
			}
			for _, d := range p.Denied {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", d.Access, d.Path, d.Why)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", sandbox.Denied, "everything else", "not granted (Landlock is an allow-list)")
			if err := tw.Flush(); err != nil {
				return err
			}
			if absent > 0 {
				fmt.Fprintf(o.stdout, "(%d default paths absent on this machine are not shown; --json lists them)\n", absent)
			}
			for _, d := range p.Dropped {
				fmt.Fprintf(o.stdout, "\nnot granted: %s (%s, %s): %s", d.Path, d.Access, d.Why, d.Reason)
			}
			if len(p.Dropped) > 0 {
				fmt.Fprintln(o.stdout)
			}
			if s.Signals {
				fmt.Fprintln(o.stdout, "\nsignals and abstract Unix sockets: only within the sandbox")
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
