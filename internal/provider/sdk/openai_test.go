package sdk_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func openAIReply(s step) openai.Reply {
	r := openai.Reply{Reasoning: s.thinking, Text: s.text, Hold: s.hold}
	for _, c := range s.calls {
		r.Calls = append(r.Calls, openai.Call{ID: c.ID, Name: c.Name, RawArgs: string(c.Arguments)})
	}
	if s.usage != nil {
		r.Usage = &openai.Usage{PromptTokens: s.usage.InputTokens, CompletionTokens: s.usage.OutputTokens}
	}
	switch {
	case s.retryable:
		r.Error = &openai.Error{Status: http.StatusServiceUnavailable, Message: "overloaded, try again", RetryAfter: "0"}
	case s.overflow:
		r.Error = openai.ContextOverflow()
	case s.streamErr:
		r.StreamError = &openai.Error{Type: "server_error", Message: "The server had an error while processing your request."}
	}
	if s.maxTokens {
		r.Finish = "length"
	}
	return r
}

func newOpenAIHarness(t *testing.T) (harness, *openai.Server) {
	q := openai.NewQueue()
	srv := openai.New(q.Next)
	t.Cleanup(srv.Close)
	p := sdk.NewOpenAI(sdk.Endpoint{Name: "openai", BaseURL: srv.URL + "/v1", APIKey: "sk-test",
		HTTPClient: testClient(t), Retry: fastRetry()})
	return harness{
		p: p, model: "fake-model",
		push: func(ss ...step) {
			for _, s := range ss {
				q.Push(openAIReply(s))
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
					out.system = m.Text()
				case "tool":
					out.toolResults[m.ToolCallID] = m.Text()
				case "assistant":
					for _, c := range m.ToolCalls {
						out.callIDs = append(out.callIDs, c.ID)
					}
				}
				if m.Role != "system" && m.Role != "tool" && len(m.Content) > 0 && string(m.Content) != "null" {
					out.texts = append(out.texts, m.Text())
				}
			}
			return out
		},
	}, srv
}

func TestOpenAIConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) harness { h, _ := newOpenAIHarness(t); return h })
}

func TestOpenAIWire(t *testing.T) {
	h, srv := newOpenAIHarness(t)
	h.push(step{thinking: "hmm, think", text: "ok"})
	resp, err := h.p.Stream(context.Background(), provider.Request{Model: "fake-model", MaxTokens: 100,
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.Parts) != 2 || resp.Message.Parts[0].Type != provider.PartThinking || resp.Message.Parts[0].Text != "hmm, think" {
		t.Fatalf("reasoning_content not kept as thinking: %+v", resp.Message.Parts)
	}
	req := srv.Requests()[0]
	if !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Fatalf("stream %v options %+v: usage must be asked for", req.Stream, req.StreamOptions)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Fatalf("Authorization %q", got)
	}
	// a compatible server gets max_tokens (OpenAI's own API gets
	// max_completion_tokens)
	if req.MaxTokens != 100 || req.MaxCompletionTokens != 0 {
		t.Fatalf("max_tokens %d max_completion_tokens %d", req.MaxTokens, req.MaxCompletionTokens)
	}
}

func TestOpenAINoUsageAndInvalidArgs(t *testing.T) {
	q := openai.NewQueue(openai.Reply{Calls: []openai.Call{{Name: "read", RawArgs: `{"path": "a.go"`}}, NoUsage: true})
	srv := openai.New(q.Next)
	defer srv.Close()
	p := sdk.NewOpenAI(sdk.Endpoint{Name: "local", BaseURL: srv.URL + "/v1", HTTPClient: testClient(t), Retry: fastRetry()})
	resp, err := p.Stream(context.Background(), provider.Request{Model: "m", Tools: []provider.Tool{readTool},
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage != (provider.Usage{}) {
		t.Fatalf("usage %+v invented when none was reported", resp.Usage)
	}
	calls := resp.Message.ToolCalls()
	if len(calls) != 1 || string(calls[0].Arguments) != `{"path": "a.go"` {
		t.Fatalf("invalid arguments must arrive as received: %+v", calls)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Fatalf("no key configured but Authorization %q sent", h)
	}
}

func TestOpenAIModels(t *testing.T) {
	srv := openai.New(openai.NewQueue().Next)
	defer srv.Close()
	srv.SetModels("gpt-4.1", "my-local")
	p := sdk.NewOpenAI(sdk.Endpoint{Name: "openai", BaseURL: srv.URL + "/v1", HTTPClient: testClient(t),
		Models: []provider.ModelInfo{{Name: "my-local", ContextWindow: 32768}, {Name: "unlisted", ContextWindow: 8192}}})
	ms, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.ID+"="+strconv.Itoa(m.ContextWindow))
	}
	want := "openai/gpt-4.1=1047576 openai/my-local=32768 openai/unlisted=8192"
	if strings.Join(got, " ") != want {
		t.Fatalf("models %v, want %s", got, want)
	}
	mi, err := p.Info(context.Background(), "gpt-4o-mini")
	if err != nil || mi.ContextWindow != 128000 || mi.ID != "openai/gpt-4o-mini" {
		t.Fatalf("Info %+v %v", mi, err)
	}
}
