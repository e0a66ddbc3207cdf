package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/daemon"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/integrations/claudecode"
	"github.com/warden-dev/warden/internal/integrations/opencode"
	"github.com/warden-dev/warden/internal/sandbox"
	"github.com/warden-dev/warden/internal/store/sqlite"
)

// check is one finding of `warden doctor`.
type check struct {
	// Name says what was checked.
	Name string `json:"name"`
	// Status is ok, warn (works, with a gap) or fail (broken).
	Status string `json:"status"`
	// Detail says what was found.
	Detail string `json:"detail"`
	// Fix says what to do about a warn or a fail.
	Fix string `json:"fix,omitempty"`
}

const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
)

func newDoctorCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check this machine's warden: kernel sandbox, data dir, daemon, installed hooks and plugins, agents, language servers",
		Long: `doctor checks what warden needs and says what to do about each problem:
the kernel sandbox (what Landlock enforces here and what it does not), the data
dir and its credentials, the daemon, the ports of its doors (free, held by this
warden, or held by something else), the Claude Code hooks and the OpenCode
plugin warden installed (and that the binary they run exists), the agent
programs and the language servers. It exits 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := o.doctor(cmd.Context())
			failed := false
			for _, c := range checks {
				failed = failed || c.Status == statusFail
			}
			if asJSON {
				if err := o.printJSON(checks); err != nil {
					return err
				}
			} else {
				tw := o.table()
				fmt.Fprintln(tw, "CHECK\tSTATUS\tDETAIL")
				for _, c := range checks {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", c.Name, c.Status, c.Detail)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				for _, c := range checks {
					if c.Fix != "" {
						fmt.Fprintf(o.stdout, "\n%s (%s): %s", c.Name, c.Status, c.Fix)
					}
				}
				fmt.Fprintln(o.stdout)
			}
			if failed {
				return exitCode{code: 1, msg: "warden doctor: a check failed (see above)"}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// doctor runs every check, in the order they are shown.
func (o *options) doctor(ctx context.Context) []check {
	var out []check
	out = append(out, sandboxCheck(sandbox.Detect()))
	cfg, err := o.loadConfig()
	if err != nil {
		return append(out, check{Name: "config", Status: statusFail, Detail: err.Error(), Fix: "fix the config file, or move it aside"})
	}
	dataDir, err := o.resolveDataDir(cfg)
	if err != nil {
		return append(out, check{Name: "data dir", Status: statusFail, Detail: err.Error(), Fix: "pass --data-dir or set WARDEN_DATA_DIR"})
	}
	out = append(out, dataDirChecks(dataDir)...)
	out = append(out, logCheck(ctx, dataDir))
	out = append(out, daemonCheck(ctx, dataDir))
	out = append(out, portChecks(cfg, dataDir)...)
	out = append(out, claudeHookChecks(home())...)
	out = append(out, openCodePluginCheck())
	out = append(out, o.agentChecks()...)
	out = append(out, toolChecks()...)
	return out
}

func sandboxCheck(s sandbox.Support) check {
	c := check{Name: "kernel sandbox"}
	switch {
	case !s.Enforced():
		c.Status, c.Detail = statusFail, "no Landlock: commands warden runs for agents are not confined; only the policy stands"
		c.Fix = "run a Linux kernel with Landlock (5.13+, ABI 6+ for signal scoping) enabled (lsm=landlock,...)"
	case !s.Complete():
		c.Status, c.Detail = statusWarn, fmt.Sprintf("Landlock ABI %d: %s", s.ABI, strings.Join(s.NotEnforced, "; "))
		c.Fix = "a kernel with Landlock ABI 6 or later enforces the rest"
	default:
		c.Status, c.Detail = statusOK, fmt.Sprintf("Landlock ABI %d enforces files, signals and abstract sockets", s.ABI)
		if len(s.NotEnforced) > 0 {
			c.Detail += "; not enforced: " + strings.Join(s.NotEnforced, "; ")
		}
	}
	return c
}

// dataDirChecks checks the data dir and the admin credential's file modes.
func dataDirChecks(dir string) []check {
	c := check{Name: "data dir"}
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		c.Status, c.Detail, c.Fix = statusWarn, dir+" does not exist yet", "warden serve creates it"
		return []check{c}
	case err != nil:
		c.Status, c.Detail, c.Fix = statusFail, err.Error(), "make "+dir+" readable by you"
		return []check{c}
	case !fi.IsDir():
		c.Status, c.Detail, c.Fix = statusFail, dir+" is not a directory", "move it aside, or choose another with --data-dir"
		return []check{c}
	case fi.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail, c.Fix = statusFail, fmt.Sprintf("%s is mode %o: other users can reach the log and credentials", dir, fi.Mode().Perm()), "chmod 700 "+dir
	default:
		c.Status, c.Detail = statusOK, dir+" (mode 700)"
	}
	out := []check{c}
	tok := check{Name: "admin credential"}
	tfi, err := os.Stat(filepath.Join(dir, "token"))
	switch {
	case os.IsNotExist(err):
		tok.Status, tok.Detail, tok.Fix = statusWarn, "no token yet", "warden serve creates it"
	case err != nil:
		tok.Status, tok.Detail = statusFail, err.Error()
	case tfi.Mode().Perm()&0o077 != 0:
		tok.Status, tok.Detail, tok.Fix = statusFail, fmt.Sprintf("token is mode %o", tfi.Mode().Perm()), "chmod 600 "+filepath.Join(dir, "token")+" (and rotate it: delete it and restart warden serve)"
	default:
		tok.Status, tok.Detail = statusOK, "token is mode 600"
	}
	return append(out, tok)
}

// logCheck runs the start-up integrity check of the event log, read-only
// (it works beside a running daemon): quick_check, dense seqs, and the
// generation marker.
func logCheck(ctx context.Context, dataDir string) check {
	c := check{Name: "event log"}
	path := filepath.Join(dataDir, daemon.LogName)
	// the same judgement as warden serve's
	h, err := sqlite.Verify(ctx, path, sqlite.VerifyOptions{
		Generation: filepath.Join(dataDir, sqlite.GenerationName), History: daemon.RanHere(dataDir),
	})
	var ie *sqlite.IntegrityError
	switch {
	case errors.As(err, &ie):
		c.Status, c.Detail, c.Fix = statusFail, ie.Problem, ie.Fix+" (warden serve refuses this log)"
	case err != nil:
		c.Status, c.Detail, c.Fix = statusFail, err.Error(), "make "+path+" readable by you"
	case h.New:
		c.Status, c.Detail, c.Fix = statusWarn, "no log yet at "+path, "warden serve creates it"
	default:
		c.Status = statusOK
		c.Detail = fmt.Sprintf("%s: %d events in %d sessions, last id %d, %d bytes, quick_check ok", path, h.Events, h.Sessions, h.LastID, h.Size)
		if h.Marker == nil {
			c.Detail += "; no generation marker yet (warden serve writes it)"
		} else {
			c.Detail += fmt.Sprintf("; log %s, marker at id %d", h.LogID, h.Marker.LastID)
		}
	}
	return c
}

// daemonCheck says whether a daemon runs for the data dir and answers.
func daemonCheck(ctx context.Context, dataDir string) check {
	c := check{Name: "daemon"}
	rt, err := daemon.ReadRuntime(dataDir)
	if err != nil {
		c.Status, c.Detail, c.Fix = statusWarn, "not running (no daemon.json in "+dataDir+")", "start it: warden serve"
		return c
	}
	if rt.PID <= 0 || syscall.Kill(rt.PID, 0) != nil {
		c.Status, c.Detail, c.Fix = statusFail, fmt.Sprintf("daemon.json names pid %d, which is not running (a crash left it behind)", rt.PID), "start it again: warden serve"
		return c
	}
	c.Status, c.Detail = statusOK, fmt.Sprintf("pid %d, version %s", rt.PID, rt.Version)
	if addr := rt.Listeners["health"]; addr != "" {
		hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(hctx, http.MethodGet, "http://"+addr+"/health", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			c.Status, c.Detail, c.Fix = statusFail, fmt.Sprintf("pid %d runs but its health listener %s does not answer: %v", rt.PID, addr, err), "look at its log; restart it: warden serve"
			return c
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			c.Status, c.Detail = statusFail, fmt.Sprintf("health listener %s answered %s", addr, resp.Status)
			return c
		}
		c.Detail += ", healthy at " + addr
	}
	return c
}

// claudeHookChecks checks every Claude Code settings file that holds
// warden's hooks: the program the hook command runs must exist, and must
// not be a temporary `go run` build.
func claudeHookChecks(home string) []check {
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	if wd, err := os.Getwd(); err == nil {
		files = append(files, filepath.Join(wd, ".claude", "settings.json"), filepath.Join(wd, ".claude", "settings.local.json"))
	}
	var out []check
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		c := check{Name: "claude hooks " + f}
		settings, err := claudecode.Parse(b)
		if err != nil {
			c.Status, c.Detail, c.Fix = statusFail, err.Error(), "fix the file's JSON; Claude Code ignores a settings file it cannot read"
			out = append(out, c)
			continue
		}
		progs := hookPrograms(settings)
		if len(progs) == 0 {
			continue
		}
		c.Status, c.Detail = statusOK, "hooks run "+strings.Join(progs, ", ")
		for _, p := range progs {
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				c.Status, c.Detail = statusFail, "the hook runs "+p+", which is gone: "+err.Error()
				c.Fix = "go install ./cmd/warden, then warden install claude again (a missing binary blocks every tool call)"
			case fi.Mode().Perm()&0o111 == 0:
				c.Status, c.Detail, c.Fix = statusFail, p+" is not executable", "chmod +x "+p
			case strings.Contains(p, "go-build"):
				c.Status, c.Detail = statusWarn, p+" is a temporary go run build: it disappears"
				c.Fix = "go install ./cmd/warden, then warden install claude again"
			}
		}
		out = append(out, c)
	}
	return out
}

// hookPrograms lists the programs of the warden hook commands in settings.
func hookPrograms(settings map[string]any) []string {
	var progs []string
	seen := map[string]bool{}
	hooks, _ := settings["hooks"].(map[string]any)
	for _, groups := range hooks {
		list, _ := groups.([]any)
		for _, g := range list {
			gm, _ := g.(map[string]any)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				if !claudecode.IsWardenCommand(cmd) {
					continue
				}
				f := strings.Fields(cmd)
				for i := 1; i+1 < len(f); i++ {
					if f[i] == "hook" && f[i+1] == "claude" {
						p := strings.Trim(f[i-1], `'"`)
						if !seen[p] {
							seen[p] = true
							progs = append(progs, p)
						}
						break
					}
				}
			}
		}
	}
	return progs
}

// openCodePluginCheck says whether warden's OpenCode plugin is installed
// for the user.
func openCodePluginCheck() check {
	c := check{Name: "opencode plugin"}
	conf := os.Getenv("XDG_CONFIG_HOME")
	if conf == "" && home() != "" {
		conf = filepath.Join(home(), ".config")
	}
	p, err := opencode.Target{ConfigHome: conf}.PluginPath()
	if err != nil {
		c.Status, c.Detail = statusWarn, err.Error()
		return c
	}
	if _, err := os.Stat(p); err != nil {
		c.Status, c.Detail, c.Fix = statusWarn, "not installed for your user ("+p+")", "warden install opencode --global (or --project DIR) so OpenCode asks warden before every tool call"
		return c
	}
	c.Status, c.Detail = statusOK, p
	return c
}

// agentChecks finds the agent programs as warden run and the supervisor do.
func (o *options) agentChecks() []check {
	var out []check
	for _, a := range []struct {
		t        agent.Type
		env, pkg string
	}{{agent.OpenCode, EnvOpenCodeBin, "opencode-ai"}, {agent.ClaudeCode, EnvClaudeBin, "@anthropic-ai/claude-code"}} {
		c := check{Name: "agent " + string(a.t)}
		p, err := o.agentBinary(a.t, a.env)
		if err != nil {
			c.Status, c.Detail, c.Fix = statusWarn, "not found", "npm install -g "+a.pkg+" (or set $"+a.env+" or agents."+string(a.t)+".binary in the config)"
		} else {
			c.Status, c.Detail = statusOK, p
		}
		out = append(out, c)
	}
	return out
}

// toolChecks finds the language servers and debug adapters the control
// and MCP doors start.
func toolChecks() []check {
	var out []check
	for _, t := range []struct{ name, fix string }{
		{"gopls", "go install golang.org/x/tools/gopls@latest"},
		{"pyright-langserver", "npm install -g pyright"},
		{"dlv", "go install github.com/go-delve/delve/cmd/dlv@latest"},
		{"git", "install git"},
	} {
		c := check{Name: "tool " + t.name}
		if p, err := exec.LookPath(t.name); err != nil {
			c.Status, c.Detail, c.Fix = statusWarn, "not in PATH: its features answer \"not available\"", t.fix
		} else {
			c.Status, c.Detail = statusOK, p
		}
		out = append(out, c)
	}
	return out
}
