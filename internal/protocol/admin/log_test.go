package admin

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/session"
)

func TestSessionsLeaveOutControlClientsAndPrune(t *testing.T) {
	c := coretest.New(t, coretest.Options{})
	creds, err := credential.Open(credential.Options{Dir: filepath.Join(t.TempDir(), "data")})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Core: c, Credentials: creds, Status: func() Status { return Status{} }}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	do := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+creds.AdminToken())
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, e := range []event.Event{
		{Session: "agent", Type: event.SessionStart, Source: "claude-code/hooks"},
		{Session: "editor", Type: event.ToolCall, Source: event.SourceControl},
		{Session: "debug-1", Type: event.ToolResult, Source: event.SourceControl + "/debug"},
	} {
		if _, err := c.Record(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(body string) string {
		var l []session.Session
		if err := json.Unmarshal([]byte(body), &l); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		var out []string
		for _, s := range l {
			out = append(out, s.ID)
		}
		return strings.Join(out, ",")
	}
	if code, body := do("GET", "/v1/sessions", ""); code != 200 || ids(body) != "agent" {
		t.Fatalf("sessions: %d %s", code, body)
	}
	if code, body := do("GET", "/v1/sessions?all=1", ""); code != 200 || ids(body) != "debug-1,editor,agent" {
		t.Fatalf("sessions?all=1: %d %s", code, body)
	}

	for _, bad := range []string{`{}`, `{"beforeId":2,"before":"1h"}`, `{"before":"-1h"}`, `{"before":"soon"}`, `{"beforeId":-3}`, `{"after":1}`, `[`} {
		if code, body := do("POST", "/v1/events/prune", bad); code != 400 {
			t.Errorf("prune %s: %d %s", bad, code, body)
		}
	}
	// Nothing is older than a day, and the message says so in the
	// terms asked.
	if code, body := do("POST", "/v1/events/prune", `{"before":"1d"}`); code != 409 || !strings.Contains(body, "nothing to prune") || !strings.Contains(body, "older than 1d") {
		t.Fatalf("prune of nothing: %d %s", code, body)
	}
	// An id past the end (a digit too many) would empty the log: refused,
	// saying which id does that on purpose.
	if code, body := do("POST", "/v1/events/prune", `{"beforeId":30}`); code != 400 || !strings.Contains(body, "last event is id 3") || !strings.Contains(body, "--before 4") {
		t.Fatalf("prune past the end: %d %s", code, body)
	}
	code, body := do("POST", "/v1/events/prune", `{"beforeId":3}`)
	if code != 200 || !strings.Contains(body, `"removed":2`) {
		t.Fatalf("prune: %d %s", code, body)
	}
	if code, body := do("GET", "/v1/sessions?all=1", ""); code != 200 || ids(body) != "debug-1,editor,agent" {
		t.Fatalf("sessions after the prune: %d %s", code, body)
	}
}

func TestParsePruneBefore(t *testing.T) {
	for in, want := range map[string]PruneRequest{
		"120": {BeforeID: 120}, "720h": {Before: "720h"}, "30d": {Before: "30d"}, " 5m ": {Before: "5m"},
	} {
		if got, err := ParsePruneBefore(in); err != nil || got != want {
			t.Errorf("ParsePruneBefore(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-4", "soon", "-1h", "xd", "0d"} {
		if _, err := ParsePruneBefore(in); err == nil {
			t.Errorf("ParsePruneBefore(%q) accepted", in)
		}
	}
}

// FuzzParsePruneBefore: whatever --before says is refused, or becomes
// exactly one of an id and a duration the door accepts.
func FuzzParsePruneBefore(f *testing.F) {
	for _, s := range []string{"120", "720h", "30d", "soon", "-1h", "0d", "9999999999999999999d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		req, err := ParsePruneBefore(s)
		if err != nil {
			return
		}
		if (req.BeforeID != 0) == (req.Before != "") || req.BeforeID < 0 {
			t.Fatalf("%q gave %+v", s, req)
		}
		if req.Before != "" {
			if d, err := parseAge(req.Before); err != nil || d <= 0 {
				t.Fatalf("%q gave a duration the door refuses: %v", s, err)
			}
		}
	})
}
