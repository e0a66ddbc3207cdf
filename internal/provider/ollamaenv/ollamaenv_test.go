package ollamaenv

import "testing"

func TestParseHost(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "http://127.0.0.1:11434",
		"localhost":                "http://localhost:11434",
		"0.0.0.0":                  "http://127.0.0.1:11434",
		":8080":                    "http://127.0.0.1:8080",
		"example.com:1234":         "http://example.com:1234",
		"https://ollama.example":   "https://ollama.example:443",
		"http://10.0.0.2/ollama":   "http://10.0.0.2:80/ollama",
		"[::1]:11434":              "http://[::1]:11434",
		"http://box.local:11434/":  "http://box.local:11434",
		"  http://127.0.0.1:9999 ": "http://127.0.0.1:9999",
	} {
		u, err := ParseHost(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "host:99999", "host:abc", "http://a b"} {
		if u, err := ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) = %v, want an error", bad, u)
		}
	}
}

func TestNumCtx(t *testing.T) {
	for in, want := range map[string]int{
		"num_ctx                        16384\nstop \"<|im_end|>\"": 16384,
		"stop \"x\"\ntemperature 0.7":                               0,
		"num_ctx -5":                                                0,
		"num_ctx 8192 extra":                                        0,
		"":                                                          0,
	} {
		if got := NumCtx(in); got != want {
			t.Errorf("NumCtx(%q) = %d, want %d", in, got, want)
		}
	}
}

func FuzzParseHost(f *testing.F) {
	for _, s := range []string{"", "localhost", ":8080", "https://h:1/p", "[::1]:11434", "http://a b", "0.0.0.0:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseHost(s)
		if err != nil {
			return
		}
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Port() == "" {
			t.Fatalf("ParseHost(%q) = %v: no scheme, host or port", s, u)
		}
		// what it returns parses back to itself
		again, err := ParseHost(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("ParseHost(%q) = %v, again %v %v", s, u, again, err)
		}
	})
}

func FuzzNumCtx(f *testing.F) {
	for _, s := range []string{"num_ctx 4096", "num_ctx\t8192\nstop x", "num_ctx 0", "num_ctx 99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n := NumCtx(s); n < 0 {
			t.Fatalf("NumCtx(%q) = %d", s, n)
		}
	})
}
