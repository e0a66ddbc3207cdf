// Package ollamaenv reads the ways Ollama's settings are written: the
// OLLAMA_HOST address and the PARAMETER lines /api/show reports. It is apart
// from the adapter (package sdk) so its fuzz targets link no SDK.
package ollamaenv

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// DefaultHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// ParseHost reads an address the way OLLAMA_HOST is written:
// "host", "host:port", ":port", "scheme://host[:port][/path]"; the port
// defaults to 11434 (80/443 with an explicit http/https scheme and no
// port). Empty gives DefaultHost.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultHost
	}
	scheme, rest, ok := strings.Cut(s, "://")
	port := "11434"
	switch {
	case !ok:
		scheme, rest = "http", s
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return nil, fmt.Errorf("ollama host %q: scheme must be http or https", s)
	}
	hostport, path, _ := strings.Cut(rest, "/")
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	} else {
		port = p
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n <= 0 || n > 65535 || strings.TrimLeft(port, "0123456789") != "" {
		return nil, fmt.Errorf("ollama host %q: bad port %q", s, port)
	}
	port = strconv.Itoa(n) // "0080" is port 80
	if !validHost(host) {
		return nil, fmt.Errorf("ollama host %q: bad host %q", s, host)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		// the path is written escaped (as in a URL); keep it unescaped so
		// that printing and reading it again gives the same URL
		p, err := url.PathUnescape(path)
		if err != nil {
			return nil, fmt.Errorf("ollama host %q: bad path: %w", s, err)
		}
		u.Path = "/" + p
	}
	return u, nil
}

// validHost reports whether h is an IP address or a DNS name (letters,
// digits, '-', '_' and '.').
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return h != ""
}

// NumCtx reads the num_ctx line of /api/show's parameters (the
// Modelfile's PARAMETER lines: "name value" per line); 0 when absent or
// not a positive number.
func NumCtx(params string) int {
	for _, line := range strings.Split(params, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[0] == "num_ctx" {
			n, err := strconv.Atoi(fields[1])
			if err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}
