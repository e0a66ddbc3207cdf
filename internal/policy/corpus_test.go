package policy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusCase is one line of testdata/corpus/*.jsonl: a call as a door hands
// it to the policy, the decision the built-in default policy must reach, and
// why. The corpus is written independently of the engine, the way an outside
// reviewer would label calls, so a mismatch is a finding about the engine (or
// a label to argue about), never something to paper over here.
type corpusCase struct {
	Call   Call   `json:"call"`
	Expect Action `json:"expect"`
	Why    string `json:"why"`

	file string
	line int
}

// corpusEnv is the machine every corpus case is labelled for.
var corpusEnv = Env{
	Home:          "/home/dev",
	TempDirs:      []string{"/tmp", "/var/tmp"},
	ProtectedDirs: []string{"/home/dev/.local/share/warden", "/home/dev/.config/warden"},
}

// loadCorpus reads every case of every testdata/corpus/*.jsonl file. Blank
// lines are skipped; anything else that is not a well-formed case fails the
// test, so a typo can never silently drop a case.
func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files in testdata/corpus")
	}
	var cases []corpusCase
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			raw := bytes.TrimSpace(sc.Bytes())
			if len(raw) == 0 {
				continue
			}
			var c corpusCase
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&c); err != nil {
				t.Errorf("%s:%d: malformed case: %v", file, line, err)
				continue
			}
			switch {
			case c.Call.Tool == "":
				t.Errorf("%s:%d: call.tool is empty", file, line)
				continue
			case c.Expect != Allow && c.Expect != Deny && c.Expect != Ask:
				t.Errorf("%s:%d: expect is %q, want allow, deny or ask", file, line, c.Expect)
				continue
			}
			c.file, c.line = filepath.Base(file), line
			cases = append(cases, c)
		}
		if err := sc.Err(); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		f.Close()
	}
	return cases
}

// describeCall renders a call for a failure message: the command line for
// shell tools, the tool and path (or its other arguments) otherwise.
func describeCall(c Call) string {
	if cmd, ok := c.Args["command"].(string); ok {
		return fmt.Sprintf("%s: %s", c.Tool, cmd)
	}
	for _, key := range []string{"filePath", "file_path", "path", "url"} {
		if v, ok := c.Args[key].(string); ok {
			return fmt.Sprintf("%s %s", c.Tool, v)
		}
	}
	b, _ := json.Marshal(c.Args)
	return fmt.Sprintf("%s %s", c.Tool, b)
}

// TestCorpus runs the labelled corpus through the built-in default policy.
// Each case is a subtest named file:line, so one case reruns with
//
//	go test ./internal/policy/ -run 'TestCorpus/shell-git.jsonl:12$'
func TestCorpus(t *testing.T) {
	p, err := Default(corpusEnv)
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	cases := loadCorpus(t)

	type tally struct{ total, correct int }
	byExpect := map[Action]*tally{Allow: {}, Deny: {}, Ask: {}}
	byFile := map[string]*tally{}
	confusion := map[string]int{} // "expected->got"

	for _, c := range cases {
		name := fmt.Sprintf("%s:%d", c.file, c.line)
		t.Run(name, func(t *testing.T) {
			if byFile[c.file] == nil {
				byFile[c.file] = &tally{}
			}
			byExpect[c.Expect].total++
			byFile[c.file].total++
			d := p.Decide(c.Call)
			confusion[fmt.Sprintf("%s->%s", c.Expect, d.Action)]++
			if d.Action == c.Expect {
				byExpect[c.Expect].correct++
				byFile[c.file].correct++
				return
			}
			cwd := c.Call.Cwd
			if cwd == "" {
				cwd = c.Call.Workspace
			}
			t.Errorf("%s\n\tcall:     %s\n\tcwd:      %s\n\texpected: %s (%s)\n\tgot:      %s\n\treason:   %s\n\trule:     %s\n\targv:     %q\n\tspan:     %q",
				name, describeCall(c.Call), cwd, c.Expect, c.Why, d.Action, d.Reason, d.Rule, d.Argv, d.Span)
		})
	}

	total, correct := 0, 0
	for _, a := range []Action{Deny, Allow, Ask} {
		tl := byExpect[a]
		total += tl.total
		correct += tl.correct
		t.Logf("%-5s %4d/%-4d correct", a+":", tl.correct, tl.total)
	}
	t.Logf("all:  %4d/%-4d correct", correct, total)
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		t.Logf("  %-24s %4d/%-4d", f, byFile[f].correct, byFile[f].total)
	}
	var off []string
	for k, n := range confusion {
		if from, to, _ := strings.Cut(k, "->"); from != to {
			off = append(off, fmt.Sprintf("%s: %d", k, n))
		}
	}
	sort.Strings(off)
	if len(off) > 0 {
		t.Logf("mismatches (expected->got): %s", strings.Join(off, ", "))
	}
}
