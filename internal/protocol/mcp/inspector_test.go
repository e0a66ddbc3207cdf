package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/protocol/mcp"
	"github.com/warden-dev/warden/internal/testtools"
)

// TestInspectorCLI drives the door with the real MCP inspector CLI
// (@modelcontextprotocol/inspector, installed by scripts/install-tools.sh)
// over a real TCP listener.
func TestInspectorCLI(t *testing.T) {
	bin := testtools.Find(t, "mcp-inspector")
	e := newEnv(t, envOptions{})
	writeFile(t, filepath.Join(e.root, "hello.txt"), "hi there")
	writeFile(t, filepath.Join(e.root, ".env"), "API_KEY=hunter2")
	home := t.TempDir()

	run := func(args ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		argv := append([]string{"--cli", e.http.URL + "/mcp", "--transport", "http",
			"--header", "Authorization: Bearer " + token, mcp.WorkspaceHeader + ": " + e.root,
			"--stored-auth-only", "--format", "json", "-q"}, args...)
		cmd := exec.CommandContext(ctx, bin, argv...)
		cmd.Env = append(cmd.Environ(), "HOME="+home, "MCP_AUTO_OPEN_ENABLED=false", "MCP_INSPECTOR_SECRET_STORE=memory")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, stdout.String()
		case errors.As(err, &exit):
			return exit.ExitCode(), stdout.String() + stderr.String()
		}
		t.Fatalf("mcp-inspector %v: %v\n%s", args, err, stderr.String())
		return -1, ""
	}

	code, out := run("--method", "tools/list")
	if code != 0 {
		t.Fatalf("tools/list exited %d: %s", code, out)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("tools/list output is not JSON: %v\n%s", err, out)
	}
	names := map[string]bool{}
	for _, tool := range list.Result.Tools {
		names[tool.Name] = true
	}
	for _, name := range mcp.ToolNames() {
		if !names[name] {
			t.Errorf("inspector's tools/list lacks %s", name)
		}
	}

	code, out = run("--method", "tools/call", "--tool-name", "fs.readFile", "--tool-arg", "path=hello.txt")
	if code != 0 {
		t.Fatalf("fs.readFile exited %d: %s", code, out)
	}
	var res struct {
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("tools/call output is not JSON: %v\n%s", err, out)
	}
	if res.Result.IsError || len(res.Result.Content) != 1 || res.Result.Content[0].Text != "hi there" {
		t.Errorf("fs.readFile = %s", out)
	}

	// a denied call is a tool result with isError: exit 5, the policy's reason shown
	code, out = run("--method", "tools/call", "--tool-name", "fs.readFile", "--tool-arg", "path=.env")
	if code != 5 {
		t.Errorf("denied fs.readFile exited %d, want 5: %s", code, out)
	}
	for _, want := range []string{`"isError":true`, "blocked by policy rule secret-read", "reads a secret file"} {
		if !strings.Contains(out, want) {
			t.Errorf("denied fs.readFile output lacks %q: %s", want, out)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Error("the denied read leaked the secret")
	}
}
