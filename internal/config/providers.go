package config

import (
	"fmt"
	"slices"
	"strings"
)

// Provider is one named model endpoint of the providers: section: models
// are then named "<name>/<model>". Endpoints found from the environment
// (OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST, …) need no entry; an
// entry of the same name replaces one.
type Provider struct {
	// Name is the part before the slash of the endpoint's model IDs; no
	// slash of its own.
	Name string `yaml:"name"`
	// Type is the API the endpoint speaks: openai (OpenAI and every
	// OpenAI-compatible server), anthropic or ollama. An entry named like
	// one of them may leave it out: it then is that type (an entry that
	// only gives the models of an environment provider their windows).
	Type string `yaml:"type"`
	// BaseURL is the API's base; empty means the type's environment
	// variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST), else its
	// public default.
	BaseURL string `yaml:"baseURL"`
	// APIKey is the credential written in the file; prefer APIKeyEnv.
	APIKey string `yaml:"apiKey"`
	// APIKeyEnv names the environment variable holding the credential.
	// With neither, an entry without a baseURL takes the type's standard
	// variable (OPENAI_API_KEY, ANTHROPIC_API_KEY); one with a baseURL
	// sends no key (a key is never sent to a server it was not meant for).
	APIKeyEnv string `yaml:"apiKeyEnv"`
	// Models names models with their figures, for servers that report no
	// window (or none at all); optional.
	Models []ProviderModel `yaml:"models"`
}

// TypeOrName is the entry's type: Type, else its name when that is one of
// ProviderTypes.
func (p Provider) TypeOrName() string {
	if p.Type == "" && slices.Contains(ProviderTypes, p.Name) {
		return p.Name
	}
	return p.Type
}

// ProviderModel is one model of a providers: entry.
type ProviderModel struct {
	Name string `yaml:"name"`
	// ContextWindow is the model's window in tokens (for Ollama: the
	// num_ctx warden runs it with); 0 means ask the endpoint.
	ContextWindow int `yaml:"contextWindow"`
	// MaxOutput is the model's output limit in tokens; 0 means unknown.
	MaxOutput int `yaml:"maxOutput"`
}

// ProviderTypes are the APIs a providers: entry may name.
var ProviderTypes = []string{"openai", "anthropic", "ollama"}

// validateProviders checks the providers: section: names present, unique
// and slash-free, known types, one way to give a key, sane figures.
func validateProviders(ps []Provider) error {
	seen := map[string]bool{}
	for i, p := range ps {
		where := fmt.Sprintf("providers[%d]", i)
		if p.Name != "" {
			where = fmt.Sprintf("providers: %q", p.Name)
		}
		switch {
		case p.Name == "":
			return fmt.Errorf("%s: name is required", where)
		case strings.ContainsAny(p.Name, "/ \t"):
			return fmt.Errorf("%s: a name holds no slash or space (models are named <name>/<model>)", where)
		case seen[p.Name]:
			return fmt.Errorf("%s: named twice", where)
		}
		seen[p.Name] = true
		if !slices.Contains(ProviderTypes, p.TypeOrName()) {
			return fmt.Errorf("%s: type %q: want one of %s (it may be left out when the name is one of them)", where, p.Type, strings.Join(ProviderTypes, ", "))
		}
		if p.APIKey != "" && p.APIKeyEnv != "" {
			return fmt.Errorf("%s: give apiKey or apiKeyEnv, not both", where)
		}
		for _, m := range p.Models {
			if m.Name == "" {
				return fmt.Errorf("%s: a model without a name", where)
			}
			if m.ContextWindow < 0 || m.MaxOutput < 0 {
				return fmt.Errorf("%s: model %q: negative figures", where, m.Name)
			}
		}
	}
	return nil
}
