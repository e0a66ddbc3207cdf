package sdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func anthropicReply(s step) anthropic.Reply {
	r := anthropic.Reply{Thinking: s.thinking, Text: s.text, Hold: s.hold}
	for _, c := range s.calls {
		r.Calls = append(r.Calls, anthropic.Call{ID: c.ID, Name: c.Name, RawInput: string(c.Arguments)})
	}
	if s.usage != nil {
		r.Usage = &anthropic.Usage{Input: s.usage.InputTokens, Output: s.usage.OutputTokens}
	}
	switch {
	case s.retryable:
		r.Error = anthropic.Overloaded()
		r.Error.RetryAfter = "0"
	case s.overflow:
		r.Error = anthropic.PromptTooLong()
	case s.streamErr:
		r.StreamError = anthropic.Overloaded()
	}
	if s.maxTokens {
		r.Stop = "max_tokens"
	}
	return r
}

func newAnthropicHarness(t *testing.T) (harness, *anthropic.Server) {
	q := anthropic.NewQueue()
	srv := anthropic.New(q.Next)
	t.Cleanup(srv.Close)
	p := sdk.NewAnthropic(sdk.Endpoint{Name: "anthropic", BaseURL: srv.URL, APIKey: "sk-ant-test",
		HTTPClient: testClient(t), Retry: fastRetry()})
	return harness{
		p: p, model: "claude-fake",
		push: func(ss ...step) {
			for _, s := range ss {
				q.Push(anthropicReply(s))
			}
		},
		requests: func() int { return len(srv.Requests()) },
		sent: func() sentRequest {
			rs := srv.Requests()
			r := rs[len(rs)-1]
			out := sentRequest{system: r.SystemText(), toolResults: map[string]string{}}
			for _, tl := range r.Tools {
				out.toolNames = append(out.toolNames, tl.Name)
			}
			for _, m := range r.Messages {
				out.roles = append(out.roles, m.Role)
				for _, b := range m.Blocks() {
					switch b.Type {
					case "tool_result":
						out.toolResults[b.ToolUseID] = b.ContentText()
					case "tool_use":
						out.callIDs = append(out.callIDs, b.ID)
					case "text":
						out.texts = append(out.texts, b.Text)
					}
				}
			}
			return out
		},
	}, srv
}

func TestAnthropicConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) harness { h, _ := newAnthropicHarness(t); return h })
}

// TestAnthropicThinkingRoundTrip: thinking blocks stream as thinking
// deltas, keep their signature in ProviderData, and go back verbatim
// before the tool call they led to; redacted thinking goes back too.
func TestAnthropicThinkingRoundTrip(t *testing.T) {
	q := anthropic.NewQueue(
		anthropic.Reply{Thinking: "I should read the file first.", Signature: "EqQBCkYIARgCIkD", Redacted: "opaque-bytes",
			Text: "Reading.", Calls: []anthropic.Call{{ID: "toolu_1", Name: "read", Input: map[string]any{"path": "a.go"}}},
			Usage: &anthropic.Usage{Input: 100, Output: 20, CacheRead: 400, CacheWrite: 50}},
		anthropic.Reply{Text: "Done."})
	srv := anthropic.New(q.Next)
	defer srv.Close()
	p := sdk.NewAnthropic(sdk.Endpoint{Name: "anthropic", BaseURL: srv.URL, HTTPClient: testClient(t), Retry: fastRetry()})
	user := provider.Message{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "read a.go"}}}
	ds, on := collect()
	resp, err := p.Stream(context.Background(), provider.Request{Model: "claude-sonnet-4-5", ThinkingBudget: 2048,
		Tools: []provider.Tool{readTool}, Messages: []provider.Message{user}}, on)
	if err != nil {
		t.Fatal(err)
	}
	if deltaText(*ds, provider.DeltaThinking) != "I should read the file first." {
		t.Fatalf("thinking deltas %v", *ds)
	}
	parts := resp.Message.Parts
	if len(parts) != 4 || parts[0].Type != provider.PartThinking || parts[1].Type != provider.PartThinking ||
		parts[2].Type != provider.PartText || parts[3].Type != provider.PartToolCall {
		t.Fatalf("parts %+v", parts)
	}
	if !strings.Contains(string(parts[0].ProviderData), "EqQBCkYIARgCIkD") || !strings.Contains(string(parts[1].ProviderData), "opaque-bytes") {
		t.Fatalf("provider data %s / %s", parts[0].ProviderData, parts[1].ProviderData)
	}
	if resp.Usage != (provider.Usage{InputTokens: 550, OutputTokens: 20, CacheReadTokens: 400, CacheWriteTokens: 50}) {
		t.Fatalf("usage %+v", resp.Usage)
	}
	first := srv.Requests()[0]
	if first.Thinking == nil || first.Thinking.Type != "enabled" || first.Thinking.BudgetTokens != 2048 || first.MaxTokens <= 2048 {
		t.Fatalf("thinking %+v max_tokens %d", first.Thinking, first.MaxTokens)
	}
	if first.Header.Get("anthropic-version") == "" {
		t.Fatal("no anthropic-version header")
	}

	// the next step sends the assistant message back as it came
	hist := []provider.Message{user, resp.Message, {Role: provider.RoleTool, Parts: []provider.Part{
		{Type: provider.PartToolResult, ToolResult: &provider.ToolResult{CallID: "toolu_1", Content: "package a"}}}}}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "claude-sonnet-4-5", ThinkingBudget: 2048,
		Tools: []provider.Tool{readTool}, Messages: hist}, nil); err != nil {
		t.Fatal(err)
	}
	second := srv.Requests()[1]
	if len(second.Messages) != 3 || second.Messages[1].Role != "assistant" || second.Messages[2].Role != "user" {
		t.Fatalf("messages %+v", second.Messages)
	}
	blocks := second.Messages[1].Blocks()
	if len(blocks) != 4 || blocks[0].Type != "thinking" || blocks[0].Signature != "EqQBCkYIARgCIkD" ||
		blocks[0].Thinking != "I should read the file first." || blocks[1].Type != "redacted_thinking" || blocks[1].Data != "opaque-bytes" ||
		blocks[2].Type != "text" || blocks[3].Type != "tool_use" || blocks[3].ID != "toolu_1" {
		t.Fatalf("assistant blocks sent back %+v", blocks)
	}
	var in struct{ Path string }
	if json.Unmarshal(blocks[3].Input, &in) != nil || in.Path != "a.go" {
		t.Fatalf("tool input sent back %s", blocks[3].Input)
	}
}

// TestAnthropicMergesUserSide: a tool message followed by a user message
// become one user message, tool results first.
func TestAnthropicMergesUserSide(t *testing.T) {
	q := anthropic.NewQueue(anthropic.Reply{Text: "ok"})
	srv := anthropic.New(q.Next)
	defer srv.Close()
	p := sdk.NewAnthropic(sdk.Endpoint{Name: "anthropic", BaseURL: srv.URL, HTTPClient: testClient(t), Retry: fastRetry()})
	hist := []provider.Message{
		{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "go"}}},
		{Role: provider.RoleAssistant, Parts: []provider.Part{{Type: provider.PartToolCall, ToolCall: &provider.ToolCall{ID: "t1", Name: "read", Arguments: json.RawMessage(`{"path":`)}}}},
		{Role: provider.RoleTool, Parts: []provider.Part{{Type: provider.PartToolResult, ToolResult: &provider.ToolResult{CallID: "t1", Content: "bad arguments", IsError: true}}}},
		{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "try again"}}},
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "claude-fake", Messages: hist}, nil); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if len(r.Messages) != 3 {
		t.Fatalf("%d messages, want user, assistant, user", len(r.Messages))
	}
	blocks := r.Messages[2].Blocks()
	if len(blocks) != 2 || blocks[0].Type != "tool_result" || !blocks[0].IsError || blocks[1].Type != "text" || blocks[1].Text != "try again" {
		t.Fatalf("merged user message %+v", blocks)
	}
	if got := string(r.Messages[1].Blocks()[0].Input); got != "{}" {
		t.Fatalf("invalid arguments went back as %s, want {}", got)
	}
	if r.MaxTokens != 8192 {
		t.Fatalf("max_tokens %d, want the default 8192", r.MaxTokens)
	}
}

func TestAnthropicModels(t *testing.T) {
	srv := anthropic.New(anthropic.NewQueue().Next)
	defer srv.Close()
	srv.SetModels(anthropic.Model{ID: "claude-sonnet-4-5", MaxInputTokens: 1000000, MaxTokens: 64000}, anthropic.Model{ID: "claude-haiku-4-5"})
	p := sdk.NewAnthropic(sdk.Endpoint{Name: "anthropic", BaseURL: srv.URL, HTTPClient: testClient(t)})
	ms, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].ID != "anthropic/claude-haiku-4-5" || ms[0].ContextWindow != 200000 ||
		ms[1].ID != "anthropic/claude-sonnet-4-5" || ms[1].ContextWindow != 1000000 || ms[1].MaxOutput != 64000 {
		t.Fatalf("models %+v", ms)
	}
}

func TestAnthropicAPIKeyHeader(t *testing.T) {
	h, srv := newAnthropicHarness(t)
	h.push(step{text: "hi"})
	if _, err := h.p.Stream(context.Background(), provider.Request{Model: "claude-fake",
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil); err != nil {
		t.Fatal(err)
	}
	hd := srv.Requests()[0].Header
	// the SDK sends the key as a bearer credential
	if hd.Get("Authorization") != "Bearer sk-ant-test" {
		t.Fatalf("headers %v", hd)
	}
}
