package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/warden-dev/warden/internal/provider"
)

// Retry bounds the retries of a request that failed before its first
// delta. The zero value means the defaults (3 attempts, 500 ms doubling up
// to 8 s).
type Retry struct {
	// Attempts is the most tries of one request, the first included; 1
	// switches retries off.
	Attempts int
	// Base is the wait before the first retry; each retry doubles it.
	Base time.Duration
	// Max caps one wait (a server's Retry-After included).
	Max time.Duration
}

func (r Retry) attempts() int {
	if r.Attempts <= 0 {
		return 3
	}
	return r.Attempts
}

func (r Retry) wait(try int, after time.Duration) time.Duration {
	base, limit := r.Base, r.Max
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	if limit <= 0 {
		limit = 8 * time.Second
	}
	d := base << (try - 1)
	if after > d {
		d = after
	}
	if d > limit || d <= 0 {
		d = limit
	}
	return d
}

// retryable is an adapter's verdict on a failed attempt: whether it may be
// tried again, and how long the server asked to wait (0 if it did not say).
type retryable func(error) (bool, time.Duration)

// withRetry runs attempt until it succeeds, fails after a delta was
// emitted, fails for good, or the attempts run out. onDelta is wrapped so
// that the first delta is noticed.
func withRetry(ctx context.Context, r Retry, log *slog.Logger, name string, can retryable,
	onDelta func(provider.Delta), attempt func(emit func(provider.Delta)) (*provider.Response, error)) (*provider.Response, error) {
	emitted := false
	emit := func(d provider.Delta) {
		emitted = true
		if onDelta != nil {
			onDelta(d)
		}
	}
	for try := 1; ; try++ {
		resp, err := attempt(emit)
		if err == nil {
			return resp, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("%s: %w", name, ctxErr)
		}
		if emitted || try >= r.attempts() || errors.Is(err, provider.ErrContextOverflow) {
			return nil, err
		}
		ok, after := can(err)
		if !ok {
			return nil, err
		}
		d := r.wait(try, after)
		if log != nil {
			log.Warn("provider request failed; retrying", "provider", name, "attempt", try, "wait", d, "err", err)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("%s: %w", name, ctx.Err())
		case <-t.C:
		}
	}
}

// retryStatus reports whether an HTTP status is worth another try: timeouts,
// conflicts, rate limits, server errors and Anthropic's 529 (overloaded).
func retryStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// retryAfter reads a Retry-After header (seconds or an HTTP date); 0 when
// absent or unreadable.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// netRetryable reports transport failures worth another try: a refused or
// reset connection, a timeout.
func netRetryable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// overflowText reports whether a provider's error message says the prompt
// did not fit the window. Servers word it differently: OpenAI
// ("maximum context length", code context_length_exceeded), Anthropic
// ("prompt is too long"), vLLM, llama.cpp ("exceeds the available context
// size"), LM Studio and Ollama ("context length").
func overflowText(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{
		"context_length_exceeded", "maximum context length", "context length", "context window",
		"prompt is too long", "exceeds the available context", "context size", "too many tokens",
		"input is too long", "reduce the length of the messages",
	} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
