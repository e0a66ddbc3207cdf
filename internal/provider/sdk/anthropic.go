package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	ant "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/warden-dev/warden/internal/provider"
)

// DefaultAnthropicBaseURL is Anthropic's API.
const DefaultAnthropicBaseURL = "https://api.anthropic.com"

// defaultAnthropicMaxTokens is the output bound when neither the request
// nor the model's known figures give one (the API requires max_tokens).
const defaultAnthropicMaxTokens = 8192

// Anthropic is the adapter of Anthropic's Messages API through the
// official SDK (github.com/anthropics/anthropic-sdk-go). Thinking blocks
// keep their signature (and redacted thinking its data) in
// Part.ProviderData, and go back verbatim.
type Anthropic struct {
	ep       Endpoint
	messages ant.MessageService
	models   ant.ModelService

	mu      sync.Mutex
	infos   map[string]provider.ModelInfo // what GET /v1/models/{id} said, by model
	schemas schemaCache
}

// anthropicThinking is what a thinking Part's ProviderData holds.
type anthropicThinking struct {
	Type      string `json:"type"` // thinking or redacted_thinking
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
}

// NewAnthropic returns the adapter of ep. Nothing is read from the
// environment here (FromConfig does that).
func NewAnthropic(ep Endpoint) *Anthropic {
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultAnthropicBaseURL
	}
	opts := []option.RequestOption{
		option.WithBaseURL(ep.BaseURL),
		option.WithHTTPClient(ep.httpClient()),
		option.WithMaxRetries(0), // retries are ours: only before the first delta
	}
	if ep.APIKey != "" {
		opts = append(opts, option.WithAPIKey(ep.APIKey))
	}
	return &Anthropic{ep: ep, messages: ant.NewMessageService(opts...), models: ant.NewModelService(opts...), infos: map[string]provider.ModelInfo{}}
}

// Name returns the provider's name.
func (p *Anthropic) Name() string { return p.ep.Name }

// Models lists GET /v1/models (with each model's window), with the
// configured models added.
func (p *Anthropic) Models(ctx context.Context) ([]provider.ModelInfo, error) {
	var out []provider.ModelInfo
	pager := p.models.ListAutoPaging(ctx, ant.ModelListParams{Limit: ant.Int(1000)})
	for pager.Next() {
		m := pager.Current()
		out = append(out, p.modelInfo(m))
	}
	if err := pager.Err(); err != nil {
		if len(p.ep.Models) > 0 {
			return p.ep.merge(nil), nil
		}
		return nil, fmt.Errorf("%s: list models: %w", p.ep.Name, err)
	}
	return p.ep.merge(out), nil
}

func (p *Anthropic) modelInfo(m ant.ModelInfo) provider.ModelInfo {
	mi := p.ep.info(m.ID)
	if _, ok := p.ep.configured(m.ID); !ok {
		if m.MaxInputTokens > 0 {
			mi.ContextWindow = int(m.MaxInputTokens)
		}
		if m.MaxTokens > 0 {
			mi.MaxOutput = int(m.MaxTokens)
		}
	}
	return mi
}

// Info describes model: the configuration's figures, else what GET
// /v1/models/{id} reports (asked once per model: the engine asks at every
// step), else the known windows.
func (p *Anthropic) Info(ctx context.Context, model string) (provider.ModelInfo, error) {
	if c, ok := p.ep.configured(model); ok && c.ContextWindow > 0 {
		return p.ep.info(model), nil
	}
	p.mu.Lock()
	mi, ok := p.infos[model]
	p.mu.Unlock()
	if ok {
		return mi, nil
	}
	m, err := p.models.Get(ctx, model, ant.ModelGetParams{})
	if err != nil {
		// the known figures (or zeros) stand when the endpoint cannot
		// say; asked again next time
		return p.ep.info(model), nil
	}
	mi = p.modelInfo(*m)
	p.mu.Lock()
	p.infos[model] = mi
	p.mu.Unlock()
	return mi, nil
}

// Stream runs one Messages request, streamed.
func (p *Anthropic) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	return withRetry(ctx, p.ep.Retry, p.ep.Log, p.ep.Name, anthropicRetryable, onDelta, func(emit func(provider.Delta)) (*provider.Response, error) {
		return p.once(ctx, params, emit)
	})
}

func (p *Anthropic) params(req provider.Request) (ant.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		if _, out := knownWindow(req.Model, 0); out > 0 {
			maxTokens = out
		} else {
			maxTokens = defaultAnthropicMaxTokens
		}
	}
	params := ant.MessageNewParams{Model: ant.Model(req.Model)}
	if req.ThinkingBudget > 0 {
		params.Thinking = ant.ThinkingConfigParamOfEnabled(int64(req.ThinkingBudget))
		maxTokens += req.ThinkingBudget // the budget counts against max_tokens
	}
	params.MaxTokens = int64(maxTokens)
	if req.System != "" {
		params.System = []ant.TextBlockParam{{Text: req.System}}
	}
	params.Messages = anthropicMessages(req.Messages)
	for _, t := range req.Tools {
		schema, err := p.schemas.object(t.Schema)
		if err != nil {
			return params, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		in := ant.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if s, ok := r.(string); ok {
					in.Required = append(in.Required, s)
				}
			}
		}
		for k, v := range schema {
			if k != "properties" && k != "required" && k != "type" {
				in.ExtraFields[k] = v
			}
		}
		tool := ant.ToolParam{Name: t.Name, InputSchema: in}
		if t.Description != "" {
			tool.Description = ant.String(t.Description)
		}
		params.Tools = append(params.Tools, ant.ToolUnionParam{OfTool: &tool})
	}
	// Temperature is not sent: MessageNewParams of anthropic-sdk-go v2
	// (v2.15.0) has no temperature field (the API deprecated it).
	return params, nil
}

// anthropicMessages translates the conversation: tool results travel in
// user messages (first in their message, as the API wants), consecutive
// user-side messages are merged, thinking goes back only with its
// signature, empty text is left out (the API refuses it).
func anthropicMessages(ms []provider.Message) []ant.MessageParam {
	var out []ant.MessageParam
	var user []ant.ContentBlockParamUnion // pending user-side blocks
	var userText []ant.ContentBlockParamUnion
	flush := func() {
		blocks := append(user, userText...)
		if len(blocks) > 0 {
			out = append(out, ant.NewUserMessage(blocks...))
		}
		user, userText = nil, nil
	}
	for _, m := range ms {
		if m.Role != provider.RoleAssistant {
			for _, part := range m.Parts {
				switch {
				case part.Type == provider.PartToolResult && part.ToolResult != nil:
					content := part.ToolResult.Content
					if content == "" {
						content = "(no output)"
					}
					user = append(user, ant.NewToolResultBlock(part.ToolResult.CallID, content, part.ToolResult.IsError))
				case part.Type == provider.PartText && part.Text != "":
					userText = append(userText, ant.NewTextBlock(part.Text))
				}
			}
			continue
		}
		flush()
		var blocks []ant.ContentBlockParamUnion
		for _, part := range m.Parts {
			switch part.Type {
			case provider.PartThinking:
				var pd anthropicThinking
				if json.Unmarshal(part.ProviderData, &pd) != nil {
					continue // thinking from another provider: no signature, not sent
				}
				switch pd.Type {
				case "thinking":
					blocks = append(blocks, ant.NewThinkingBlock(pd.Signature, part.Text))
				case "redacted_thinking":
					blocks = append(blocks, ant.NewRedactedThinkingBlock(pd.Data))
				}
			case provider.PartText:
				if part.Text != "" {
					blocks = append(blocks, ant.NewTextBlock(part.Text))
				}
			case provider.PartToolCall:
				if part.ToolCall == nil {
					continue
				}
				var input any = json.RawMessage(argsOrEmpty(part.ToolCall.Arguments))
				var obj map[string]any
				if json.Unmarshal(part.ToolCall.Arguments, &obj) != nil {
					input = map[string]any{} // the model wrote invalid JSON; its error result says so
				}
				blocks = append(blocks, ant.NewToolUseBlock(part.ToolCall.ID, input, part.ToolCall.Name))
			}
		}
		if len(blocks) > 0 {
			out = append(out, ant.NewAssistantMessage(blocks...))
		}
	}
	flush()
	return out
}

type anthropicBlock struct {
	typ       string
	text      strings.Builder
	signature string
	data      string
	id, name  string
	input     strings.Builder
}

func (p *Anthropic) once(ctx context.Context, params ant.MessageNewParams, emit func(provider.Delta)) (*provider.Response, error) {
	stream := p.messages.NewStreaming(ctx, params)
	defer stream.Close()
	blocks := map[int64]*anthropicBlock{}
	var (
		usage   provider.Usage
		stop    string
		stopped bool
	)
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			usage = provider.Usage{
				InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
				OutputTokens:     u.OutputTokens,
				CacheReadTokens:  u.CacheReadInputTokens,
				CacheWriteTokens: u.CacheCreationInputTokens,
			}
		case "content_block_start":
			cb := ev.ContentBlock
			b := &anthropicBlock{typ: cb.Type, signature: cb.Signature, data: cb.Data, id: cb.ID, name: cb.Name}
			blocks[ev.Index] = b
			switch cb.Type {
			case "text":
				if cb.Text != "" {
					b.text.WriteString(cb.Text)
					emit(provider.Delta{Kind: provider.DeltaText, Text: cb.Text})
				}
			case "thinking":
				if cb.Thinking != "" {
					b.text.WriteString(cb.Thinking)
					emit(provider.Delta{Kind: provider.DeltaThinking, Text: cb.Thinking})
				}
			case "tool_use":
				emit(provider.Delta{Kind: provider.DeltaToolStart, ToolCallID: cb.ID, ToolName: cb.Name})
			}
		case "content_block_delta":
			b := blocks[ev.Index]
			if b == nil {
				return nil, fmt.Errorf("%s: delta for block %d that never started", p.ep.Name, ev.Index)
			}
			d := ev.Delta
			switch d.Type {
			case "text_delta":
				b.text.WriteString(d.Text)
				emit(provider.Delta{Kind: provider.DeltaText, Text: d.Text})
			case "thinking_delta":
				b.text.WriteString(d.Thinking)
				emit(provider.Delta{Kind: provider.DeltaThinking, Text: d.Thinking})
			case "signature_delta":
				b.signature += d.Signature
			case "input_json_delta":
				b.input.WriteString(d.PartialJSON)
			}
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stop = string(ev.Delta.StopReason)
			}
			u := ev.Usage
			usage.OutputTokens = u.OutputTokens
			if u.InputTokens > 0 || u.CacheReadInputTokens > 0 || u.CacheCreationInputTokens > 0 {
				usage.InputTokens = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
				usage.CacheReadTokens = u.CacheReadInputTokens
				usage.CacheWriteTokens = u.CacheCreationInputTokens
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return nil, ctxErr(ctx, p.ep.Name, p.wrap(err))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	if !stopped {
		return nil, fmt.Errorf("%s: stream ended before message_stop: %w", p.ep.Name, io.ErrUnexpectedEOF)
	}
	resp := &provider.Response{Message: provider.Message{Role: provider.RoleAssistant}, Usage: usage}
	idx := make([]int64, 0, len(blocks))
	for i := range blocks {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		b := blocks[i]
		switch b.typ {
		case "text":
			if b.text.Len() > 0 {
				resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartText, Text: b.text.String()})
			}
		case "thinking":
			pd, _ := json.Marshal(anthropicThinking{Type: "thinking", Signature: b.signature})
			resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartThinking, Text: b.text.String(), ProviderData: pd})
		case "redacted_thinking":
			pd, _ := json.Marshal(anthropicThinking{Type: "redacted_thinking", Data: b.data})
			resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartThinking, ProviderData: pd})
		case "tool_use":
			args := b.input.String()
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartToolCall,
				ToolCall: &provider.ToolCall{ID: b.id, Name: b.name, Arguments: json.RawMessage(args)}})
		}
	}
	switch stop {
	case "end_turn", "stop_sequence":
		resp.StopReason = provider.StopEnd
	case "tool_use":
		resp.StopReason = provider.StopToolCalls
	case "max_tokens", "model_context_window_exceeded":
		resp.StopReason = provider.StopMaxTokens
	default:
		resp.StopReason = provider.StopOther
	}
	return resp, nil
}

// wrap names the provider and marks a context overflow.
func (p *Anthropic) wrap(err error) error {
	var apiErr *ant.Error
	if errors.As(err, &apiErr) {
		if (apiErr.StatusCode == 400 || apiErr.StatusCode == 413) && overflowText(apiErr.Message) {
			return fmt.Errorf("%s: %w: %s: %w", p.ep.Name, provider.ErrContextOverflow, apiErr.Message, err)
		}
		if apiErr.Message != "" {
			return fmt.Errorf("%s: %s: %w", p.ep.Name, apiErr.Message, err)
		}
	}
	return fmt.Errorf("%s: %w", p.ep.Name, err)
}

// anthropicRetryable retries rate limits, server errors (529 overloaded
// too), transport failures, and overloaded or api errors streamed before
// the first delta.
func anthropicRetryable(err error) (bool, time.Duration) {
	var apiErr *ant.Error
	if errors.As(err, &apiErr) {
		var after time.Duration
		if apiErr.Response != nil {
			after = retryAfter(apiErr.Response.Header)
		}
		switch apiErr.Type() {
		case "overloaded_error", "api_error", "rate_limit_error", "timeout_error":
			return true, after
		}
		return apiErr.StatusCode != 200 && retryStatus(apiErr.StatusCode), after
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true, 0
	}
	return netRetryable(err), 0
}
