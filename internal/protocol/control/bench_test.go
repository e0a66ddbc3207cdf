package control_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/lsp"
	"github.com/warden-dev/warden/internal/testtools"

	"go.lsp.dev/protocol"
)

// roundTrip sends one request on ws and waits for its answer.
func roundTrip(b *testing.B, ws *websocket.Conn, msg []byte) {
	ctx := context.Background()
	if err := ws.Write(ctx, websocket.MessageText, msg); err != nil {
		b.Fatal(err)
	}
	if _, _, err := ws.Read(ctx); err != nil {
		b.Fatal(err)
	}
}

// echoServer is the baseline: a bare WebSocket echo on loopback.
func echoServer(b *testing.B) *websocket.Conn {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		for {
			typ, m, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if c.Write(r.Context(), typ, m) != nil {
				return
			}
		}
	}))
	b.Cleanup(srv.Close)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, "") })
	return ws
}

// doorClient is an authenticated raw connection to a control door.
func doorClient(b *testing.B, e *env) *websocket.Conn {
	ctx := context.Background()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http"), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close(websocket.StatusNormalClosure, "") })
	_, m, err := ws.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var ch struct {
		Params struct{ Nonce string } `json:"params"`
	}
	json.Unmarshal(m, &ch)
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "auth.authenticate", "params": map[string]string{"token": token, "nonce": ch.Params.Nonce}})
	roundTrip(b, ws, msg)
	return ws
}

func benchEnv(b *testing.B) *env {
	e := newEnvTB(b, config.Control{RateLimit: config.RateLimit{Enabled: new(bool)}})
	return e
}

// BenchmarkReadFileRoundTrip measures fs.readFile through the door (auth'd
// connection, gate decision durable in SQLite, os.Root read) against the
// same-sized message echoed by a bare WebSocket server, in one run.
func BenchmarkReadFileRoundTrip(b *testing.B) {
	e := benchEnv(b)
	os.WriteFile(filepath.Join(e.root, "a.txt"), []byte(strings.Repeat("x", 1024)), 0o644)
	door := doorClient(b, e)
	echo := echoServer(b)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"fs.readFile","params":{"path":"a.txt"}}`)
	var doorT, echoT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		roundTrip(b, door, req)
		doorT += time.Since(s)
		s = time.Now()
		roundTrip(b, echo, req)
		echoT += time.Since(s)
	}
	b.ReportMetric(float64(doorT.Microseconds())/float64(b.N), "door-µs/op")
	b.ReportMetric(float64(echoT.Microseconds())/float64(b.N), "echo-µs/op")
	b.ReportMetric(float64(doorT)/float64(echoT), "ratio")
}

// BenchmarkGoToDefinition measures state.goToDefinition through the door
// against the same request sent straight to a language-server manager of
// its own (gopls over stdio, no door, no gate), in one run.
func BenchmarkGoToDefinition(b *testing.B) {
	gopls := testtools.Find(b, "gopls")
	b.Setenv("PATH", filepath.Dir(gopls)+":"+os.Getenv("PATH"))
	b.Setenv("GOPROXY", "off")
	e := benchEnv(b)
	os.WriteFile(filepath.Join(e.root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(e.root, "lib.go"), []byte("package m\n\nfunc Add(a, b int) int { return a + b }\n"), 0o644)
	main := "package m\n\nfunc use() int { return Add(1, 2) }\n"
	os.WriteFile(filepath.Join(e.root, "main.go"), []byte(main), 0o644)
	door := doorClient(b, e)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"state.goToDefinition","params":{"path":"main.go","position":{"line":2,"character":25}}}`)
	roundTrip(b, door, req) // starts gopls

	direct := lsp.NewManager(lsp.Options{Locate: testtools.Lookup, Root: func(string, string) string { return e.root }})
	b.Cleanup(func() { direct.Close() })
	u := lsp.URIFromPath(filepath.Join(e.root, "main.go"))
	if err := direct.DidOpen(u, "go", 1, main); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	pos := protocol.Position{Line: 2, Character: 25}
	if _, err := direct.Definition(ctx, u, pos); err != nil {
		b.Fatal(err)
	}
	var doorT, directT time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		roundTrip(b, door, req)
		doorT += time.Since(s)
		s = time.Now()
		if _, err := direct.Definition(ctx, u, pos); err != nil {
			b.Fatal(err)
		}
		directT += time.Since(s)
	}
	b.ReportMetric(float64(doorT.Microseconds())/float64(b.N), "door-µs/op")
	b.ReportMetric(float64(directT.Microseconds())/float64(b.N), "direct-µs/op")
	b.ReportMetric(float64(doorT)/float64(directT), "ratio")
}
