package doortest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/event"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/ops"
)

// searchFiles is a workspace for the search tools.
var searchFiles = map[string]string{
	"wire/header.go": "package wire\n\nfunc parseHeader(line string) (string, string) {\n\tk, v, _ := cut(line, ':')\n\treturn k, v\n}\n",
	"wire/body.go":   "package wire\n\nfunc readBody(n int) []byte { return make([]byte, n) }\n",
	"notes.txt":      "the header of the letter\n",
}

// searchHarness is a harness whose workspace holds searchFiles, with the
// code index on when indexed.
func searchHarness(t *testing.T, script openaifake.Script, indexed bool) *harness {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range searchFiles {
		abs := filepath.Join(dir, "ws", filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := harnessOptions{dir: dir}
	if indexed {
		idx := t.TempDir()
		o.ops = func(oo *ops.Options) { oo.IndexDir = idx }
	}
	return newHarness(t, script, o)
}

// TestSearchToolsUseTheIndex: the agent's search (ranked) and symbol
// tools answer from the code index, each call gated as a grep and
// recorded with its result.
func TestSearchToolsUseTheIndex(t *testing.T) {
	h := searchHarness(t, queue(
		openaifake.Reply{Tool: "search", Args: map[string]any{"query": "parse the header"}},
		openaifake.Reply{Tool: "symbol", Args: map[string]any{"name": "readBo"}},
		openaifake.Reply{Tool: "search", Args: map[string]any{"limit": 3}},
		openaifake.Reply{Text: "Found."},
	), true)
	ws, err := h.ops.Workspace(h.root)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.IndexFlush(context.Background()); err != nil { // the first build is done
		t.Fatal(err)
	}
	c := h.dial()
	id := c.create(h)
	if res := c.message(id, "where is the header parsed?"); res.StopReason != agent.StopEnd || res.Text != "Found." {
		t.Fatalf("turn = %+v", res)
	}
	reqs := h.fake.Requests()
	got := reqs[len(reqs)-1].ToolResults()
	if len(got) != 3 {
		t.Fatalf("the model was told %q", got)
	}
	// ranked: the function first, with its lines and symbol
	if first, _, _ := strings.Cut(got[0], "\n"); first != "wire/header.go:3-6 parseHeader (function)" || strings.Contains(got[0], "still being built") {
		t.Errorf("search told the model %q", got[0])
	}
	if first, _, _ := strings.Cut(got[1], "\n"); first != "wire/body.go:3-3 readBody (function)" {
		t.Errorf("symbol told the model %q", got[1])
	}
	if !strings.Contains(got[2], `"query" is required`) {
		t.Errorf("a call without its query: %q", got[2])
	}
	// the two queries passed the gate as greps, the third was refused
	// before it; each was recorded with its result
	decisions := h.events(id, event.ToolDecision)
	results := h.events(id, event.ToolResult)
	if len(decisions) != 3 || len(results) != 3 {
		t.Fatalf("%d decisions, %d results", len(decisions), len(results))
	}
	for i, want := range []string{"allow", "allow", "deny"} {
		if dd, _ := event.DataOf[event.ToolDecisionData](decisions[i]); dd.Decision != want {
			t.Errorf("decision %d: %+v, want %s", i, dd, want)
		}
	}
	calls := h.events(id, event.ToolCall)
	grep := 0
	for _, e := range calls {
		if strings.Contains(string(e.Data), `"grep"`) {
			grep++
		}
	}
	if grep != 2 {
		t.Errorf("%d calls recorded as a grep, want 2", grep)
	}
}

// TestSearchToolsWalkWithoutIndex: with no index ready, the tools answer
// by walking the tree, and say so.
func TestSearchToolsWalkWithoutIndex(t *testing.T) {
	h := searchHarness(t, queue(
		openaifake.Reply{Tool: "search", Args: map[string]any{"query": "header parse"}},
		openaifake.Reply{Tool: "symbol", Args: map[string]any{"name": "readBody"}},
		openaifake.Reply{Text: "Found."},
	), false)
	c := h.dial()
	id := c.create(h)
	if res := c.message(id, "where is the header parsed?"); res.StopReason != agent.StopEnd {
		t.Fatalf("turn = %+v", res)
	}
	reqs := h.fake.Requests()
	got := reqs[len(reqs)-1].ToolResults()
	if len(got) != 2 || !strings.Contains(got[0], "still being built") || !strings.Contains(got[0], "notes.txt:1") ||
		!strings.Contains(got[0], "wire/header.go:3") || !strings.Contains(got[1], "wire/body.go:3\n    func readBody") {
		t.Fatalf("the model was told %q", got)
	}
}
