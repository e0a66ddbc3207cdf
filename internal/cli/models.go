package cli

import (
	"os"

	"github.com/warden-dev/warden/internal/provider"
)

// agentModels is the model registry of warden's own agent: the providers
// the environment configures the way their own tools are configured
// (OPENAI_API_KEY and OPENAI_BASE_URL: OpenAI and every OpenAI-compatible
// server, as provider "openai").
func agentModels() *provider.Registry {
	r := provider.NewRegistry()
	if key, base := os.Getenv("OPENAI_API_KEY"), os.Getenv("OPENAI_BASE_URL"); key != "" || base != "" {
		r.Add(provider.NewOpenAI(provider.Endpoint{Name: "openai", BaseURL: base, APIKey: key}))
	}
	return r
}
