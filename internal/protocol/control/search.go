package control

import (
	"context"
	"path/filepath"

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
	if err := c.gate(ctx, "grep", map[string]any{"path": c.ws.root, "pattern": p.Query, "include": o.Include}, false, denyFile); err != nil {
		return nil, err
	}
	res, err := search.Find(ctx, c.ws.root, p.Query, o)
	if err != nil {
		return nil, fail(err, "")
	}
	for i := range res {
		res[i].Path = filepath.Join(c.ws.root, filepath.FromSlash(res[i].Path))
	}
	if res == nil {
		res = []search.Result{}
	}
	return map[string]any{"results": res}, nil
}

// searchReplace computes every replacement first, gates each changed file
// as an edit, and only when all are allowed writes them (atomically, file
// by file, through the sandbox). Open documents get the new text too.
func searchReplace(ctx context.Context, c *call) (any, error) {
	p, o, err := c.searchParams(true)
	if err != nil {
		return nil, err
	}
	type change struct {
		abs  string
		data []byte
	}
	var changes []change
	count, err := search.Replace(ctx, c.ws.root, p.Query, *p.Replacement, o, func(rel string, data []byte) error {
		changes = append(changes, change{abs: filepath.Join(c.ws.root, filepath.FromSlash(rel)), data: data})
		return nil
	})
	if err != nil {
		return nil, fail(err, "")
	}
	for _, ch := range changes {
		if _, err := c.abs(ch.abs); err != nil {
			return nil, err
		}
		if err := c.gate(ctx, "edit", map[string]any{"filePath": ch.abs, "oldString": p.Query, "newString": *p.Replacement}, false, denyFile); err != nil {
			return nil, err
		}
	}
	for _, ch := range changes {
		err := c.ws.svc.fs.WriteFile(ch.abs, ch.data)
		c.recordResult(ctx, "edit", err)
		if err != nil {
			return nil, fail(err, ch.abs)
		}
		if c.ws.svc.editor.IsOpen(ch.abs) {
			if s, err := c.ws.svc.editor.Get(ch.abs); err == nil && !s.IsDirty {
				c.ws.svc.editor.SetContent(ch.abs, string(ch.data))
				c.ws.svc.editor.MarkSaved(ch.abs, string(ch.data))
			}
		}
	}
	return map[string]int{"count": count}, nil
}
