package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/warden-dev/warden/internal/index/indextest"
)

// TestServeIndexVectors: `warden serve` with index.vectors in its config
// file gives the workspaces' indexes vectors from the configured server:
// the status names the model, and a ranked search is embedded.
func TestServeIndexVectors(t *testing.T) {
	fake := &indextest.Embeddings{}
	// The daemon also embeds the chunks of the workspace it starts in (this
	// package's directory), which can fill the channel before the query
	// comes: whether the query was embedded is kept apart, the channel
	// only shows what the server saw when it was not.
	var embedded atomic.Bool
	queries := make(chan string, 256)
	fake.OnRequest(func(model string, in []string) {
		for _, s := range in {
			if model == "fake-embed" && s == "money deposit" {
				embedded.Store(true)
			}
			select {
			case queries <- model + ": " + s:
			default:
			}
		}
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	dir := t.TempDir()
	ws := filepath.Join(dir, "proj")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "bank.go"), []byte("package p\n\n// deposit adds money to the account.\nfunc deposit() {}\n"), 0o644)
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("index:\n  vectors: {provider: ollama, model: fake-embed, url: '"+srv.URL+"'}\n"), 0o644)

	d := startDaemon(t, filepath.Join(dir, "data"), "--config", cfg)
	defer d.stop()
	if out, errOut, code := warden(t, d.dataDir, "", "workspace", "add", ws); code != 0 {
		t.Fatalf("workspace add: %d %q %q", code, out, errOut)
	}
	out, errOut, code := warden(t, d.dataDir, "", "index", "search", "-w", ws, "--json", "money deposit")
	if code != 0 || !strings.Contains(out, `"path":"bank.go"`) {
		t.Fatalf("index search: %d %q %q", code, out, errOut)
	}
	if !embedded.Load() {
		var seen []string
		for len(queries) > 0 {
			seen = append(seen, <-queries)
		}
		t.Fatalf("the ranked query was not embedded; the server saw %.2000q", seen)
	}
	out, errOut, code = warden(t, d.dataDir, "", "index", "status", "-w", ws, "--json")
	var st struct {
		VectorModel string `json:"vectorModel"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.VectorModel != "fake-embed" {
		t.Fatalf("index status: %d %q %q", code, out, errOut)
	}

	// A config naming no known provider is refused at start.
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("index: {vectors: {provider: cohere, model: m}}\n"), 0o644)
	_, errOut, code = warden(t, filepath.Join(dir, "data2"), "", "serve", "--config", bad, "--data-dir", filepath.Join(dir, "data2"))
	if code == 0 || !strings.Contains(errOut, `index.vectors.provider "cohere"`) {
		t.Fatalf("serve with a bad index.vectors: %d %q", code, errOut)
	}
}
