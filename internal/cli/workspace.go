package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/warden-dev/warden/internal/workspace"
)

func newWorkspaceCmd(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workspace",
		Aliases: []string{"workspaces", "ws"},
		Short:   "Add, list, create and remove the workspaces warden serves",
		Long: `A workspace is a directory agents work in. warden serves its files, git and
language servers over MCP and the control door, runs its agent (warden agents),
and keeps key/value metadata for it. "workspace create NAME" makes a new git
worktree of the current project (on a new branch NAME); removing it removes the
worktree (the branch stays).`,
	}
	cmd.AddCommand(newWorkspaceListCmd(o), newWorkspaceAddCmd(o), newWorkspaceCreateCmd(o),
		newWorkspaceRemoveCmd(o), newWorkspaceMetaCmd(o))
	return cmd
}

// workspaceCompletion completes registered workspace paths.
func workspaceCompletion(o *options) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		c, err := o.dial()
		if err != nil {
			return nil, cobra.ShellCompDirectiveDefault
		}
		list, err := c.Workspaces(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveDefault
		}
		out := make([]string, 0, 2*len(list))
		for _, w := range list {
			out = append(out, w.Path, w.Name+"\t"+w.Path)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

func absArg(args []string) (string, error) {
	p := "."
	if len(args) > 0 {
		p = args[0]
	}
	return filepath.Abs(p)
}

func newWorkspaceListCmd(o *options) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the registered workspaces",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := o.dial()
			if err != nil {
				return err
			}
			list, err := c.Workspaces(cmd.Context())
			if err != nil {
				return err
			}
			if asJSON {
				if list == nil {
					list = []workspace.Workspace{}
				}
				return o.printJSON(list)
			}
			if len(list) == 0 {
				fmt.Fprintln(o.stderr, "no workspaces; add one with: warden workspace add DIR")
				return nil
			}
			tw := o.table()
			fmt.Fprintln(tw, "NAME\tPATH\tAGENT\tBRANCH\tMETADATA")
			for _, w := range list {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.Name, w.Path, dash(w.Agent), dash(w.Branch), dash(metaString(w.Metadata)))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func metaString(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+clip(m[k], 30))
	}
	return strings.Join(parts, " ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newWorkspaceAddCmd(o *options) *cobra.Command {
	var asJSON, allowBroad bool
	cmd := &cobra.Command{
		Use:   "add [DIR]",
		Short: "Register a directory as a workspace (default: the current one)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := absArg(args)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.AddWorkspace(cmd.Context(), dir, allowBroad)
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(res)
			}
			if res.New {
				fmt.Fprintf(o.stdout, "added workspace %s (%s)\n", res.Workspace.Name, res.Workspace.Path)
			} else {
				fmt.Fprintf(o.stdout, "%s is a workspace already\n", res.Workspace.Path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&allowBroad, "allow-broad", false, "register a directory too broad to be a workspace (/, the home directory, a system directory): agents may then change all of it")
	return cmd
}

func newWorkspaceCreateCmd(o *options) *cobra.Command {
	var (
		project, base string
		asJSON        bool
	)
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a workspace as a new git worktree (branch NAME) of the project",
		Example: `  warden workspace create fix-login
  warden workspace create spike --project ~/src/app --base origin/main`,
		Args: exactArgs(1, "a NAME for the workspace and its branch"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := filepath.Abs(project)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			stop := o.progress("creating worktree " + args[0])
			res, err := c.CreateWorkspace(cmd.Context(), dir, args[0], base)
			stop()
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(res)
			}
			fmt.Fprintf(o.stdout, "created workspace %s at %s (branch %s of %s)\n", res.Workspace.Name, res.Workspace.Path, res.Workspace.Branch, res.Workspace.Project)
			return nil
		},
	}
	cmd.Flags().StringVar(&project, "project", ".", "a directory of the git repository to branch from")
	cmd.Flags().StringVar(&base, "base", "", "commit, branch or tag the new branch starts at (default: the project's HEAD)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newWorkspaceRemoveCmd(o *options) *cobra.Command {
	var (
		force  bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:               "remove [DIR|NAME]",
		Aliases:           []string{"rm"},
		Short:             "Stop a workspace's agent and unregister it (removing a worktree warden created)",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: workspaceCompletion(o),
		RunE: func(cmd *cobra.Command, args []string) error {
			arg := ""
			if len(args) > 0 {
				arg = args[0]
			}
			dir, err := o.workspacePath(cmd.Context(), arg)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			res, err := c.RemoveWorkspace(cmd.Context(), dir, force)
			if err != nil {
				return err
			}
			if asJSON {
				return o.printJSON(res)
			}
			msg := "removed workspace " + res.Workspace.Path
			if res.Workspace.Managed {
				msg += " and its worktree (branch " + res.Workspace.Branch + " kept)"
			}
			fmt.Fprintln(o.stdout, msg)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "remove the worktree even with uncommitted changes")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newWorkspaceMetaCmd(o *options) *cobra.Command {
	var (
		dir    string
		del    bool
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "meta [KEY [VALUE]]",
		Short: "Show, set or delete a workspace's metadata",
		Example: `  warden workspace meta                 # all keys
  warden workspace meta base            # one key
  warden workspace meta base main       # set
  warden workspace meta base --delete   # delete`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			abs, err := o.workspacePath(cmd.Context(), dir)
			if err != nil {
				return err
			}
			c, err := o.dial()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			switch {
			case len(args) == 2 || (len(args) == 1 && del):
				var value *string
				if !del {
					value = &args[1]
				} else if len(args) == 2 {
					return fmt.Errorf("give either a VALUE or --delete, not both")
				}
				res, err := c.SetMetadata(ctx, abs, args[0], value)
				if err != nil {
					return err
				}
				if asJSON {
					return o.printJSON(res.Workspace.Metadata)
				}
				return nil
			}
			w, err := findWorkspace(ctx, o, abs)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				v, ok := w.Metadata[args[0]]
				if !ok {
					return exitCode{code: 1, msg: fmt.Sprintf("no metadata key %q in %s", args[0], w.Path)}
				}
				if asJSON {
					return o.printJSON(map[string]string{args[0]: v})
				}
				fmt.Fprintln(o.stdout, v)
				return nil
			}
			if asJSON {
				m := w.Metadata
				if m == nil {
					m = map[string]string{}
				}
				return o.printJSON(m)
			}
			keys := make([]string, 0, len(w.Metadata))
			for k := range w.Metadata {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			tw := o.table()
			for _, k := range keys {
				fmt.Fprintf(tw, "%s\t%s\n", k, w.Metadata[k])
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&dir, "workspace", "w", ".", "the workspace (a directory in it, or its name)")
	cmd.Flags().BoolVar(&del, "delete", false, "delete KEY")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.RegisterFlagCompletionFunc("workspace", workspaceCompletion(o))
	return cmd
}

// findWorkspace returns the registered workspace holding dir.
func findWorkspace(ctx context.Context, o *options, dir string) (workspace.Workspace, error) {
	c, err := o.dial()
	if err != nil {
		return workspace.Workspace{}, err
	}
	list, err := c.Workspaces(ctx)
	if err != nil {
		return workspace.Workspace{}, err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	var best workspace.Workspace
	for _, w := range list {
		if (real == w.Path || strings.HasPrefix(real, w.Path+string(os.PathSeparator))) && len(w.Path) > len(best.Path) {
			best = w
		}
	}
	if best.Path == "" {
		return best, fmt.Errorf("%s is not in a registered workspace: add it with `warden workspace add %s`", dir, dir)
	}
	return best, nil
}
