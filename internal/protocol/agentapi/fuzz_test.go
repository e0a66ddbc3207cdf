package agentapi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/warden-dev/warden/internal/agent"
	"github.com/warden-dev/warden/internal/core/coretest"
	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/event"
	"github.com/warden-dev/warden/internal/jsonrpc"
	"github.com/warden-dev/warden/internal/ops"
	"github.com/warden-dev/warden/internal/policy"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/workspace"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fuzzEngine is warden's agent engine over a real core and operations
// layer, with no model provider (the methods fuzzed never call a model;
// the door's end-to-end tests, with a model, are in package doortest), and
// one session recorded in its log as the engine records one.
func fuzzEngine(t testing.TB) (eng *agent.Engine, id, root string) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root = filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	env := coretest.Env()
	env.Home = filepath.Join(dir, "home")
	p, err := policy.Default(env)
	if err != nil {
		t.Fatal(err)
	}
	c := coretest.New(t, coretest.Options{Dir: dir, Policy: p})
	reg, err := workspace.Open(filepath.Join(dir, "workspaces.json"), workspace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := reg.Add(root); err != nil {
		t.Fatal(err)
	}
	svc, err := ops.New(ops.Options{Core: c, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	eng, err = agent.New(agent.Options{Core: c, Ops: svc, Models: provider.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if err := eng.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	id = "ag_fuzz"
	data, err := event.Encode(agent.StartData{WorkingDirectory: root, Model: "openai/fake-model", Provider: "openai"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Record(context.Background(), event.Event{Session: id, Type: event.SessionStart, Source: agent.Source, Workspace: root, Data: data}); err != nil {
		t.Fatal(err)
	}
	return eng, id, root
}

// FuzzParams: any params to any method that does not call the model are
// answered with a result or one of the spec's error codes, never a panic.
func FuzzParams(f *testing.F) {
	eng, id, root := fuzzEngine(f)
	c := &conn{srv: &Server{opts: Options{Engine: eng}}, principal: credential.Principal{Kind: credential.Agent, ID: "fuzz", Workspace: root, Agent: credential.AgentAPIClient}, attached: map[string]bool{}, wake: make(chan struct{}, 1)}
	if _, err := eng.Get(context.Background(), id); err != nil {
		f.Fatalf("the recorded session is not the engine's: %v", err)
	}
	methods := []string{"session.create", "session.list", "session.get", "session.fork", "session.delete", "agent.abort",
		"model.switch", "context.get", "events.list", "events.sync", "no.such"}
	for i := range methods {
		f.Add(uint8(i), []byte(`{"sessionId":"`+id+`","lastSequence":1,"limit":2,"after":1}`))
		f.Add(uint8(i), []byte(`{"sessionId":7,"workingDirectory":"/","model":"x"}`))
		f.Add(uint8(i), []byte(`[]`))
	}
	codes := map[int]bool{jsonrpc.CodeInvalidParams: true, jsonrpc.CodeMethodNotFound: true, CodeSessionNotFound: true, CodeAgentBusy: true, CodeContextOverflow: true}
	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		method := methods[int(m)%len(methods)]
		if method == "session.delete" {
			method = "session.get" // keep the one session alive for the next inputs
		}
		_, err := c.handle(context.Background(), &jsonrpc.Request{JSONRPC: "2.0", ID: []byte("1"), Method: method, Params: params})
		if err == nil {
			return
		}
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !codes[je.Code] {
			t.Fatalf("%s %s: %v (not one of the spec's codes)", method, params, err)
		}
	})
}
