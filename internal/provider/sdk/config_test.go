package sdk_test

import (
	"context"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/fakemodel/anthropic"
	"github.com/warden-dev/warden/internal/fakemodel/ollama"
	"github.com/warden-dev/warden/internal/fakemodel/openai"
	"github.com/warden-dev/warden/internal/provider"
	"github.com/warden-dev/warden/internal/provider/sdk"
)

func TestFromConfig(t *testing.T) {
	oq := openai.NewQueue(openai.Reply{Text: "from env"}, openai.Reply{Text: "from file"}, openai.Reply{Text: "keyed"})
	osrv := openai.New(oq.Next)
	defer osrv.Close()
	asrv := anthropic.New(anthropic.NewQueue(anthropic.Reply{Text: "claude"}).Next)
	defer asrv.Close()
	lsrv := ollama.New(ollama.NewQueue(ollama.Reply{Text: "llama"}).Next)
	defer lsrv.Close()
	env := map[string]string{
		"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": osrv.URL + "/v1",
		"ANTHROPIC_API_KEY": "sk-ant", "ANTHROPIC_BASE_URL": asrv.URL,
		"OLLAMA_HOST": lsrv.URL, "LOCAL_KEY": "sk-local",
	}
	var cfg config.Config
	if err := config.Parse([]byte(`
providers:
  - {name: vllm, type: openai, baseURL: `+osrv.URL+`/v1, models: [{name: qwen, contextWindow: 32768}]}
  - {name: keyed, type: openai, baseURL: `+osrv.URL+`/v1, apiKeyEnv: LOCAL_KEY}
`), &cfg); err != nil {
		t.Fatal(err)
	}
	reg, err := sdk.FromConfig(cfg.Providers, func(k string) string { return env[k] }, testClient(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), " "); got != "anthropic keyed ollama openai vllm" {
		t.Fatalf("names %s", got)
	}
	ask := func(id string) string {
		t.Helper()
		p, m, err := reg.Resolve(id)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := p.Stream(context.Background(), provider.Request{Model: m,
			Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return resp.Message.Text()
	}
	if ask("openai/gpt-4.1") != "from env" || ask("vllm/qwen") != "from file" || ask("keyed/m") != "keyed" ||
		ask("anthropic/claude-sonnet-4-5") != "claude" || ask("ollama/qwen2.5-coder:7b") != "llama" {
		t.Fatal("answers went astray")
	}
	rs := osrv.Requests()
	for i, want := range []string{"Bearer sk-env", "", "Bearer sk-local"} {
		if got := rs[i].Header.Get("Authorization"); got != want {
			t.Errorf("request %d Authorization %q, want %q (the env key never goes to a configured baseURL)", i, got, want)
		}
	}
	mi, err := func() (provider.ModelInfo, error) {
		p, m, _ := reg.Resolve("vllm/qwen")
		return p.Info(context.Background(), m)
	}()
	if err != nil || mi.ContextWindow != 32768 {
		t.Fatalf("configured window: %+v %v", mi, err)
	}

	if _, err := sdk.FromConfig([]config.Provider{{Name: "x", Type: "openai", APIKeyEnv: "UNSET"}}, func(string) string { return "" }, nil); err == nil {
		t.Fatal("an unset apiKeyEnv was accepted")
	}
	if _, err := sdk.FromConfig(nil, func(k string) string {
		if k == "OLLAMA_HOST" {
			return "ftp://nope"
		}
		return ""
	}, nil); err == nil {
		t.Fatal("a bad OLLAMA_HOST was accepted")
	}
	empty, err := sdk.FromConfig(nil, func(string) string { return "" }, nil)
	if err != nil || len(empty.Names()) != 0 {
		t.Fatalf("no environment, no config: %v %v", empty.Names(), err)
	}
}

// TestEntryGivesEnvironmentModelsTheirWindows: an entry named like an
// environment provider may leave its type out and only give its models'
// windows; the environment's endpoint and key still hold, and the engine's
// budget (Info) takes the configured figures.
func TestEntryGivesEnvironmentModelsTheirWindows(t *testing.T) {
	osrv := openai.New(openai.NewQueue(openai.Reply{Text: "hi"}).Next)
	defer osrv.Close()
	env := map[string]string{"OPENAI_API_KEY": "sk-env", "OPENAI_BASE_URL": osrv.URL + "/v1"}
	var cfg config.Config
	if err := config.Parse([]byte("providers:\n  - {name: openai, models: [{name: fake-model, contextWindow: 3000, maxOutput: 700}]}\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	reg, err := sdk.FromConfig(cfg.Providers, func(k string) string { return env[k] }, testClient(t))
	if err != nil {
		t.Fatal(err)
	}
	p, m, err := reg.Resolve("openai/fake-model")
	if err != nil {
		t.Fatal(err)
	}
	if mi, err := p.Info(context.Background(), m); err != nil || mi.ContextWindow != 3000 || mi.MaxOutput != 700 {
		t.Fatalf("info %+v %v", mi, err)
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: m,
		Messages: []provider.Message{{Role: provider.RoleUser, Parts: []provider.Part{{Type: provider.PartText, Text: "hi"}}}}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := osrv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-env" {
		t.Fatalf("Authorization %q", got)
	}
	if err := config.Parse([]byte("providers:\n  - {name: vllm, baseURL: http://127.0.0.1:1/v1}\n"), &cfg); err == nil {
		t.Fatal("an entry with neither a type nor a type's name was accepted")
	}
}

// TestAnthropicInfoAskedOnce: the engine asks a model's window at every
// step; the adapter asks GET /v1/models/{id} once per model.
func TestAnthropicInfoAskedOnce(t *testing.T) {
	srv := anthropic.New(anthropic.NewQueue().Next)
	defer srv.Close()
	p := sdk.NewAnthropic(sdk.Endpoint{Name: "anthropic", BaseURL: srv.URL, APIKey: "sk-ant", HTTPClient: testClient(t)})
	for range 3 {
		mi, err := p.Info(context.Background(), "claude-fake")
		if err != nil || mi.ContextWindow != 200000 || mi.MaxOutput != 64000 {
			t.Fatalf("info %+v %v", mi, err)
		}
	}
	if n := srv.ModelGets(); n != 1 {
		t.Fatalf("%d GET /v1/models/{id} for three Info calls", n)
	}
}
