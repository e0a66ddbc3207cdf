package admin

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
)

func TestAdminAPI(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	creds, err := credential.Open(credential.Options{Dir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	secret := creds.AdminToken()
	s := &Server{Core: c, Credentials: creds, Status: func() Status { return Status{Version: "test"} }}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	do := func(method, path, token, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, b.String()
	}
	for _, tok := range []string{"", "wrong", secret + "X"} {
		if code, _ := do("GET", "/v1/status", tok, ""); code != 401 {
			t.Fatalf("token %q: %d, want 401", tok, code)
		}
	}
	if code, body := do("GET", "/v1/status", secret, ""); code != 200 || !strings.Contains(body, `"version":"test"`) {
		t.Fatalf("status: %d %s", code, body)
	}
	if code, body := do("GET", "/v1/sessions/nope", secret, ""); code != 404 || !strings.Contains(body, "warden sessions") {
		t.Fatalf("unknown session: %d %s", code, body)
	}
	if code, body := do("POST", "/v1/approvals/ap_x", secret, `{"decision":"maybe"}`); code != 400 {
		t.Fatalf("bad decision: %d %s", code, body)
	}
	if code, body := do("POST", "/v1/approvals/ap_x", secret, `{"decision":"approve"}`); code != 404 || !strings.Contains(body, "warden approvals") {
		t.Fatalf("unknown approval: %d %s", code, body)
	}
	if code, _ := do("POST", "/v1/approvals/ap_x", secret, `{`); code != 400 {
		t.Fatalf("bad body: %d", code)
	}
	if code, body := do("GET", "/v1/events?since=-1", secret, ""); code != 400 {
		t.Fatalf("bad since: %d %s", code, body)
	}
}
