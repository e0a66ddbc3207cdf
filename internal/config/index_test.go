package config

import (
	"strings"
	"testing"
)

// index.vectors is off by default, accepted with a known provider and a
// model, refused otherwise (the error names the key).
func TestIndexVectors(t *testing.T) {
	var c Config
	if err := Parse([]byte("dataDir: /tmp/x\n"), &c); err != nil || c.Index.Vectors != nil {
		t.Fatalf("default: %+v %v", c.Index, err)
	}
	for _, ok := range []string{
		"index: {vectors: {provider: ollama, model: nomic-embed-text}}",
		"index: {vectors: {provider: ollama, model: nomic-embed-text, url: '127.0.0.1:11500'}}",
		"index: {vectors: {provider: openai, model: text-embedding-3-small, url: 'http://127.0.0.1:8000/v1', apiKeyEnv: LOCAL_KEY}}",
		"index: {}",
	} {
		var c Config
		if err := Parse([]byte(ok), &c); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"index: {vectors: {model: m}}":                                   "index.vectors.provider is required",
		"index: {vectors: {provider: cohere, model: m}}":                 `index.vectors.provider "cohere"`,
		"index: {vectors: {provider: ollama}}":                           "index.vectors.model is required",
		"index: {vectors: {provider: openai, model: m, url: 'ftp://x'}}": "index.vectors.url",
		"index: {vectors: {provider: openai, model: m, url: '/v1'}}":     "index.vectors.url",
		"index: {vectors: {provider: ollama, model: m, url: 'a b'}}":     "index.vectors.url",
		"index: {vectors: {provider: ollama, model: m, apiKeyEnv: K}}":   "only an openai server takes a key",
		"index: {vectors: {provider: ollama, model: m, dims: 3}}":        "field dims not found",
		"index: {vectorz: {}}":                                           "field vectorz not found",
	} {
		var c Config
		if err := Parse([]byte(in), &c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", in, err, want)
		}
	}
}

// Endpoint: the configured URL, else the provider's environment, else
// its default; a key only where it is meant to go.
func TestVectorsEndpoint(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-std", "LOCAL_KEY": "sk-local"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		v         Vectors
		base, key string
	}{
		{Vectors{Provider: "ollama", Model: "m"}, "http://127.0.0.1:11434", ""},
		{Vectors{Provider: "ollama", Model: "m", URL: "10.0.0.2"}, "http://10.0.0.2:11434", ""},
		{Vectors{Provider: "openai", Model: "m"}, "https://api.openai.com", "sk-std"},
		{Vectors{Provider: "openai", Model: "m", URL: "http://127.0.0.1:8000/v1/"}, "http://127.0.0.1:8000", ""},
		{Vectors{Provider: "openai", Model: "m", URL: "http://127.0.0.1:8000", APIKeyEnv: "LOCAL_KEY"}, "http://127.0.0.1:8000", "sk-local"},
	} {
		base, key, err := c.v.Endpoint(getenv)
		if err != nil || base != c.base || key != c.key {
			t.Errorf("%+v: %q %q %v, want %q %q", c.v, base, key, err, c.base, c.key)
		}
	}
	env["OLLAMA_HOST"] = "0.0.0.0:9999" // a server's bind address: the client asks loopback
	env["OPENAI_BASE_URL"] = "http://proxy.local/v1"
	if base, _, _ := (&Vectors{Provider: "ollama", Model: "m"}).Endpoint(getenv); base != "http://127.0.0.1:9999" {
		t.Errorf("OLLAMA_HOST: %q", base)
	}
	if base, key, _ := (&Vectors{Provider: "openai", Model: "m"}).Endpoint(getenv); base != "http://proxy.local" || key != "sk-std" {
		t.Errorf("OPENAI_BASE_URL: %q %q", base, key)
	}
}

// FuzzVectors: index.vectors is accepted or refused without a panic, and
// an accepted section resolves to a server whose address reads back to
// itself.
func FuzzVectors(f *testing.F) {
	f.Add("ollama", "nomic-embed-text", "127.0.0.1:11500", "")
	f.Add("openai", "text-embedding-3-small", "http://127.0.0.1:8000/v1", "K")
	f.Add("openai", "m", "", "")
	f.Add("ollama", "m", "[::1]:80/x", "")
	f.Add("openai", "m", "http://x/v1/v1/", "")
	f.Add("openai", "m", "http://u:p@x/?q=/v1#/v1", "")
	f.Add("openai", "m", "http://v1", "") // a host named v1 is not a path
	f.Fuzz(func(t *testing.T, provider, model, url, keyEnv string) {
		v := &Vectors{Provider: provider, Model: model, URL: url, APIKeyEnv: keyEnv}
		if v.validate() != nil {
			return
		}
		base, _, err := v.Endpoint(func(string) string { return "" })
		if err != nil {
			t.Fatalf("%+v accepted, then Endpoint: %v", v, err)
		}
		again, err := v.baseURL(base)
		if err != nil || again != base {
			t.Fatalf("%+v: server %q reads back as %q, %v", v, base, again, err)
		}
	})
}
