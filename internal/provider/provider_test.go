package provider

import (
	"context"
	"errors"
	"testing"
)

type named struct {
	name   string
	models []ModelInfo
	err    error
}

func (n named) Name() string { return n.name }
func (n named) Models(context.Context) ([]ModelInfo, error) {
	return n.models, n.err
}
func (n named) Info(_ context.Context, m string) (ModelInfo, error) {
	return ModelInfo{ID: n.name + "/" + m, Provider: n.name, Name: m}, nil
}
func (n named) Stream(context.Context, Request, func(Delta)) (*Response, error) {
	return nil, errors.New("not used")
}

func TestSplitModel(t *testing.T) {
	for _, tc := range []struct{ id, p, m string }{
		{"openai/gpt-4.1", "openai", "gpt-4.1"},
		{"local/meta-llama/Llama-3", "local", "meta-llama/Llama-3"},
	} {
		p, m, err := SplitModel(tc.id)
		if err != nil || p != tc.p || m != tc.m {
			t.Errorf("SplitModel(%q) = %q, %q, %v", tc.id, p, m, err)
		}
	}
	for _, bad := range []string{"", "gpt-4.1", "/x", "openai/"} {
		if _, _, err := SplitModel(bad); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("SplitModel(%q) err = %v, want ErrUnknownModel", bad, err)
		}
	}
}

func TestRegistryResolveAndList(t *testing.T) {
	r := NewRegistry(named{name: "openai", models: []ModelInfo{{ID: "openai/a"}}},
		named{name: "down", err: errors.New("connection refused")})
	p, m, err := r.Resolve("openai/a")
	if err != nil || p.Name() != "openai" || m != "a" {
		t.Fatalf("Resolve = %v, %q, %v", p, m, err)
	}
	if _, _, err := r.Resolve("anthropic/x"); !errors.Is(err, ErrUnknownModel) {
		t.Fatalf("unknown provider: %v", err)
	}
	ms, errs := r.List(context.Background())
	if len(ms) != 1 || ms[0].ID != "openai/a" || len(errs) != 1 || errs[0].Provider != "down" {
		t.Fatalf("List = %v, %v", ms, errs)
	}
}

func TestMessageHelpers(t *testing.T) {
	m := Message{Role: RoleAssistant, Parts: []Part{
		{Type: PartText, Text: "a"}, {Type: PartThinking, Text: "t"},
		{Type: PartToolCall, ToolCall: &ToolCall{ID: "1", Name: "read"}}, {Type: PartText, Text: "b"},
	}}
	if m.Text() != "ab" || len(m.ToolCalls()) != 1 || m.ToolCalls()[0].Name != "read" {
		t.Fatalf("Text %q calls %v", m.Text(), m.ToolCalls())
	}
	if (Usage{InputTokens: 1, OutputTokens: 2}).Add(Usage{InputTokens: 3, CacheReadTokens: 1}) != (Usage{InputTokens: 4, OutputTokens: 2, CacheReadTokens: 1}) {
		t.Fatal("Add")
	}
}
