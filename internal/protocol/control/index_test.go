package control_test

import (
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/ops"
)

// The control door's index.* methods: search in each mode, status and a
// build with its progress notifications; bad params are -32602 and
// change nothing; restricted paths are never answered from.
func TestIndexMethods(t *testing.T) {
	idxDir := t.TempDir()
	e := newEnvWith(t, config.Control{Security: config.ControlSecurity{RestrictedPaths: []string{"private/**"}}}, coretest.Options{},
		func(o *ops.Options) { o.IndexDir = idxDir })
	e.t = t
	write(t, e.root, "wire/header.go", "package wire\n\n// parseHeader reads one header line.\nfunc parseHeader(line string) string { return line }\n")
	write(t, e.root, "notes.txt", "the okapi grazes\n")
	write(t, e.root, "private/okapi.txt", "okapi secrets\n")
	c := e.authed()

	hits := func(r map[string]any) []map[string]any {
		t.Helper()
		hs, ok := r["hits"].([]any)
		if !ok {
			t.Fatalf("no hits in %v", r)
		}
		var out []map[string]any
		for _, h := range hs {
			out = append(out, h.(map[string]any))
		}
		return out
	}
	// ranked (the default mode), with the query language's filters
	hs := hits(c.call("index.search", map[string]any{"query": "parse header"}))
	if len(hs) == 0 || hs[0]["path"] != "wire/header.go" || hs[0]["symbol"] != "parseHeader" {
		t.Fatalf("ranked: %v", hs)
	}
	hs = hits(c.call("index.search", map[string]any{"query": "parseHead", "mode": "symbol"}))
	if len(hs) != 1 || hs[0]["kind"] != "function" || hs[0]["line"] != float64(3) {
		t.Fatalf("symbol: %v", hs)
	}
	hs = hits(c.call("index.search", map[string]any{"query": "okapi", "mode": "literal"}))
	if len(hs) != 1 || hs[0]["path"] != "notes.txt" {
		t.Fatalf("literal (restricted paths left out): %v", hs)
	}
	hs = hits(c.call("index.search", map[string]any{"query": `oka.i gr`, "mode": "regex", "limit": 1}))
	if len(hs) != 1 || hs[0]["line"] != float64(1) {
		t.Fatalf("regex: %v", hs)
	}
	if hs := hits(c.call("index.search", map[string]any{"query": "parse header lang:python"})); len(hs) != 0 {
		t.Fatalf("lang:python: %v", hs)
	}

	st := c.call("index.status", nil)
	if st["generation"] == "" || st["files"].(float64) < 2 || st["building"] != false {
		t.Fatalf("status: %v", st)
	}
	gen := st["generation"]
	b := c.call("index.build", nil)
	if b["generation"] == "" || b["generation"] == gen {
		t.Fatalf("build: %v (was %v)", b, gen)
	}
	c.note(method("index.progress"))

	// bad params: -32602, and the index is as it was
	for _, p := range []any{
		map[string]any{},
		map[string]any{"query": ""},
		map[string]any{"query": "x", "mode": "fuzzy"},
		map[string]any{"query": "x", "limit": -1},
		map[string]any{"query": "x mode:nope"},
		map[string]any{"query": 42},
		[]any{"x"},
	} {
		c.fails(-32602, "index.search", p)
	}
	if st := c.call("index.status", nil); st["generation"] != b["generation"] || st["files"] != b["files"] {
		t.Fatalf("status after bad params: %v, want %v", st, b)
	}
}
