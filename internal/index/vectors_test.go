package index

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/index/indextest"
)

func TestVectors(t *testing.T) {
	fake := &indextest.Embeddings{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, emb := range []Embedder{
		OllamaEmbedder{BaseURL: srv.URL, Name: "nomic-embed-text"},
		OpenAIEmbedder{BaseURL: srv.URL, Name: "text-embedding-3-small", APIKey: "k"},
	} {
		t.Run(emb.Model(), func(t *testing.T) {
			root, dir := t.TempDir(), t.TempDir()
			writeTree(t, root, map[string]string{
				"garage.go": "package p\n\n// park puts the car in the garage.\nfunc park() {}\n",
				"bank.go":   "package p\n\n// deposit adds money to the account.\nfunc deposit() {}\n",
			})
			x, err := Open(context.Background(), Options{Root: root, Dir: dir, Embedder: emb})
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			build(t, x)
			ctx := context.Background()
			if err := x.waitVectors(ctx); err != nil {
				t.Fatal(err)
			}
			if st := x.Status(); st.VectorModel != emb.Model() || st.VectorLag != 0 || st.VectorError != "" {
				t.Fatalf("status %+v", st)
			}
			// Text alone cannot know an automobile is a car; vectors can.
			if hs, _ := x.Search(ctx, Query{Text: "automobile"}); len(hs) != 0 {
				t.Errorf("text-only found %+v", hs)
			}
			calls := fake.Calls.Load()
			hs, err := x.Search(ctx, Query{Text: "automobile", Vectors: true})
			if err != nil || len(hs) == 0 || hs[0].Path != "garage.go" {
				t.Errorf("with vectors: %+v %v", hs, err)
			}
			if fake.Calls.Load() != calls+1 {
				t.Errorf("a vector query made %d calls, want 1 (the query)", fake.Calls.Load()-calls)
			}
			// Text queries never call the embedder.
			calls = fake.Calls.Load()
			x.Search(ctx, Query{Text: "deposit money"})
			x.Search(ctx, Query{Text: "park", Mode: ModeSymbol})
			if fake.Calls.Load() != calls {
				t.Error("a text query called the embedder")
			}
			// The cache is keyed by model and chunk text: a file copied
			// elsewhere costs no embedding.
			inputs := fake.Inputs.Load()
			writeTree(t, root, map[string]string{"copy/garage.go": "package p\n\n// park puts the car in the garage.\nfunc park() {}\n"})
			x.Update(ctx, "copy/garage.go")
			if err := x.waitVectors(ctx); err != nil {
				t.Fatal(err)
			}
			if fake.Inputs.Load() != inputs {
				t.Errorf("identical chunks embedded again: %d inputs", fake.Inputs.Load()-inputs)
			}
		})
	}
	// A failing embedder: text queries answer, vector queries fall back,
	// the status says why.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"model not found"}`, http.StatusNotFound)
	}))
	defer bad.Close()
	root, dir := newWorkspace(t)
	x, err := Open(context.Background(), Options{Root: root, Dir: dir, Embedder: OllamaEmbedder{BaseURL: bad.URL, Name: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	build(t, x)
	if err := x.waitVectors(context.Background()); err == nil || !strings.Contains(err.Error(), "model not found") {
		t.Errorf("waitVectors: %v", err)
	}
	if hs, err := x.Search(context.Background(), Query{Text: "parse header", Vectors: true}); err != nil || len(hs) == 0 || hs[0].Symbol != "parseHeader" {
		t.Errorf("fallback: %+v %v", hs, err)
	}
	if st := x.Status(); !strings.Contains(st.VectorError, "model not found") || st.VectorLag == 0 {
		t.Errorf("status: %+v", st)
	}
}
