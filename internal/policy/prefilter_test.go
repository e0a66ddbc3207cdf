package policy

import (
	"regexp"
	"testing"
)

// TestPrefiltersAreSound: the literal prefilters of argv and input regexes
// only refuse texts the regex itself refuses.
func TestPrefiltersAreSound(t *testing.T) {
	p := mustDefault(t)
	texts := []string{
		"terraform -chdir=x apply -auto-approve", "tofu state rm a", "sudo -i", "doas sh", "pkexec bash",
		"kubectl -n prod get secret x -o yaml", "git credential fill", "ps auxe", "printenv GITHUB_TOKEN",
		"echo $OPENAI_API_KEY", "export LD_PRELOAD=/x.so; make", "cat /proc/$(pgrep x)/environ", "strace -p 1 warden",
		"npm config set script-shell x", "systemctl --user enable x", "direnv allow", "gh auth token", "x", "",
	}
	for _, c := range benchCalls() {
		if s, ok := c.Args["command"].(string); ok {
			texts = append(texts, s)
		}
	}
	n := 0
	check := func(re *regexp.Regexp, match func(string) bool, src string) {
		for _, s := range texts {
			if re.MatchString(s) && !match(s) {
				t.Errorf("%s: prefilter refuses %q, which the regex matches", src, s)
			}
		}
		n++
	}
	for _, r := range p.crules {
		for i := range r.m.argv {
			a := &r.m.argv[i]
			check(a.re, a.match, a.re.String())
		}
		for i := range r.m.input {
			if tp := &r.m.input[i]; tp.re != nil {
				check(tp.re, tp.match, tp.src)
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d patterns checked", n)
	}
	// the prefilters are there: most argv rules name their program first
	if got := leadingLiterals(`^(terraform|tofu)( \S+)* destroy`); len(got) == 0 {
		t.Errorf("no leading literals for terraform|tofu")
	}
	if got := requiredLiterals(`/proc/(\d+|self)/environ`); len(got) == 0 {
		t.Errorf("no required literal for /proc/...")
	}
	for _, expr := range []string{`(?i)^sudo`, `^[a-z]+ x`, `^(a|b*)c`} {
		if got := leadingLiterals(expr); got != nil {
			t.Errorf("%s: leading literals %q, want none", expr, got)
		}
	}
}
