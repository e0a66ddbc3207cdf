package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/binfind"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/protocol/admin"
)

func newAgentsCmd(o *options) *cobra.Command {
	var (
		asJSON, watch bool
		dir           string
	)
	cmd := &cobra.Command{
		Use:     "agents",
		Aliases: []string{"agent"},
		Short:   "Show every workspace's agent and what it is doing",
		Long: `List every workspace with its agent (opencode, claude-code), its status
(none, idle, busy, or waiting: a person must answer the agent's permission
request), its session and its server. --watch redraws whenever a status changes.

OpenCode runs as a server warden starts per workspace (agents start opencode);
Claude Code runs in your terminal (warden run claude) and is followed through
its hooks.`,
		Example: `  warden agents
  warden agents --json
  warden agents --watch
  warden agents start opencode --workspace ~/src/app`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			ws := ""
			if dir != "" {
				if ws, err = o.workspacePath(cmd.Context(), dir); err != nil {
					return err
				}
			}
			show := func(ctx context.Context) error {
				list, err := c.Agents(ctx, ws)
				if err != nil {
					return err
				}
				if asJSON {
					if watch { // one JSON document per line, one line per change
						return json.NewEncoder(o.stdout).Encode(list)
					}
					return o.printJSON(list)
				}
				if watch && isTTY(o.stdout) {
					fmt.Fprint(o.stdout, "\x1b[H\x1b[2J")
				}
				return printAgents(o, list, watch)
			}
			if !watch {
				return show(cmd.Context())
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return watchAgents(ctx, c, show)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&watch, "watch", "W", false, "redraw on every change until interrupted")
	cmd.Flags().StringVarP(&dir, "workspace", "w", "", "only this workspace (a directory in it, or its name)")
	_ = cmd.RegisterFlagCompletionFunc("workspace", workspaceCompletion(o))
	for _, action := range []string{"start", "stop", "restart"} {
		cmd.AddCommand(newAgentActionCmd(o, action))
	}
	return cmd
}

// watchAgents redraws on every workspace or agent event in the log.
func watchAgents(ctx context.Context, c *admin.Client, show func(context.Context) error) error {
	st, err := c.Status(ctx)
	if err != nil {
		return err
	}
	if err := show(ctx); err != nil {
		return err
	}
	err = c.Events(ctx, admin.EventsQuery{Since: st.LastEventID, Follow: true}, func(e event.Event) error {
		if strings.HasPrefix(string(e.Type), "agent.") || strings.HasPrefix(string(e.Type), "workspace.") ||
			e.Type == event.ApprovalRequested || e.Type == event.ApprovalResolved {
			return show(ctx)
		}
		return nil
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func printAgents(o *options, list []supervisor.AgentInfo, watch bool) error {
	if len(list) == 0 {
		fmt.Fprintln(o.stderr, "no workspaces; add one with: warden workspace add DIR")
		return nil
	}
	tw := o.table()
	fmt.Fprintln(tw, "WORKSPACE\tAGENT\tSTATUS\tSESSION\tSERVER\tPATH")
	for _, a := range list {
		server := "-"
		switch {
		case a.Running && a.PID != 0:
			server = fmt.Sprintf("127.0.0.1:%d (pid %d)", a.Port, a.PID)
		case a.Running:
			server = fmt.Sprintf("hooks :%d", a.Port)
		case a.RestartAttempts > 0:
			// a crashed server warden keeps trying to start again
			server = fmt.Sprintf("restart failing (%d attempts)", a.RestartAttempts)
		case a.Agent == "opencode":
			server = "stopped"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, dash(string(a.Agent)), a.Status, dash(a.Session), server, a.Workspace)
	}
	if watch {
		fmt.Fprintf(tw, "\n%s  (Ctrl-C to stop)\n", time.Now().Format("15:04:05"))
	}
	return tw.Flush()
}

func newAgentActionCmd(o *options, action string) *cobra.Command {
	var (
		dir    string
		asJSON bool
	)
	short := map[string]string{
		"start":   "Start a workspace's agent server (and start it again whenever warden starts)",
		"stop":    "Stop a workspace's agent server (and no longer start it with warden)",
		"restart": "Restart a workspace's agent server on the same port",
	}[action]
	use := action + " [AGENT]"
	if action == "start" {
		use = "start AGENT"
	}
	cmd := &cobra.Command{
		Use:       use,
		Short:     short,
		ValidArgs: []string{"opencode"},
		Args: func(cmd *cobra.Command, args []string) error {
			if action == "start" && len(args) != 1 {
				return fmt.Errorf("%s needs the AGENT to start (opencode)", cmd.CommandPath())
			}
			return cobra.MaximumNArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			abs, err := o.workspacePath(cmd.Context(), dir)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			typ := ""
			if len(args) == 1 {
				typ = args[0]
			}
			stop := o.progress(fmt.Sprintf("%s %s in %s", map[string]string{"start": "starting", "stop": "stopping", "restart": "restarting"}[action], dash(typ), abs))
			ai, err := c.AgentAction(cmd.Context(), action, abs, typ)
			stop()
			if err != nil {
				return o.searchedOnlyWhenVerbose(err)
			}
			if asJSON {
				return o.printJSON(ai)
			}
			switch action {
			case "stop":
				switch {
				case ai.Killed:
					fmt.Fprintf(o.stdout, "stopped the agent of %s (its server did not end in time and was killed)\n", ai.Workspace)
				case ai.Stopped:
					fmt.Fprintf(o.stdout, "stopped the agent of %s\n", ai.Workspace)
				default:
					fmt.Fprintf(o.stdout, "no agent was started for %s: nothing to stop\n", ai.Workspace)
				}
			default:
				fmt.Fprintf(o.stdout, "%s runs for %s on 127.0.0.1:%d (pid %d), status %s\n", ai.Agent, ai.Workspace, ai.Port, ai.PID, ai.Status)
				fmt.Fprintf(o.stdout, "attach a terminal with: warden run opencode (in %s)\n", ai.Workspace)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&dir, "workspace", "w", ".", "the workspace (a directory in it, or its name)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("workspace", workspaceCompletion(o))
	return cmd
}

// searchedOnlyWhenVerbose keeps an error's hint and drops the list of
// places searched for a missing program that ends it, unless -v.
func (o *options) searchedOnlyWhenVerbose(err error) error {
	msg := err.Error()
	i := strings.Index(msg, binfind.SearchedMarker)
	if o.verbose || i < 0 {
		return err
	}
	n := strings.Count(msg[i:], ", ") + 1
	return fmt.Errorf("%s (-v lists the %d places searched)", msg[:i], n)
}

// progress shows a spinner with msg on stderr while long work runs, when
// stderr is a terminal; the returned function stops and clears it.
func (o *options) progress(msg string) (stop func()) {
	if !isTTY(o.stderr) {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		frames := `|/-\`
		t := time.NewTicker(120 * time.Millisecond)
		defer t.Stop()
		start := time.Now()
		for i := 0; ; i++ {
			fmt.Fprintf(o.stderr, "\r%c %s (%ds)", frames[i%len(frames)], msg, int(time.Since(start).Seconds()))
			select {
			case <-done:
				fmt.Fprintf(o.stderr, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
