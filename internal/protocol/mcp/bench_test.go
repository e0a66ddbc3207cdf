package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/protocol/mcp"
)

// benchFile is the small file every read benchmark reads (1 KiB).
var benchFile = strings.Repeat("x", 1023) + "\n"

// benchRoot returns a workspace root holding a.txt (benchFile).
func benchRoot(b *testing.B) string {
	b.Helper()
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(base, "ws")
	if err := os.Mkdir(root, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(benchFile), 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// benchSession serves the MCP door (a real core over SQLite, the built-in
// policy) on a loopback listener and returns a go-sdk client session to it,
// authenticated and naming root as its workspace.
func benchSession(b *testing.B, root string) *sdk.ClientSession {
	b.Helper()
	c := coretest.New(b, coretest.Options{})
	reg := newWorkspaces(root)
	srv, err := mcp.New(mcp.Options{
		Core: c, Token: token, Workspaces: reg, Version: "bench",
		Ops: newOps(b, c, reg),
	})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(func() {
		hs.CloseClientConnections()
		if err := srv.Close(); err != nil {
			b.Errorf("close: %v", err)
		}
		hs.Close()
	})
	h := map[string]string{"Authorization": "Bearer " + token, mcp.WorkspaceHeader: root}
	client := sdk.NewClient(&sdk.Implementation{Name: "warden-bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:   hs.URL + "/mcp",
		HTTPClient: &http.Client{Transport: headers{h: h, base: hs.Client().Transport}},
	}, nil)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	b.Cleanup(func() { _ = cs.Close() }) // runs before the server's cleanup
	return cs
}

// readViaMCP calls fs.readFile on a.txt and checks the answer.
func readViaMCP(b *testing.B, cs *sdk.ClientSession, params *sdk.CallToolParams) {
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		b.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		b.Fatalf("fs.readFile: %+v", res)
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); !ok || len(tc.Text) != len(benchFile) {
		b.Fatalf("fs.readFile answered %+v", res.Content[0])
	}
}

// BenchmarkMCPReadFile measures one tools/call of fs.readFile (1 KiB)
// through the go-sdk client over loopback HTTP: the door's checks, the
// SDK's JSON-RPC session handling, the gate (policy decision and the
// tool.call + tool.decision events synced to SQLite before the read), the
// sandboxed read, and the answer. Compare with BenchmarkBaselineHTTPReadFile
// in the same run:
//
//	go test -run '^$' -bench 'MCP|Baseline' -benchtime 2s ./internal/protocol/mcp/
func BenchmarkMCPReadFile(b *testing.B) {
	root := benchRoot(b)
	cs := benchSession(b, root)
	params := &sdk.CallToolParams{Name: "fs.readFile", Arguments: map[string]any{"path": "a.txt"}}
	readViaMCP(b, cs, params) // opens the workspace's services
	b.ReportAllocs()
	for b.Loop() {
		readViaMCP(b, cs, params)
	}
}

// BenchmarkBaselineHTTPReadFile is the baseline of BenchmarkMCPReadFile: a
// bare net/http handler on loopback that decodes the same JSON-RPC request,
// reads the same file with os.ReadFile and answers it as a JSON-RPC tool
// result, which the client decodes. No session, no auth, no gate, no log.
func BenchmarkBaselineHTTPReadFile(b *testing.B) {
	root := benchRoot(b)
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type response struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Result  struct {
			Content []content `json:"content"`
		} `json:"result"`
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int `json:"id"`
			Params struct {
				Arguments struct {
					Path string `json:"path"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.Clean("/"+req.Params.Arguments.Path)))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		resp := response{JSONRPC: "2.0", ID: req.ID}
		resp.Result.Content = []content{{Type: "text", Text: string(data)}}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	b.Cleanup(hs.Close)
	client := hs.Client()
	b.Cleanup(client.CloseIdleConnections)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs.readFile","arguments":{"path":"a.txt"}}}`)
	read := func() {
		req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var out response
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(out.Result.Content) != 1 || len(out.Result.Content[0].Text) != len(benchFile) {
			b.Fatalf("baseline read: %d %v %+v", resp.StatusCode, err, out)
		}
	}
	read()
	b.ReportAllocs()
	for b.Loop() {
		read()
	}
}

// BenchmarkMCPToolsList measures one tools/list (every tool with its input
// schema) through the go-sdk client over loopback HTTP. It is not gated, so
// it is the cost of the door and the SDK's JSON-RPC handling alone.
func BenchmarkMCPToolsList(b *testing.B) {
	cs := benchSession(b, benchRoot(b))
	want := len(mcp.ToolNames())
	list := func() {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Tools) < want {
			b.Fatalf("tools/list gave %d tools, want at least %d", len(res.Tools), want)
		}
	}
	list()
	b.ReportAllocs()
	for b.Loop() {
		list()
	}
}

// The two benchmarks below split BenchmarkMCPReadFile in two: the MCP round
// trip without the gate, and the gate without MCP.

// BenchmarkMCPCallUngated measures a tools/call of fs.readFile that the
// door refuses before the gate (the path is outside the workspace): the
// go-sdk client, loopback HTTP, the door's checks and the SDK's JSON-RPC
// session handling, with no decision, no log write and no read.
func BenchmarkMCPCallUngated(b *testing.B) {
	cs := benchSession(b, benchRoot(b))
	params := &sdk.CallToolParams{Name: "fs.readFile", Arguments: map[string]any{"path": "../a.txt"}}
	call := func() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil {
			b.Fatal(err)
		}
		if !res.IsError {
			b.Fatalf("reading outside the workspace succeeded: %+v", res)
		}
	}
	call()
	b.ReportAllocs()
	for b.Loop() {
		call()
	}
}

// BenchmarkMCPGateAlone measures the gate of BenchmarkMCPReadFile's read
// without the door: core.Gate on the same real core over SQLite, i.e. the
// policy decision and the tool.call + tool.decision events synced to the
// log.
func BenchmarkMCPGateAlone(b *testing.B) {
	root := benchRoot(b)
	c := coretest.New(b, coretest.Options{})
	req := core.GateRequest{
		Call: policy.Call{
			Tool: "read", Args: map[string]any{"filePath": filepath.Join(root, "a.txt")},
			Cwd: root, Workspace: root, Session: "mcp-bench", Source: mcp.Source,
		},
		CallID: "mcp-bench", Source: mcp.Source, Extra: map[string]any{"mcpTool": "fs.readFile"},
	}
	b.ReportAllocs()
	for b.Loop() {
		if v := c.Gate(context.Background(), req); !v.Allowed {
			b.Fatalf("read of a.txt not allowed: %+v", v)
		}
	}
}
