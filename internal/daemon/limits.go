package daemon

import (
	"io"
	"net/http"
	"sync"
	"time"
)

// bodyDeadline gives a request's body d to arrive in full: a body that
// trickles in (a byte every few seconds) is cut when d passes, and the
// handler's read fails. http.Server's ReadTimeout would do the same for
// every request but also cancel long-lived streams (its deadline outlives
// the body and ends the connection's context), so the deadline is set per
// request, only for requests that carry a body, and lifted once the body
// is read: SSE (events --follow, MCP's GET), WebSocket upgrades and other
// bodiless requests are untouched.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d <= 0 || r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			// a connection that has no deadlines (none of warden's)
			h.ServeHTTP(w, r)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, lift: sync.OnceFunc(func() { _ = rc.SetReadDeadline(time.Time{}) })}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline once the body is read to its end.
type deadlineBody struct {
	io.ReadCloser
	lift func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.lift()
	}
	return n, err
}
