package sdk_test

import (
	"context"
	"net/http"
	"testing"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

// toolStep is the reply both benchmarks stream: text, then a tool call.
var toolStep = openai.Reply{Text: "Let me read that file for you.", Tool: "read", Args: map[string]any{"path": "main.go"}}

// BenchmarkOpenAIStepAdapter is one streamed step with a tool call through
// warden's adapter; BenchmarkOpenAIStepSDK is the same exchange driven
// directly with the SDK against the same fake. Their ratio is the
// adapter's cost (translation, accumulation, retry wrapper).
func BenchmarkOpenAIStepAdapter(b *testing.B) {
	srv := openai.New(func(openai.Request) openai.Reply { return toolStep })
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	p := sdk.NewOpenAI(sdk.Endpoint{Name: "openai", BaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: tr}})
	req := provider.Request{Model: "fake-model", Tools: []provider.Tool{readTool},
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "read main.go"}}}}}
	b.ReportAllocs()
	for b.Loop() {
		resp, err := p.Stream(context.Background(), req, func(provider.Delta) {})
		if err != nil || len(resp.Message.ToolCalls()) != 1 {
			b.Fatalf("%v %v", resp, err)
		}
	}
}

func BenchmarkOpenAIStepSDK(b *testing.B) {
	srv := openai.New(func(openai.Request) openai.Reply { return toolStep })
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	chat := oai.NewChatCompletionService(option.WithBaseURL(srv.URL+"/v1"), option.WithHTTPClient(&http.Client{Transport: tr}), option.WithMaxRetries(0))
	params := oai.ChatCompletionNewParams{Model: "fake-model",
		Messages:      []oai.ChatCompletionMessageParamUnion{oai.UserMessage("read main.go")},
		StreamOptions: oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)},
		Tools: []oai.ChatCompletionToolUnionParam{oai.ChatCompletionFunctionTool(oai.FunctionDefinitionParam{Name: "read",
			Parameters: oai.FunctionParameters{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}})}}
	b.ReportAllocs()
	for b.Loop() {
		stream := chat.NewStreaming(context.Background(), params)
		var acc oai.ChatCompletionAccumulator
		for stream.Next() {
			acc.AddChunk(stream.Current())
		}
		if err := stream.Err(); err != nil || len(acc.Choices) == 0 || len(acc.Choices[0].Message.ToolCalls) != 1 {
			b.Fatalf("%v", err)
		}
		_ = stream.Close()
	}
}
