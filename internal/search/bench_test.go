package search

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/testtools"
)

// BenchmarkFindGoSource searches Go's own source tree with Find and, in the
// same run, with ripgrep given equivalent flags, and reports both times,
// both match counts and the ratio (warden time / rg time).
func BenchmarkFindGoSource(b *testing.B) {
	rg := testtools.Find(b, "rg")
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(string(bytes.TrimSpace(goroot)), "src")
	cases := []struct {
		name, query string
		regex       bool
	}{
		{"literal", "errors.New", false},
		{"regex", `func [A-Za-z_][A-Za-z0-9_]*\(ctx context\.Context`, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			opts := Options{UseRegex: c.regex, CaseSensitive: true, MaxResults: 1 << 30}
			args := []string{"--no-config", "--hidden", "--no-require-git", "--case-sensitive",
				"--max-filesize", strconv.Itoa(MaxFileSize), "--count-matches", "--no-messages"}
			if !c.regex {
				args = append(args, "--fixed-strings")
			}
			args = append(args, "--", c.query, src)
			var ours, theirs time.Duration
			var ourCount, rgCount int
			for b.Loop() {
				t0 := time.Now()
				rs, err := Find(context.Background(), src, c.query, opts)
				if err != nil {
					b.Fatal(err)
				}
				ours += time.Since(t0)
				ourCount = 0
				for _, r := range rs {
					ourCount += len(r.Matches)
				}
				t0 = time.Now()
				out, err := exec.Command(rg, args...).Output()
				if err != nil {
					b.Fatalf("rg: %v", err)
				}
				theirs += time.Since(t0)
				rgCount = 0
				for line := range bytes.Lines(out) {
					i := bytes.LastIndexByte(line, ':')
					n, _ := strconv.Atoi(string(bytes.TrimSpace(line[i+1:])))
					rgCount += n
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(ours.Nanoseconds())/n, "warden-ns/op")
			b.ReportMetric(float64(theirs.Nanoseconds())/n, "rg-ns/op")
			b.ReportMetric(float64(ours)/float64(theirs), "x-rg")
			b.ReportMetric(float64(ourCount), "matches")
			b.ReportMetric(float64(rgCount), "rg-matches")
		})
	}
}
