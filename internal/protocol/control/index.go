package control

import (
	"context"

	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/jsonrpc"
)

// indexMethods are the code index's methods: warden's own, beside the
// spec's search.* (which the index answers too).
func indexMethods() map[string]method {
	return map[string]method{
		"index.search": indexSearch,
		"index.status": indexStatus,
		"index.build":  indexBuild,
	}
}

// indexSearchParams are index.search's params: a query in the index's
// query language, refined by the fields that are set.
type indexSearchParams struct {
	Query         string `json:"query"`
	Mode          string `json:"mode,omitempty"`
	Limit         int    `json:"limit,omitempty"`
	CaseSensitive bool   `json:"caseSensitive,omitempty"`
	Include       string `json:"include,omitempty"`
	Lang          string `json:"lang,omitempty"`
	Kind          string `json:"kind,omitempty"`
}

func indexSearch(ctx context.Context, c *call) (any, error) {
	var p indexSearchParams
	if err := c.params(&p); err != nil {
		return nil, err
	}
	q, err := index.ParseQuery(p.Query)
	if err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: %v", err)
	}
	if q.Text == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: query is required")
	}
	if p.Limit < 0 {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: limit must not be negative")
	}
	switch index.Mode(p.Mode) {
	case "":
	case index.ModeRanked, index.ModeLiteral, index.ModeRegex, index.ModeSymbol:
		q.Mode = index.Mode(p.Mode)
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: mode %q: want ranked, literal, regex or symbol", p.Mode)
	}
	q.Limit = p.Limit
	q.CaseSensitive = q.CaseSensitive || p.CaseSensitive
	if p.Include != "" {
		q.Include = p.Include
	}
	if p.Lang != "" {
		q.Lang = p.Lang
	}
	if p.Kind != "" {
		q.Kind = p.Kind
	}
	// the restricted paths are never answered from
	for _, g := range c.ws.srv.opts.Settings.Security.RestrictedPaths {
		if q.Exclude != "" {
			q.Exclude += ","
		}
		q.Exclude += g
	}
	res, err := c.ws.ops.IndexSearch(ctx, c.caller(), q, c.ws.hide)
	if err != nil {
		return nil, deniedError(err, denyFile)
	}
	return res, nil
}

func indexStatus(_ context.Context, c *call) (any, error) {
	st, err := c.ws.ops.IndexStatus()
	if err != nil {
		return nil, fail(err, "")
	}
	return st, nil
}

// indexBuild rebuilds the index; the client hears "index.progress"
// notifications (an index.Progress) while it runs.
func indexBuild(ctx context.Context, c *call) (any, error) {
	st, err := c.ws.ops.IndexBuild(ctx, c.caller(), func(p index.Progress) { c.ss.notify("index.progress", p) })
	if err != nil {
		return nil, deniedError(err, denyOther)
	}
	return st, nil
}
