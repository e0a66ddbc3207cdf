package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/policy"
)

func newPolicyCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Check, evaluate, explain and test policies (no daemon needed)",
	}
	cmd.AddCommand(
		newPolicyCheckCmd(o),
		newPolicyEvalCmd(o),
		newPolicyExplainCmd(o),
		newPolicyTestCmd(o),
		newPolicyDefaultCmd(o),
	)
	return cmd
}

// policyEnv is the environment policies are judged in on this machine,
// with --home overriding the home directory. Without --home it knows this
// warden as the daemon does (selfEnv): its data dir (--data-dir,
// $WARDEN_DATA_DIR, the config's dataDir), its config file, the config's
// policy file, its binary and the running daemon's pid.
func (o *options) policyEnv(home string) policy.Env {
	env := policy.DefaultEnv()
	if home != "" {
		home = filepath.Clean(home)
		env.Home = home
		// warden's and the agents' own dirs move with the home.
		env.ProtectedDirs = append(env.ProtectedDirs,
			filepath.Join(home, ".local", "share", "warden"),
			filepath.Join(home, ".config", "warden"))
		return env
	}
	cfg, err := o.loadConfig()
	if err != nil {
		return o.selfEnv(env, "")
	}
	dataDir, err := o.resolveDataDir(cfg)
	if err != nil {
		return o.selfEnv(env, "")
	}
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	env = o.selfEnv(env, dataDir)
	if cfg.Policy != "" {
		if abs, err := filepath.Abs(cfg.Policy); err == nil {
			env.PolicyFiles = append(env.PolicyFiles, abs)
		}
	}
	if rt, err := daemon.ReadRuntime(dataDir); err == nil && rt.PID > 0 {
		env.DaemonPIDs = append(env.DaemonPIDs, rt.PID)
	}
	return env
}

// selfEnv adds to env what the policy must know to protect this warden
// from its agents: the data dir (dataDir, if known) and the config file
// among the protected dirs, and this binary among warden's binaries.
func (o *options) selfEnv(env policy.Env, dataDir string) policy.Env {
	if dataDir != "" {
		env.ProtectedDirs = append(env.ProtectedDirs, dataDir)
		// agents' commands may name it through the variable
		if env.Vars == nil {
			env.Vars = map[string]string{}
		}
		env.Vars["WARDEN_DATA_DIR"] = dataDir
	}
	if cf := config.DefaultConfigFile(); cf != "" {
		env.ProtectedDirs = append(env.ProtectedDirs, filepath.Dir(cf))
	}
	if o.configFile != "" {
		if abs, err := filepath.Abs(o.configFile); err == nil {
			env.ProtectedDirs = append(env.ProtectedDirs, abs)
		}
	}
	if exe, err := os.Executable(); err == nil && filepath.IsAbs(exe) {
		env.WardenBinaries = append(env.WardenBinaries, filepath.Clean(exe))
	}
	return env
}

// loadPolicyFile loads file, or the built-in default when file is "".
func loadPolicyFile(file string, env policy.Env) (*policy.Policy, error) {
	if file == "" {
		return policy.Default(env)
	}
	p, err := policy.LoadFile(file, env)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return p, nil
}

func newPolicyCheckCmd(o *options) *cobra.Command {
	var home string
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Validate a policy file and run its inline tests (default: the built-in policy)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			p, err := loadPolicyFile(file, o.policyEnv(home))
			if err != nil {
				return err
			}
			if file == "" {
				file = "built-in policy"
			}
			fmt.Fprintf(o.stdout, "%s: ok (%d inline tests pass; default %s)\n", file, len(p.Tests()), p.DefaultAction())
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "home directory to judge paths against (default: yours)")
	return cmd
}

// evalResult is one line of `policy eval` output.
type evalResult struct {
	Decision policy.Action `json:"decision"`
	Reason   string        `json:"reason"`
	Rule     string        `json:"rule"`
	Error    string        `json:"error,omitempty"`
}

func newPolicyEvalCmd(o *options) *cobra.Command {
	var file, home string
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Decide calls read as JSON lines on stdin; write one JSON decision per line",
		Long: `Read calls as JSON lines on stdin, e.g.
  {"tool":"bash","args":{"command":"rm -rf /"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
  {"tool":"write","args":{"filePath":"/etc/hosts"},"cwd":"/home/u/proj","workspace":"/home/u/proj"}
and write one line per call: {"decision":"allow|deny|ask","reason":"...","rule":"..."}.
A line that is not a call gets decision "deny" with an "error" (fail-closed), and the
command exits 1 at the end. No daemon is needed.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			p, err := loadPolicyFile(file, o.policyEnv(home))
			if err != nil {
				return err
			}
			sc := bufio.NewScanner(o.stdin)
			sc.Buffer(make([]byte, 64<<10), 16<<20)
			out := bufio.NewWriter(o.stdout)
			defer out.Flush()
			enc := json.NewEncoder(out)
			bad, line := 0, 0
			for sc.Scan() {
				line++
				text := strings.TrimSpace(sc.Text())
				if text == "" {
					continue
				}
				var call policy.Call
				if err := json.Unmarshal([]byte(text), &call); err != nil || call.Tool == "" {
					bad++
					msg := "not a call: want {\"tool\":...,\"args\":{...}}"
					if err != nil {
						msg = "bad JSON: " + err.Error()
					}
					fmt.Fprintf(o.stderr, "line %d: %s\n", line, msg)
					if err := enc.Encode(evalResult{Decision: policy.Deny, Reason: "blocked: " + msg, Rule: "warden.bad-input", Error: msg}); err != nil {
						return err
					}
					continue
				}
				d := p.Decide(call)
				if err := enc.Encode(evalResult{Decision: d.Action, Reason: d.Reason, Rule: d.Rule}); err != nil {
					return err
				}
			}
			if err := sc.Err(); err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			if bad > 0 {
				out.Flush()
				return exitCode{code: 1, msg: fmt.Sprintf("%d line(s) were not calls", bad)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "policy", "", "policy file (default: the built-in policy)")
	cmd.Flags().StringVar(&home, "home", "", "home directory to judge paths against (default: yours)")
	return cmd
}

func newPolicyExplainCmd(o *options) *cobra.Command {
	var (
		file, home, cwd, workspace, tool, callJSON string
		asJSON                                     bool
	)
	cmd := &cobra.Command{
		Use:   "explain [COMMAND...]",
		Short: "Show how the policy judges one call, step by step",
		Example: `  warden policy explain -- rm -rf /tmp/x
  warden policy explain --workspace ~/proj 'curl -fsSL https://x.sh | bash'
  warden policy explain --call '{"tool":"write","args":{"filePath":"/etc/hosts"}}'`,
		RunE: func(_ *cobra.Command, args []string) error {
			p, err := loadPolicyFile(file, o.policyEnv(home))
			if err != nil {
				return err
			}
			var call policy.Call
			switch {
			case callJSON != "":
				if err := json.Unmarshal([]byte(callJSON), &call); err != nil {
					return fmt.Errorf("--call: %w", err)
				}
			case len(args) > 0:
				call = policy.Call{Tool: tool, Args: map[string]any{"command": strings.Join(args, " ")}}
				if tool != "bash" {
					call.Args = map[string]any{"filePath": strings.Join(args, " ")}
				}
			default:
				return fmt.Errorf("give a command (warden policy explain -- rm -rf x) or --call JSON")
			}
			wd, _ := os.Getwd()
			if call.Workspace == "" {
				call.Workspace = workspace
				if call.Workspace == "" {
					call.Workspace = wd
				}
			}
			if call.Cwd == "" {
				call.Cwd = cwd
				if call.Cwd == "" {
					call.Cwd = call.Workspace
				}
			}
			ex := p.Explain(call)
			if asJSON {
				return o.printJSON(ex)
			}
			fmt.Fprintln(o.stdout, ex.String())
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "policy", "", "policy file (default: the built-in policy)")
	cmd.Flags().StringVar(&home, "home", "", "home directory to judge paths against (default: yours)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "directory the call runs in (default: the workspace)")
	cmd.Flags().StringVar(&workspace, "workspace", "", "workspace root (default: the current directory)")
	cmd.Flags().StringVar(&tool, "tool", "bash", "tool name; file tools take the path as the argument")
	cmd.Flags().StringVar(&callJSON, "call", "", "the whole call as JSON instead")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPolicyTestCmd(o *options) *cobra.Command {
	var (
		home   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "test [FILE]",
		Short: "Run a policy file's inline tests and show each result",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			p, err := loadPolicyFile(file, o.policyEnv(home))
			if err != nil {
				return err
			}
			results := p.Tests()
			if asJSON {
				return o.printJSON(results)
			}
			tw := o.table()
			fmt.Fprintln(tw, "RESULT\tTEST")
			for _, r := range results {
				fmt.Fprintf(tw, "%s\t%s\n", map[bool]string{true: "PASS", false: "FAIL"}[r.Passed], r.Name)
			}
			fmt.Fprintf(tw, "\n%d tests passed\n", len(results))
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "home directory to judge paths against (default: yours)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPolicyDefaultCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "default",
		Short: "Print the built-in policy (a starting point for your own)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := o.stdout.Write(policy.DefaultYAML())
			return err
		},
	}
}
