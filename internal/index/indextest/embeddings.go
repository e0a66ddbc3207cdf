// Package indextest holds what tests of the code index share: a fake
// embedding server in Ollama's and OpenAI's exact wire formats. Test code
// only.
package indextest

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
)

// Embeddings is an embedding server in Ollama's (POST /api/embed) and
// OpenAI's (POST /v1/embeddings) exact wire formats. Its model embeds a
// text as a bag of words hashed into 64 dimensions (Vector), with a
// thesaurus so that only the vectors can tell "automobile" is a "car".
// Serve it with httptest.NewServer.
type Embeddings struct {
	// Calls counts the requests answered; Inputs the texts embedded.
	Calls  atomic.Int64
	Inputs atomic.Int64

	mu   sync.Mutex
	seen []func(model string, inputs []string)
}

// OnRequest calls fn with every request's model and inputs, before it is
// answered (a test waits on what it sends to a channel).
func (f *Embeddings) OnRequest(fn func(model string, inputs []string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, fn)
}

// Vector is the fake model's embedding of text.
func Vector(text string) []float32 {
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

// ServeHTTP answers an embedding request; a request that is not one is a
// 400, another path a 404.
func (f *Embeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model == "" {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	f.Calls.Add(1)
	f.Inputs.Add(int64(len(req.Input)))
	f.mu.Lock()
	seen := append([]func(string, []string){}, f.seen...)
	f.mu.Unlock()
	for _, fn := range seen {
		fn(req.Model, req.Input)
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/api/embed":
		es := [][]float32{}
		for _, in := range req.Input {
			es = append(es, Vector(in))
		}
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": es, "total_duration": 1000, "load_duration": 10, "prompt_eval_count": len(req.Input)})
	case "/v1/embeddings":
		var data []map[string]any
		// Out of order on purpose: clients must place by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": Vector(req.Input[i])})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	default:
		http.NotFound(w, r)
	}
}
