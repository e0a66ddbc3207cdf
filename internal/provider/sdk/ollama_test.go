package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/fakemodel/ollama"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func ollamaReply(s step) ollama.Reply {
	r := ollama.Reply{Thinking: s.thinking, Text: s.text, Hold: s.hold}
	for _, c := range s.calls {
		var args any
		_ = json.Unmarshal(c.Arguments, &args) // the harness writes valid JSON
		r.Calls = append(r.Calls, ollama.Call{ID: c.ID, Name: c.Name, Args: args})
	}
	if s.usage != nil {
		r.PromptEvalCount, r.EvalCount = int(s.usage.InputTokens), int(s.usage.OutputTokens)
	}
	switch {
	case s.retryable:
		r.Error = &ollama.Error{Status: http.StatusServiceUnavailable, Message: "server busy, please try again.  maximum pending requests exceeded"}
	case s.overflow:
		r.Error = &ollama.Error{Status: http.StatusBadRequest, Message: "the input length exceeds the context length"}
	case s.streamErr:
		r.StreamError = "server busy, please try again"
	}
	if s.maxTokens {
		r.DoneReason = "length"
	}
	return r
}

func newOllamaHarness(t *testing.T) (harness, *ollama.Server) {
	q := ollama.NewQueue()
	srv := ollama.New(q.Next)
	t.Cleanup(srv.Close)
	p, err := sdk.NewOllama(sdk.Endpoint{Name: "ollama", BaseURL: srv.URL, HTTPClient: testClient(t), Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	return harness{
		p: p, model: "qwen2.5-coder:7b",
		push: func(ss ...step) {
			for _, s := range ss {
				q.Push(ollamaReply(s))
			}
		},
		requests: func() int { return len(srv.Requests()) },
		sent: func() sentRequest {
			rs := srv.Requests()
			r := rs[len(rs)-1]
			out := sentRequest{toolResults: map[string]string{}, toolNames: r.ToolNames()}
			for _, m := range r.Messages {
				out.roles = append(out.roles, m.Role)
				switch m.Role {
				case "system":
					out.system = m.Content
				case "tool":
					out.toolResults[m.ToolCallID] = m.Content
				case "assistant":
					for _, c := range m.ToolCalls {
						out.callIDs = append(out.callIDs, c.ID)
					}
				}
				if m.Role == "user" || m.Role == "assistant" {
					out.texts = append(out.texts, m.Content)
				}
			}
			return out
		},
	}, srv
}

func TestOllamaConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) harness { h, _ := newOllamaHarness(t); return h })
}

func TestOllamaNumCtxAndWire(t *testing.T) {
	h, srv := newOllamaHarness(t)
	srv.SetModels(ollama.Model{Name: "qwen2.5-coder:7b", ContextLength: 131072}, ollama.Model{Name: "tuned", ContextLength: 131072, NumCtx: 16384})
	h.push(step{thinking: "let me think", text: "ok"}, step{text: "ok"})
	resp, err := h.p.Stream(context.Background(), provider.Request{Model: "qwen2.5-coder:7b", MaxTokens: 50, ThinkingBudget: 1,
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Parts[0].Type != provider.PartThinking || resp.Message.Parts[0].Text != "let me think" {
		t.Fatalf("parts %+v", resp.Message.Parts)
	}
	req := srv.Requests()[0]
	if req.NumCtx() != sdk.DefaultOllamaNumCtx {
		t.Fatalf("num_ctx %d, want the trained 131072 capped at %d", req.NumCtx(), sdk.DefaultOllamaNumCtx)
	}
	if req.Truncate == nil || *req.Truncate || string(req.Think) != "true" || req.Options["num_predict"] != float64(50) {
		t.Fatalf("truncate %v think %s options %v", req.Truncate, req.Think, req.Options)
	}
	if _, err := h.p.Stream(context.Background(), provider.Request{Model: "tuned",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests()[1].NumCtx(); n != 16384 {
		t.Fatalf("num_ctx %d, want the Modelfile's 16384", n)
	}
	if shows := srv.Shows(); len(shows) != 2 {
		t.Fatalf("/api/show asked %v: once per model", shows)
	}
	mi, err := h.p.Info(context.Background(), "qwen2.5-coder:7b")
	if err != nil || mi.ContextWindow != sdk.DefaultOllamaNumCtx || mi.ID != "ollama/qwen2.5-coder:7b" {
		t.Fatalf("Info %+v %v", mi, err)
	}
}

func TestOllamaConfiguredWindow(t *testing.T) {
	q := ollama.NewQueue(ollama.Reply{Text: "ok"})
	srv := ollama.New(q.Next)
	defer srv.Close()
	p, err := sdk.NewOllama(sdk.Endpoint{Name: "ollama", BaseURL: srv.URL, HTTPClient: testClient(t),
		Models: []provider.ModelInfo{{Name: "qwen2.5-coder:7b", ContextWindow: 65536}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "qwen2.5-coder:7b",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests()[0].NumCtx(); n != 65536 {
		t.Fatalf("num_ctx %d, want the configured 65536", n)
	}
}

// TestOllamaCutPromptWarns: Ollama reporting a prompt far below what was
// sent (it cut it to fit num_ctx) sets Response.Warning.
func TestOllamaCutPromptWarns(t *testing.T) {
	q := ollama.NewQueue(ollama.Reply{Text: "ok", PromptEvalCount: 2048}, ollama.Reply{Text: "ok", PromptEvalCount: 30})
	srv := ollama.New(q.Next)
	defer srv.Close()
	srv.SetModels(ollama.Model{Name: "small", ContextLength: 2048})
	p, err := sdk.NewOllama(sdk.Endpoint{Name: "ollama", BaseURL: srv.URL, HTTPClient: testClient(t)})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("func main() { fmt.Println(\"hello\") }\n", 1000) // ~9,500 tokens
	resp, err := p.Stream(context.Background(), provider.Request{Model: "small",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: long}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Warning, "cut the prompt") || !strings.Contains(resp.Warning, "num_ctx 2048") {
		t.Fatalf("warning %q", resp.Warning)
	}
	resp, err = p.Stream(context.Background(), provider.Request{Model: "small",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "a short question"}}}}}, nil)
	if err != nil || resp.Warning != "" {
		t.Fatalf("short prompt: warning %q err %v", resp.Warning, err)
	}
}

func TestOllamaModelsAndErrors(t *testing.T) {
	q := ollama.NewQueue()
	srv := ollama.New(q.Next)
	defer srv.Close()
	srv.SetModels(ollama.Model{Name: "llama3.2:latest", ContextLength: 131072}, ollama.Model{Name: "qwen3:8b", ContextLength: 40960})
	p, err := sdk.NewOllama(sdk.Endpoint{Name: "local", BaseURL: srv.URL, APIKey: "k", HTTPClient: testClient(t), Retry: fastRetry()})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := p.Models(context.Background())
	if err != nil || len(ms) != 2 || ms[0].ID != "local/llama3.2:latest" || ms[1].ID != "local/qwen3:8b" {
		t.Fatalf("models %+v %v", ms, err)
	}
	_, err = p.Stream(context.Background(), provider.Request{Model: "missing",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("unknown model: %v", err)
	}
	q.Push(ollama.Reply{Text: "partial", StreamError: "model runner has unexpectedly stopped"})
	_, err = p.Stream(context.Background(), provider.Request{Model: "qwen3:8b",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "unexpectedly stopped") || errors.Is(err, provider.ErrContextOverflow) {
		t.Fatalf("stream error line: %v", err)
	}
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer k" {
		t.Fatalf("Authorization %q", got)
	}
}
