package lsp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/warden-dev/warden/internal/testtools"
)

// BenchmarkDefinition measures a definition request through the Manager
// and, as a baseline, the same request on a raw connection to a separate
// gopls process. It reports both latencies and their ratio.
func BenchmarkDefinition(b *testing.B) {
	gopls := testtools.Find(b, "gopls")
	dir := goModule(b)
	uriB := URIFromPath(filepath.Join(dir, "b.go"))
	pos := posOf(b, goB, "Greet(", 1)
	ctx := context.Background()

	m := NewManager(Options{Logger: testLogger(b), Locate: testtools.Lookup, Env: goEnv})
	defer func() { _ = m.Close() }()
	if err := m.DidOpen(uriB, "go", 1, goB); err != nil {
		b.Fatal(err)
	}
	if _, err := m.Definition(ctx, uriB, pos); err != nil { // warm up
		b.Fatal(err)
	}

	raw := startRawGopls(b, gopls, dir)
	params := &protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: uriB}, Position: pos}
	var warm []protocol.Location
	if err := raw.Call(ctx, "textDocument/definition", params, &warm); err != nil || len(warm) != 1 {
		b.Fatalf("raw definition: %v %v", warm, err)
	}

	b.ResetTimer()
	start := time.Now()
	for range b.N {
		locs, err := m.Definition(ctx, uriB, pos)
		if err != nil || len(locs) != 1 {
			b.Fatalf("Definition = %v, %v", locs, err)
		}
	}
	managerNs := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	start = time.Now()
	for range b.N {
		var locs []protocol.Location
		if err := raw.Call(ctx, "textDocument/definition", params, &locs); err != nil || len(locs) != 1 {
			b.Fatalf("raw definition = %v, %v", locs, err)
		}
	}
	rawNs := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.StopTimer()
	b.ReportMetric(managerNs, "manager-ns/op")
	b.ReportMetric(rawNs, "raw-ns/op")
	b.ReportMetric(managerNs/rawNs, "manager/raw")
}

// startRawGopls runs gopls on dir with a bare connection (no Manager),
// initialized and with b.go open; it is shut down when b ends.
func startRawGopls(b *testing.B, gopls, dir string) *conn {
	cmd := exec.Command(gopls)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), goEnv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// Answer every server request with null, as the minimum a client must do.
	answer := func(string, json.RawMessage) (any, error) { return nil, nil }
	c := newConn(stdout, stdin, testLogger(b), answer, nil)
	done := make(chan struct{})
	go func() {
		_ = c.run()
		_ = cmd.Wait()
		close(done)
	}()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Call(ctx, "shutdown", nil, nil)
		_ = c.Notify("exit", nil)
		_ = stdin.Close()
		select {
		case <-done:
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	root := URIFromPath(dir)
	init := &protocol.InitializeParams{ProcessID: int32(os.Getpid()), Capabilities: clientCapabilities(),
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(root), Name: "demo"}}}
	if err := c.Call(ctx, "initialize", init, nil); err != nil {
		b.Fatal(err)
	}
	if err := c.Notify("initialized", &protocol.InitializedParams{}); err != nil {
		b.Fatal(err)
	}
	doc := &document{uri: URIFromPath(filepath.Join(dir, "b.go")), languageID: "go", version: 1, text: goB}
	if err := c.Notify("textDocument/didOpen", didOpenParams(doc)); err != nil {
		b.Fatal(err)
	}
	return c
}
