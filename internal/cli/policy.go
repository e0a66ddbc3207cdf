package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
		Short: "Check, evaluate, explain and test policies; list and revoke standing rules",
	}
	cmd.AddCommand(
		newPolicyCheckCmd(o),
		newPolicyEvalCmd(o),
		newPolicyExplainCmd(o),
		newPolicyTestCmd(o),
		newPolicyDefaultCmd(o),
		newPolicyRulesCmd(o),
		newPolicyRevokeCmd(o),
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

// judgedPolicy is a policy with where it came from.
type judgedPolicy struct {
	*policy.Policy
	// File is the policy file, "" for the built-in policy.
	File string
	// Standing is how many standing rules of the overlay it holds.
	Standing int
	// Overlay is the overlay file read, "" when none was.
	Overlay string
}

// Name says what was judged: the file or the built-in policy, and the
// standing rules on top.
func (j judgedPolicy) Name() string {
	name := "built-in policy"
	if j.File != "" {
		name = j.File
	}
	if j.Overlay != "" {
		name += fmt.Sprintf(" + %d standing rule(s) from %s", j.Standing, j.Overlay)
	}
	return name
}

// daemonPolicy is the policy the daemon of this data dir judges with, so
// explain, eval and check answer as it would: file when given (--policy),
// else the config's policy file, else the built-in one; and, unless a file
// was given, the standing "always" rules of the data dir's overlay on top.
// A file with problems is an error that lists them all.
func (o *options) daemonPolicy(file, home string) (judgedPolicy, error) {
	j, problems, err := o.checkPolicy(file, home)
	if err != nil {
		return judgedPolicy{}, err
	}
	if len(problems) > 0 {
		return judgedPolicy{}, problemsError(j.File, problems)
	}
	return j, nil
}

// problemsError lists every problem of file, each on its own line.
func problemsError(file string, problems []policy.Problem) error {
	lines := make([]string, 0, len(problems))
	for _, p := range problems {
		lines = append(lines, "  "+file+":"+p.String())
	}
	return fmt.Errorf("%s: %d problem(s):\n%s\n(check it with: warden policy check %s)", file, len(problems), strings.Join(lines, "\n"), file)
}

// checkPolicy is daemonPolicy that returns the file's problems instead of
// failing on them: every problem at once, with its line and the file's own
// rule number. The policy is set when the file compiles (its tests may
// still fail).
func (o *options) checkPolicy(file, home string) (judgedPolicy, []policy.Problem, error) {
	env := o.policyEnv(home)
	overlay := file == ""
	if file == "" {
		if cfg, err := o.loadConfig(); err == nil {
			file = cfg.Policy
		}
	}
	j := judgedPolicy{File: file}
	if file == "" {
		p, err := policy.Default(env)
		if err != nil {
			return j, nil, err
		}
		j.Policy = p
	} else {
		data, err := readPolicyFile(file)
		if err != nil {
			return j, nil, err
		}
		p, problems := policy.Check(data, env)
		if p == nil {
			return j, problems, nil
		}
		j.Policy = p
		if len(problems) > 0 {
			return j, problems, nil
		}
	}
	if !overlay || home != "" {
		return j, nil, nil
	}
	cfg, err := o.loadConfig()
	if err != nil {
		return j, nil, nil
	}
	dir, err := o.resolveDataDir(cfg)
	if err != nil {
		return j, nil, nil
	}
	path := filepath.Join(dir, daemon.OverlayName)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return j, nil, nil
	case err != nil:
		return j, nil, fmt.Errorf("policy overlay: %w", err)
	}
	rules, err := policy.ParseRules(data)
	if err != nil {
		return j, nil, fmt.Errorf("policy overlay %s: %w (warden policy rules lists its rules; warden policy revoke ID removes one)", path, err)
	}
	if j.Policy, err = j.Policy.WithRules(rules...); err != nil {
		return j, nil, fmt.Errorf("policy overlay %s: %w", path, err)
	}
	j.Standing, j.Overlay = len(rules), path
	return j, nil, nil
}

// readPolicyFile reads a policy file, refusing one larger than a policy
// may be.
func readPolicyFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, policy.MaxPolicySize+1))
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", file, err)
	}
	return data, nil
}

func newPolicyCheckCmd(o *options) *cobra.Command {
	var (
		home   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Validate a policy file and run its inline tests (default: the daemon's policy)",
		Long: `Validate a policy file and run its inline tests, reporting every problem at
once: each with its line, and the number of the rule in the file's own rules:
list. Without FILE it checks the policy the daemon judges with: the config's
policy file (or the built-in policy) with the standing "always" rules of the
data dir's overlay on top.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			file := ""
			if len(args) == 1 {
				file = args[0]
			}
			p, problems, err := o.checkPolicy(file, home)
			if err != nil {
				return err
			}
			if asJSON {
				if problems == nil {
					problems = []policy.Problem{}
				}
				if err := o.printJSON(map[string]any{"file": p.Name(), "ok": len(problems) == 0, "problems": problems}); err != nil {
					return err
				}
			} else if len(problems) == 0 {
				fmt.Fprintf(o.stdout, "%s: ok (%d inline tests pass; default %s)\n", p.Name(), len(p.Tests()), p.DefaultAction())
			} else {
				for _, pr := range problems {
					fmt.Fprintf(o.stdout, "%s:%s\n", p.File, pr)
				}
			}
			if len(problems) > 0 {
				return exitCode{code: 1, msg: fmt.Sprintf("%s: %d problem(s)", p.File, len(problems))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", "", "home directory to judge paths against (default: yours)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
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
command exits 1 at the end. No daemon is needed.

Without --policy the calls are judged by the policy the daemon judges with: the
config's policy file (or the built-in policy) with the standing "always" rules
of the data dir's overlay on top.`,
		Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			p, err := o.daemonPolicy(file, home)
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
	cmd.Flags().StringVar(&file, "policy", "", "policy file (default: the daemon's: the config's policy file or the built-in one, and the standing rules)")
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
			p, err := o.daemonPolicy(file, home)
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
	cmd.Flags().StringVar(&file, "policy", "", "policy file (default: the daemon's: the config's policy file or the built-in one, and the standing rules)")
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
			p, problems, err := o.checkPolicy(file, home)
			if err != nil {
				return err
			}
			if p.Policy == nil {
				// it does not compile: no test can run
				return problemsError(p.File, problems)
			}
			results := p.Tests()
			failed := 0
			for _, r := range results {
				if !r.Passed {
					failed++
				}
			}
			if asJSON {
				if err := o.printJSON(results); err != nil {
					return err
				}
			} else {
				tw := o.table()
				fmt.Fprintln(tw, "RESULT\tTEST\tGOT")
				for _, r := range results {
					got := string(r.Got.Action) + " (" + r.Got.Rule + ")"
					if !r.Passed {
						got = r.Message
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\n", map[bool]string{true: "PASS", false: "FAIL"}[r.Passed], r.Name, got)
				}
				fmt.Fprintf(tw, "\n%d of %d tests passed (%s)\n", len(results)-failed, len(results), p.Name())
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			if failed > 0 {
				return exitCode{code: 1, msg: fmt.Sprintf("%d of %d tests failed", failed, len(results))}
			}
			return nil
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

func newPolicyRulesCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the standing rules: the \"always\" decisions (approve/deny --always)",
		Long: `List the standing rules the daemon holds on top of its policy: one per
"warden approve --always" or "warden deny --always", for that command in that
workspace. "warden policy revoke ID" removes one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			rules, err := c.StandingRules(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(rules)
			}
			if len(rules) == 0 {
				fmt.Fprintln(o.stdout, "no standing rules (approve --always or deny --always adds one)")
				return nil
			}
			tw := o.table()
			fmt.Fprintln(tw, "ID\tEFFECT\tTOOL\tINPUT\tWORKSPACE")
			for _, r := range rules {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Effect, strings.Join(r.Match.Tools, ","),
					truncate(strings.Join(r.Match.Input, ","), 60), strings.Join(r.Match.Workspaces, ","))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newPolicyRevokeCmd(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Remove a standing rule; the daemon judges the next call without it (no restart)",
		Long: `Remove a standing rule (ID from "warden policy rules", or the id of the
approval that made it). The daemon rewrites its overlay and judges the next call
without the rule, with no restart; the revocation is recorded in the log.`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			c, err := o.dial()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			rules, err := c.StandingRules(cmd.Context())
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ids := make([]string, 0, len(rules))
			for _, r := range rules {
				ids = append(ids, r.ID+"\t"+r.Description)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.RevokeRule(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(o.stdout, "revoked %s (%s); the next such call is judged by the policy again\n", res.Rule.ID, res.Rule.Effect)
			if res.Warning != "" {
				fmt.Fprintln(o.stderr, "warning:", res.Warning)
			}
			return nil
		},
	}
}

// truncate shortens s to n runes, marking the cut with "...".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-3]) + "..."
}
