package policy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpus2Case is one line of testdata/corpus2/*.jsonl (and of every later
// corpus in the same format, testdata/corpus3/…): a call, the home directory
// to judge it with, and the decision the built-in default policy is expected
// to make. Each of these corpora was written without looking at the engine
// first, to catch overfitting.
type corpus2Case struct {
	Home   string `json:"home"`
	Call   Call   `json:"call"`
	Expect Action `json:"expect"`
	Why    string `json:"why"`

	file string
	line int
}

func loadCorpus2(t *testing.T, dir string) []corpus2Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no testdata/%s/*.jsonl files", dir)
	}
	sort.Strings(files)
	var cases []corpus2Case
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		n := 0
		for sc.Scan() {
			n++
			raw := strings.TrimSpace(sc.Text())
			if raw == "" || strings.HasPrefix(raw, "//") {
				continue
			}
			var c corpus2Case
			dec := json.NewDecoder(strings.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			switch c.Expect {
			case Allow, Deny, Ask:
			default:
				t.Fatalf("%s:%d: bad expect %q", f, n, c.Expect)
			}
			if c.Home == "" || c.Call.Tool == "" || c.Call.Workspace == "" {
				t.Fatalf("%s:%d: home, call.tool and call.workspace are required", f, n)
			}
			c.file, c.line = filepath.Base(f), n
			cases = append(cases, c)
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fh.Close()
	}
	return cases
}

func corpus2Describe(c Call) string {
	if cmd, ok := c.Args["command"].(string); ok {
		return fmt.Sprintf("%s: %q", c.Tool, cmd)
	}
	b, _ := json.Marshal(c.Args)
	return fmt.Sprintf("%s %s", c.Tool, b)
}

// TestCorpus2 runs the independent second corpus through the built-in
// default policy and reports every case whose decision differs from its label.
func TestCorpus2(t *testing.T) { runCorpus2(t, "corpus2") }

// TestCorpus3 runs the third independent corpus (same format as the second).
func TestCorpus3(t *testing.T) { runCorpus2(t, "corpus3") }

func runCorpus2(t *testing.T, dir string) {
	cases := loadCorpus2(t, dir)
	policies := map[string]*Policy{}
	get := func(home string) *Policy {
		if p, ok := policies[home]; ok {
			return p
		}
		p, err := Default(Env{
			Home:          home,
			TempDirs:      []string{"/tmp", "/var/tmp", "/private/tmp"},
			ProtectedDirs: []string{home + "/.local/share/warden", home + "/.config/warden"},
		})
		if err != nil {
			t.Fatalf("Default(home=%s): %v", home, err)
		}
		policies[home] = p
		return p
	}

	type tally struct{ total, ok int }
	byLabel := map[Action]*tally{Allow: {}, Deny: {}, Ask: {}}
	confusion := map[string]int{}
	for _, c := range cases {
		p := get(c.Home)
		d := p.Decide(c.Call)
		tl := byLabel[c.Expect]
		tl.total++
		if d.Action == c.Expect {
			tl.ok++
			continue
		}
		confusion[fmt.Sprintf("expected %s, got %s", c.Expect, d.Action)]++
		c, d := c, d
		t.Run(fmt.Sprintf("%s:%d", c.file, c.line), func(t *testing.T) {
			t.Errorf("%s\n\tcwd=%s workspace=%s home=%s\n\texpected %s (%s)\n\tgot      %s: reason=%q rule=%q span=%q",
				corpus2Describe(c.Call), c.Call.Cwd, c.Call.Workspace, c.Home,
				c.Expect, c.Why, d.Action, d.Reason, d.Rule, d.Span)
		})
	}

	total, ok := 0, 0
	for _, a := range []Action{Allow, Deny, Ask} {
		tl := byLabel[a]
		total += tl.total
		ok += tl.ok
		t.Logf("%-5s %3d/%3d correct", a, tl.ok, tl.total)
	}
	keys := make([]string, 0, len(confusion))
	for k := range confusion {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("  %s: %d", k, confusion[k])
	}
	t.Logf("total %d/%d correct", ok, total)
}
