package index

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeEmbeddings is an embedding server in Ollama's (POST /api/embed) and
// OpenAI's (POST /v1/embeddings) exact wire formats. Its model embeds a
// text as a bag of words hashed into 64 dimensions, with a thesaurus so
// that only the vectors can tell "automobile" is a "car".
type fakeEmbeddings struct {
	calls  atomic.Int64
	inputs atomic.Int64
}

func fakeVector(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !(r >= 'a' && r <= 'z') }) {
		switch w {
		case "automobile", "vehicle":
			w = "car"
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	return v
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	f.calls.Add(1)
	f.inputs.Add(int64(len(req.Input)))
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/embed":
		out := map[string]any{"model": req.Model, "embeddings": [][]float32{}, "total_duration": 1000, "load_duration": 10, "prompt_eval_count": len(req.Input)}
		var es [][]float32
		for _, in := range req.Input {
			es = append(es, fakeVector(in))
		}
		out["embeddings"] = es
		json.NewEncoder(w).Encode(out)
	case "/v1/embeddings":
		var data []map[string]any
		// Out of order on purpose: clients must place by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": fakeVector(req.Input[i])})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	default:
		http.NotFound(w, r)
	}
}

func TestVectors(t *testing.T) {
	fake := &fakeEmbeddings{}
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
			calls := fake.calls.Load()
			hs, err := x.Search(ctx, Query{Text: "automobile", Vectors: true})
			if err != nil || len(hs) == 0 || hs[0].Path != "garage.go" {
				t.Errorf("with vectors: %+v %v", hs, err)
			}
			if fake.calls.Load() != calls+1 {
				t.Errorf("a vector query made %d calls, want 1 (the query)", fake.calls.Load()-calls)
			}
			// Text queries never call the embedder.
			calls = fake.calls.Load()
			x.Search(ctx, Query{Text: "deposit money"})
			x.Search(ctx, Query{Text: "park", Mode: ModeSymbol})
			if fake.calls.Load() != calls {
				t.Error("a text query called the embedder")
			}
			// The cache is keyed by model and chunk text: a file copied
			// elsewhere costs no embedding.
			inputs := fake.inputs.Load()
			writeTree(t, root, map[string]string{"copy/garage.go": "package p\n\n// park puts the car in the garage.\nfunc park() {}\n"})
			x.Update(ctx, "copy/garage.go")
			if err := x.waitVectors(ctx); err != nil {
				t.Fatal(err)
			}
			if fake.inputs.Load() != inputs {
				t.Errorf("identical chunks embedded again: %d inputs", fake.inputs.Load()-inputs)
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
