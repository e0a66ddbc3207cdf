package shell

import "testing"

// TestProgramExamples runs every example declared with the program
// registry: what each model reports for its examples is part of its
// declaration, checked like the table tests.
func TestProgramExamples(t *testing.T) {
	var exs []example
	for _, p := range programs.all {
		exs = append(exs, p.examples...)
	}
	for _, m := range programs.matchers {
		exs = append(exs, m.examples...)
	}
	exs = append(exs, secretExamples...)
	if len(exs) < 150 {
		t.Fatalf("only %d program examples", len(exs))
	}
	for _, e := range exs {
		t.Run(e.in, func(t *testing.T) {
			a, err := Analyze(e.in, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			for _, w := range e.want {
				if msg := check(a, w); msg != "" {
					t.Errorf("%s: %s\n%s", w, msg, dump(a))
				}
			}
		})
	}
}

// TestRegistry checks that the registry answers by name and by pattern,
// and that a name declared twice is refused.
func TestRegistry(t *testing.T) {
	for _, n := range []string{"rm", "curl", "git", "python3.11", "mkfs.xfs", "sha512sum", "bash", "echo", "psql", "dig", "patch"} {
		if programs.lookup(n) == nil {
			t.Errorf("no model for %s", n)
		}
	}
	for _, n := range []string{"", "python3x", "my-tool", "shasum-not"} {
		if programs.lookup(n) != nil {
			t.Errorf("a model for %q", n)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a name declared twice was accepted")
		}
	}()
	newRegistry([][]program{{{names: []string{"x"}, model: inert}}, {{names: []string{"x"}, model: inert}}}, nil)
}
