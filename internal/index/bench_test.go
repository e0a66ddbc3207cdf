package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/testtools"
	"github.com/warden-dev/warden/internal/wsfs"
)

// goSource copies $GOROOT/src to a temporary directory (so that the
// benchmark can write into it) and returns the copy.
func goSource(b *testing.B) string {
	b.Helper()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(string(bytes.TrimSpace(goroot)), "src")
	if sub := os.Getenv("WARDEN_BENCH_SUBDIR"); sub != "" {
		src = filepath.Join(src, sub) // a smaller corpus, to profile
	}
	dst := filepath.Join(b.TempDir(), "src")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		b.Fatalf("cp: %v %s", err, out)
	}
	// The copy's dirty pages are written back now, not by the kernel's
	// flusher in the middle of the measurements.
	syscall.Sync()
	return dst
}

// BenchmarkGoSource measures, in one run on a copy of $GOROOT/src: the
// cold build (MB/s of wall time and of CPU time, catalog size and live
// heap against the corpus), a repeated literal and regex query against
// ripgrep with the same flags (both times, both match counts, the ratio),
// and save -> searchable latency (the write's own hook, and a write
// outside warden seen by the file watcher).
//
//	go test -run XXX -bench GoSource -benchtime 20x ./internal/index
func BenchmarkGoSource(b *testing.B) {
	rg := testtools.Find(b, "rg")
	ctags := testtools.Find(b, "ctags")
	root := goSource(b)
	ctx := context.Background()

	// The cold build runs once, whatever -benchtime says.
	dir := b.TempDir()
	runtime.GC()
	var ru0, ru1 syscallRusage
	getRusage(&ru0)
	t0 := time.Now()
	x, err := Open(ctx, Options{Root: root, Dir: dir, Ctags: Ctags{Program: ctags}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if err := x.Build(ctx, nil); err != nil {
		b.Fatal(err)
	}
	wall := time.Since(t0)
	getRusage(&ru1)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := x.Status()
	syscall.Sync() // the catalog's writes too (see goSource)
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
		}
		corpus := float64(st.Bytes)
		cpu := ru1.cpu() - ru0.cpu()
		b.ReportMetric(corpus/1e6, "corpus-MB")
		b.ReportMetric(float64(st.Files), "files")
		b.ReportMetric(wall.Seconds(), "build-s")
		b.ReportMetric(corpus/1e6/wall.Seconds(), "MB/s-wall")
		b.ReportMetric(corpus/1e6/cpu.Seconds(), "MB/s-cpu")
		b.ReportMetric(float64(st.DiskBytes)/corpus, "disk-x-corpus")
		b.ReportMetric(float64(ms.HeapAlloc)/corpus, "heap-x-corpus")
		b.ReportMetric(float64(st.MemoryBytes)/corpus, "views-x-corpus")
	})

	for _, c := range queryCases {
		b.Run(c.name, func(b *testing.B) {
			opts := search.Options{UseRegex: c.regex, CaseSensitive: true, MaxResults: 1 << 30}
			args := []string{"--no-config", "--hidden", "--no-require-git", "--case-sensitive",
				"--max-filesize", strconv.Itoa(search.MaxFileSize), "--count-matches", "--no-messages"}
			if !c.regex {
				args = append(args, "--fixed-strings")
			}
			args = append(args, "--", c.query, root)
			// Wall time is what a user waits for; CPU time (ours: the
			// process's, every thread; ripgrep's: the child's) is what the
			// machine's load changes least, so both are reported, as means
			// and as the median of each iteration's ratio (ours and
			// ripgrep's run back to back, so a burst of load elsewhere
			// moves one iteration, not the median).
			run := func() (wall, cpu time.Duration, ours, theirs int) {
				var ru0, ru1 syscallRusage
				getRusage(&ru0)
				t0 := time.Now()
				rs, err := x.Find(ctx, c.query, opts)
				if err != nil {
					b.Fatal(err)
				}
				wall = time.Since(t0)
				getRusage(&ru1)
				cpu = ru1.cpu() - ru0.cpu()
				for _, r := range rs {
					ours += len(r.Matches)
				}
				return wall, cpu, ours, 0
			}
			runRG := func() (wall, cpu time.Duration, _, theirs int) {
				cmd := exec.Command(rg, args...)
				t0 := time.Now()
				out, err := cmd.Output()
				var ee *exec.ExitError
				if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: no match
					b.Fatalf("rg: %v", err)
				}
				wall = time.Since(t0)
				cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				for line := range bytes.Lines(out) {
					i := bytes.LastIndexByte(line, ':')
					n, _ := strconv.Atoi(string(bytes.TrimSpace(line[i+1:])))
					theirs += n
				}
				return wall, cpu, 0, theirs
			}
			// One untimed run of each first (ripgrep's first walk fills
			// the dentry cache), and a collection, so every case starts
			// from the same heap.
			run()
			runRG()
			runtime.GC()
			var ours, theirs, oursCPU, theirsCPU time.Duration
			var ourCount, rgCount int
			var wallRatios, cpuRatios []float64
			for b.Loop() {
				w, cpu, n, _ := run()
				rw, rcpu, _, rn := runRG()
				ours, oursCPU, theirs, theirsCPU = ours+w, oursCPU+cpu, theirs+rw, theirsCPU+rcpu
				ourCount, rgCount = n, rn
				wallRatios = append(wallRatios, float64(rw)/float64(w))
				cpuRatios = append(cpuRatios, float64(rcpu)/float64(cpu))
			}
			n := float64(b.N)
			b.ReportMetric(float64(ours.Nanoseconds())/n, "index-ns/op")
			b.ReportMetric(float64(theirs.Nanoseconds())/n, "rg-ns/op")
			b.ReportMetric(float64(theirs)/float64(ours), "x-faster-than-rg")
			b.ReportMetric(median(wallRatios), "x-faster-median")
			b.ReportMetric(float64(oursCPU.Nanoseconds())/n, "index-cpu-ns/op")
			b.ReportMetric(float64(theirsCPU.Nanoseconds())/n, "rg-cpu-ns/op")
			b.ReportMetric(float64(theirsCPU)/float64(oursCPU), "x-less-cpu-than-rg")
			b.ReportMetric(median(cpuRatios), "x-less-cpu-median")
			b.ReportMetric(float64(ourCount), "matches")
			b.ReportMetric(float64(rgCount), "rg-matches")
		})
	}

	// Save -> searchable through the write's own hook: what warden's
	// writes (any door) cost before they return.
	b.Run("save-hook", func(b *testing.B) {
		var total time.Duration
		i := 0
		for b.Loop() {
			word := fmt.Sprintf("zqxhook%dword", i)
			i++
			p := filepath.Join(root, "zz_bench.go")
			t0 := time.Now()
			if err := os.WriteFile(p, []byte("package http\n\n// "+word+"\nfunc benchSaved() {}\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := x.Update(ctx, p); err != nil {
				b.Fatal(err)
			}
			hs, err := x.Search(ctx, Query{Text: word, Mode: ModeLiteral})
			total += time.Since(t0)
			if err != nil || len(hs) != 1 {
				b.Fatalf("not found: %v %v", hs, err)
			}
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-save-to-searchable")
	})

	// Save -> searchable through the file watcher (a write from outside
	// warden: an editor, a shell): from the write until a query finds it.
	b.Run("save-watch", func(b *testing.B) {
		fsys, err := wsfs.Open(root)
		if err != nil {
			b.Fatal(err)
		}
		defer fsys.Close()
		seen := make(chan string, 1024)
		id, err := fsys.Watch("**", func(c wsfs.Change) {
			x.Notify(c.Path)
			seen <- c.Path
		})
		if err != nil {
			b.Fatal(err)
		}
		defer fsys.Unwatch(id)
		var total time.Duration
		i := 0
		for b.Loop() {
			word := fmt.Sprintf("zqxwatch%dword", i)
			i++
			rel := fmt.Sprintf("zz_watch%d.go", i) // one name per save: no stale event matches
			// An editor's save: a whole new file renamed over the old one
			// (one event, the content complete).
			tmp := filepath.Join(filepath.Dir(root), "zz_watch.tmp")
			t0 := time.Now()
			if err := os.WriteFile(tmp, []byte("package http\n\n// "+word+"\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(root, rel)); err != nil {
				b.Fatal(err)
			}
			for p := range seen {
				if p == rel {
					break
				}
			}
			if err := x.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			hs, err := x.Search(ctx, Query{Text: word, Mode: ModeLiteral})
			total += time.Since(t0)
			if err != nil || len(hs) != 1 {
				b.Fatalf("not found: %v %v", hs, err)
			}
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms-save-to-searchable")
	})
}

// median is the middle value of xs (the mean of the two middle ones).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// queryCases are the exact queries the benchmarks repeat.
var queryCases = []struct {
	name, query string
	regex       bool
}{
	{"literal", "errors.New", false},
	{"regex", `func [A-Za-z_][A-Za-z0-9_]*\(ctx context\.Context`, true},
}

// BenchmarkQueryGoSource repeats BenchmarkGoSource's exact queries alone
// (no ripgrep), reporting the CPU time of each, to profile them:
//
//	go test -run '^$' -bench QueryGoSource -benchtime 200x -cpuprofile cpu.out ./internal/index
func BenchmarkQueryGoSource(b *testing.B) {
	ctags := testtools.Find(b, "ctags")
	root := goSource(b)
	ctx := context.Background()
	x, err := Open(ctx, Options{Root: root, Dir: b.TempDir(), Ctags: Ctags{Program: ctags}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if err := x.Build(ctx, nil); err != nil {
		b.Fatal(err)
	}
	syscall.Sync()
	runtime.GC()
	for _, c := range queryCases {
		b.Run(c.name, func(b *testing.B) {
			opts := search.Options{UseRegex: c.regex, CaseSensitive: true, MaxResults: 1 << 30}
			var ru0, ru1 syscallRusage
			getRusage(&ru0)
			for b.Loop() {
				if _, err := x.Find(ctx, c.query, opts); err != nil {
					b.Fatal(err)
				}
			}
			getRusage(&ru1)
			b.ReportMetric(float64((ru1.cpu()-ru0.cpu()).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkColdBuild is the cold build of a copy of $GOROOT/src
// alone, to profile:
//
//	go test -run '^$' -bench ColdBuild -benchtime 1x -cpuprofile cpu.out ./internal/index
func BenchmarkColdBuild(b *testing.B) {
	ctags := testtools.Find(b, "ctags")
	root := goSource(b)
	ctx := context.Background()
	for b.Loop() {
		dir := b.TempDir()
		var ru0, ru1 syscallRusage
		getRusage(&ru0)
		t0 := time.Now()
		x, err := Open(ctx, Options{Root: root, Dir: dir, Ctags: Ctags{Program: ctags}})
		if err != nil {
			b.Fatal(err)
		}
		phase := ""
		if err := x.Build(ctx, func(p Progress) {
			if p.Phase != phase {
				phase = p.Phase
				b.Logf("%8.2fs %s", time.Since(t0).Seconds(), phase)
			}
		}); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(t0)
		getRusage(&ru1)
		st := x.Status()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		x.Close()
		corpus := float64(st.Bytes)
		b.ReportMetric(float64(ms.HeapAlloc)/corpus, "heap-x-corpus")
		b.ReportMetric(corpus/1e6/wall.Seconds(), "MB/s-wall")
		b.ReportMetric(corpus/1e6/(ru1.cpu()-ru0.cpu()).Seconds(), "MB/s-cpu")
	}
}
