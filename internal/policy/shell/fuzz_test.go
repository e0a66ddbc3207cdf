package shell

import (
	"strings"
	"testing"
)

func FuzzAnalyze(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in)
	}
	f.Add(":(){ :|:& };:")
	f.Add("a{1..100000}b")
	f.Add("eval eval eval eval eval eval eval eval eval eval rm")
	f.Fuzz(func(t *testing.T, src string) {
		a, err := Analyze(src, testOpts)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		if len(a.Commands) > MaxCommands {
			t.Fatalf("%d commands", len(a.Commands))
		}
		for _, c := range a.Commands {
			if c.Span.Start < 0 || c.Span.End > len(src) || c.Span.Start > c.Span.End {
				t.Fatalf("span %+v out of range for %q", c.Span, src)
			}
			if len(c.Via) > MaxDepth*8 {
				t.Fatalf("via too deep: %v", c.Via)
			}
		}
	})
}
