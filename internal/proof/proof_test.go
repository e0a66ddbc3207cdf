package proof

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestKeysPersistAndArePrivate(t *testing.T) {
	dir := t.TempDir()
	k1, err := EnsureKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := EnsureKeys(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(k1.HookKey, k2.HookKey) || !k1.Signer.Public().Equal(k2.Signer.Public()) {
		t.Fatal("keys changed between two starts")
	}
	for name, want := range map[string]os.FileMode{DoorKeyName: 0o600, HookKeyName: 0o600, DoorPubName: 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Fatalf("%s mode %v, want %v", name, fi.Mode().Perm(), want)
		}
	}
	pub, err := ReadPublic(dir)
	if err != nil || !pub.Equal(k1.Signer.Public()) {
		t.Fatalf("public key file: %v", err)
	}
	hk, err := ReadHookKey(dir)
	if err != nil || !bytes.Equal(hk, k1.HookKey) {
		t.Fatalf("hook key file: %v", err)
	}
	// A key file others can read is fixed on start.
	if err := os.Chmod(filepath.Join(dir, DoorKeyName), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureKeys(dir); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, DoorKeyName)); fi.Mode().Perm() != 0o600 {
		t.Fatalf("door key mode not fixed: %v", fi.Mode().Perm())
	}
	// A damaged key is an error, never silently replaced.
	if err := os.WriteFile(filepath.Join(dir, DoorKeyName), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureKeys(dir); err == nil {
		t.Fatal("a damaged door key was accepted")
	}
}

func TestSignVerify(t *testing.T) {
	k, err := EnsureKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	other, err := EnsureKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nonce, _ := NewNonce()
	body := []byte(`{"block":false}`)
	sig := k.Signer.Sign(DoorMonitor, nonce, 200, body)
	pub := k.Signer.Public()
	if err := Verify(pub, DoorMonitor, nonce, 200, body, sig); err != nil {
		t.Fatalf("valid proof refused: %v", err)
	}
	other2, _ := NewNonce()
	for name, c := range map[string]error{
		"other door":   Verify(pub, DoorHooks, nonce, 200, body, sig),
		"other nonce":  Verify(pub, DoorMonitor, other2, 200, body, sig),
		"other status": Verify(pub, DoorMonitor, nonce, 201, body, sig),
		"other body":   Verify(pub, DoorMonitor, nonce, 200, []byte(`{"block":true}`), sig),
		"other key":    Verify(other.Signer.Public(), DoorMonitor, nonce, 200, body, sig),
		"not base64":   Verify(pub, DoorMonitor, nonce, 200, body, "!!"),
		"short":        Verify(pub, DoorMonitor, nonce, 200, body, "AAAA"),
	} {
		if c != ErrBadProof {
			t.Errorf("%s: %v, want ErrBadProof", name, c)
		}
	}
	if err := Verify(pub, DoorMonitor, nonce, 200, body, ""); err != ErrNoProof {
		t.Fatalf("no proof: %v", err)
	}
}

func TestRequestVerifier(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	v := NewRequestVerifier(key)
	v.now = func() time.Time { return now }
	nonce, _ := NewNonce()
	body := []byte(`{"hook_event_name":"Stop"}`)
	unix := now.Unix()
	mac := MAC(key, nonce, unix, "/ws", body)
	ts := strconv.FormatInt(unix, 10)
	if err := v.Check(nonce, ts, mac, "/ws", body); err != nil {
		t.Fatalf("valid request refused: %v", err)
	}
	if err := v.Check(nonce, ts, mac, "/ws", body); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Fatalf("replay: %v", err)
	}
	n2, _ := NewNonce()
	cases := map[string]struct{ nonce, ts, mac, ws string }{
		"other workspace": {n2, ts, MAC(key, n2, unix, "/ws", body), "/other"},
		"other key":       {n2, ts, MAC([]byte("fedcba9876543210fedcba9876543210"), n2, unix, "/ws", body), "/ws"},
		"time changed":    {n2, strconv.FormatInt(unix+1, 10), MAC(key, n2, unix, "/ws", body), "/ws"},
		"unsigned":        {n2, ts, "", "/ws"},
		"not a nonce":     {"short", ts, MAC(key, "short", unix, "/ws", body), "/ws"},
		"not a time":      {n2, "yesterday", MAC(key, n2, unix, "/ws", body), "/ws"},
	}
	for name, c := range cases {
		if err := v.Check(c.nonce, c.ts, c.mac, c.ws, body); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Outside the clock window, even when correctly signed.
	old := now.Add(-MaxClockSkew - time.Second).Unix()
	n3, _ := NewNonce()
	if err := v.Check(n3, strconv.FormatInt(old, 10), MAC(key, n3, old, "/ws", body), "/ws", body); err == nil || !strings.Contains(err.Error(), "clock") {
		t.Fatalf("stale request: %v", err)
	}
	// Without a key nothing passes.
	if err := NewRequestVerifier(nil).Check(nonce, ts, mac, "/ws", body); err == nil {
		t.Fatal("a verifier without a key accepted a request")
	}
}

func TestSignAnswers(t *testing.T) {
	k, err := EnsureKeys(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := SignAnswers(DoorMonitor, k.Signer, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/err" {
			http.Error(w, "Bad Request: nope", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"block":false}`+"\n")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	do := func(path, nonce string) (*http.Response, []byte) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader("{}"))
		if nonce != "" {
			req.Header.Set(NonceHeader, nonce)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	// Plain clients: the answer as before, no proof.
	resp, b := do("/", "")
	if resp.StatusCode != 200 || string(b) != `{"block":false}`+"\n" || resp.Header.Get(ProofHeader) != "" {
		t.Fatalf("plain: %d %q %q", resp.StatusCode, b, resp.Header.Get(ProofHeader))
	}
	for _, path := range []string{"/", "/err"} {
		nonce, _ := NewNonce()
		resp, b := do(path, nonce)
		if err := Verify(k.Signer.Public(), DoorMonitor, nonce, resp.StatusCode, b, resp.Header.Get(ProofHeader)); err != nil {
			t.Fatalf("%s: %v (%d %q)", path, err, resp.StatusCode, b)
		}
	}
	if resp, _ := do("/", "bad nonce"); resp.StatusCode != 400 || resp.Header.Get(ProofHeader) != "" {
		t.Fatalf("malformed nonce: %d", resp.StatusCode)
	}
}

func TestSignRequestRoundTrip(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	body := []byte(`{"x":1}`)
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
	nonce, err := SignRequest(req, key, "/ws", body, time.Now())
	if err != nil || req.Header.Get(NonceHeader) != nonce {
		t.Fatalf("sign: %v", err)
	}
	if err := NewRequestVerifier(key).Check(nonce, req.Header.Get(TimeHeader), req.Header.Get(AuthHeader), "/ws", body); err != nil {
		t.Fatal(err)
	}
}

// FuzzCheck: no input the verifier did not see signed is accepted, and none
// makes it panic.
func FuzzCheck(f *testing.F) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	f.Add("AAAAAAAAAAAAAAAAAAAAAA", "1800000000", MAC(key, "AAAAAAAAAAAAAAAAAAAAAA", now.Unix(), "/ws", []byte("{}")), "/ws", []byte("{}"))
	f.Add("", "", "", "", []byte(nil))
	f.Add("x", "-1", "zz", "/", []byte("\x00"))
	f.Fuzz(func(t *testing.T, nonce, ts, auth, ws string, body []byte) {
		v := NewRequestVerifier(key)
		v.now = func() time.Time { return now }
		err := v.Check(nonce, ts, auth, ws, body)
		if err != nil {
			return
		}
		unix, perr := strconv.ParseInt(ts, 10, 64)
		if perr != nil || MAC(key, nonce, unix, ws, body) != strings.ToLower(auth) || !ValidNonce(nonce) {
			t.Fatalf("accepted an unsigned request: nonce %q time %q auth %q", nonce, ts, auth)
		}
		if v.Check(nonce, ts, auth, ws, body) == nil {
			t.Fatal("accepted the same nonce twice")
		}
	})
}

// FuzzParsePublicPEM: any file content is a key or an error, never a panic.
func FuzzParsePublicPEM(f *testing.F) {
	k, err := EnsureKeys(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	p, _ := PublicPEM(k.Signer.Public())
	f.Add(p)
	f.Add([]byte("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pub, err := ParsePublicPEM(b)
		if err == nil && len(pub) != 32 {
			t.Fatalf("key of %d bytes", len(pub))
		}
	})
}

// BenchmarkProof is what the proof adds to one gated call: the daemon signs
// the answer, the client verifies it, the hook door checks the request's MAC.
func BenchmarkProof(b *testing.B) {
	k, err := EnsureKeys(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	nonce, _ := NewNonce()
	body := []byte(`{"allow":true,"decision":"allow","reason":"ok","rule":""}` + "\n")
	pub := k.Signer.Public()
	b.Run("sign", func(b *testing.B) {
		for b.Loop() {
			k.Signer.Sign(DoorHooks, nonce, 200, body)
		}
	})
	sig := k.Signer.Sign(DoorHooks, nonce, 200, body)
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := Verify(pub, DoorHooks, nonce, 200, body, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("request-mac", func(b *testing.B) {
		payload := bytes.Repeat([]byte("x"), 2048)
		for b.Loop() {
			MAC(k.HookKey, nonce, 1_800_000_000, "/ws", payload)
		}
	})
}
