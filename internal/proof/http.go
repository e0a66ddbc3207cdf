package proof

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// SignAnswers wraps a door's handler: a request carrying X-Warden-Nonce gets
// its answer (any status, any body) buffered and signed in X-Warden-Proof; a
// request without one is served exactly as before. A malformed nonce is a
// 400 (unsigned, so a careful client blocks).
func SignAnswers(door string, s *Signer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := r.Header.Get(NonceHeader)
		if nonce == "" {
			next.ServeHTTP(w, r)
			return
		}
		if !ValidNonce(nonce) {
			http.Error(w, "Bad Request: "+NonceHeader+" must be 16-128 base64url characters", http.StatusBadRequest)
			return
		}
		bw := &bufferedWriter{header: w.Header()}
		next.ServeHTTP(bw, r)
		status := bw.status
		if status == 0 {
			status = http.StatusOK
		}
		body := bw.body.Bytes()
		w.Header().Set(ProofHeader, s.Sign(door, nonce, status, body))
		w.Header().Del("Content-Length")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// bufferedWriter holds an answer until it can be signed.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// SignRequest signs a hook request for the workspace and body it carries:
// it sets X-Warden-Nonce, X-Warden-Time and X-Warden-Auth, and returns the
// nonce the answer's proof must carry.
func SignRequest(req *http.Request, key []byte, workspace string, body []byte, now time.Time) (string, error) {
	nonce, err := NewNonce()
	if err != nil {
		return "", err
	}
	unix := now.Unix()
	req.Header.Set(NonceHeader, nonce)
	req.Header.Set(TimeHeader, strconv.FormatInt(unix, 10))
	req.Header.Set(AuthHeader, MAC(key, nonce, unix, workspace, body))
	return nonce, nil
}
