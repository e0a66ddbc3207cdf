package admin

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/integrations/supervisor"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/workspace"
)

// serveSocket serves s on a Unix socket in dataDir, as the daemon does,
// and returns a Client of it.
func serveSocket(t *testing.T, dataDir string, s *Server) *Client {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(dataDir, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler()}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	c, err := Dial(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rawDo sends one request to the socket with token.
func rawDo(t *testing.T, dataDir, method, path, token, body string) (int, string) {
	t.Helper()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", filepath.Join(dataDir, SocketName))
	}}}
	req, err := http.NewRequest(method, "http://warden"+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestCredentialsAndApprovalsNeedTheAdmin(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	c := coretest.New(t, coretest.Options{ApprovalTimeout: 10 * time.Minute})
	creds, err := credential.Open(credential.Options{Dir: dataDir, Record: c.Record})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := workspace.Open(filepath.Join(dataDir, workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(ws); err != nil {
		t.Fatal(err)
	}
	ws, _ = reg.Lookup(ws)
	sv, err := supervisor.New(supervisor.Options{Core: c, Registry: reg, AgentDir: filepath.Join(dataDir, "agents")})
	if err != nil {
		t.Fatal(err)
	}
	client := serveSocket(t, dataDir, &Server{Core: c, Credentials: creds, Supervisor: sv, Status: func() Status { return Status{} }})
	ctx := t.Context()

	// The CLI mints the workspace's Claude credential (a path inside the
	// workspace names it); asking again gives the same one.
	m, err := client.MintCredential(ctx, filepath.Join(ws, "sub"), "claude")
	if err != nil || !m.New || m.Credential.Workspace != ws || m.Credential.Agent != "claude-code" || m.Token == "" {
		t.Fatalf("mint: %+v %v", m, err)
	}
	if again, err := client.MintCredential(ctx, ws, "claude-code"); err != nil || again.New || again.Token != m.Token {
		t.Fatalf("mint again: %+v %v", again, err)
	}
	if _, err := client.MintCredential(ctx, dir, "claude"); err == nil || !strings.Contains(err.Error(), "warden workspace add") {
		t.Fatalf("mint outside a workspace: %v", err)
	}
	if _, err := client.MintCredential(ctx, ws, "vim"); err == nil {
		t.Fatal("mint for an unknown agent type")
	}
	list, err := client.Credentials(ctx)
	if err != nil || len(list) != 1 || list[0].ID != m.Credential.ID || !list[0].Active() {
		t.Fatalf("list: %+v %v", list, err)
	}

	// A call waits for a person.
	gated := make(chan core.Verdict, 1)
	sub := c.Bus().Subscribe(0)
	defer sub.Close()
	go func() {
		gated <- c.Gate(ctx, core.GateRequest{
			Call:   policy.Call{Tool: "read", Args: map[string]any{"filePath": filepath.Join(ws, "a.txt")}, Workspace: ws, Cwd: ws, Session: "s1", Source: "test"},
			CallID: "call-1", Source: "test", RequireApproval: "test asks",
		})
	}()
	var approvalID string
	for approvalID == "" {
		e, err := sub.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if e.Type == event.ApprovalRequested {
			var d struct {
				ApprovalID string `json:"approvalId"`
			}
			json.Unmarshal(e.Data, &d)
			approvalID = d.ApprovalID
		}
	}

	// The scoped credential opens nothing here: not the approval, not the
	// credentials, not the status.
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/v1/approvals/" + approvalID, `{"decision":"approve","always":true}`},
		{"POST", "/v1/approvals/" + approvalID, `{"decision":"deny"}`},
		{"GET", "/v1/approvals", ""},
		{"GET", "/v1/status", ""},
		{"GET", "/v1/credentials", ""},
		{"POST", "/v1/credentials", `{"workspace":"` + ws + `","agent":"opencode"}`},
		{"POST", "/v1/credentials/" + m.Credential.ID + "/revoke", ""},
	} {
		code, body := rawDo(t, dataDir, r.method, r.path, m.Token, r.body)
		if code != http.StatusForbidden || !strings.Contains(body, "only the admin credential") || !strings.Contains(body, m.Credential.ID) {
			t.Errorf("%s %s with the agent credential: %d %s", r.method, r.path, code, body)
		}
	}
	if pending := c.Approvals(); len(pending) != 1 || pending[0].ID != approvalID {
		t.Fatalf("the approval after the agent's tries: %+v", pending)
	}
	if len(creds.List()) != 1 || !creds.List()[0].Active() {
		t.Fatalf("the agent changed the credentials: %+v", creds.List())
	}

	// The admin resolves it.
	if res, err := client.Resolve(ctx, approvalID, ResolveRequest{Decision: "approve"}); err != nil || res.Approval.ID != approvalID {
		t.Fatalf("admin approve: %+v %v", res, err)
	}
	if v := <-gated; !v.Allowed {
		t.Fatalf("approved call: %+v", v)
	}

	// Revocation holds at once, and is recorded with the mint.
	rv, err := client.RevokeCredential(ctx, m.Credential.ID)
	if err != nil || rv.Credential.Active() || rv.Warning != "" {
		t.Fatalf("revoke: %+v %v", rv, err)
	}
	if _, err := creds.Verify(m.Token); err == nil {
		t.Fatal("the revoked credential still verifies")
	}
	if _, err := client.RevokeCredential(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "warden credentials") {
		t.Fatalf("revoke unknown: %v", err)
	}
	evs, err := c.Events(ctx, storeFilter(event.SystemSession))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range evs {
		if e.Source == credential.Source {
			types = append(types, string(e.Type))
			if strings.Contains(string(e.Data), m.Token) {
				t.Fatalf("a record holds the secret: %s", e.Data)
			}
		}
	}
	if got := strings.Join(types, " "); got != "credential.minted credential.revoked" {
		t.Fatalf("recorded: %q", got)
	}
}

func storeFilter(session string) store.Filter { return store.Filter{Session: session} }
