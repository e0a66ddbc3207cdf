package config

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/warden-dev/warden/internal/provider/ollamaenv"
)

// Index configures the workspaces' code index (internal/index).
type Index struct {
	// Vectors, when set, embeds every chunk of the index with a model
	// behind an embedding server, and ranked queries fuse a
	// nearest-neighbour ranking in. Off (nil) by default: the index ranks
	// text alone and never needs a model.
	Vectors *Vectors `yaml:"vectors"`
}

// VectorProviders are the embedding APIs index.vectors.provider may name.
var VectorProviders = []string{"ollama", "openai"}

// Vectors is index.vectors: which embedding server and model.
type Vectors struct {
	// Provider is the server's API: ollama (POST /api/embed) or openai
	// (POST /v1/embeddings, any OpenAI-compatible server).
	Provider string `yaml:"provider"`
	// Model is the embedding model ("nomic-embed-text",
	// "text-embedding-3-small").
	Model string `yaml:"model"`
	// URL is the server; empty means OLLAMA_HOST (else
	// http://127.0.0.1:11434) for ollama, OPENAI_BASE_URL (else
	// https://api.openai.com) for openai. A trailing /v1 is allowed.
	URL string `yaml:"url"`
	// APIKeyEnv names the environment variable holding the key sent to an
	// openai server; empty means OPENAI_API_KEY when URL is empty (the
	// standard endpoint) and no key otherwise.
	APIKeyEnv string `yaml:"apiKeyEnv"`
}

// validate checks index.vectors.
func (v *Vectors) validate() error {
	if v == nil {
		return nil
	}
	switch v.Provider {
	case "ollama", "openai":
	case "":
		return fmt.Errorf("index.vectors.provider is required (one of %s)", strings.Join(VectorProviders, ", "))
	default:
		return fmt.Errorf("index.vectors.provider %q: want one of %s", v.Provider, strings.Join(VectorProviders, ", "))
	}
	if strings.TrimSpace(v.Model) == "" {
		return fmt.Errorf("index.vectors.model is required")
	}
	if v.URL != "" {
		if _, err := v.baseURL(v.URL); err != nil {
			return fmt.Errorf("index.vectors.url: %w", err)
		}
	}
	if v.APIKeyEnv != "" && v.Provider != "openai" {
		return fmt.Errorf("index.vectors.apiKeyEnv: only an openai server takes a key")
	}
	return nil
}

// baseURL normalizes a server address: Ollama's the way OLLAMA_HOST is
// written, OpenAI's an http(s) URL, without a trailing /v1.
func (v *Vectors) baseURL(s string) (string, error) {
	if v.Provider == "ollama" {
		u, err := ollamaenv.ParseHost(s)
		if err != nil {
			return "", err
		}
		return strings.TrimRight(u.String(), "/"), nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("%q: want an http or https URL without credentials, query or fragment", s)
	}
	// Only the path loses its /v1: a host named v1 (http://v1) is a host.
	path := strings.TrimRight(u.Path, "/")
	for strings.HasSuffix(path, "/v1") {
		path = strings.TrimRight(strings.TrimSuffix(path, "/v1"), "/")
	}
	u.Path, u.RawPath = path, ""
	return strings.TrimRight(u.String(), "/"), nil
}

// Endpoint resolves the server's base URL (without /v1) and the key to
// send, from the section and getenv (os.Getenv in the daemon).
func (v *Vectors) Endpoint(getenv func(string) string) (baseURL, apiKey string, err error) {
	raw := v.URL
	switch {
	case raw != "":
	case v.Provider == "ollama":
		raw = getenv("OLLAMA_HOST") // empty: ParseHost's default
	default:
		if raw = getenv("OPENAI_BASE_URL"); raw == "" {
			raw = "https://api.openai.com"
		}
	}
	if baseURL, err = v.baseURL(raw); err != nil {
		return "", "", fmt.Errorf("index.vectors: server %w", err)
	}
	if v.Provider == "openai" {
		switch {
		case v.APIKeyEnv != "":
			apiKey = getenv(v.APIKeyEnv)
		case v.URL == "":
			apiKey = getenv("OPENAI_API_KEY")
		}
	}
	return baseURL, apiKey, nil
}
