package sdk

import (
	"fmt"
	"net/http"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/provider"
)

// FromConfig builds the registry the way users already configure these
// tools, from getenv (os.Getenv in the daemon) and the config file's
// providers: section:
//
//   - "openai" when OPENAI_API_KEY or OPENAI_BASE_URL is set;
//   - "anthropic" when ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL is set;
//   - "ollama" when OLLAMA_HOST is set;
//   - one provider per providers: entry (an entry named like one of those
//     replaces it; its type may then be left out, so an entry that only
//     gives an environment provider's models their windows is
//     `{name: openai, models: [{name: gpt-4.1-mini, contextWindow: ...}]}`).
//
// Every adapter makes its requests with hc (nil: a client of its own).
// Nothing is asked of the endpoints here.
func FromConfig(entries []config.Provider, getenv func(string) string, hc *http.Client) (*provider.Registry, error) {
	reg := provider.NewRegistry()
	if getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "" {
		reg.Add(NewOpenAI(Endpoint{Name: "openai", BaseURL: getenv("OPENAI_BASE_URL"), APIKey: getenv("OPENAI_API_KEY"), HTTPClient: hc}))
	}
	if getenv("ANTHROPIC_API_KEY") != "" || getenv("ANTHROPIC_BASE_URL") != "" {
		reg.Add(NewAnthropic(Endpoint{Name: "anthropic", BaseURL: getenv("ANTHROPIC_BASE_URL"), APIKey: getenv("ANTHROPIC_API_KEY"), HTTPClient: hc}))
	}
	if h := getenv("OLLAMA_HOST"); h != "" {
		p, err := NewOllama(Endpoint{Name: "ollama", BaseURL: h, HTTPClient: hc})
		if err != nil {
			return nil, fmt.Errorf("OLLAMA_HOST: %w", err)
		}
		reg.Add(p)
	}
	for _, e := range entries {
		p, err := fromEntry(e, getenv, hc)
		if err != nil {
			return nil, fmt.Errorf("providers: %q: %w", e.Name, err)
		}
		reg.Add(p)
	}
	return reg, nil
}

// standardEnv returns a type's usual variables: its base URL's and its
// key's ("" when it takes none); ok is false for an unknown type.
func standardEnv(typ string) (baseVar, keyVar string, ok bool) {
	switch typ {
	case "openai":
		return "OPENAI_BASE_URL", "OPENAI_API_KEY", true
	case "anthropic":
		return "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", true
	case "ollama":
		return "OLLAMA_HOST", "", true
	}
	return "", "", false
}

func fromEntry(e config.Provider, getenv func(string) string, hc *http.Client) (provider.Provider, error) {
	typ := e.TypeOrName()
	baseVar, keyVar, ok := standardEnv(typ)
	if !ok {
		return nil, fmt.Errorf("unknown type %q", e.Type)
	}
	ep := Endpoint{Name: e.Name, BaseURL: e.BaseURL, APIKey: e.APIKey, HTTPClient: hc}
	switch {
	case e.APIKeyEnv != "":
		ep.APIKey = getenv(e.APIKeyEnv)
		if ep.APIKey == "" {
			return nil, fmt.Errorf("apiKeyEnv %s is not set", e.APIKeyEnv)
		}
	case e.APIKey == "" && e.BaseURL == "" && keyVar != "":
		// the public endpoint (or the one the environment names) with the
		// environment's key; a key never goes to a baseURL of the file's
		ep.APIKey = getenv(keyVar)
	}
	if ep.BaseURL == "" {
		ep.BaseURL = getenv(baseVar)
	}
	for _, m := range e.Models {
		ep.Models = append(ep.Models, provider.ModelInfo{ID: e.Name + "/" + m.Name, Provider: e.Name, Name: m.Name,
			ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput})
	}
	switch typ {
	case "openai":
		return NewOpenAI(ep), nil
	case "anthropic":
		return NewAnthropic(ep), nil
	default:
		return NewOllama(ep)
	}
}
