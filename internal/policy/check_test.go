package policy

import (
	"strings"
	"testing"
)

const badPolicy = `version: 1
rules:
  - id: ok-rule
    effect: allow
    match:
      tools: [read]
  - id: no-effect
    match:
      tools: [bash]
  - id: typo
    effect: deny
    mach:
      tools: [write]
  - effect: maybe
  - id: ok-rule
    effect: deny
    when: "call.tool ==="
tests:
  - command: ls
    expect: allow
`

func TestCheckReportsEveryProblemWithRuleAndLine(t *testing.T) {
	p, problems := Check([]byte(badPolicy), testEnv())
	if p != nil {
		t.Fatal("a broken policy compiled")
	}
	var got []string
	for _, pr := range problems {
		got = append(got, pr.String())
	}
	joined := strings.Join(got, "\n")
	for _, want := range []string{
		`line 12: rule 3 ("typo"): field mach not found`,
		`line 7: rule 2 ("no-effect"): missing effect`,
		`line 14: rule 4: missing id`,
		`line 15: rule 5 ("ok-rule"): duplicate id (rule 1 has it too)`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("problems lack %q:\n%s", want, joined)
		}
	}
	// the file Parse refuses, Check refuses: never one accepted by one and not the other
	if _, err := Parse([]byte(badPolicy), testEnv()); err == nil {
		t.Fatal("Parse accepted it")
	}
}

func TestCheckRunsEveryTest(t *testing.T) {
	src := `version: 1
default: ask
rules:
  - id: reads
    effect: allow
    match: {tools: [read]}
tests:
  - command: ls
    expect: allow
  - call: {tool: read, args: {filePath: ~/project/a}}
    expect: allow
  - name: wrong
    command: rm x
    expect: deny
`
	p, problems := Check([]byte(src), testEnv())
	if p == nil {
		t.Fatalf("compiles: %v", problems)
	}
	if len(problems) != 2 || problems[0].Test != 1 || problems[0].Line != 8 || problems[1].Test != 3 || problems[1].Line != 12 || !strings.Contains(problems[1].Message, "wrong") {
		t.Fatalf("problems %+v", problems)
	}
	if _, problems := Check(DefaultYAML(), testEnv()); len(problems) != 0 {
		t.Fatalf("the built-in policy: %v", problems)
	}
}

// FuzzCheck: Check never panics, and agrees with Parse on what is valid.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(badPolicy))
	f.Add([]byte("version: 1\nrules: []\n"))
	f.Add([]byte("rules:\n  - id: x\n    effect: allow\n    match: {commands: ['rm']}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, problems := Check(data, testEnv())
		_, err := Parse(data, testEnv())
		if (len(problems) == 0) != (err == nil) {
			t.Fatalf("Check %v, Parse %v", problems, err)
		}
	})
}
