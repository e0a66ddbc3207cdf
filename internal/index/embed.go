package index

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Embedder turns texts into vectors (one per text, all of one length).
// Vectors are optional: the index ranks without them, and fuses them in
// only for queries that ask (Query.Vectors) once chunks are embedded.
type Embedder interface {
	// Model names the model; the vector cache is keyed by it.
	Model() string
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// OllamaEmbedder calls an Ollama server's POST /api/embed.
type OllamaEmbedder struct {
	// BaseURL is the server ("http://127.0.0.1:11434").
	BaseURL string
	// Name is the model ("nomic-embed-text").
	Name string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
}

// Model is the model's name.
func (e OllamaEmbedder) Model() string { return e.Name }

// Embed posts {"model", "input": texts} and reads {"embeddings": [...]}.
func (e OllamaEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Embeddings [][]float32 `json:"embeddings"`
		Error      string      `json:"error"`
	}
	if err := postJSON(ctx, e.Client, strings.TrimRight(e.BaseURL, "/")+"/api/embed", "", map[string]any{"model": e.Name, "input": texts}, &out); err != nil {
		return nil, fmt.Errorf("index: ollama embed: %w", err)
	}
	if len(out.Embeddings) != len(texts) {
		return nil, fmt.Errorf("index: ollama embed: %d embeddings for %d texts", len(out.Embeddings), len(texts))
	}
	return out.Embeddings, nil
}

// OpenAIEmbedder calls an OpenAI-compatible server's POST /v1/embeddings.
type OpenAIEmbedder struct {
	// BaseURL is the server up to /v1 excluded ("https://api.openai.com").
	BaseURL string
	// Name is the model ("text-embedding-3-small").
	Name string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
}

// Model is the model's name.
func (e OpenAIEmbedder) Model() string { return e.Name }

// Embed posts {"model", "input": texts} and reads {"data": [{"index",
// "embedding"}]}, placing each embedding by its index.
func (e OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := postJSON(ctx, e.Client, strings.TrimRight(e.BaseURL, "/")+"/v1/embeddings", e.APIKey, map[string]any{"model": e.Name, "input": texts}, &out); err != nil {
		return nil, fmt.Errorf("index: openai embeddings: %w", err)
	}
	vs := make([][]float32, len(texts))
	for _, d := range out.Data {
		if d.Index < 0 || d.Index >= len(vs) {
			return nil, fmt.Errorf("index: openai embeddings: index %d out of range", d.Index)
		}
		vs[d.Index] = d.Embedding
	}
	for i, v := range vs {
		if v == nil {
			return nil, fmt.Errorf("index: openai embeddings: no embedding for input %d", i)
		}
	}
	return vs, nil
}

// maxEmbedResponse bounds an embedding server's answer.
const maxEmbedResponse = 64 << 20

func postJSON(ctx context.Context, c *http.Client, url, key string, body, out any) error {
	if c == nil {
		c = http.DefaultClient
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxEmbedResponse))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(data[:min(len(data), 512)]))
	}
	return json.Unmarshal(data, out)
}

// NewEmbedder returns the embedder of an embedding server: provider
// "ollama" (baseURL "http://127.0.0.1:11434") or "openai" (any
// OpenAI-compatible server; baseURL up to /v1 excluded, apiKey sent when
// set).
func NewEmbedder(provider, baseURL, model, apiKey string) (Embedder, error) {
	if model == "" {
		return nil, fmt.Errorf("index: embedder: no model")
	}
	switch provider {
	case "ollama":
		return OllamaEmbedder{BaseURL: baseURL, Name: model}, nil
	case "openai":
		return OpenAIEmbedder{BaseURL: baseURL, Name: model, APIKey: apiKey}, nil
	}
	return nil, fmt.Errorf("index: embedder: unknown provider %q (want ollama or openai)", provider)
}
