package credential

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/warden-dev/warden/internal/event"
)

type recorder struct {
	mu   sync.Mutex
	evs  []event.Event
	fail error
}

func (r *recorder) Record(_ context.Context, evs ...event.Event) ([]event.Event, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return nil, r.fail
	}
	r.evs = append(r.evs, evs...)
	return evs, nil
}

func open(t *testing.T, dir string, rec *recorder) *Store {
	t.Helper()
	o := Options{Dir: dir}
	if rec != nil {
		o.Record = rec.Record
	}
	s, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestAdminToken(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, nil)
	fi, err := os.Stat(filepath.Join(dir, AdminTokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, AdminTokenFile))
	if got := strings.TrimSpace(string(b)); got != s.AdminToken() || len(got) != 64 {
		t.Fatalf("token %q, store %q", got, s.AdminToken())
	}
	p, err := s.Verify(s.AdminToken())
	if err != nil || !p.IsAdmin() || p.String() != "admin" {
		t.Fatalf("admin: %+v %v", p, err)
	}
	for _, bad := range []string{s.AdminToken() + "x", s.AdminToken()[:63], "x"} {
		if _, err := s.Verify(bad); !errors.Is(err, ErrUnknown) {
			t.Errorf("Verify(%q): %v", bad, err)
		}
	}
	if _, err := s.Verify(""); !errors.Is(err, ErrMissing) {
		t.Errorf("empty: %v", err)
	}
	// The same token after a reopen; a loose mode is tightened.
	if err := os.Chmod(filepath.Join(dir, AdminTokenFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if s2 := open(t, dir, nil); s2.AdminToken() != s.AdminToken() {
		t.Fatal("the admin token changed on reopen")
	}
	if fi, _ := os.Stat(filepath.Join(dir, AdminTokenFile)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode not tightened: %v", fi.Mode())
	}
}

func TestMintVerifyRevoke(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{}
	s := open(t, dir, rec)
	ctx := context.Background()
	m, err := s.Mint(ctx, "/ws/a", "opencode")
	if err != nil || !m.New || !strings.HasPrefix(m.Token, AgentPrefix+m.Credential.ID+"_") {
		t.Fatalf("mint: %+v %v", m, err)
	}
	p, err := s.Verify(m.Token)
	if err != nil || p.IsAdmin() || p.Kind != Agent || p.ID != m.Credential.ID || p.Workspace != "/ws/a" || p.Agent != "opencode" {
		t.Fatalf("verify: %+v %v", p, err)
	}
	// The same workspace and agent get the same credential back.
	again, err := s.Mint(ctx, "/ws/a", "opencode")
	if err != nil || again.New || again.Token != m.Token || again.Credential.ID != m.Credential.ID {
		t.Fatalf("mint again: %+v %v", again, err)
	}
	// Another agent type or workspace gets its own.
	other, err := s.Mint(ctx, "/ws/a", "claude-code")
	if err != nil || !other.New || other.Credential.ID == m.Credential.ID {
		t.Fatalf("other agent: %+v %v", other, err)
	}
	// A tampered secret with a real id is unknown.
	if _, err := s.Verify(m.Token[:len(m.Token)-2] + "AA"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("tampered: %v", err)
	}
	if _, err := s.Verify(AgentPrefix + "zzzz_secret"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown id: %v", err)
	}

	// The file holds hashes, never a secret or the admin token.
	b, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), m.Token) || strings.Contains(string(b), strings.TrimPrefix(m.Token, AgentPrefix+m.Credential.ID+"_")) || strings.Contains(string(b), s.AdminToken()) {
		t.Fatalf("credentials file holds a secret:\n%s", b)
	}
	if fi, _ := os.Stat(filepath.Join(dir, FileName)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("credentials file mode %v", fi.Mode())
	}

	// Revocation holds at once.
	c, err := s.Revoke(ctx, m.Credential.ID)
	if err != nil || c.Active() {
		t.Fatalf("revoke: %+v %v", c, err)
	}
	if _, err := s.Verify(m.Token); !errors.Is(err, ErrRevoked) || !strings.Contains(err.Error(), m.Credential.ID) {
		t.Fatalf("revoked token verified: %v", err)
	}
	if _, err := s.Verify(other.Token); err != nil {
		t.Fatalf("revoking one revoked another: %v", err)
	}
	if _, err := s.Revoke(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	// Revoking twice changes nothing and records nothing more.
	n := len(rec.evs)
	if _, err := s.Revoke(ctx, m.Credential.ID); err != nil || len(rec.evs) != n {
		t.Fatalf("revoke twice: %v, %d records", err, len(rec.evs)-n)
	}
	// A new mint for the workspace is a new credential.
	fresh, err := s.Mint(ctx, "/ws/a", "opencode")
	if err != nil || !fresh.New || fresh.Credential.ID == m.Credential.ID || fresh.Token == m.Token {
		t.Fatalf("mint after revoke: %+v %v", fresh, err)
	}

	// Everything survives a reopen: the revocation, the valid ones.
	s2 := open(t, dir, nil)
	if _, err := s2.Verify(m.Token); !errors.Is(err, ErrRevoked) {
		t.Fatalf("after reopen the revoked token: %v", err)
	}
	if p, err := s2.Verify(fresh.Token); err != nil || p.ID != fresh.Credential.ID {
		t.Fatalf("after reopen: %+v %v", p, err)
	}
	list := s2.List()
	if len(list) != 3 || list[0].ID != m.Credential.ID || list[0].Active() || !list[2].Active() {
		t.Fatalf("list: %+v", list)
	}
	if re, err := s2.Mint(ctx, "/ws/a", "opencode"); err != nil || re.New || re.Token != fresh.Token {
		t.Fatalf("mint after reopen: %+v %v", re, err)
	}

	// Each mint and revocation is one event in the system session, never
	// with a secret.
	var types []string
	for _, e := range rec.evs {
		if e.Session != event.SystemSession || e.Source != Source || e.Workspace != "/ws/a" {
			t.Errorf("record: %+v", e)
		}
		if strings.Contains(string(e.Data), AgentPrefix) || strings.Contains(string(e.Data), "sha256") {
			t.Errorf("record holds a secret: %s", e.Data)
		}
		var d struct{ ID, Agent string }
		if err := json.Unmarshal(e.Data, &d); err != nil || d.ID == "" || d.Agent == "" {
			t.Errorf("record data %s: %v", e.Data, err)
		}
		types = append(types, string(e.Type))
	}
	if got := strings.Join(types, " "); got != "credential.minted credential.minted credential.revoked credential.minted" {
		t.Fatalf("records: %s", got)
	}
}

func TestMintBadInput(t *testing.T) {
	s := open(t, t.TempDir(), nil)
	for _, c := range []struct{ ws, agent string }{{"", "opencode"}, {"rel/ws", "opencode"}, {"/ws", ""}} {
		if _, err := s.Mint(context.Background(), c.ws, c.agent); err == nil {
			t.Errorf("Mint(%q, %q) succeeded", c.ws, c.agent)
		}
	}
	if len(s.List()) != 0 {
		t.Fatal("a bad mint left a credential")
	}
}

func TestRevokeWorkspace(t *testing.T) {
	rec := &recorder{}
	s := open(t, t.TempDir(), rec)
	ctx := context.Background()
	oc, _ := s.Mint(ctx, "/ws/a", "opencode")
	cc, _ := s.Mint(ctx, "/ws/a", "claude-code")
	other, _ := s.Mint(ctx, "/ws/b", "opencode")
	if _, err := s.Revoke(ctx, cc.Credential.ID); err != nil {
		t.Fatal(err)
	}
	n := len(rec.evs)
	got, err := s.RevokeWorkspace(ctx, "/ws/a")
	if err != nil || len(got) != 1 || got[0].ID != oc.Credential.ID || got[0].Active() {
		t.Fatalf("RevokeWorkspace: %+v %v", got, err)
	}
	if len(rec.evs) != n+1 || rec.evs[n].Type != event.CredentialRevoked {
		t.Fatalf("records: %+v", rec.evs[n:])
	}
	if _, err := s.Verify(oc.Token); !errors.Is(err, ErrRevoked) {
		t.Fatalf("the workspace's credential: %v", err)
	}
	if _, err := s.Verify(other.Token); err != nil {
		t.Fatalf("another workspace's credential: %v", err)
	}
	if got, err := s.RevokeWorkspace(ctx, "/ws/none"); err != nil || len(got) != 0 {
		t.Fatalf("a workspace without credentials: %+v %v", got, err)
	}
}

// A mint that cannot be recorded leaves no credential behind.
func TestMintUnrecordedIsUndone(t *testing.T) {
	dir := t.TempDir()
	rec := &recorder{fail: errors.New("log is down")}
	s := open(t, dir, rec)
	if _, err := s.Mint(context.Background(), "/ws", "opencode"); err == nil || !strings.Contains(err.Error(), "log is down") {
		t.Fatalf("mint: %v", err)
	}
	if len(s.List()) != 0 || len(open(t, dir, nil).List()) != 0 {
		t.Fatal("an unrecorded credential stayed")
	}
	// A revocation holds even when its record fails, and says so.
	rec.fail = nil
	m, err := s.Mint(context.Background(), "/ws", "opencode")
	if err != nil {
		t.Fatal(err)
	}
	rec.fail = errors.New("log is down")
	if _, err := s.Revoke(context.Background(), m.Credential.ID); err == nil || !strings.Contains(err.Error(), "could not record") {
		t.Fatalf("revoke: %v", err)
	}
	if _, err := s.Verify(m.Token); !errors.Is(err, ErrRevoked) {
		t.Fatalf("verify after an unrecorded revoke: %v", err)
	}
}

// A new admin token (the token file was replaced) makes every credential
// derived from the old one useless: the next mint replaces it.
func TestAdminTokenChangeReplacesCredentials(t *testing.T) {
	dir := t.TempDir()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(Options{Dir: dir, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Mint(context.Background(), "/ws", "opencode")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, AdminTokenFile)); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	s2 := open(t, dir, rec)
	if s2.AdminToken() == s.AdminToken() {
		t.Fatal("same admin token after it was removed")
	}
	if _, err := s2.Verify(s.AdminToken()); !errors.Is(err, ErrUnknown) {
		t.Fatalf("the old admin token: %v", err)
	}
	if _, err := s2.Verify(m.Token); err != nil {
		t.Fatalf("the minted token still matches its hash: %v", err)
	}
	m2, err := s2.Mint(context.Background(), "/ws", "opencode")
	if err != nil || !m2.New || m2.Credential.ID == m.Credential.ID {
		t.Fatalf("mint under the new admin token: %+v %v", m2, err)
	}
	if _, err := s2.Verify(m.Token); !errors.Is(err, ErrRevoked) {
		t.Fatalf("the stale credential: %v", err)
	}
	var got []string
	for _, e := range rec.evs {
		var d struct{ ID string }
		json.Unmarshal(e.Data, &d)
		got = append(got, string(e.Type)+" "+d.ID)
	}
	if want := "credential.minted " + m2.Credential.ID + ",credential.revoked " + m.Credential.ID; strings.Join(got, ",") != want {
		t.Fatalf("records %q, want %q", strings.Join(got, ","), want)
	}
	if c := s.List()[0]; !c.Created.Equal(clock) {
		t.Fatalf("created %v, want %v", c.Created, clock)
	}
}

func TestOpenRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"version":1,"credentials":[{"id":"A!"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "bad id") {
		t.Fatalf("open: %v", err)
	}
}

func TestParse(t *testing.T) {
	good := `{"version":1,"credentials":[{"id":"0a1b","workspace":"/w","agent":"opencode","created":"2026-01-01T00:00:00Z","hash":"sha256:` + strings.Repeat("ab", 32) + `"}]}`
	if recs, err := parse([]byte(good)); err != nil || len(recs) != 1 || recs[0].ID != "0a1b" {
		t.Fatalf("good: %+v %v", recs, err)
	}
	for name, bad := range map[string]string{
		"not json":      `{`,
		"version":       `{"version":2,"credentials":[]}`,
		"unknown field": `{"version":1,"credentials":[],"x":1}`,
		"trailing":      `{"version":1,"credentials":[]} {}`,
		"relative ws":   strings.Replace(good, `"/w"`, `"w"`, 1),
		"no agent":      strings.Replace(good, `"opencode"`, `""`, 1),
		"no created":    strings.Replace(good, `"created":"2026-01-01T00:00:00Z",`, ``, 1),
		"bad hash":      strings.Replace(good, `sha256:ab`, `sha1:ab`, 1),
		"short hash":    strings.Replace(good, `abab"`, `"`, 1),
		"dup id":        strings.Replace(good, `}]}`, `},`+good[strings.Index(good, `{"id"`):], 1),
	} {
		if _, err := parse([]byte(bad)); err == nil {
			t.Errorf("%s: parsed %s", name, bad)
		}
	}
}

func TestAdminOnlyAndBearer(t *testing.T) {
	v := AdminOnly("s3cret")
	if p, err := v.Verify("s3cret"); err != nil || !p.IsAdmin() {
		t.Fatalf("admin: %+v %v", p, err)
	}
	if _, err := v.Verify("s3cre"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("wrong: %v", err)
	}
	if _, err := v.Verify(""); !errors.Is(err, ErrMissing) {
		t.Fatalf("empty: %v", err)
	}
	for in, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "Basic abc": "", "Bearer": "", "": ""} {
		if got := Bearer(in); got != want {
			t.Errorf("Bearer(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"credentials":[{"id":"0a1b","workspace":"/w","agent":"opencode","created":"2026-01-01T00:00:00Z","hash":"sha256:` + strings.Repeat("ab", 32) + `"}]}`))
	f.Add([]byte(`{"version":1,"credentials":[]}`))
	f.Add([]byte(`{"version":1,"credentials":[{"id":"x","revoked":"2026-01-01T00:00:00Z"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := parse(b)
		if err != nil {
			return
		}
		// Whatever parses is valid and survives a round trip.
		seen := map[string]bool{}
		for _, r := range recs {
			if !validID(r.ID) || seen[r.ID] || !filepath.IsAbs(r.Workspace) || r.Agent == "" || !validHash(r.Hash) {
				t.Fatalf("parse accepted an invalid record: %+v", r)
			}
			seen[r.ID] = true
		}
		out, err := json.Marshal(file{Version: fileVersion, Credentials: recs})
		if err != nil {
			t.Fatal(err)
		}
		again, err := parse(out)
		if err != nil || len(again) != len(recs) {
			t.Fatalf("round trip: %v (%d vs %d)", err, len(again), len(recs))
		}
	})
}

// Concurrent mints of one workspace's agent make one credential; verifies
// run alongside mints and revocations (the race detector watches).
func TestConcurrentMintVerifyRevoke(t *testing.T) {
	s := open(t, t.TempDir(), &recorder{})
	ctx := context.Background()
	const n = 16
	tokens := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m, err := s.Mint(ctx, "/ws", "opencode")
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Verify(m.Token); err != nil && !errors.Is(err, ErrRevoked) {
				t.Error(err)
			}
			tokens <- m.Token
		}()
	}
	wg.Wait()
	close(tokens)
	first := ""
	for tok := range tokens {
		if first == "" {
			first = tok
		} else if tok != first {
			t.Fatal("concurrent mints made two credentials")
		}
	}
	if l := s.List(); len(l) != 1 {
		t.Fatalf("list: %+v", l)
	}
	id := s.List()[0].ID
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = s.Revoke(ctx, id) }()
	go func() { defer wg.Done(); _, _ = s.Verify(first) }()
	wg.Wait()
	if _, err := s.Verify(first); !errors.Is(err, ErrRevoked) {
		t.Fatalf("after revoke: %v", err)
	}
}
