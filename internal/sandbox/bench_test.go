package sandbox_test

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/sandbox"
)

// BenchmarkCommand measures starting `true` through sandbox.Command (the
// re-exec child: decode the profile, confine, exec) against exec.Command
// of `true`, interleaved in one run; it reports the medians and their
// ratio. The child here is this test binary, as warden's own binary is in
// production.
func BenchmarkCommand(b *testing.B) {
	f := newFixtureTB(b)
	p, err := sandbox.Build(policy.SandboxConfig{}, f.machine, f.ws)
	if err != nil {
		b.Fatal(err)
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	confined := func() time.Duration {
		start := time.Now()
		cmd, err := sandbox.Command(context.Background(), p, []string{truePath})
		if err != nil {
			b.Fatal(err)
		}
		cmd.Env = f.env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		return time.Since(start)
	}
	plain := func() time.Duration {
		start := time.Now()
		cmd := exec.Command(truePath)
		cmd.Env = f.env
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	confined()
	b.ResetTimer()
	var cs, ps []time.Duration
	for i := 0; i < b.N; i++ {
		cs = append(cs, confined())
		ps = append(ps, plain())
	}
	b.StopTimer()
	slices.Sort(cs)
	slices.Sort(ps)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(cs[len(cs)/2]), "sandboxed-p50-ms")
	b.ReportMetric(ms(ps[len(ps)/2]), "plain-p50-ms")
	b.ReportMetric(float64(cs[len(cs)/2])/float64(ps[len(ps)/2]), "ratio-p50")
}
