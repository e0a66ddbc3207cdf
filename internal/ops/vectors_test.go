package ops_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/config"
	"github.com/warden-dev/warden/internal/index"
	"github.com/warden-dev/warden/internal/index/indextest"
	"github.com/warden-dev/warden/internal/ops"
)

// The config file's index.vectors, as `warden serve` wires it: the
// workspace's index embeds its chunks with the configured server and
// model, and every ranked query is embedded too.
func TestIndexVectorsFromConfig(t *testing.T) {
	fake := &indextest.Embeddings{}
	inputs := make(chan string, 1024)
	fake.OnRequest(func(model string, in []string) {
		for _, s := range in {
			select {
			case inputs <- model + ": " + s:
			default:
			}
		}
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var cfg config.Config
	if err := config.Parse([]byte("index: {vectors: {provider: ollama, model: nomic-embed-text, url: '"+srv.URL+"'}}"), &cfg); err != nil {
		t.Fatal(err)
	}
	v := cfg.Index.Vectors
	base, key, err := v.Endpoint(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	emb, err := index.NewEmbedder(v.Provider, base, v.Model, key)
	if err != nil {
		t.Fatal(err)
	}
	f := newIndexedFixtureWith(t, map[string]string{
		"garage.go": "package p\n\n// park puts the car in the garage.\nfunc park() {}\n",
		"bank.go":   "package p\n\n// deposit adds money to the account.\nfunc deposit() {}\n",
	}, func(o *ops.Options) { o.Embedder = emb })
	ctx := context.Background()

	// The chunks go to the server behind the text index.
	for in := range inputs {
		if strings.HasPrefix(in, "nomic-embed-text: ") && strings.Contains(in, "deposit adds money") {
			break
		}
	}
	if err := f.ws.IndexFlush(ctx); err != nil {
		t.Fatal(err)
	}
	if st, err := f.ws.IndexStatus(); err != nil || st.VectorModel != "nomic-embed-text" {
		t.Fatalf("status %+v %v", st, err)
	}
	// A ranked query is embedded (the server sees its text) and answers.
	calls := fake.Calls.Load()
	if got := f.hits(t, index.Query{Text: "deposit money"}); len(got) == 0 || got[0] != "bank.go" {
		t.Errorf("ranked: %v", got)
	}
	if fake.Calls.Load() <= calls {
		t.Fatal("a ranked query did not call the embedder")
	}
	var seen []string
	for len(inputs) > 0 {
		seen = append(seen, <-inputs)
	}
	if !slices.Contains(seen, "nomic-embed-text: deposit money") {
		t.Errorf("the query's text was not embedded: %q", seen)
	}
}
