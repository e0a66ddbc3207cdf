package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
	"github.com/warden-dev/warden/internal/provider"
)

// DefaultOpenAIBaseURL is OpenAI's API.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// OpenAI is the adapter of OpenAI's chat completions API and of every
// OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter, …),
// through the official SDK (github.com/openai/openai-go/v3).
type OpenAI struct {
	ep     Endpoint
	chat   oai.ChatCompletionService
	models oai.ModelService
	// official is true for OpenAI's own API, which wants
	// max_completion_tokens (compatible servers know max_tokens).
	official bool
	schemas  schemaCache
}

// NewOpenAI returns the adapter of ep. Nothing is read from the
// environment here (FromConfig does that): the SDK's own OPENAI_* defaults
// are bypassed.
func NewOpenAI(ep Endpoint) *OpenAI {
	if ep.BaseURL == "" {
		ep.BaseURL = DefaultOpenAIBaseURL
	}
	opts := []option.RequestOption{
		option.WithBaseURL(ep.BaseURL),
		option.WithHTTPClient(ep.httpClient()),
		option.WithMaxRetries(0), // retries are ours: only before the first delta
	}
	if ep.APIKey != "" {
		opts = append(opts, option.WithAPIKey(ep.APIKey))
	}
	official := false
	if u, err := url.Parse(ep.BaseURL); err == nil && u.Hostname() == "api.openai.com" {
		official = true
	}
	return &OpenAI{ep: ep, chat: oai.NewChatCompletionService(opts...), models: oai.NewModelService(opts...), official: official}
}

// Name returns the provider's name.
func (p *OpenAI) Name() string { return p.ep.Name }

// Models lists GET /models, with the configured models added.
func (p *OpenAI) Models(ctx context.Context) ([]provider.ModelInfo, error) {
	page, err := p.models.List(ctx)
	if err != nil {
		if len(p.ep.Models) > 0 {
			// servers without /models: the configuration's list stands
			return p.ep.merge(nil), nil
		}
		return nil, fmt.Errorf("%s: list models: %w", p.ep.Name, err)
	}
	var out []provider.ModelInfo
	for _, m := range page.Data {
		out = append(out, p.ep.info(m.ID))
	}
	return p.ep.merge(out), nil
}

// Info describes model from the configuration or the known windows (the
// API reports none).
func (p *OpenAI) Info(_ context.Context, model string) (provider.ModelInfo, error) {
	return p.ep.info(model), nil
}

// Stream runs one chat completion, streamed.
func (p *OpenAI) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	params, err := p.params(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	return withRetry(ctx, p.ep.Retry, p.ep.Log, p.ep.Name, openAIRetryable, onDelta, func(emit func(provider.Delta)) (*provider.Response, error) {
		return p.once(ctx, params, emit)
	})
}

func (p *OpenAI) params(req provider.Request) (oai.ChatCompletionNewParams, error) {
	params := oai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
	}
	if req.System != "" {
		params.Messages = append(params.Messages, oai.SystemMessage(req.System))
	}
	for _, m := range req.Messages {
		params.Messages = append(params.Messages, openAIMessages(m)...)
	}
	for _, t := range req.Tools {
		schema, err := p.schemas.object(t.Schema)
		if err != nil {
			return params, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(schema)}
		if t.Description != "" {
			fn.Description = oai.String(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(fn))
	}
	if req.MaxTokens > 0 {
		if p.official {
			params.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = oai.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = oai.Float(*req.Temperature)
	}
	return params, nil
}

// openAIMessages translates one message: tool results become one tool
// message each; thinking is not sent back (chat completions has no place
// for it).
func openAIMessages(m provider.Message) []oai.ChatCompletionMessageParamUnion {
	var out []oai.ChatCompletionMessageParamUnion
	switch m.Role {
	case provider.RoleAssistant:
		var a oai.ChatCompletionAssistantMessageParam
		if text := m.Text(); text != "" {
			a.Content.OfString = oai.String(text)
		}
		for _, c := range m.ToolCalls() {
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
					ID:       c.ID,
					Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: argsOrEmpty(c.Arguments)},
				},
			})
		}
		out = append(out, oai.ChatCompletionMessageParamUnion{OfAssistant: &a})
	default:
		var text strings.Builder
		for _, part := range m.Parts {
			switch {
			case part.Type == provider.PartToolResult && part.ToolResult != nil:
				out = append(out, oai.ToolMessage(resultText(*part.ToolResult), part.ToolResult.CallID))
			case part.Type == provider.PartText:
				text.WriteString(part.Text)
			}
		}
		if text.Len() > 0 {
			out = append(out, oai.UserMessage(text.String()))
		}
	}
	return out
}

// resultText is a tool result's content as the model reads it; an error
// says so, for APIs without an error flag.
func resultText(r provider.ToolResult) string {
	if r.IsError && !strings.HasPrefix(r.Content, "Error") {
		return "Error: " + r.Content
	}
	return r.Content
}

type openAICall struct {
	id, name string
	args     strings.Builder
	started  bool
}

func (p *OpenAI) once(ctx context.Context, params oai.ChatCompletionNewParams, emit func(provider.Delta)) (*provider.Response, error) {
	stream := p.chat.NewStreaming(ctx, params)
	defer stream.Close()
	var (
		text, thinking strings.Builder
		calls          []*openAICall
		byIndex        = map[int64]*openAICall{}
		usage          provider.Usage
		finish         string
	)
	for stream.Next() {
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() && chunk.Usage.JSON.PromptTokens.Valid() {
			usage = provider.Usage{
				InputTokens:     chunk.Usage.PromptTokens,
				OutputTokens:    chunk.Usage.CompletionTokens,
				CacheReadTokens: chunk.Usage.PromptTokensDetails.CachedTokens,
			}
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			d := ch.Delta
			if r := openAIReasoning(d); r != "" {
				thinking.WriteString(r)
				emit(provider.Delta{Kind: provider.DeltaThinking, Text: r})
			}
			if d.Content != "" {
				text.WriteString(d.Content)
				emit(provider.Delta{Kind: provider.DeltaText, Text: d.Content})
			}
			for _, tc := range d.ToolCalls {
				c := byIndex[tc.Index]
				if c == nil {
					c = &openAICall{}
					byIndex[tc.Index] = c
					calls = append(calls, c)
				}
				if tc.ID != "" {
					c.id = tc.ID
				}
				if tc.Function.Name != "" {
					c.name += tc.Function.Name
				}
				c.args.WriteString(tc.Function.Arguments)
				if !c.started && c.name != "" {
					c.started = true
					if c.id == "" {
						c.id = fmt.Sprintf("call_%d", len(calls))
					}
					emit(provider.Delta{Kind: provider.DeltaToolStart, ToolCallID: c.id, ToolName: c.name})
				}
			}
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
		}
	}
	if err := stream.Err(); err != nil {
		return nil, ctxErr(ctx, p.ep.Name, p.wrap(err))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	if finish == "" {
		return nil, fmt.Errorf("%s: stream ended before a finish_reason: %w", p.ep.Name, io.ErrUnexpectedEOF)
	}
	resp := &provider.Response{Message: provider.Message{Role: provider.RoleAssistant}, Usage: usage}
	if thinking.Len() > 0 {
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartThinking, Text: thinking.String()})
	}
	if text.Len() > 0 {
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartText, Text: text.String()})
	}
	for i, c := range calls {
		if c.id == "" {
			c.id = fmt.Sprintf("call_%d", i+1)
		}
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartToolCall,
			ToolCall: &provider.ToolCall{ID: c.id, Name: c.name, Arguments: json.RawMessage(c.args.String())}})
	}
	switch finish {
	case "stop":
		resp.StopReason = provider.StopEnd
	case "tool_calls", "function_call":
		resp.StopReason = provider.StopToolCalls
	case "length":
		resp.StopReason = provider.StopMaxTokens
	default:
		resp.StopReason = provider.StopOther
	}
	if len(calls) > 0 && resp.StopReason == provider.StopEnd {
		// some compatible servers say "stop" after tool calls
		resp.StopReason = provider.StopToolCalls
	}
	return resp, nil
}

// openAIReasoning returns the reasoning text of a delta: OpenAI-compatible
// reasoning servers (DeepSeek, vLLM, llama.cpp, OpenRouter) send it as
// reasoning_content or reasoning.
func openAIReasoning(d oai.ChatCompletionChunkChoiceDelta) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		f, ok := d.JSON.ExtraFields[k]
		if !ok || f.Raw() == "" || f.Raw() == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// wrap names the provider and marks a context overflow.
func (p *OpenAI) wrap(err error) error {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		if apiErr.Code == "context_length_exceeded" || (apiErr.StatusCode == 400 || apiErr.StatusCode == 413) && overflowText(apiErr.Message) {
			return fmt.Errorf("%s: %w: %w", p.ep.Name, provider.ErrContextOverflow, err)
		}
		if m := strings.TrimSpace(apiErr.Message); m != "" && !strings.Contains(err.Error(), m) {
			// the server's own words (e.g. "The model `x` does not
			// exist"), which the SDK's error text leaves out
			return fmt.Errorf("%s: %w: %s", p.ep.Name, err, m)
		}
		return fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) && overflowText(se.Message) {
		return fmt.Errorf("%s: %w: %w", p.ep.Name, provider.ErrContextOverflow, err)
	}
	return fmt.Errorf("%s: %w", p.ep.Name, err)
}

// openAIRetryable retries rate limits, server errors, transport failures
// and errors streamed before the first delta that say the server is
// overloaded or failed.
func openAIRetryable(err error) (bool, time.Duration) {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) {
		var after time.Duration
		if apiErr.Response != nil {
			after = retryAfter(apiErr.Response.Header)
		}
		return retryStatus(apiErr.StatusCode), after
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		m := strings.ToLower(se.Message)
		return strings.Contains(m, "server_error") || strings.Contains(m, "overloaded") || strings.Contains(m, "rate_limit"), 0
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true, 0
	}
	return netRetryable(err), 0
}
