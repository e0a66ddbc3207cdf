// Package tailbuf keeps the last bytes a process wrote (its stderr, its
// log) so an error can say what the process said before it failed.
package tailbuf

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that keeps only the last Max bytes written. It is
// safe for concurrent use; the zero value keeps nothing until Max is set,
// so use New.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// New returns a buffer that keeps the last max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the tail of what was written; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// String returns what is kept, without leading and trailing space.
func (t *Buffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.TrimSpace(t.buf))
}
