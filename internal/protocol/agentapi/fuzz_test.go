package agentapi

import (
	"context"
	"errors"
	"testing"

	"github.com/warden-dev/warden/internal/credential"
	"github.com/warden-dev/warden/internal/jsonrpc"
)

// FuzzParams: any params to any method that does not call the model are
// answered with a result or one of the spec's error codes, never a panic.
func FuzzParams(f *testing.F) {
	h := newHarness(f, queue(), harnessOptions{})
	c := &conn{srv: &Server{opts: Options{Engine: h.eng}}, principal: credential.Principal{Kind: credential.Admin}, attached: map[string]bool{}, wake: make(chan struct{}, 1)}
	id, err := h.eng.Create(context.Background(), h.root, h.model)
	if err != nil {
		f.Fatal(err)
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
