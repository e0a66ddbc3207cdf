package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/protocol/admin"
	"github.com/warden-dev/warden/internal/session"
)

// dial finds the running daemon through the data dir.
func (o *options) dial() (*admin.Client, error) {
	cfg, err := o.loadConfig()
	if err != nil {
		return nil, err
	}
	dir, err := o.resolveDataDir(cfg)
	if err != nil {
		return nil, err
	}
	return admin.Dial(dir)
}

func newStatusCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show whether the daemon runs, where, and what it holds",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			st, err := c.Status(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(st)
			}
			tw := o.table()
			fmt.Fprintf(tw, "warden\t%s (pid %d, up %s)\n", st.Version, st.PID, time.Since(st.Started).Round(time.Second))
			fmt.Fprintf(tw, "data dir\t%s\n", st.DataDir)
			fmt.Fprintf(tw, "policy\t%s\n", st.Policy)
			names := make([]string, 0, len(st.Listeners))
			for n := range st.Listeners {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(tw, "%s\t%s\n", n, st.Listeners[n])
			}
			fmt.Fprintf(tw, "events\t%d\n", st.LastEventID)
			fmt.Fprintf(tw, "sessions\t%d\n", st.Sessions)
			fmt.Fprintf(tw, "pending approvals\t%d\n", st.PendingApprovals)
			fmt.Fprintf(tw, "workspaces\t%d (%d with an agent running; see warden agents)\n", st.Workspaces, st.AgentsRunning)
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// defaultEventsLimit is how many of the newest events the table shows
// unless --limit says otherwise.
const defaultEventsLimit = 100

func newEventsCmd(o *options) *cobra.Command {
	var (
		q      admin.EventsQuery
		asJSON bool
		since  string
		limit  int
	)
	cmd := &cobra.Command{
		Use:   "events",
		Short: "List events from the log (optionally follow them live)",
		Long: `List events from the log in order. --since takes a duration (10m, 2h, 3d),
a time (RFC 3339), or a number: with --session that session's sequence number,
without it the global event id. --type selects event types (tool.decision, or a
family: tool.*), --decision the tool decisions allow, deny or ask. The table
shows the newest 100 events unless --limit says otherwise (--limit 0: all);
--json prints every selected event, one JSON object per line, unless --limit
is given. --follow keeps streaming new events as they become durable, in fixed
columns.`,
		Example: `  warden events --since 10m
  warden events --decision deny --since 1d
  warden events --type approval.* --follow
  warden events --session ses_123 --json
  warden events --since 120 --limit 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := q.ParseSince(since, time.Now()); err != nil {
				return err
			}
			switch {
			case cmd.Flags().Changed("limit"):
				if limit < 0 {
					return fmt.Errorf("--limit %d: want 0 (all) or more", limit)
				}
				q.Last = limit
			case !asJSON:
				q.Last = defaultEventsLimit
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if q.Follow {
				var stop context.CancelFunc
				ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
				defer stop()
			}
			enc := json.NewEncoder(o.stdout)
			tw := o.table()
			header := "ID\tSESSION\tSEQ\tTIME\tTYPE\tSOURCE\tSUMMARY"
			if !asJSON {
				if q.Follow {
					fmt.Fprintln(o.stdout, followLine("ID", "SESSION", "SEQ", "TIME", "TYPE", "SOURCE", "SUMMARY"))
				} else {
					fmt.Fprintln(tw, header)
				}
			}
			var info admin.EventsInfo
			noted := false
			note := func() {
				if !noted && info.Omitted > 0 {
					noted = true
					fmt.Fprintf(o.stderr, "(%d older events not shown: --limit N shows more, --limit 0 all; --since, --type, --decision narrow)\n", info.Omitted)
				}
			}
			n := 0
			err = c.EventsWithInfo(ctx, q, &info, func(e event.Event) error {
				n++
				if q.Follow {
					note()
				}
				if asJSON {
					return enc.Encode(e)
				}
				ts := e.Time.Local().Format("15:04:05.000")
				if q.Follow {
					_, err := fmt.Fprintln(o.stdout, followLine(fmt.Sprint(e.ID), e.Session, fmt.Sprint(e.Seq), ts, string(e.Type), e.Source, summarize(e)))
					return err
				}
				fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\n", e.ID, e.Session, e.Seq, ts, e.Type, e.Source, summarize(e))
				return nil
			})
			if !asJSON && !q.Follow && (err == nil || n > 0) {
				// a refused query prints its error, not an empty table
				if ferr := tw.Flush(); err == nil {
					err = ferr
				}
				if n == 0 && err == nil {
					if since != "" || len(q.Types) > 0 || len(q.Decisions) > 0 || q.Session != "" {
						fmt.Fprintln(o.stderr, "no events match"+unknownTypesHint(q.Types))
					} else {
						fmt.Fprintln(o.stderr, "no events yet")
					}
				}
			}
			note()
			return err
		},
	}
	cmd.Flags().StringVar(&q.Session, "session", "", "only this session")
	_ = cmd.RegisterFlagCompletionFunc("session", sessionCompletion(o))
	cmd.Flags().StringVar(&since, "since", "", "only events after this: a duration (10m, 2h, 3d), an RFC 3339 time, or a sequence number (global id without --session)")
	cmd.Flags().StringSliceVar(&q.Types, "type", nil, "only these event types (repeat or comma-separate; tool.* for a family)")
	cmd.Flags().StringSliceVar(&q.Decisions, "decision", nil, "only tool decisions: allow, deny, ask (repeat or comma-separate)")
	cmd.Flags().IntVar(&limit, "limit", defaultEventsLimit, "show the newest N events (0: all; default for --json: all)")
	cmd.Flags().BoolVarP(&q.Follow, "follow", "f", false, "keep streaming new events")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per line")
	_ = cmd.RegisterFlagCompletionFunc("type", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return eventTypeNames(), cobra.ShellCompDirectiveNoFileComp
	})
	_ = cmd.RegisterFlagCompletionFunc("decision", cobra.FixedCompletions([]string{"allow", "deny", "ask"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.AddCommand(newEventsExportCmd(o), newEventsImportCmd(o), newEventsPruneCmd(o))
	return cmd
}

// followLine lays an event out in fixed columns, so lines printed one at a
// time under --follow line up.
func followLine(id, session, seq, ts, typ, source, summary string) string {
	return fmt.Sprintf("%-7s %-24s %5s %-12s %-20s %-16s %s", id, fit(session, 24), seq, ts, fit(typ, 20), fit(source, 16), summary)
}

// fit cuts s to n runes, keeping its start and end around a "~".
func fit(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	return string(r[:head]) + "~" + string(r[len(r)-(n-1-head):])
}

// unknownTypesHint names the --type values that are no event type warden
// writes (a typo matches nothing, silently), for "no events match".
func unknownTypesHint(types []string) string {
	known := map[string]bool{}
	for _, n := range eventTypeNames() {
		known[n] = true
	}
	var unknown []string
	for _, t := range types {
		if !known[t] {
			unknown = append(unknown, strquote(t))
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return fmt.Sprintf(" (no event type is called %s; the types: %s)", strings.Join(unknown, ", "), strings.Join(eventTypeNames(), " "))
}

func strquote(s string) string { return fmt.Sprintf("%q", s) }

// eventTypeNames lists the event types for completion.
func eventTypeNames() []string {
	return []string{
		string(event.SessionStart), string(event.SessionEnd), string(event.SessionStatus), string(event.SessionError),
		string(event.ToolCall), string(event.ToolDecision), string(event.ToolResult), string(event.ToolConfined),
		string(event.ApprovalRequested), string(event.ApprovalResolved),
		string(event.WorkspaceAdded), string(event.WorkspaceRemoved), string(event.WorkspaceMetadata),
		string(event.AgentServer), string(event.AgentStatus), string(event.AgentNotification), string(event.AgentPermissionRequest),
		string(event.CredentialMinted), string(event.CredentialRevoked), string(event.PolicyRuleRevoked),
		string(event.LogDropped), string(event.LogPruned),
		"session.*", "tool.*", "approval.*", "workspace.*", "agent.*", "credential.*", "policy.*", "log.*",
	}
}

// summarize renders the gist of an event for the table.
func summarize(e event.Event) string {
	var d map[string]any
	_ = json.Unmarshal(e.Data, &d)
	str := func(k string) string {
		if v, ok := d[k].(string); ok {
			return v
		}
		return ""
	}
	var s string
	switch e.Type {
	case event.ToolCall:
		c, _ := event.DataOf[event.ToolCallData](e)
		s = c.Tool
		for _, k := range []string{"command", "filePath", "file_path", "path", "url", "pattern"} {
			if v, ok := c.Args[k].(string); ok {
				s += " " + v
				break
			}
		}
	case event.ToolDecision:
		dd, _ := event.DataOf[event.ToolDecisionData](e)
		s = fmt.Sprintf("%s %s", dd.Decision, dd.Rule)
		if dd.Reason != "" {
			s += ": " + dd.Reason
		}
	case event.ApprovalRequested:
		a, _ := event.DataOf[event.ApprovalData](e)
		s = fmt.Sprintf("%s %s: %s", a.ApprovalID, a.Tool, a.Reason)
	case event.ApprovalResolved:
		a, _ := event.DataOf[event.ApprovalData](e)
		s = fmt.Sprintf("%s %s by %s", a.ApprovalID, a.Outcome, a.By)
	case event.ToolResult:
		r, _ := event.DataOf[event.ToolResultData](e)
		s = r.Tool + " " + r.Title
		if r.Failed() {
			s += " failed"
			if r.Error != "" {
				s += ": " + r.Error
			}
		}
	case event.SessionStatus:
		s = str("status")
	case event.SessionError:
		s = str("error")
	case event.SessionStart:
		s = str("workingDirectory")
	case event.SessionEnd:
		s = str("reason")
	case event.ToolConfined:
		c, _ := event.DataOf[event.ToolConfinedData](e)
		s = c.Tool + " " + c.Command
	case event.AgentServer:
		s = agentServerSummary(e)
	case event.AgentStatus:
		a, _ := event.DataOf[event.AgentStatusData](e)
		s = fmt.Sprintf("%s %s -> %s", a.Agent, a.From, a.To)
		if a.SessionID != "" {
			s += " (session " + a.SessionID + ")"
		}
	case event.AgentNotification, event.AgentPermissionRequest:
		s = strings.TrimSpace(str("toolName") + " " + str("message"))
	case event.WorkspaceAdded:
		w, _ := event.DataOf[event.WorkspaceAddedData](e)
		s = w.Name + " " + e.Workspace
		if w.Created {
			s += fmt.Sprintf(" (new worktree of %s, branch %s)", w.Project, w.Branch)
		}
	case event.WorkspaceRemoved:
		w, _ := event.DataOf[event.WorkspaceRemovedData](e)
		s = w.Name + " " + e.Workspace
		if w.WorktreeRemoved {
			s += " (worktree removed)"
		}
	case event.WorkspaceMetadata:
		w, _ := event.DataOf[event.WorkspaceMetadataData](e)
		switch {
		case w.Deleted:
			s = w.Key + " deleted"
		case w.Value != nil:
			s = w.Key + "=" + *w.Value
		}
	case event.CredentialMinted, event.CredentialRevoked:
		c, _ := event.DataOf[event.CredentialData](e)
		s = fmt.Sprintf("%s %s %s", c.ID, c.Agent, c.Workspace)
	case event.PolicyRuleRevoked:
		r, _ := event.DataOf[event.RuleRevokedData](e)
		s = fmt.Sprintf("%s (%s) %s", r.Rule, r.Effect, r.Description)
	case event.LogDropped:
		n, _ := d["dropped"].(float64)
		s = fmt.Sprintf("%d events dropped: %s", int64(n), str("reason"))
	case event.LogPruned:
		n, _ := d["removed"].(float64)
		b, _ := d["before"].(float64)
		s = fmt.Sprintf("%d events before id %d removed", int64(n), int64(b))
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// agentServerSummary says what happened to an agent server: started on a
// port, crashed, a restart that failed and when the next one comes.
func agentServerSummary(e event.Event) string {
	a, _ := event.DataOf[event.AgentServerData](e)
	s := a.Agent + " " + a.Action
	if a.Port != 0 {
		s += fmt.Sprintf(" on port %d (pid %d)", a.Port, a.PID)
	}
	if a.FailedAttempts > 0 {
		s += fmt.Sprintf(" after %d failed attempts", a.FailedAttempts)
	}
	if a.Attempts > 0 {
		s += fmt.Sprintf(", attempt %d", a.Attempts)
	}
	if a.RetryIn != "" {
		s += ", next in " + a.RetryIn
	}
	if a.Error != "" {
		s += ": " + a.Error
	}
	return s
}

func newSessionsCmd(o *options) *cobra.Command {
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List agent sessions with their status and stats",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			list, err := c.ListSessions(cmd.Context(), all)
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(o.stderr, "no sessions yet")
				return nil
			}
			tw := o.table()
			fmt.Fprintln(tw, "SESSION\tSTATUS\tSOURCE\tWORKSPACE\tTOOL CALLS\tTOOLS\tDENIED\tDURATION\tLAST EVENT")
			for _, s := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", s.ID, s.Status, s.Source, s.Workspace, s.ToolCalls,
					s.UniqueToolCount, s.Denied, (time.Duration(s.DurationMS) * time.Millisecond).Round(time.Second), ago(s.LastTime))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "also list the control door's client sessions (editors, scripts)")
	cmd.AddCommand(newSessionShowCmd(o))
	return cmd
}

// sessionCompletion completes a session id from the running daemon (every
// session, control-door clients too), the most recent first, each with its
// source and workspace.
func sessionCompletion(o *options) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 { // sessions show takes one id
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := o.dial()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.ListSessions(cmd.Context(), true)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ids := make([]string, 0, len(list))
		for _, s := range list {
			ids = append(ids, s.ID+"\t"+s.Source+" "+s.Workspace)
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

func newSessionShowCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:               "show ID",
		Short:             "Show one session",
		Args:              exactArgs(1, "a session id (list them with: warden sessions)"),
		ValidArgsFunction: sessionCompletion(o),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			s, err := c.Session(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(s)
			}
			printSession(o, s)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printSession(o *options, s session.Session) {
	tw := o.table()
	fmt.Fprintf(tw, "session\t%s\n", s.ID)
	fmt.Fprintf(tw, "status\t%s\n", s.Status)
	fmt.Fprintf(tw, "source\t%s\n", s.Source)
	fmt.Fprintf(tw, "workspace\t%s\n", s.Workspace)
	if s.Parent != "" {
		fmt.Fprintf(tw, "parent\t%s\n", s.Parent)
	}
	fmt.Fprintf(tw, "first event\t%s\n", s.FirstTime.Local().Format(time.RFC3339))
	fmt.Fprintf(tw, "last event\t%s\n", s.LastTime.Local().Format(time.RFC3339))
	fmt.Fprintf(tw, "duration\t%s\n", time.Duration(s.DurationMS)*time.Millisecond)
	fmt.Fprintf(tw, "events\t%d (last seq %d)\n", s.Events, s.LastSeq)
	fmt.Fprintf(tw, "tool calls\t%d\n", s.ToolCalls)
	fmt.Fprintf(tw, "tools\t%s\n", strings.Join(s.UniqueTools, ", "))
	fmt.Fprintf(tw, "denied / asked\t%d / %d\n", s.Denied, s.Asked)
	if len(s.PendingApprovals) > 0 {
		fmt.Fprintf(tw, "pending approvals\t%s\n", strings.Join(s.PendingApprovals, ", "))
	}
	if s.LastError != "" {
		fmt.Fprintf(tw, "last error\t%s\n", s.LastError)
	}
	_ = tw.Flush()
}

func ago(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := time.Since(t).Round(time.Second)
	if d < 0 {
		d = 0
	}
	return d.String() + " ago"
}

func newApprovalsCmd(o *options) *cobra.Command {
	var asJSON, watch bool
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List calls waiting for a person (--watch: follow them, answer with y/n/a)",
		Long: `List the calls waiting for a person. --watch keeps the list up to date: it
redraws on every change, rings the terminal bell and sends a desktop notification
(notify-send when a D-Bus session exists on Linux, osascript on macOS) when a
call starts waiting, with the time left. In a terminal it asks about the oldest
waiting call: y approves, n denies, a approves always (a standing rule). Without
a terminal it prints one line per change; with --json one JSON list per change.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			if watch {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				w := &approvalWatch{o: o, c: c, asJSON: asJSON, now: time.Now, notify: desktopNotifier(os.Getenv)}
				w.tty = !asJSON && isTTY(o.stdout)
				w.keys = w.tty && isTTY(o.stdin)
				err := w.run(ctx)
				if w.tty {
					fmt.Fprintln(o.stdout)
				}
				return err
			}
			list, err := c.Approvals(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(o.stderr, "no pending approvals")
				return nil
			}
			tw := o.table()
			fmt.Fprintln(tw, "ID\tSESSION\tTOOL\tCALL\tREASON\tDEADLINE")
			for _, a := range list {
				call := a.Call.Tool
				for _, k := range []string{"command", "filePath", "file_path", "path", "url"} {
					if v, ok := a.Call.Args[k].(string); ok {
						call = v
						break
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\tin %s\n", a.ID, a.Session, a.Call.Tool, clip(call, 60), clip(a.Decision.Reason, 60),
					time.Until(a.Deadline).Round(time.Second))
			}
			fmt.Fprintln(tw, "\nApprove with: warden approve ID    Deny with: warden deny ID --reason \"...\"    Follow: warden approvals --watch")
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVarP(&watch, "watch", "W", false, "follow the queue until interrupted: redraw, bell, desktop notification, y/n/a prompt in a terminal")
	return cmd
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}

func newApproveCmd(o *options) *cobra.Command {
	return newResolveCmd(o, "approve", "Let a waiting call run")
}

func newDenyCmd(o *options) *cobra.Command {
	return newResolveCmd(o, "deny", "Block a waiting call")
}

func newResolveCmd(o *options, decision, short string) *cobra.Command {
	var (
		reason string
		always bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   decision + " ID",
		Short: short,
		Long: short + `. With --always, a standing rule for this exact call in this workspace is
added to the policy overlay in the data dir, so it is not asked again.`,
		Args: exactArgs(1, "an approval id (list them with: warden approvals)"),
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			c, err := o.dial()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			list, err := c.Approvals(cmd.Context())
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var ids []string
			for _, a := range list {
				ids = append(ids, a.ID+"\t"+a.Call.Tool+" "+clip(a.Decision.Reason, 40))
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.Resolve(cmd.Context(), args[0], admin.ResolveRequest{Decision: decision, Reason: reason, Always: always})
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(res)
			}
			verb := map[string]string{"approve": "Approved", "deny": "Denied"}[decision]
			fmt.Fprintf(o.stdout, "%s %s (%s in session %s)\n", verb, res.Approval.ID, res.Approval.Call.Tool, res.Approval.Session)
			if always && res.Warning == "" {
				fmt.Fprintln(o.stdout, "Added a standing rule for this call in", res.Approval.Workspace)
			}
			if res.Warning != "" {
				fmt.Fprintln(o.stderr, "warning:", res.Warning)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (shown to the agent)")
	cmd.Flags().BoolVar(&always, "always", false, "add a standing rule so this call is not asked again in this workspace")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// exactArgs is cobra.ExactArgs with an error that says what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return fmt.Errorf("%s needs %s", cmd.CommandPath(), what)
		}
		return nil
	}
}
