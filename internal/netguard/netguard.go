// Package netguard holds the checks every HTTP door of warden makes before it
// reads a request: the Host header must name the loopback interface (against
// DNS rebinding) and a browser's Origin, when present, must be loopback too
// (against cross-site requests).
package netguard

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// LoopbackHost reports whether a Host header value (with or without port)
// names this machine's loopback interface: localhost, *.localhost,
// 127.0.0.0/8 or ::1.
func LoopbackHost(host string) bool {
	if host == "" {
		return false
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// LoopbackOrigin reports whether an Origin header value is a loopback origin
// (http or https on a loopback host). "null" and malformed origins are not.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return LoopbackHost(u.Host)
}

// Check returns "" when the request may proceed, or a reason to refuse it:
// a Host that is not loopback, or an Origin header that is not loopback.
func Check(r *http.Request) string {
	if !LoopbackHost(r.Host) {
		return "host " + quote(r.Host) + " is not a loopback name; warden answers only localhost"
	}
	if o := r.Header.Get("Origin"); o != "" && !LoopbackOrigin(o) {
		return "cross-origin requests from " + quote(o) + " are refused"
	}
	return ""
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + s + `"`
}
