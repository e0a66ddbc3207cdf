package netguard

import (
	"net/http/httptest"
	"testing"
)

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost":           true,
		"localhost:37123":     true,
		"LOCALHOST.":          true,
		"app.localhost:80":    true,
		"127.0.0.1":           true,
		"127.0.0.1:37123":     true,
		"127.8.9.1:1":         true,
		"[::1]:37123":         true,
		"::1":                 true,
		"":                    false,
		"example.com":         false,
		"localhost.evil.com":  false,
		"127.0.0.1.nip.io":    false,
		"192.168.1.10:37123":  false,
		"[::ffff:10.0.0.1]:1": false,
		"0.0.0.0:37123":       false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		host, origin string
		ok           bool
	}{
		{"localhost:37123", "", true},
		{"127.0.0.1:37123", "http://localhost:3000", true},
		{"127.0.0.1:37123", "https://evil.example", false},
		{"127.0.0.1:37123", "null", false},
		{"evil.example:37123", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/agent-monitor", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := Check(r) == ""; got != c.ok {
			t.Errorf("Check(host=%q origin=%q) ok=%v, want %v (%s)", c.host, c.origin, got, c.ok, Check(r))
		}
	}
}
