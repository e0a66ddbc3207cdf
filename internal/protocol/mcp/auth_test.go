package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/protocol/mcp"
)

// authRegistry is a fixed set of registered roots.
type authRegistry map[string]bool

func (a authRegistry) Lookup(p string) (string, bool) {
	p, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil {
		return "", false
	}
	return p, a[p]
}
func (a authRegistry) Status(_ context.Context, root string) (any, error) {
	return map[string]any{"path": root}, nil
}
func (authRegistry) Metadata(context.Context, string) (map[string]string, error) {
	return map[string]string{}, nil
}
func (authRegistry) SetMetadata(context.Context, string, string, *string) error { return nil }
func (authRegistry) Create(context.Context, string, string, string) (string, error) {
	return "", nil
}
func (authRegistry) Delete(context.Context, string) error { return nil }
func (authRegistry) MarkActive(string)                    {}

// authHeaders sets fixed headers on every request of a client.
type authHeaders struct {
	h    map[string]string
	base http.RoundTripper
}

func (a authHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range a.h {
		r.Header.Set(k, v)
	}
	return a.base.RoundTrip(r)
}

// A scoped agent credential opens the MCP door for its own workspace only;
// the admin credential for every registered one; a revoked credential is
// refused from its next request on.
func TestScopedCredentials(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wsA, wsB, unregistered := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c")
	for _, d := range []string{wsA, wsB, unregistered} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	linkA := filepath.Join(base, "a-link")
	if err := os.Symlink(wsA, linkA); err != nil {
		t.Fatal(err)
	}
	creds, err := credential.Open(credential.Options{Dir: filepath.Join(base, "data")})
	if err != nil {
		t.Fatal(err)
	}
	scoped, err := creds.Mint(t.Context(), wsA, "opencode")
	if err != nil {
		t.Fatal(err)
	}
	c := coretest.New(t, coretest.Options{})
	reg := authRegistry{wsA: true, wsB: true}
	srv, err := mcp.New(mcp.Options{
		Core: c, Credentials: creds, Ops: newOps(t, c, reg),
		Workspaces: reg, Version: "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		srv.Close()
		hs.Close()
	})
	post := func(token, ws string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if ws != "" {
			req.Header.Set(mcp.WorkspaceHeader, ws)
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m map[string]string
		_ = json.Unmarshal(b, &m)
		return resp.StatusCode, m["error"]
	}
	refused := func(code int) bool { return code == http.StatusUnauthorized || code == http.StatusForbidden }

	// Its own workspace (also through a symlink): through to the SDK.
	for _, ws := range []string{wsA, linkA, wsA + "/"} {
		if code, msg := post(scoped.Token, ws); refused(code) {
			t.Errorf("scoped credential, its workspace %s: %d %s", ws, code, msg)
		}
	}
	// Anything else: 403 naming the credential and its workspace.
	for _, ws := range []string{wsB, unregistered, "/", filepath.Join(wsA, "..")} {
		code, msg := post(scoped.Token, ws)
		if code != http.StatusForbidden || !strings.Contains(msg, "scoped to workspace "+wsA) || !strings.Contains(msg, scoped.Credential.ID) {
			t.Errorf("scoped credential, workspace %s: %d %s", ws, code, msg)
		}
	}
	if code, msg := post(scoped.Token, ""); code != http.StatusForbidden || !strings.Contains(msg, mcp.WorkspaceHeader+": "+wsA) {
		t.Errorf("scoped credential, no workspace header: %d %s", code, msg)
	}
	// The admin credential opens every registered workspace.
	for _, ws := range []string{wsA, wsB, ""} {
		if code, msg := post(creds.AdminToken(), ws); refused(code) {
			t.Errorf("admin, workspace %q: %d %s", ws, code, msg)
		}
	}
	if code, _ := post(scoped.Token+"x", wsA); code != http.StatusUnauthorized {
		t.Errorf("a tampered credential: %d", code)
	}

	// A real session with the scoped credential works in its workspace...
	client := sdk.NewClient(&sdk.Implementation{Name: "auth-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := os.WriteFile(filepath.Join(wsA, "hello.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint: hs.URL + "/mcp",
		HTTPClient: &http.Client{Transport: authHeaders{base: hs.Client().Transport, h: map[string]string{
			"Authorization": "Bearer " + scoped.Token, mcp.WorkspaceHeader: wsA,
		}}},
	}, nil)
	if err != nil {
		t.Fatalf("connect with the scoped credential: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fs.readFile", Arguments: map[string]any{"path": "hello.txt"}})
	if err != nil || res.IsError {
		t.Fatalf("readFile in its workspace: %+v %v", res, err)
	}

	// ...until it is revoked: the next request of the same session is 401.
	if _, err := creds.Revoke(t.Context(), scoped.Credential.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "fs.readFile", Arguments: map[string]any{"path": "hello.txt"}}); err == nil {
		t.Fatal("a revoked credential's session still calls tools")
	}
	if code, msg := post(scoped.Token, wsA); code != http.StatusUnauthorized || !strings.Contains(msg, "revoked") {
		t.Errorf("revoked credential: %d %s", code, msg)
	}
}
