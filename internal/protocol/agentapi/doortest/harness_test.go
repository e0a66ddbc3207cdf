package doortest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/core"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	openaifake "github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/protocol/agentapi"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
	"github.com/warden-dev/warden/internal/reaper"
	"github.com/warden-dev/warden/internal/store"
	"github.com/warden-dev/warden/internal/workspace"
)

func TestMain(m *testing.M) {
	reaper.MaybeRun() // the shell calls' guard is this test binary
	goleak.VerifyTestMain(m)
}

// harness is the Agent API door over a real core (SQLite), a real
// operations layer and warden's agent engine, whose model is the OpenAI
// adapter talking to the wire-exact fake.
type harness struct {
	t     testing.TB
	dir   string
	root  string
	home  string
	core  *core.Core
	ops   *ops.Service
	eng   *agent.Engine
	fake  *openaifake.Server
	http  *httptest.Server
	model string
	// token is the workspace's scoped Agent API credential; admin is the
	// data dir's admin token, which the door refuses.
	token, admin string
}

type harnessOptions struct {
	dir    string
	engine func(*agent.Options)
	ops    func(*ops.Options)        // adjusts the operations' options (the code index's directory)
	log    func(store.Log) store.Log // wraps the core's log
}

func newHarness(t testing.TB, script openaifake.Script, o harnessOptions) *harness {
	t.Helper()
	dir := o.dir
	if dir == "" {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	h := &harness{t: t, dir: dir, root: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home"), model: "openai/fake-model"}
	for _, d := range []string{h.root, h.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := coretest.Env()
	env.Home = h.home
	p, err := policy.Default(env)
	if err != nil {
		t.Fatal(err)
	}
	h.core = coretest.New(t, coretest.Options{Dir: dir, Policy: p, Log: o.log})
	reg, err := workspace.Open(filepath.Join(dir, "workspaces.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup(h.root); !ok {
		if _, _, err := reg.Add(h.root); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	oo := ops.Options{Core: h.core, Registry: reg, ExecGuard: exe, TerminalEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.home}}
	if o.ops != nil {
		o.ops(&oo)
	}
	svc, err := ops.New(oo)
	if err != nil {
		t.Fatal(err)
	}
	h.ops = svc
	t.Cleanup(func() { svc.Close() })
	h.fake = openaifake.New(script)
	t.Cleanup(h.fake.Close)
	models := provider.NewRegistry(sdk.NewOpenAI(sdk.Endpoint{Name: "openai", BaseURL: h.fake.URL + "/v1", APIKey: "sk-test"}))
	eo := agent.Options{Core: h.core, Ops: svc, Models: models}
	if o.engine != nil {
		o.engine(&eo)
	}
	h.eng, err = agent.New(eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.eng.Close() })
	if err := h.eng.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	creds, err := credential.Open(credential.Options{Dir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	m, err := creds.Mint(t.Context(), h.root, credential.AgentAPIClient)
	if err != nil {
		t.Fatal(err)
	}
	h.token, h.admin = m.Token, creds.AdminToken()
	srv, err := agentapi.New(agentapi.Options{Engine: h.eng, Credentials: creds})
	if err != nil {
		t.Fatal(err)
	}
	h.http = httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		h.http.Close()
	})
	return h
}

// events returns session id's events of type typ.
func (h *harness) events(id string, typ event.Type) []event.Event {
	h.t.Helper()
	evs, err := h.eng.Events(context.Background(), id, 0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	var out []event.Event
	for _, x := range evs {
		if typ == "" || x.Type == typ {
			out = append(out, x)
		}
	}
	return out
}

// client is a real WebSocket JSON-RPC client of the door.
type client struct {
	t  testing.TB
	ws *websocket.Conn

	mu      sync.Mutex
	next    int
	waiting map[string]chan response
	notes   []note
	changed chan struct{}
	done    chan struct{}
}

type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

type note struct {
	Method string         `json:"method"`
	Params map[string]any `json:"params"`
}

func (h *harness) dial() *client {
	h.t.Helper()
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+h.token)
	ws, _, err := websocket.Dial(h.t.Context(), h.http.URL, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		h.t.Fatalf("dial: %v", err)
	}
	ws.SetReadLimit(64 << 20)
	c := &client{t: h.t, ws: ws, waiting: map[string]chan response{}, changed: make(chan struct{}), done: make(chan struct{})}
	go c.read()
	h.t.Cleanup(c.close)
	return c
}

func (c *client) close() {
	c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
}

func (c *client) read() {
	defer close(c.done)
	for {
		_, b, err := c.ws.Read(context.Background())
		if err != nil {
			c.mu.Lock()
			for _, ch := range c.waiting {
				close(ch)
			}
			c.waiting = map[string]chan response{}
			c.mu.Unlock()
			return
		}
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(b, &probe)
		c.mu.Lock()
		if probe.Method != "" {
			var n note
			_ = json.Unmarshal(b, &n)
			c.notes = append(c.notes, n)
			close(c.changed)
			c.changed = make(chan struct{})
		} else {
			var r response
			_ = json.Unmarshal(b, &r)
			if ch, ok := c.waiting[string(probe.ID)]; ok {
				ch <- r
				delete(c.waiting, string(probe.ID))
			}
		}
		c.mu.Unlock()
	}
}

// start sends a request and returns where its response will come.
func (c *client) start(method string, params any) <-chan response {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := fmt.Sprintf(`"r%d"`, c.next)
	ch := make(chan response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	if err := c.ws.Write(c.t.Context(), websocket.MessageText, b); err != nil {
		c.t.Fatalf("write %s: %v", method, err)
	}
	return ch
}

const waitTimeout = 30 * time.Second

func wait(t testing.TB, ch <-chan response, what string) response {
	t.Helper()
	select {
	case r, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the connection closed", what)
		}
		return r
	case <-time.After(waitTimeout):
		t.Fatalf("%s: no response", what)
	}
	return response{}
}

// call sends a request and decodes its result into out; an error fails.
func (c *client) call(method string, params any, out any) {
	c.t.Helper()
	r := wait(c.t, c.start(method, params), method)
	if r.Error != nil {
		c.t.Fatalf("%s: error %d %s", method, r.Error.Code, r.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result, out); err != nil {
			c.t.Fatalf("%s result %s: %v", method, r.Result, err)
		}
	}
}

// callErr sends a request that must fail and returns its error code.
func (c *client) callErr(method string, params any) int {
	c.t.Helper()
	r := wait(c.t, c.start(method, params), method)
	if r.Error == nil {
		c.t.Fatalf("%s: succeeded (%s), want an error", method, r.Result)
	}
	return r.Error.Code
}

// waitNote waits for a notification (the first from index from on) and
// returns it with its index.
func (c *client) waitNote(from int, method string, match func(map[string]any) bool) (note, int) {
	c.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		c.mu.Lock()
		for i := from; i < len(c.notes); i++ {
			if c.notes[i].Method == method && (match == nil || match(c.notes[i].Params)) {
				n := c.notes[i]
				c.mu.Unlock()
				return n, i
			}
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-timeout:
			c.t.Fatalf("no %s notification", method)
		case <-c.done:
			c.t.Fatalf("connection closed waiting for %s", method)
		}
	}
}

// text joins the agent.text_delta notifications of session id.
func (c *client) text(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, n := range c.notes {
		if n.Method == "agent.text_delta" && n.Params["sessionId"] == id {
			b.WriteString(n.Params["delta"].(string))
		}
	}
	return b.String()
}

// waitText waits until the agent.text_delta notifications of session id
// join to want.
func (c *client) waitText(id, want string) {
	c.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		c.mu.Lock()
		ch := c.changed
		c.mu.Unlock()
		got := c.text(id)
		if got == want {
			return
		}
		select {
		case <-ch:
		case <-timeout:
			c.t.Fatalf("the deltas joined to %q, want %q", got, want)
		case <-c.done:
			c.t.Fatalf("connection closed waiting for the deltas %q", want)
		}
	}
}

func (c *client) create(h *harness) string {
	c.t.Helper()
	var r struct {
		SessionID string `json:"sessionId"`
	}
	c.call("session.create", map[string]any{"workingDirectory": h.root, "model": h.model}, &r)
	if !strings.HasPrefix(r.SessionID, "ag_") {
		c.t.Fatalf("sessionId %q", r.SessionID)
	}
	return r.SessionID
}

func (c *client) message(id, content string) agent.TurnResult {
	c.t.Helper()
	var res agent.TurnResult
	c.call("agent.message", map[string]any{"sessionId": id, "content": content}, &res)
	return res
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// notesSnapshot is how many notifications arrived so far.
func (c *client) notesSnapshot() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.notes)
}
