package supervisor

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/integrations/agent"
	"github.com/warden-dev/warden/internal/workspace"
)

// fakeCredentials mints "cred-<n>" per workspace and type.
type fakeCredentials struct {
	mu    sync.Mutex
	asked []string
	fail  error
}

func (f *fakeCredentials) AgentToken(_ context.Context, root string, t agent.Type) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return "", f.fail
	}
	f.asked = append(f.asked, string(t)+" "+root)
	return "scoped-" + string(t), nil
}

func (f *fakeCredentials) RevokeWorkspace(_ context.Context, root string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, "revoke "+root)
	return nil
}

// Removing a workspace revokes its agents' credentials.
func TestRemoveWorkspaceRevokesItsCredentials(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(t.TempDir(), workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	creds := &fakeCredentials{}
	s, err := New(Options{Core: c, Registry: reg, AgentDir: t.TempDir(), Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := reg.Add(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveWorkspace(t.Context(), w.Path, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(creds.asked, ","); got != "revoke "+w.Path {
		t.Fatalf("credential calls: %q", got)
	}
}

// An OpenCode config gets the workspace's scoped credential; no process
// environment the supervisor hands out holds any credential.
func TestConfigVarsCarryTheScopedCredential(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	reg, err := workspace.Open(filepath.Join(t.TempDir(), workspace.FileName), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	creds := &fakeCredentials{}
	s, err := New(Options{Core: c, Registry: reg, AgentDir: t.TempDir(), Env: map[string]string{"WARDEN_MCP_PORT": "1"}, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	vars, err := s.configVars("/ws", 4242)
	if err != nil {
		t.Fatal(err)
	}
	if vars[agent.CredentialVar] != "scoped-opencode" || vars["WARDEN_WORKSPACE_PATH"] != "/ws" || vars["WARDEN_MCP_PORT"] != "1" {
		t.Fatalf("config vars: %v", vars)
	}
	if got := strings.Join(creds.asked, ","); got != "opencode /ws" {
		t.Fatalf("minted for %q", got)
	}
	env := s.baseEnv("/ws")
	for k, v := range env {
		if k == agent.CredentialVar || k == "WARDEN_TOKEN" || strings.Contains(v, "scoped-") {
			t.Fatalf("the environment holds a credential: %s=%s", k, v)
		}
	}
	// No credential, no config: the start fails and says why.
	creds.fail = errors.New("log is down")
	if _, err := s.configVars("/ws", 1); err == nil || !strings.Contains(err.Error(), "log is down") {
		t.Fatalf("a failed mint: %v", err)
	}
	s2, err := New(Options{Core: c, Registry: reg, AgentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.configVars("/ws", 1); err == nil || !strings.Contains(err.Error(), "no agent credentials") {
		t.Fatalf("no minter: %v", err)
	}
	// A credential in the base environment is refused outright.
	for _, k := range []string{"WARDEN_TOKEN", agent.CredentialVar} {
		if _, err := New(Options{Core: c, Registry: reg, Env: map[string]string{k: "x"}}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("Env with %s: %v", k, err)
		}
	}
}
