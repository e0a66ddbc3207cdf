package sdk

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/warden-dev/warden/internal/provider"
)

// Endpoint is what every adapter is built from: one configured provider
// (an entry of the config's providers: section, or one found from the
// environment).
type Endpoint struct {
	// Name is the provider's name, the part before the slash of its model
	// IDs ("openai", "anthropic", "ollama", or a configured name).
	Name string
	// BaseURL is the API's base ("https://api.openai.com/v1",
	// "https://api.anthropic.com", "http://localhost:11434"); empty means
	// the provider's public default.
	BaseURL string
	// APIKey is the credential; empty sends none (local servers).
	APIKey string
	// HTTPClient makes the requests; nil means a client of its own.
	HTTPClient *http.Client
	// Models are models the configuration names, with their windows when
	// known: listed even when the endpoint does not report them, and their
	// figures win over the adapter's own.
	Models []provider.ModelInfo
	// Retry bounds retries before the first delta.
	Retry Retry
	// Log receives retry warnings; nil means none.
	Log *slog.Logger
}

func (e Endpoint) httpClient() *http.Client {
	if e.HTTPClient != nil {
		return e.HTTPClient
	}
	return &http.Client{}
}

// configured returns the configured info of model, if any.
func (e Endpoint) configured(model string) (provider.ModelInfo, bool) {
	for _, m := range e.Models {
		if m.Name == model {
			return m, true
		}
	}
	return provider.ModelInfo{}, false
}

// info fills in a ModelInfo for model: the configured figures, else the
// known ones (knownWindow), else zeros.
func (e Endpoint) info(model string) provider.ModelInfo {
	mi := provider.ModelInfo{ID: e.Name + "/" + model, Provider: e.Name, Name: model}
	if c, ok := e.configured(model); ok {
		mi.ContextWindow, mi.MaxOutput = c.ContextWindow, c.MaxOutput
	}
	if mi.ContextWindow == 0 {
		mi.ContextWindow, mi.MaxOutput = knownWindow(model, mi.MaxOutput)
	}
	return mi
}

// merge returns the reported models, with the configured ones that were not
// reported, sorted by ID.
func (e Endpoint) merge(reported []provider.ModelInfo) []provider.ModelInfo {
	seen := map[string]bool{}
	out := make([]provider.ModelInfo, 0, len(reported)+len(e.Models))
	for _, m := range reported {
		if seen[m.Name] {
			continue
		}
		seen[m.Name] = true
		out = append(out, m)
	}
	for _, m := range e.Models {
		if !seen[m.Name] {
			seen[m.Name] = true
			out = append(out, e.info(m.Name))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// knownWindows are the published windows (input, output) of well-known
// hosted model families, by name prefix, longest prefix first. OpenAI's
// and most compatible servers' model lists carry no window; a
// configuration's figures win.
var knownWindows = []struct {
	prefix      string
	window, out int
}{
	{"gpt-4.1", 1047576, 32768},
	{"gpt-5", 400000, 128000},
	{"gpt-4o", 128000, 16384},
	{"gpt-4-turbo", 128000, 4096},
	{"o4-mini", 200000, 100000},
	{"o3", 200000, 100000},
	{"o1", 200000, 100000},
	{"claude-opus-4", 200000, 32000},
	{"claude-sonnet-4", 200000, 64000},
	{"claude-haiku-4", 200000, 64000},
	{"claude-3-7-sonnet", 200000, 64000},
	{"claude-3-5", 200000, 8192},
	{"claude-3", 200000, 4096},
}

func knownWindow(model string, out int) (int, int) {
	for _, k := range knownWindows {
		if strings.HasPrefix(model, k.prefix) {
			if out == 0 {
				out = k.out
			}
			return k.window, out
		}
	}
	return 0, out
}

// schemaObject decodes a tool's JSON Schema; an empty schema is an object
// with no properties (what every API accepts for "no arguments").
func schemaObject(s json.RawMessage) (map[string]any, error) {
	if len(s) == 0 || string(s) == "null" {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var m map[string]any
	if err := json.Unmarshal(s, &m); err != nil {
		return nil, fmt.Errorf("tool schema: %w", err)
	}
	return m, nil
}

// schemaCache keeps tools' decoded JSON Schemas by their text: the engine
// sends the same tools with every request, and decoding them anew each
// time was a tenth of a step's allocations. The decoded maps are shared:
// they are only read (marshaled) once decoded. At most maxCachedSchemas
// are kept; others are decoded every time. The zero value is ready.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]map[string]any
}

const maxCachedSchemas = 256

func (c *schemaCache) object(s json.RawMessage) (map[string]any, error) {
	c.mu.Lock()
	m, ok := c.m[string(s)]
	c.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := schemaObject(s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]map[string]any{}
	}
	if len(c.m) < maxCachedSchemas {
		c.m[string(s)] = m
	}
	c.mu.Unlock()
	return m, nil
}

// argsOrEmpty returns a tool call's arguments, "{}" when there are none.
func argsOrEmpty(a json.RawMessage) string {
	if len(strings.TrimSpace(string(a))) == 0 {
		return "{}"
	}
	return string(a)
}

// ctxErr returns ctx's error wrapped with the provider's name when ctx is
// done, else err.
func ctxErr(ctx context.Context, name string, err error) error {
	if e := ctx.Err(); e != nil {
		return fmt.Errorf("%s: %w", name, e)
	}
	return err
}
