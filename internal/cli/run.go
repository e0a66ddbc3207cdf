package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/agents"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
	"github.com/warden-dev/warden/internal/integrations/opencode"
	"github.com/warden-dev/warden/internal/tailbuf"
)

// Environment variables a terminal in a workspace gets (and `warden run`
// reads): see docs/protocols.md for the whole list.
const (
	EnvOpenCodePort    = "WARDEN_OPENCODE_PORT"
	EnvOpenCodeSession = "WARDEN_OPENCODE_SESSION_ID"
	EnvOpenCodeBin     = "WARDEN_OPENCODE_BIN"
	EnvClaudeBin       = "WARDEN_CLAUDE_BIN"
)

// claudeMCPServer is warden's name in Claude's MCP config (its tools are
// mcp__warden__*).
const claudeMCPServer = "warden"

// noConversation is what Claude Code prints when --continue finds nothing
// to continue in the directory.
const noConversation = "No conversation found to continue"

func newRunCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run AGENT [ARGS...]",
		Short: "Run an agent in the current workspace, attached to what warden runs for it",
		Long: `run opencode: when warden runs an OpenCode server for this workspace, attach
to it and its current session (opencode attach http://127.0.0.1:PORT --session ID),
so the terminal and warden see the same agent. $WARDEN_OPENCODE_PORT and
$WARDEN_OPENCODE_SESSION_ID, when set, choose the server and session. Without a
server it runs plain opencode with ARGS.

run claude: resume the directory's last Claude Code conversation (--continue);
when there is none (Claude says so, or in a terminal ends with exit code 1 within
seconds), start a new one. Your own --continue, -c, --resume or -r
is left alone.

The program is found through $WARDEN_OPENCODE_BIN / $WARDEN_CLAUDE_BIN, then
$PATH, then the npm package folders warden knows.`,
		Example: `  warden run opencode
  warden run claude
  warden run claude --resume 3f2a...`,
		Args:               cobra.ArbitraryArgs,
		ValidArgs:          []string{"opencode", "claude"},
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			args = o.leadingGlobalFlags(args)
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
				return cmd.Help()
			}
			if len(args) == 0 {
				return fmt.Errorf("which agent? %s (e.g. warden run opencode)", knownAgents())
			}
			t, err := agents.Parse(args[0])
			if err != nil {
				return fmt.Errorf("unknown agent %q: %s", args[0], knownAgents())
			}
			switch t {
			case agent.OpenCode:
				return o.runOpenCode(cmd.Context(), args[1:])
			default:
				return o.runClaude(cmd.Context(), args[1:])
			}
		},
	}
	return cmd
}

func (o *options) agentBinary(t agent.Type, env string) (string, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return "", err
	}
	setup, err := agents.SetupInfo(t, agents.Deps{
		Binaries: agentBinaries(cfg),
		NpmDirs:  binfind.DefaultNpmDirs("", home()),
	})
	if err != nil {
		return "", err
	}
	bin, err := setup.Binary()
	if err != nil {
		return "", o.noBinary(t, env, err)
	}
	return bin, nil
}

// knownAgents says which agents warden runs.
func knownAgents() string {
	names := make([]string, 0, 2)
	for _, t := range agents.Types() {
		names = append(names, string(t))
	}
	return "warden runs " + strings.Join(names, ", ") + " (claude is short for claude-code)"
}

// installHint is how a person installs an agent's program.
func installHint(t agent.Type) string {
	switch t {
	case agent.OpenCode:
		return "npm install -g opencode-ai@" + opencode.Version
	case agent.ClaudeCode:
		return "npm install -g @anthropic-ai/claude-code@" + claudecode.Version
	}
	return "install it"
}

// noBinary turns "not found" into what to do first; the places searched
// follow only with -v.
func (o *options) noBinary(t agent.Type, env string, err error) error {
	var nf *binfind.NotFoundError
	if !errors.As(err, &nf) {
		return fmt.Errorf("%w (install it: %s; or set $%s or agents.%s.binary in the config to its path)", err, installHint(t), env, t)
	}
	msg := fmt.Sprintf("%s not found: install it (%s), or set $%s or agents.%s.binary in the config to its path", nf.Name, installHint(t), env, t)
	if o.verbose {
		msg += "\nsearched:\n  " + strings.Join(nf.Searched, "\n  ")
	} else {
		msg += fmt.Sprintf(" (-v lists the %d places searched)", len(nf.Searched))
	}
	return errors.New(msg)
}

// leadingGlobalFlags applies the global flags that precede the agent's name
// in a command whose own flags go to the agent (`warden -v run opencode`
// hands run "-v opencode"), and returns the rest.
func (o *options) leadingGlobalFlags(args []string) []string {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-v" || a == "--verbose":
			o.verbose = true
			args = args[1:]
		case (a == "--data-dir" || a == "--config") && len(args) > 1:
			o.setGlobal(a[2:], args[1])
			args = args[2:]
		case strings.HasPrefix(a, "--data-dir=") || strings.HasPrefix(a, "--config="):
			k, v, _ := strings.Cut(a[2:], "=")
			o.setGlobal(k, v)
			args = args[1:]
		default:
			return args
		}
	}
	return args
}

func (o *options) setGlobal(name, value string) {
	if name == "data-dir" {
		o.dataDir = value
	} else {
		o.configFile = value
	}
}

// runOpenCode attaches to the workspace's OpenCode server when one runs.
func (o *options) runOpenCode(ctx context.Context, args []string) error {
	bin, err := o.agentBinary(agent.OpenCode, EnvOpenCodeBin)
	if err != nil {
		return err
	}
	port, session := os.Getenv(EnvOpenCodePort), os.Getenv(EnvOpenCodeSession)
	if port == "" {
		if ai, err := o.workspaceAgent(ctx); err == nil && ai.agent == agent.OpenCode && ai.port != 0 {
			port, session = strconv.Itoa(ai.port), ai.session
		} else if err != nil {
			fmt.Fprintf(o.stderr, "warden: %v; running opencode on its own\n", err)
		} else {
			fmt.Fprintln(o.stderr, "warden: no OpenCode server runs for this workspace (start one with `warden agents start opencode`); running opencode on its own")
		}
	}
	argv := append([]string{bin}, args...)
	if port != "" {
		argv = []string{bin, "attach", "http://127.0.0.1:" + port}
		if session != "" && !hasFlag(args, "--session", "-s", "--continue", "-c") {
			argv = append(argv, "--session", session)
		}
		argv = append(argv, args...)
	}
	code, _, err := o.runChild(ctx, argv, false)
	if err != nil {
		return err
	}
	if code != 0 {
		return exitCode{code: code}
	}
	return nil
}

type wsAgent struct {
	agent   agent.Type
	port    int
	session string
}

// workspaceAgent asks the daemon about the workspace holding the current
// directory.
func (o *options) workspaceAgent(ctx context.Context) (wsAgent, error) {
	c, err := o.dial()
	if err != nil {
		return wsAgent{}, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return wsAgent{}, err
	}
	list, err := c.Agents(ctx, wd)
	if err != nil || len(list) == 0 {
		return wsAgent{}, err
	}
	a := list[0]
	if !a.Running {
		return wsAgent{agent: a.Agent}, nil
	}
	return wsAgent{agent: a.Agent, port: a.Port, session: a.Session}, nil
}

// runClaude runs Claude Code resuming the directory's last conversation.
func (o *options) runClaude(ctx context.Context, args []string) error {
	bin, err := o.agentBinary(agent.ClaudeCode, EnvClaudeBin)
	if err != nil {
		return err
	}
	own := hasFlag(args, "--continue", "-c", "--resume", "-r", "--session-id")
	if cfg, err := o.claudeMCPConfig(ctx); err != nil {
		fmt.Fprintf(o.stderr, "warden: Claude runs without warden's MCP tools: %v\n", err)
	} else if cfg != "" {
		// warden's MCP tools need no second prompt from Claude: warden's
		// door judges every call by the policy. Both flags take several
		// values, so they go last (before a "--"), where nothing of the
		// user's can be read as one of their values.
		end := slices.Index(args, "--")
		if end < 0 {
			end = len(args)
		}
		args = slices.Concat(args[:end], []string{"--mcp-config", cfg, "--allowedTools", "mcp__" + claudeMCPServer}, args[end:])
	}
	argv := append([]string{bin}, args...)
	if !own {
		argv = append([]string{bin, "--continue"}, args...)
	}
	started := time.Now()
	code, stderr, err := o.runChild(ctx, argv, !own)
	if err != nil {
		return err
	}
	// Nothing to continue in this directory: start a new conversation.
	// Claude says so on stderr only where it has no screen; in a terminal
	// it draws "No conversation found to continue" on its screen (stdout,
	// which must stay the terminal) and exits 1 at once, so there a quick
	// exit 1 counts too. (In print mode it starts a new conversation by
	// itself; a print run that failed is never repeated.)
	interactive := !hasFlag(args, "-p", "--print") && isTTY(o.stdin) && isTTY(o.stdout)
	noneToContinue := strings.Contains(stderr, noConversation) ||
		(interactive && code == 1 && time.Since(started) < quickExit)
	if code != 0 && !own && noneToContinue {
		fmt.Fprintln(o.stderr, "warden: no conversation to continue here; starting a new one")
		code, _, err = o.runChild(ctx, append([]string{bin}, args...), false)
		if err != nil {
			return err
		}
	}
	if code != 0 {
		return exitCode{code: code}
	}
	return nil
}

// claudeMCPConfig writes Claude Code's MCP config for the registered
// workspace holding the current directory (warden's MCP door, the
// workspace header, the workspace's scoped Claude Code credential, which
// the daemon mints on request over the admin socket; never the admin
// token) into the data dir, which the policy keeps agents out of, and
// returns its path: "" when warden does not run or the directory is in no
// registered workspace.
func (o *options) claudeMCPConfig(ctx context.Context) (string, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return "", err
	}
	dataDir, err := o.resolveDataDir(cfg)
	if err != nil {
		return "", err
	}
	c, err := o.dial()
	if err != nil {
		return "", nil // warden is not running: plain Claude
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	rows, err := c.Agents(ctx, wd)
	if err != nil || len(rows) == 0 {
		return "", nil // not a registered workspace
	}
	addr, _, err := doorOf(dataDir, "mcp")
	if err != nil {
		return "", err
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("MCP door address %q: %w", addr, err)
	}
	setup, err := agents.SetupInfo(agent.ClaudeCode, agents.Deps{})
	if err != nil {
		return "", err
	}
	root := rows[0].Workspace
	cred, err := c.MintCredential(ctx, root, string(agent.ClaudeCode))
	if err != nil {
		return "", fmt.Errorf("agent credential: %w", err)
	}
	sum := sha256.Sum256([]byte(root))
	target := filepath.Join(dataDir, "agents", "config", "claude-mcp-"+hex.EncodeToString(sum[:6])+".json")
	err = setup.GenerateConfig(target, map[string]string{
		"WARDEN_MCP_PORT": port, "WARDEN_WORKSPACE_PATH": root, agent.CredentialVar: cred.Token,
	})
	return target, err
}

// withoutCredentials is environ without the variables that could carry a
// warden credential (WARDEN_TOKEN, the config-only agent.CredentialVar):
// an agent's environment holds none, even when the user exported one.
func withoutCredentials(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == "WARDEN_TOKEN" || k == agent.CredentialVar {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// quickExit is how soon `claude --continue` in a terminal must end with
// exit code 1 to be taken for "nothing to continue" (it takes well under a
// second; a conversation it did load ends by the user, much later).
const quickExit = 5 * time.Second

// isTTY reports whether stream is a terminal (a real one: /dev/null, a
// character device too, is not).
func isTTY(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	_, _, err := pty.Getsize(f)
	return err == nil
}

// hasFlag reports whether args hold one of the flags (also as --flag=value).
func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return true
			}
		}
	}
	return false
}

// runChild runs argv with the terminal's streams and returns its exit
// code. With watchStderr, stderr also goes to a buffer the caller reads
// (the last 8 KiB). Interrupts reach the child (same process group); warden
// waits for it.
func (o *options) runChild(ctx context.Context, argv []string, watchStderr bool) (int, string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = withoutCredentials(os.Environ())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.stdin, o.stdout, o.stderr
	tail := tailbuf.New(8 << 10)
	if watchStderr {
		cmd.Stderr = io.MultiWriter(o.stderr, tail)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, "", fmt.Errorf("run %s: %w", filepath.Base(argv[0]), err)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), tail.String(), nil
		}
		return ee.ExitCode(), tail.String(), nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("run %s: %w", filepath.Base(argv[0]), err)
	}
	return 0, tail.String(), nil
}
