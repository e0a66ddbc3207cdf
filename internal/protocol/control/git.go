package control

import (
	"context"

	"github.com/warden-dev/warden/internal/gitcli"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/policy/shell"
)

func gitMethods() map[string]method {
	return map[string]method{
		"git.status":   gitStatus,
		"git.diff":     gitDiff,
		"git.log":      gitLog,
		"git.stage":    gitStage,
		"git.unstage":  gitUnstage,
		"git.commit":   gitCommit,
		"git.checkout": gitCheckout,
		"git.branches": gitBranches,
	}
}

// gitGate gates a git operation as the git command line it amounts to, so
// the policy's git rules apply.
func (c *call) gitGate(ctx context.Context, destructive bool, argv ...string) error {
	return c.gate(ctx, "bash", map[string]any{"command": shell.Join(append([]string{"git"}, argv...)...), "description": c.req.Method}, destructive, denyCommand)
}

func gitStatus(ctx context.Context, c *call) (any, error) {
	if err := c.gitGate(ctx, false, "status"); err != nil {
		return nil, err
	}
	st, err := c.p.Git().Status(ctx)
	if err != nil {
		return nil, fail(err, "")
	}
	if st.Changes == nil {
		st.Changes = []gitcli.Change{}
	}
	return st, nil
}

func gitDiff(ctx context.Context, c *call) (any, error) {
	var p struct {
		Path   string `json:"path"`
		Staged bool   `json:"staged"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	rel := ""
	if p.Path != "" {
		abs, err := c.abs(p.Path)
		if err != nil {
			return nil, err
		}
		rel = c.rel(abs)
	}
	// changes of files a read would refuse, and of restricted paths, are
	// not shown (the answer counts them)
	d, skipped, err := c.ws.ops.GitDiff(ctx, c.caller(), rel, p.Staged, c.ws.hide)
	if err != nil {
		return nil, deniedError(err, denyCommand)
	}
	if skipped > 0 {
		return map[string]any{"diff": d, "skipped": skipped}, nil
	}
	return map[string]string{"diff": d}, nil
}

func gitLog(ctx context.Context, c *call) (any, error) {
	var p struct {
		MaxEntries int    `json:"maxEntries"`
		Path       string `json:"path"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.MaxEntries < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: maxEntries must not be negative")
	}
	if p.MaxEntries == 0 {
		p.MaxEntries = 50
	}
	rel := ""
	if p.Path != "" {
		abs, err := c.abs(p.Path)
		if err != nil {
			return nil, err
		}
		rel = c.rel(abs)
	}
	if err := c.gitGate(ctx, false, "log"); err != nil {
		return nil, err
	}
	entries, err := c.p.Git().Log(ctx, p.MaxEntries, rel)
	if err != nil {
		return nil, fail(err, p.Path)
	}
	if entries == nil {
		entries = []gitcli.Entry{}
	}
	return map[string]any{"entries": entries}, nil
}

func (c *call) gitPaths() ([]string, error) {
	var p struct {
		Paths []string `json:"paths"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if len(p.Paths) == 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: paths is required")
	}
	out := make([]string, 0, len(p.Paths))
	for _, x := range p.Paths {
		abs, err := c.abs(x)
		if err != nil {
			return nil, err
		}
		out = append(out, c.rel(abs))
	}
	return out, nil
}

func gitStage(ctx context.Context, c *call) (any, error) {
	paths, err := c.gitPaths()
	if err != nil {
		return nil, err
	}
	if err := c.gitGate(ctx, false, append([]string{"add", "--"}, paths...)...); err != nil {
		return nil, err
	}
	err = c.p.Git().Stage(ctx, paths)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func gitUnstage(ctx context.Context, c *call) (any, error) {
	paths, err := c.gitPaths()
	if err != nil {
		return nil, err
	}
	if err := c.gitGate(ctx, false, append([]string{"restore", "--staged", "--"}, paths...)...); err != nil {
		return nil, err
	}
	err = c.p.Git().Unstage(ctx, paths)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func gitCommit(ctx context.Context, c *call) (any, error) {
	var p struct {
		Message string `json:"message"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Message == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: message is required")
	}
	if err := c.gitGate(ctx, false, "commit", "-m", p.Message); err != nil {
		return nil, err
	}
	err := c.p.Git().Commit(ctx, p.Message)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func gitCheckout(ctx context.Context, c *call) (any, error) {
	var p struct {
		Branch string `json:"branch"`
		Create bool   `json:"create"`
	}
	if err := c.params(&p); err != nil {
		return nil, err
	}
	if p.Branch == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: branch is required")
	}
	argv := []string{"checkout", p.Branch}
	if p.Create {
		argv = []string{"checkout", "-b", p.Branch}
	}
	if err := c.gitGate(ctx, false, argv...); err != nil {
		return nil, err
	}
	err := c.p.Git().Checkout(ctx, p.Branch, p.Create)
	c.recordResult(ctx, "bash", err)
	if err != nil {
		return nil, fail(err, "")
	}
	return ok, nil
}

func gitBranches(ctx context.Context, c *call) (any, error) {
	if err := c.gitGate(ctx, false, "branch", "--list"); err != nil {
		return nil, err
	}
	bs, err := c.p.Git().Branches(ctx)
	if err != nil {
		return nil, fail(err, "")
	}
	if bs == nil {
		bs = []gitcli.Branch{}
	}
	return map[string]any{"branches": bs}, nil
}
