package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/search"
)

// The hits the search tools return to the model: by default, and at most.
const (
	defaultSearchHits = 10
	maxSearchHits     = 50
)

// addSearchTools adds the code index's tools: "search" (ranked, for a
// description or identifiers) and "symbol" (definitions by name). Each
// query is gated as a grep of the workspace and recorded like every
// call; while the index is not ready (its first build) they fall back to
// walking the tree.
func addSearchTools(ts map[string]tool) {
	ts["search"] = tool{readOnly: true, def: provider.Tool{Name: "search",
		Description: "Find the code that does something: a ranked search of the workspace's code index for a description in words or identifiers (\"parse the request header\", \"parseHeader\"). Returns the best chunks (path, lines, enclosing symbol, first line). Use grep for an exact pattern.",
		Schema:      schema(`"query":{"type":"string"},"include":{"type":"string","description":"comma-separated globs of the paths to search"},"limit":{"type":"integer","description":"most hits (default 10, at most 50)"}`, "query")},
		run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
			return t.indexQuery(ctx, a, "query", index.ModeRanked)
		}}
	ts["symbol"] = tool{readOnly: true, def: provider.Tool{Name: "symbol",
		Description: "Look definitions (functions, methods, types, classes, ...) up by name in the workspace's code index: exact names first, then names that start with it. Returns each definition's path, lines and kind.",
		Schema:      schema(`"name":{"type":"string"},"kind":{"type":"string","description":"only definitions of this kind (function, method, type, class, ...)"},"include":{"type":"string","description":"comma-separated globs of the paths to search"},"limit":{"type":"integer","description":"most hits (default 10, at most 50)"}`, "name")},
		run: func(ctx context.Context, t *toolCtx, a map[string]any) (string, error) {
			return t.indexQuery(ctx, a, "name", index.ModeSymbol)
		}}
}

// indexQuery runs a search or symbol call: on the index when it is
// ready, otherwise by walking the tree.
func (t *toolCtx) indexQuery(ctx context.Context, a map[string]any, key string, mode index.Mode) (string, error) {
	text, err := str(a, key, true)
	if err != nil {
		return "", err
	}
	inc, err := str(a, "include", false)
	if err != nil {
		return "", err
	}
	kind, err := str(a, "kind", false)
	if err != nil {
		return "", err
	}
	limit := intArg(a, "limit")
	if limit <= 0 {
		limit = defaultSearchHits
	}
	limit = min(limit, maxSearchHits)
	if !t.ws.IndexReady() {
		return t.walkSearch(ctx, text, inc, mode, limit)
	}
	res, err := t.ws.IndexSearch(ctx, t.caller, index.Query{Text: text, Mode: mode, Include: inc, Kind: kind, Limit: limit}, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "%s:%d-%d", h.Path, h.Line, h.EndLine)
		if h.Symbol != "" {
			fmt.Fprintf(&b, " %s (%s)", h.Symbol, h.Kind)
		}
		if h.Preview != "" {
			b.WriteString("\n    " + strings.TrimSpace(h.Preview))
		}
		b.WriteString("\n")
	}
	if res.Skipped > 0 {
		fmt.Fprintf(&b, "[%d file(s) left out: the policy does not let them be read]\n", res.Skipped)
	}
	if len(res.Hits) == 0 {
		return "no match for " + text, nil
	}
	return clip(b.String(), 50000), nil
}

// walkSearch answers a search or symbol call by walking the tree (a grep,
// gated and recorded the same way): for a symbol, lines that define or
// use the name as a word; for a description, lines holding any of its
// words, in path order, not ranked.
func (t *toolCtx) walkSearch(ctx context.Context, text, inc string, mode index.Mode, limit int) (string, error) {
	var pat string
	if mode == index.ModeSymbol {
		pat = `\b` + regexp.QuoteMeta(text) + `\w*`
	} else {
		var words []string
		for _, w := range strings.Fields(text) {
			if w = strings.Trim(w, ".,;:!?\"'()[]{}"); len(w) >= 3 {
				words = append(words, regexp.QuoteMeta(w))
			}
		}
		if len(words) == 0 {
			words = []string{regexp.QuoteMeta(text)}
		}
		pat = strings.Join(words, "|")
	}
	res, err := t.ws.Search(ctx, t.caller, pat, search.Options{UseRegex: true, Include: inc, MaxResults: limit}, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("[the code index is still being built: plain text matches in path order, not ranked]\n")
	n := 0
	for _, r := range res.Results {
		rel, err := filepath.Rel(t.ws.Root(), r.Path)
		if err != nil {
			rel = r.Path
		}
		for _, m := range r.Matches {
			fmt.Fprintf(&b, "%s:%d\n    %s\n", filepath.ToSlash(rel), m.Range.Start.Line+1, strings.TrimSpace(m.Preview))
			n++
		}
	}
	if res.Skipped > 0 {
		fmt.Fprintf(&b, "[%d file(s) left out: the policy does not let them be read]\n", res.Skipped)
	}
	if n == 0 {
		return "no match for " + text + " (the code index is still being built: searched the files' text)", nil
	}
	return clip(b.String(), 50000), nil
}
