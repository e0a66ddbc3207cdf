package sdk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/ollamaenv"
)

// DefaultOllamaHost is where Ollama listens unless OLLAMA_HOST says
// otherwise.
const DefaultOllamaHost = ollamaenv.DefaultHost

// DefaultOllamaNumCtx caps the num_ctx warden asks for when neither the
// configuration nor the Modelfile sets one: the model's trained window can
// be far larger than the machine's memory allows (set contextWindow in the
// providers: section to use more).
const DefaultOllamaNumCtx = 32768

// Ollama is the adapter of Ollama's native API (/api/chat) through its Go
// client (github.com/ollama/ollama/api). It sets num_ctx from /api/show
// (Ollama's own default is small and cuts long prompts silently), asks
// Ollama not to truncate, and flags a reported prompt far smaller than
// what was sent.
type Ollama struct {
	ep     Endpoint
	client *api.Client

	mu    sync.Mutex
	infos map[string]provider.ModelInfo // by model, from /api/show
}

// NewOllama returns the adapter of ep (BaseURL as OLLAMA_HOST writes it;
// empty means DefaultOllamaHost). An APIKey is sent as a bearer token.
func NewOllama(ep Endpoint) (*Ollama, error) {
	base, err := ollamaenv.ParseHost(ep.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.Name, err)
	}
	ep.BaseURL = base.String()
	hc := ep.httpClient()
	if ep.APIKey != "" {
		c := *hc
		rt := c.Transport
		if rt == nil {
			rt = http.DefaultTransport
		}
		c.Transport = bearer{key: ep.APIKey, next: rt}
		hc = &c
	}
	return &Ollama{ep: ep, client: api.NewClient(base, hc), infos: map[string]provider.ModelInfo{}}, nil
}

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// Name returns the provider's name.
func (p *Ollama) Name() string { return p.ep.Name }

// Models lists the pulled models (GET /api/tags), with the configured ones
// added; windows are filled in by Info, which asks /api/show.
func (p *Ollama) Models(ctx context.Context) ([]provider.ModelInfo, error) {
	list, err := p.client.List(ctx)
	if err != nil {
		if len(p.ep.Models) > 0 {
			return p.ep.merge(nil), nil
		}
		return nil, fmt.Errorf("%s: list models: %w", p.ep.Name, err)
	}
	var out []provider.ModelInfo
	for _, m := range list.Models {
		out = append(out, p.ep.info(m.Name))
	}
	return p.ep.merge(out), nil
}

// Info describes model from POST /api/show: ContextWindow is the num_ctx
// warden will run it with (the configuration's contextWindow, else the
// Modelfile's num_ctx, else the trained window capped at
// DefaultOllamaNumCtx).
func (p *Ollama) Info(ctx context.Context, model string) (provider.ModelInfo, error) {
	p.mu.Lock()
	mi, ok := p.infos[model]
	p.mu.Unlock()
	if ok {
		return mi, nil
	}
	mi = p.ep.info(model)
	if c, ok := p.ep.configured(model); ok && c.ContextWindow > 0 {
		return mi, nil
	}
	show, err := p.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return provider.ModelInfo{}, fmt.Errorf("%s: show %s: %w", p.ep.Name, model, p.wrap(err))
	}
	trained := ollamaTrainedContext(show.ModelInfo)
	switch n := ollamaenv.NumCtx(show.Parameters); {
	case n > 0:
		mi.ContextWindow = n
	case trained > 0:
		mi.ContextWindow = min(trained, DefaultOllamaNumCtx)
	default:
		mi.ContextWindow = DefaultOllamaNumCtx
	}
	p.mu.Lock()
	p.infos[model] = mi
	p.mu.Unlock()
	return mi, nil
}

// ollamaTrainedContext reads <architecture>.context_length of /api/show's
// model_info.
func ollamaTrainedContext(info map[string]any) int {
	arch, _ := info["general.architecture"].(string)
	if arch == "" {
		return 0
	}
	switch v := info[arch+".context_length"].(type) {
	case float64:
		return int(v)
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	}
	return 0
}

// Stream runs one /api/chat request, streamed.
func (p *Ollama) Stream(ctx context.Context, req provider.Request, onDelta func(provider.Delta)) (*provider.Response, error) {
	info, err := p.Info(ctx, req.Model)
	if err != nil {
		return nil, ctxErr(ctx, p.ep.Name, err)
	}
	chat, err := p.chatRequest(req, info.ContextWindow)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	estimate := EstimateTokens(req)
	resp, err := withRetry(ctx, p.ep.Retry, p.ep.Log, p.ep.Name, ollamaRetryable, onDelta, func(emit func(provider.Delta)) (*provider.Response, error) {
		return p.once(ctx, chat, emit)
	})
	if err != nil {
		return nil, err
	}
	// Ollama reports prompt_eval_count for the whole prompt it evaluated;
	// far less than sent, with a prompt near the window, means it cut.
	if n := resp.Usage.InputTokens; n > 0 && n < int64(estimate)/2 && estimate > info.ContextWindow/2 {
		resp.Warning = fmt.Sprintf("ollama reported a prompt of %d tokens, far below the ~%d sent: it probably cut the prompt to fit num_ctx %d (raise contextWindow for %s in the providers: section)",
			n, estimate, info.ContextWindow, req.Model)
	}
	return resp, nil
}

// EstimateTokens is a rough count of the tokens a request sends (about
// four bytes a token, plus a little per message and tool), for checks
// against what a provider reports; never a substitute for reported usage.
func EstimateTokens(req provider.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += 16
		for _, part := range m.Parts {
			n += len(part.Text)
			if part.ToolCall != nil {
				n += len(part.ToolCall.Name) + len(part.ToolCall.Arguments)
			}
			if part.ToolResult != nil {
				n += len(part.ToolResult.Content)
			}
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Schema)
	}
	return n / 4
}

func (p *Ollama) chatRequest(req provider.Request, numCtx int) (*api.ChatRequest, error) {
	stream, truncate := true, false
	chat := &api.ChatRequest{Model: req.Model, Stream: &stream, Truncate: &truncate, Options: map[string]any{}}
	if numCtx > 0 {
		chat.Options["num_ctx"] = numCtx
	}
	if req.MaxTokens > 0 {
		chat.Options["num_predict"] = req.MaxTokens
	}
	if req.Temperature != nil {
		chat.Options["temperature"] = *req.Temperature
	}
	if req.ThinkingBudget > 0 {
		chat.Think = &api.ThinkValue{Value: true}
	}
	if req.System != "" {
		chat.Messages = append(chat.Messages, api.Message{Role: "system", Content: req.System})
	}
	names := map[string]string{} // tool call id → name, for tool messages
	for _, m := range req.Messages {
		switch m.Role {
		case provider.RoleAssistant:
			am := api.Message{Role: "assistant", Content: m.Text()}
			for _, part := range m.Parts {
				if part.Type == provider.PartThinking {
					am.Thinking += part.Text
				}
			}
			for i, c := range m.ToolCalls() {
				names[c.ID] = c.Name
				args := api.NewToolCallFunctionArguments()
				if err := json.Unmarshal([]byte(argsOrEmpty(c.Arguments)), &args); err != nil {
					args = api.NewToolCallFunctionArguments() // invalid JSON the model wrote: its error result says so
				}
				am.ToolCalls = append(am.ToolCalls, api.ToolCall{ID: c.ID, Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args}})
			}
			chat.Messages = append(chat.Messages, am)
		default:
			var text strings.Builder
			for _, part := range m.Parts {
				switch {
				case part.Type == provider.PartToolResult && part.ToolResult != nil:
					r := part.ToolResult
					chat.Messages = append(chat.Messages, api.Message{Role: "tool", Content: resultText(*r), ToolCallID: r.CallID, ToolName: names[r.CallID]})
				case part.Type == provider.PartText:
					text.WriteString(part.Text)
				}
			}
			if text.Len() > 0 {
				chat.Messages = append(chat.Messages, api.Message{Role: "user", Content: text.String()})
			}
		}
	}
	for _, t := range req.Tools {
		var params api.ToolFunctionParameters
		schema := t.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if err := json.Unmarshal(schema, &params); err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		chat.Tools = append(chat.Tools, api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	return chat, nil
}

func newCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return "call_" + hex.EncodeToString(b[:])
}

func (p *Ollama) once(ctx context.Context, chat *api.ChatRequest, emit func(provider.Delta)) (*provider.Response, error) {
	var (
		text, thinking strings.Builder
		calls          []provider.ToolCall
		done           *api.ChatResponse
	)
	err := p.client.Chat(ctx, chat, func(r api.ChatResponse) error {
		if r.Message.Thinking != "" {
			thinking.WriteString(r.Message.Thinking)
			emit(provider.Delta{Kind: provider.DeltaThinking, Text: r.Message.Thinking})
		}
		if r.Message.Content != "" {
			text.WriteString(r.Message.Content)
			emit(provider.Delta{Kind: provider.DeltaText, Text: r.Message.Content})
		}
		for _, tc := range r.Message.ToolCalls {
			args, err := json.Marshal(tc.Function.Arguments)
			if err != nil {
				return fmt.Errorf("tool call %s arguments: %w", tc.Function.Name, err)
			}
			id := tc.ID
			if id == "" {
				id = newCallID() // unique across the session's steps
			}
			calls = append(calls, provider.ToolCall{ID: id, Name: tc.Function.Name, Arguments: args})
			emit(provider.Delta{Kind: provider.DeltaToolStart, ToolCallID: id, ToolName: tc.Function.Name})
		}
		if r.Done {
			d := r
			done = &d
		}
		return nil
	})
	if err != nil {
		return nil, ctxErr(ctx, p.ep.Name, p.wrap(err))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.ep.Name, err)
	}
	if done == nil {
		return nil, fmt.Errorf("%s: stream ended before done: %w", p.ep.Name, io.ErrUnexpectedEOF)
	}
	resp := &provider.Response{Message: provider.Message{Role: provider.RoleAssistant},
		Usage: provider.Usage{InputTokens: int64(done.PromptEvalCount), OutputTokens: int64(done.EvalCount)}}
	if thinking.Len() > 0 {
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartThinking, Text: thinking.String()})
	}
	if text.Len() > 0 {
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartText, Text: text.String()})
	}
	for i := range calls {
		resp.Message.Parts = append(resp.Message.Parts, provider.Part{Type: provider.PartToolCall, ToolCall: &calls[i]})
	}
	switch done.DoneReason {
	case "stop", "":
		resp.StopReason = provider.StopEnd
		if len(calls) > 0 {
			resp.StopReason = provider.StopToolCalls
		}
	case "length":
		resp.StopReason = provider.StopMaxTokens
	default:
		resp.StopReason = provider.StopOther
	}
	return resp, nil
}

// wrap names the provider and marks a context overflow (what Ollama says
// when truncate is off and the prompt does not fit num_ctx).
func (p *Ollama) wrap(err error) error {
	var se api.StatusError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.ErrorMessage
	}
	if overflowText(msg) {
		return fmt.Errorf("%s: %w: %w", p.ep.Name, provider.ErrContextOverflow, err)
	}
	return fmt.Errorf("%s: %w", p.ep.Name, err)
}

// ollamaRetryable retries 429/5xx (Ollama answers 503 while busy loading),
// transport failures, and "server busy" lines before the first delta.
func ollamaRetryable(err error) (bool, time.Duration) {
	var se api.StatusError
	if errors.As(err, &se) {
		return retryStatus(se.StatusCode), 0
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return true, 0
	}
	if netRetryable(err) {
		return true, 0
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "server busy") || strings.Contains(m, "overloaded"), 0
}
