package shell

import (
	"testing"
)

func TestQuoteRoundTrips(t *testing.T) {
	for _, argv := range [][]string{
		{"rm", "--", "/tmp/a b/c"},
		{"git", "log", "-n", "5"},
		{"mv", "it's", "$HOME/x", "~/y", "a\nb", "x=y", ""},
	} {
		line := Join(argv...)
		a, err := Analyze(line, Options{Cwd: "/w"})
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if len(a.Commands) != 1 {
			t.Fatalf("%q: %d commands", line, len(a.Commands))
		}
		got := a.Commands[0].Argv
		if len(got) != len(argv) {
			t.Fatalf("%q parsed to %q, want %q", line, got, argv)
		}
		for i := range argv {
			if got[i] != argv[i] {
				t.Fatalf("%q parsed to %q, want %q", line, got, argv)
			}
		}
	}
	if q := Quote("a\x00b"); q != "'a\x00b'" {
		t.Fatalf("Quote with NUL = %q", q)
	}
}
