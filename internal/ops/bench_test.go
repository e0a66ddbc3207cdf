package ops_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/sandbox"
	"github.com/warden-dev/warden/internal/search"
	"github.com/warden-dev/warden/internal/workspace"
)

// benchWorkspace is a registered workspace whose terminals are confined
// by the kernel sandbox (confined) or not, on a real core.
func benchWorkspace(b testing.TB, confined bool) *ops.Workspace {
	b.Helper()
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(base, "home", "proj")
	tmp := filepath.Join(base, "tmp")
	for _, d := range []string{root, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	c := coretest.New(b, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(base, "ws.json"), workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil {
		b.Fatal(err)
	}
	o := ops.Options{Core: c, Registry: reg, Shell: "/bin/bash",
		TerminalEnv: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + filepath.Dir(root), "TERM=dumb", "PS1=$ "}}
	if confined {
		if !sandbox.Detect().Enforced() {
			b.Fatal("no Landlock on this kernel")
		}
		o.Launcher = launcher{sandbox.Machine{Home: filepath.Dir(root), TempDirs: []string{tmp}, DataDir: filepath.Join(base, "data")}}
	}
	svc, err := ops.New(o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	ws, err := svc.Workspace(root)
	if err != nil {
		b.Fatal(err)
	}
	return ws
}

// waitOutput returns a function that waits until the workspace's terminal
// output holds a string.
func waitOutput(b *testing.B, ws *ops.Workspace) func(string) {
	ch := make(chan string, 4096)
	ws.Listen(func(n ops.Notice) {
		if n.Method == "terminal.output" {
			ch <- n.Params.(map[string]string)["data"]
		}
	})
	var seen strings.Builder
	return func(s string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for !strings.Contains(seen.String(), s) {
			select {
			case d := <-ch:
				seen.WriteString(d)
			case <-ctx.Done():
				b.Fatalf("no %q in the terminal's output", s)
			}
		}
		seen.Reset()
	}
}

// BenchmarkTerminalCommand is one gated command typed into a terminal, from
// sendText to its output: the shell confined by the kernel sandbox against
// the same shell unconfined (docs/benchmarks.md).
func BenchmarkTerminalCommand(b *testing.B) {
	for _, confined := range []bool{false, true} {
		name := "unconfined"
		if confined {
			name = "sandboxed"
		}
		b.Run(name, func(b *testing.B) {
			ws := benchWorkspace(b, confined)
			wait := waitOutput(b, ws)
			tm, err := ws.CreateTerminal(context.Background(), caller, ops.TerminalOptions{})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				m := "M" + strconv.Itoa(i)
				if err := ws.SendText(context.Background(), caller, tm.ID, "ls -a . > /dev/null; echo "+m+"''X", true, nil); err != nil {
					b.Fatal(err)
				}
				wait(m + "X")
			}
		})
	}
}

// BenchmarkTerminalStart opens a terminal and waits for its shell to
// answer (disposing of it is not timed): confined (warden re-executed,
// Landlock, then exec) against unconfined.
func BenchmarkTerminalStart(b *testing.B) {
	for _, confined := range []bool{false, true} {
		name := "unconfined"
		if confined {
			name = "sandboxed"
		}
		b.Run(name, func(b *testing.B) {
			ws := benchWorkspace(b, confined)
			wait := waitOutput(b, ws)
			for i := 0; i < b.N; i++ {
				tm, err := ws.CreateTerminal(context.Background(), caller, ops.TerminalOptions{})
				if err != nil {
					b.Fatal(err)
				}
				m := "S" + strconv.Itoa(i)
				if err := ws.SendText(context.Background(), caller, tm.ID, "echo "+m+"''X", true, nil); err != nil {
					b.Fatal(err)
				}
				wait(m + "X")
				b.StopTimer()
				if err := ws.DisposeTerminal(tm.ID); err != nil {
					b.Fatal(err)
				}
				<-tm.Done()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkSearchGoSource is search.findInFiles through the operations
// layer (gated, every file checked against the policy's reads) against
// search.Find alone, over Go's own source tree, in the same run.
func BenchmarkSearchGoSource(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	c := coretest.New(b, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(b.TempDir(), "ws.json"), workspace.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err = reg.AddWith(src, workspace.AddOptions{AllowBroad: true}); err != nil {
		b.Fatal(err)
	}
	svc, err := ops.New(ops.Options{Core: c, Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	ws, err := svc.Workspace(src)
	if err != nil {
		b.Fatal(err)
	}
	opts := search.Options{CaseSensitive: true, MaxResults: 1 << 30}
	b.Run("search.Find", func(b *testing.B) {
		for b.Loop() {
			if _, err := search.Find(context.Background(), ws.Root(), "errors.New", opts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ops.Search", func(b *testing.B) {
		for b.Loop() {
			if _, err := ws.Search(context.Background(), caller, "errors.New", opts, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
