package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newCredentialsCmd(o *options) *cobra.Command {
	var asJSON bool
	list := func(cmd *cobra.Command, _ []string) error {
		c, err := o.dial()
		if err != nil {
			return err
		}
		creds, err := c.Credentials(cmd.Context())
		if err != nil {
			return err
		}
		if asJSON {
			return o.printJSON(creds)
		}
		if len(creds) == 0 {
			fmt.Fprintln(o.stderr, "no agent credentials (warden mints one when it writes an agent's config)")
			return nil
		}
		tw := o.table()
		fmt.Fprintln(tw, "ID\tAGENT\tWORKSPACE\tCREATED\tSTATUS")
		for _, cr := range creds {
			status := "active"
			if !cr.Active() {
				status = "revoked " + cr.Revoked.Local().Format(time.DateTime)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", cr.ID, cr.Agent, cr.Workspace, cr.Created.Local().Format(time.DateTime), status)
		}
		fmt.Fprintln(tw, "\nRevoke one with: warden credentials revoke ID")
		return tw.Flush()
	}
	cmd := &cobra.Command{
		Use:     "credentials",
		Aliases: []string{"creds"},
		Short:   "List the scoped agent credentials (revoke one with: credentials revoke ID)",
		Long: `warden has two kinds of credential. The admin credential (<data dir>/token)
opens everything: the admin socket this CLI uses, the control door, approvals,
policy changes. It never leaves the data dir.

A scoped agent credential opens only the MCP door and the Agent API door, and
only for one workspace. warden mints one per workspace and agent type when it
writes an agent's config (a supervised OpenCode server, warden run claude) and
for warden chat (agent type warden-chat); it stores only its hash, and
records every mint and revocation in the log (session "warden").

A revoked credential is refused from its next request on; restart the agent
(warden agents restart, or warden run claude again) to give it a new one.`,
		Example: `  warden credentials
  warden credentials --json
  warden credentials revoke 3f2a9c01b7de`,
		Args: cobra.NoArgs,
		RunE: list,
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List the scoped agent credentials",
		Args:  cobra.NoArgs,
		RunE:  list,
	}
	listCmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(listCmd, newCredentialsRevokeCmd(o))
	return cmd
}

func newCredentialsRevokeCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a scoped agent credential at once",
		Args:  exactArgs(1, "a credential id (list them with: warden credentials)"),
		ValidArgsFunction: func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
			c, err := o.dial()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			creds, err := c.Credentials(cmd.Context())
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var ids []string
			for _, cr := range creds {
				if cr.Active() {
					ids = append(ids, cr.ID+"\t"+cr.Agent+" "+cr.Workspace)
				}
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.RevokeCredential(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(res)
			}
			fmt.Fprintf(o.stdout, "Revoked %s (%s in %s); the agent's next request is refused. Restart it to give it a new credential.\n",
				res.Credential.ID, res.Credential.Agent, res.Credential.Workspace)
			if res.Warning != "" {
				fmt.Fprintln(o.stderr, "warning:", res.Warning)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
