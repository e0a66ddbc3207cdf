package hooks

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzDecode: any body either fails to decode or maps onto events (or a
// gate request) without panicking, every event with valid JSON data.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{sessionStart, promptSubmit, bash("rm -rf /"), postToolUse, stop, sessionEnd,
		`{"session_id":"s","hook_event_name":"SubagentStart","agent_id":"a"}`, `{}`, `[]`, `null`, `{"session_id":"s","hook_event_name":"X","tool_input":{"file_path":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := Decode(body)
		if err != nil {
			return
		}
		if p.SessionID == "" || p.HookEventName == "" {
			t.Fatalf("decoded without session or event: %q", body)
		}
		if p.HookEventName == EventPreToolUse {
			req := p.GateRequest(ws)
			if req.Call.Tool == "" || req.Call.Args == nil {
				t.Fatalf("gate request %+v", req)
			}
			return
		}
		for _, e := range p.Events(ws, "id", time.Unix(1, 0)) {
			if e.Session == "" || e.Type == "" || !json.Valid(e.Data) {
				t.Fatalf("event %+v", e)
			}
		}
	})
}

// FuzzDecodeSpoolEntry: a spool file either is refused or decodes to an
// entry with an id, an absolute workspace and a non-gating payload.
func FuzzDecodeSpoolEntry(f *testing.F) {
	good, _ := json.Marshal(SpoolEntry{ID: "1-a", Workspace: ws, Payload: json.RawMessage(stop)})
	f.Add(good)
	f.Add([]byte(`{"spoolId":"x","workspace":"rel","payload":{}}`))
	f.Add([]byte(`{"spoolId":"x","workspace":"/w","payload":` + bash("ls") + `}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, p, w, err := DecodeSpoolEntry(b)
		if err != nil {
			return
		}
		if e.ID == "" || w == "" || w[0] != '/' || p.HookEventName == EventPreToolUse {
			t.Fatalf("accepted %q", b)
		}
	})
}
