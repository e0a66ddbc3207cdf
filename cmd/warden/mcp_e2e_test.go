package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds fixed headers to every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

func mcpText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// The MCP door as the daemon serves it: the registry behind
// X-Workspace-Path, the control door's command registry behind
// workspace.executeCommand, the same log and policy as every door.
func TestMCPDoorOnTheDaemon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	ws := gitWorkspace(t, filepath.Join(dir, "ws"))
	d := startDaemonIn(t, data, dir, nil)
	if _, errOut, code := warden(t, data, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %s", errOut)
	}
	token, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + d.mcp + "/mcp"

	// No token: 401, nothing else.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: %s", resp.Status)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headerTransport{
		"Authorization": "Bearer " + strings.TrimSpace(string(token)), "X-Workspace-Path": ws,
	}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}

	// Metadata set over MCP is what the CLI shows.
	if res := call("workspace.setMetadata", map[string]any{"key": "ticket", "value": "WARD-42"}); res.IsError {
		t.Fatalf("setMetadata: %s", mcpText(res))
	}
	if out, _, _ := warden(t, data, "", "workspace", "meta", "ticket", "-w", ws); strings.TrimSpace(out) != "WARD-42" {
		t.Fatalf("warden workspace meta after MCP set: %q", out)
	}
	// warden's own keys (warden.sandbox switches the sandbox around the
	// agents' shell calls) are not an agent's to set.
	if res := call("workspace.setMetadata", map[string]any{"key": "warden.sandbox", "value": "off"}); !res.IsError || !strings.Contains(mcpText(res), "is warden's own") {
		t.Fatalf("setMetadata warden.sandbox over MCP: %v %s", res.IsError, mcpText(res))
	}
	if out, _, code := warden(t, data, "", "workspace", "meta", "warden.sandbox", "-w", ws); code == 0 {
		t.Fatalf("warden.sandbox was set over MCP: %q", out)
	}
	// getStatus names the workspace and says the tree is clean.
	if res := call("workspace.getStatus", nil); res.IsError || !strings.Contains(mcpText(res), ws) || !strings.Contains(mcpText(res), `"dirty":false`) {
		t.Fatalf("getStatus: %s", mcpText(res))
	}
	// executeCommand runs the control door's command registry.
	if res := call("workspace.executeCommand", map[string]any{"command": "git.refresh"}); res.IsError {
		t.Fatalf("executeCommand git.refresh: %s", mcpText(res))
	}
	if res := call("workspace.executeCommand", map[string]any{"command": "no.such.command"}); !res.IsError || !strings.Contains(mcpText(res), "no.such.command") {
		t.Fatalf("unknown command: %v %s", res.IsError, mcpText(res))
	}
	// A secret is refused with the policy's reason, and the refusal is in
	// the log with the MCP door as its source.
	res := call("fs.readFile", map[string]any{"path": ".env"})
	if !res.IsError || !strings.Contains(mcpText(res), "denied by warden") {
		t.Fatalf("reading .env: %v %s", res.IsError, mcpText(res))
	}
	out, _, _ := warden(t, data, "", "events", "--json")
	found := false
	for _, e := range parseEvents(t, out) {
		if e.Type == "tool.decision" && e.Source == "mcp" && strings.Contains(string(e.Data), `"decision":"deny"`) && e.Workspace == ws {
			found = true
		}
	}
	if !found {
		t.Fatal("the denied MCP call is not in the log")
	}
}
