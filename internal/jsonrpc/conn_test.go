package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var fixed = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// serve starts a server running h on every connection and returns a
// connected client.
func serve(t *testing.T, h Handler, opts Options) *websocket.Conn {
	t.Helper()
	if opts.Now == nil {
		opts.Now = func() time.Time { return fixed }
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		c := NewConn(ws, h, opts)
		if err := c.Notify(r.Context(), "hello", map[string]any{"n": 1}); err != nil {
			return
		}
		_ = c.Run(r.Context())
		ws.CloseNow()
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ws.Close(websocket.StatusNormalClosure, "")
		srv.Close()
	})
	if got := read(t, ws); got["method"] != "hello" {
		t.Fatalf("first message %v, want the hello notification", got)
	}
	return ws
}

func send(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func readRaw(t *testing.T, ws *websocket.Conn) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, b, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func read(t *testing.T, ws *websocket.Conn) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(readRaw(t, ws), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	return int(e["code"].(float64))
}

var testHandler = HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
	switch req.Method {
	case "echo":
		var p map[string]any
		if err := Params(req.Params, &p); err != nil {
			return nil, err
		}
		return p, nil
	case "typed":
		var p struct {
			N int `json:"n"`
		}
		if err := Params(req.Params, &p); err != nil {
			return nil, err
		}
		return p.N * 2, nil
	case "missing":
		return nil, fmt.Errorf("reading: %w", Errorf(codeFileNotFound, "file not found: a.txt").With("path", "a.txt"))
	case "boom":
		return nil, fmt.Errorf("opening db: %w", errors.New("disk on fire"))
	case "panic":
		panic("handler bug")
	case "slow":
		select {
		case <-time.After(2 * time.Second):
			return "slow done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return nil, Errorf(CodeMethodNotFound, "method not found: %s", req.Method)
})

func TestRequestResponse(t *testing.T) {
	ws := serve(t, testHandler, Options{})
	send(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"b"}}`)
	got := readRaw(t, ws)
	if string(got) != `{"jsonrpc":"2.0","id":1,"result":{"a":"b"}}` {
		t.Fatalf("got %s", got)
	}
	send(t, ws, `{"jsonrpc":"2.0","id":"x-7","method":"typed","params":{"n":21}}`)
	if got := string(readRaw(t, ws)); got != `{"jsonrpc":"2.0","id":"x-7","result":42}` {
		t.Fatalf("got %s", got)
	}
}

// codeFileNotFound is a door's own code (the control door's), named by the
// door through Options.CodeName.
const codeFileNotFound = -32002

func TestErrors(t *testing.T) {
	ws := serve(t, testHandler, Options{CodeName: func(code int) string {
		if code == codeFileNotFound {
			return "FileNotFound"
		}
		return ""
	}})
	cases := []struct {
		msg     string
		code    int
		id      any
		errType string
	}{
		{`{not json`, CodeParseError, nil, "protocol"},
		{``, CodeParseError, nil, "protocol"},
		{`[]`, CodeInvalidRequest, nil, "protocol"},
		{`42`, CodeInvalidRequest, nil, "protocol"},
		{`{"jsonrpc":"1.0","id":1,"method":"echo"}`, CodeInvalidRequest, 1.0, "protocol"},
		{`{"jsonrpc":"2.0","id":2}`, CodeInvalidRequest, 2.0, "protocol"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"echo"}`, CodeInvalidRequest, nil, "protocol"},
		{`{"jsonrpc":"2.0","id":3,"method":"echo","params":"str"}`, CodeInvalidRequest, 3.0, "protocol"},
		{`{"jsonrpc":"2.0","id":4,"method":"nope"}`, CodeMethodNotFound, 4.0, "protocol"},
		{`{"jsonrpc":"2.0","id":5,"method":"typed","params":{"n":"x"}}`, CodeInvalidParams, 5.0, "protocol"},
		{`{"jsonrpc":"2.0","id":6,"method":"typed","params":[1]}`, CodeInvalidParams, 6.0, "protocol"},
		{`{"jsonrpc":"2.0","id":7,"method":"missing"}`, codeFileNotFound, 7.0, "FileNotFound"},
		{`{"jsonrpc":"2.0","id":8,"method":"boom"}`, CodeInternalError, 8.0, "unknown"},
		{`{"jsonrpc":"2.0","id":9,"method":"panic"}`, CodeInternalError, 9.0, "unknown"},
		{`{"jsonrpc":"2.0","id":null,"method":"nope"}`, CodeMethodNotFound, nil, "protocol"},
	}
	for _, tc := range cases {
		send(t, ws, tc.msg)
		m := read(t, ws)
		if errCode(m) != tc.code {
			t.Errorf("%s: got %v, want code %d", tc.msg, m, tc.code)
			continue
		}
		if m["id"] != tc.id {
			t.Errorf("%s: id %v, want %v", tc.msg, m["id"], tc.id)
		}
		data := m["error"].(map[string]any)["data"].(map[string]any)
		if data["timestamp"] != "2026-11-23T12:00:00Z" || data["errorType"] != tc.errType {
			t.Errorf("%s: data %v", tc.msg, data)
		}
		if _, ok := data["stack"]; ok {
			t.Errorf("%s: stack without debug: %v", tc.msg, data)
		}
	}
	// extra context travels in data
	send(t, ws, `{"jsonrpc":"2.0","id":10,"method":"missing"}`)
	if d := read(t, ws)["error"].(map[string]any)["data"].(map[string]any); d["path"] != "a.txt" {
		t.Errorf("data %v lacks the path", d)
	}
}

func TestDebugStack(t *testing.T) {
	ws := serve(t, testHandler, Options{Debug: true})
	send(t, ws, `{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	d := read(t, ws)["error"].(map[string]any)["data"].(map[string]any)
	if s, _ := d["stack"].(string); !strings.Contains(s, "disk on fire") || !strings.Contains(s, "opening db") {
		t.Fatalf("stack %q", s)
	}
}

func TestNotificationsGetNoResponse(t *testing.T) {
	ws := serve(t, testHandler, Options{})
	send(t, ws, `{"jsonrpc":"2.0","method":"echo","params":{}}`)
	send(t, ws, `{"jsonrpc":"2.0","method":"boom"}`)
	send(t, ws, `[{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","method":"nope"}]`)
	send(t, ws, `{"jsonrpc":"2.0","id":"after","method":"echo","params":{"k":1}}`)
	if m := read(t, ws); m["id"] != "after" {
		t.Fatalf("a notification was answered: %v", m)
	}
}

func TestBatch(t *testing.T) {
	ws := serve(t, testHandler, Options{})
	send(t, ws, `[
		{"jsonrpc":"2.0","id":1,"method":"typed","params":{"n":1}},
		{"jsonrpc":"2.0","method":"echo"},
		{"jsonrpc":"2.0","id":2,"method":"nope"},
		7,
		{"jsonrpc":"2.0","id":3,"method":"typed","params":{"n":3}}
	]`)
	var out []map[string]any
	if err := json.Unmarshal(readRaw(t, ws), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 {
		t.Fatalf("got %d responses, want 4 (the notification has none): %v", len(out), out)
	}
	if out[0]["result"] != 2.0 || errCode(out[1]) != CodeMethodNotFound || errCode(out[2]) != CodeInvalidRequest || out[3]["result"] != 6.0 {
		t.Fatalf("batch answers %v", out)
	}
	if out[2]["id"] != nil {
		t.Fatalf("invalid element id %v, want null", out[2]["id"])
	}
}

func TestDetachedRunsAlongside(t *testing.T) {
	ws := serve(t, testHandler, Options{Detached: func(m string) bool { return m == "slow" }})
	send(t, ws, `{"jsonrpc":"2.0","id":"slow","method":"slow"}`)
	send(t, ws, `{"jsonrpc":"2.0","id":"fast","method":"typed","params":{"n":1}}`)
	if m := read(t, ws); m["id"] != "fast" {
		t.Fatalf("first answer %v, want the fast one", m)
	}
	if m := read(t, ws); m["id"] != "slow" || m["result"] != "slow done" {
		t.Fatalf("second answer %v", m)
	}
}

func TestInOrderWhenNotDetached(t *testing.T) {
	ws := serve(t, testHandler, Options{})
	for i := range 20 {
		send(t, ws, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"typed","params":{"n":%d}}`, i, i))
	}
	for i := range 20 {
		if m := read(t, ws); m["id"] != float64(i) {
			t.Fatalf("answer %d has id %v", i, m["id"])
		}
	}
}

func TestReadLimit(t *testing.T) {
	ws := serve(t, testHandler, Options{ReadLimit: 1024})
	send(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":"`+strings.Repeat("x", 2048)+`"}}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := ws.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Fatalf("read after an oversized message: %v, want close 1009", err)
	}
}

func TestParams(t *testing.T) {
	var p struct {
		Path string `json:"path"`
	}
	if err := Params(nil, &p); err != nil {
		t.Fatalf("missing params: %v", err)
	}
	err := Params(json.RawMessage(`{"path":5}`), &p)
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalidParams || e.Data["field"] != "path" {
		t.Fatalf("type mismatch: %v", err)
	}
}

// A door's Check refuses a whole message before it is decoded: -32600 with
// the door's reason, and the handler never sees it.
func TestCheckRefusesBeforeDecoding(t *testing.T) {
	ws := serve(t, testHandler, Options{Check: func(msg []byte) error {
		if strings.Contains(string(msg), "[[[") {
			return errors.New("nested too deeply")
		}
		return nil
	}})
	send(t, ws, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":[[[1]]]}}`)
	m := read(t, ws)
	if errCode(m) != CodeInvalidRequest || m["id"] != nil || !strings.Contains(fmt.Sprint(m["error"]), "nested too deeply") {
		t.Fatalf("deep message: %v", m)
	}
	send(t, ws, `{"jsonrpc":"2.0","id":2,"method":"echo","params":{"a":[1]}}`)
	if m := read(t, ws); m["id"] != 2.0 || m["error"] != nil {
		t.Fatalf("the next message: %v", m)
	}
}
