package opencode

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/warden-dev/warden/internal/proof"
	"github.com/warden-dev/warden/internal/testtools"
)

// harness loads the plugin as OpenCode does (an ES module exporting an async
// factory) and runs one tool.execute.before for a bash call, printing what
// happened as JSON.
const harness = `
const { WardenMonitor } = await import(process.argv[2])
const hooks = await WardenMonitor({ project: { name: "p" }, directory: "/w", worktree: "/w" })
const output = { args: { command: "ls -la", description: "list", workdir: "/w/sub" } }
try {
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c1" }, output)
  console.log(JSON.stringify({ ran: true, args: output.args }))
} catch (err) {
  console.log(JSON.stringify({ ran: false, error: err.message }))
}
`

type outcome struct {
	Ran   bool              `json:"ran"`
	Args  map[string]string `json:"args"`
	Error string            `json:"error"`
}

// runPlugin runs the plugin against url with warden's data dir dataDir.
func runPlugin(t *testing.T, dataDir, url string) outcome {
	t.Helper()
	node := testtools.Find(t, "node")
	dir := t.TempDir()
	mod := filepath.Join(dir, "warden-monitor.mjs")
	if err := os.WriteFile(mod, SourceFor(dataDir), 0o644); err != nil {
		t.Fatal(err)
	}
	h := filepath.Join(dir, "harness.mjs")
	if err := os.WriteFile(h, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, h, mod)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "WARDEN_MONITOR_URL=" + url, "WARDEN_MONITOR_TIMEOUT_MS=20000"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\n%s\n%s", err, out.String(), errb.String())
	}
	var o outcome
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatalf("harness output %q: %v (%s)", out.String(), err, errb.String())
	}
	return o
}

// The bash tool's workdir reaches warden as it is: the directory a command
// runs in is part of what the command does (rm -rf x in ~ is not rm -rf x
// in the workspace).
func TestPluginSendsWorkdir(t *testing.T) {
	data := t.TempDir()
	keys, err := proof.EnsureKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		Args map[string]any `json:"args"`
	}
	srv := httptest.NewServer(proof.SignAnswers(proof.DoorMonitor, keys.Signer, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := json.NewDecoder(r.Body).Decode(&sent); err != nil {
			t.Errorf("body: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"block":false}`)
	})))
	defer srv.Close()
	if o := runPlugin(t, data, srv.URL+"/agent-monitor"); !o.Ran {
		t.Fatalf("outcome %+v", o)
	}
	if sent.Args["workdir"] != "/w/sub" || sent.Args["command"] != "ls -la" || sent.Args["description"] != "string" {
		t.Fatalf("args sent: %v", sent.Args)
	}
}

// The plugin runs a call only on an answer signed with the key in warden's
// data dir, bound to the nonce it sent; it applies warden's rewrite; and it
// never sends anything but the nonce.
func TestPluginChecksWardensProof(t *testing.T) {
	data := t.TempDir()
	keys, err := proof.EnsureKeys(data)
	if err != nil {
		t.Fatal(err)
	}
	other, err := proof.EnsureKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	answer := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}
	}
	allow := answer(`{"block":false}`)
	rewrite := answer(`{"block":false,"args":{"command":"warden sandbox -- ls -la","description":42,"extra":"x"}}`)
	var nonces []string
	cases := []struct {
		name    string
		handler http.Handler
		ran     bool
		command string
		inError string
	}{
		{"signed allow", proof.SignAnswers(proof.DoorMonitor, keys.Signer, allow), true, "ls -la", ""},
		{"signed rewrite", proof.SignAnswers(proof.DoorMonitor, keys.Signer, rewrite), true, "warden sandbox -- ls -la", ""},
		{"signed block", proof.SignAnswers(proof.DoorMonitor, keys.Signer, answer(`{"block":true,"reason":"no [warden rule r]"}`)), false, "", "no [warden rule r]"},
		{"no proof", allow, false, "", "is not warden: its answer carries no proof"},
		{"another key", proof.SignAnswers(proof.DoorMonitor, other.Signer, allow), false, "", "does not verify"},
		{"the hook door's proof", proof.SignAnswers(proof.DoorHooks, keys.Signer, allow), false, "", "does not verify"},
		{"body changed after signing", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			proof.SignAnswers(proof.DoorMonitor, keys.Signer, answer(`{"block":true,"reason":"no"}`)).ServeHTTP(rec, r)
			w.Header().Set(proof.ProofHeader, rec.Header().Get(proof.ProofHeader))
			io.WriteString(w, `{"block":false}`)
		}), false, "", "does not verify"},
		{"an old proof for another nonce", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			nonces = append(nonces, r.Header.Get(proof.NonceHeader))
			old, _ := proof.NewNonce()
			body := []byte(`{"block":false}`)
			w.Header().Set(proof.ProofHeader, keys.Signer.Sign(proof.DoorMonitor, old, 200, body))
			w.Write(body)
		}), false, "", "does not verify"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen []http.Header
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen = append(seen, r.Header.Clone())
				tc.handler.ServeHTTP(w, r)
			}))
			defer srv.Close()
			o := runPlugin(t, data, srv.URL+"/agent-monitor")
			if o.Ran != tc.ran || (tc.ran && o.Args["command"] != tc.command) || !strings.Contains(o.Error, tc.inError) {
				t.Fatalf("outcome %+v", o)
			}
			if tc.ran && o.Args["description"] != "list" {
				t.Fatalf("a non-string rewrite or a new argument was applied: %v", o.Args)
			}
			if len(seen) != 1 || !proof.ValidNonce(seen[0].Get(proof.NonceHeader)) || seen[0].Get("Authorization") != "" {
				t.Fatalf("request headers: %v", seen)
			}
		})
	}
	if len(nonces) != 1 || nonces[0] == "" {
		t.Fatalf("nonces: %v", nonces)
	}
	// No key in the data dir: blocked, saying where the key should be.
	srv := httptest.NewServer(proof.SignAnswers(proof.DoorMonitor, keys.Signer, allow))
	defer srv.Close()
	empty := t.TempDir()
	if o := runPlugin(t, empty, srv.URL+"/agent-monitor"); o.Ran || !strings.Contains(o.Error, filepath.Join(empty, proof.DoorPubName)) {
		t.Fatalf("no key: %+v", o)
	}
}
