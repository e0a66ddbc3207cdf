package control

import (
	"context"

	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/search"
)

func searchMethods() map[string]method {
	return map[string]method{
		"search.findInFiles":    searchFind,
		"search.findAndReplace": searchReplace,
	}
}

type searchParams struct {
	Query       string          `json:"query"`
	Replacement *string         `json:"replacement"`
	Options     *search.Options `json:"options"`
}

func (c *call) searchParams(needReplacement bool) (searchParams, search.Options, error) {
	var p searchParams
	if err := c.params(&p); err != nil {
		return p, search.Options{}, err
	}
	if p.Query == "" {
		return p, search.Options{}, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: query is required")
	}
	if needReplacement && p.Replacement == nil {
		return p, search.Options{}, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: replacement is required")
	}
	var o search.Options
	if p.Options != nil {
		o = *p.Options
	}
	// the restricted paths are never searched
	for _, g := range c.ws.srv.opts.Settings.Security.RestrictedPaths {
		if o.Exclude != "" {
			o.Exclude += ","
		}
		o.Exclude += g
	}
	return p, o, nil
}

func searchFind(ctx context.Context, c *call) (any, error) {
	p, o, err := c.searchParams(false)
	if err != nil {
		return nil, err
	}
	// files the policy would refuse to read (and restricted paths) are not
	// searched; the answer counts the policy's skips
	res, err := c.ws.ops.Search(ctx, c.caller(), p.Query, o, c.ws.hide)
	if err != nil {
		return nil, deniedError(err, denyFile)
	}
	return res, nil
}

// searchReplace computes every replacement first, gates each changed file
// as an edit, and only when all are allowed writes them (atomically, file
// by file, through the sandbox). Open documents get the new text too.
func searchReplace(ctx context.Context, c *call) (any, error) {
	p, o, err := c.searchParams(true)
	if err != nil {
		return nil, err
	}
	res, err := c.ws.ops.ReplaceAll(ctx, c.caller(), p.Query, *p.Replacement, o, c.ws.hide)
	if err != nil {
		return nil, deniedError(err, denyFile)
	}
	return map[string]int{"count": res.Count, "skipped": res.Skipped}, nil
}
