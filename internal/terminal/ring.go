package terminal

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// DefaultMaxLines is how many lines of output a terminal keeps when
// Config.MaxLines is zero.
const DefaultMaxLines = 1000

// DefaultMaxLineBytes bounds one buffered line when Config.MaxLineBytes is
// zero. Output that never writes a newline (progress bars redrawn with \r,
// minified files) would otherwise grow one line without limit.
const DefaultMaxLineBytes = 16 << 10

// lineRing keeps the last max lines written to it. A line is a run of bytes
// ending in '\n' (kept, together with any '\r' the PTY put before it); the
// bytes after the last '\n' form the partial last line, which counts as one
// of the max lines when it is not empty. A line longer than maxLineBytes
// keeps only its last maxLineBytes bytes (cut at a UTF-8 boundary).
//
// lineRing is not safe for concurrent use; Terminal guards it.
type lineRing struct {
	max          int
	maxLineBytes int
	lines        []string // ring of complete lines, len max once full
	start        int      // index of the oldest complete line
	n            int      // number of complete lines held
	partial      []byte
}

func newLineRing(maxLines, maxLineBytes int) *lineRing {
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxLineBytes <= 0 {
		maxLineBytes = DefaultMaxLineBytes
	}
	return &lineRing{max: maxLines, maxLineBytes: maxLineBytes, lines: make([]string, maxLines)}
}

// write appends p to the buffer.
func (r *lineRing) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			r.partial = append(r.partial, p...)
			r.trimPartial()
			return
		}
		r.partial = append(r.partial, p[:i+1]...)
		r.trimPartial()
		r.push(string(r.partial))
		r.partial = r.partial[:0]
		p = p[i+1:]
	}
}

// trimPartial keeps the partial line within maxLineBytes, dropping its head.
func (r *lineRing) trimPartial() {
	if len(r.partial) <= r.maxLineBytes {
		return
	}
	cut := len(r.partial) - r.maxLineBytes
	for cut < len(r.partial) && !utf8.RuneStart(r.partial[cut]) {
		cut++
	}
	r.partial = append(r.partial[:0], r.partial[cut:]...)
}

func (r *lineRing) push(line string) {
	if r.n < r.max {
		r.lines[(r.start+r.n)%r.max] = line
		r.n++
		return
	}
	r.lines[r.start] = line
	r.start = (r.start + 1) % r.max
}

// count is the number of lines held, the partial one included.
func (r *lineRing) count() int {
	c := r.n
	if len(r.partial) > 0 {
		c++
	}
	if c > r.max {
		c = r.max
	}
	return c
}

// last returns the last maxLines lines (all held lines when maxLines <= 0 or
// exceeds what is held), concatenated exactly as written.
func (r *lineRing) last(maxLines int) string {
	total := r.count()
	if maxLines <= 0 || maxLines > total {
		maxLines = total
	}
	var b strings.Builder
	complete := maxLines
	if len(r.partial) > 0 {
		complete--
	}
	for i := r.n - complete; i < r.n; i++ {
		b.WriteString(r.lines[(r.start+i)%r.max])
	}
	if len(r.partial) > 0 && maxLines > 0 {
		b.Write(r.partial)
	}
	return b.String()
}
