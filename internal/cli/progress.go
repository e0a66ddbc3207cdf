package cli

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// countBar draws the progress of long work with a known end (an export up
// to the log's last id, an import through its input file) on one line of
// a terminal, at most every redrawEvery. A nil *countBar draws nothing, so
// callers need no check for a stderr that is not a terminal.
type countBar struct {
	w     io.Writer
	label string
	// total is the end of the work (events, bytes); what draws it is format.
	total  int64
	format func(n, total int64) string
	now    func() time.Time
	last   time.Time
	drawn  bool
}

// redrawEvery bounds how often a countBar writes to the terminal.
const redrawEvery = 100 * time.Millisecond

// newCountBar returns a bar on w when tty, else nil.
func newCountBar(w io.Writer, tty bool, label string, total int64, format func(n, total int64) string) *countBar {
	if !tty || total <= 0 {
		return nil
	}
	return &countBar{w: w, label: label, total: total, format: format, now: time.Now}
}

// set shows that n of the total is done.
func (b *countBar) set(n int64) {
	if b == nil {
		return
	}
	now := b.now()
	if b.drawn && n < b.total && now.Sub(b.last) < redrawEvery {
		return
	}
	b.last, b.drawn = now, true
	const width = 30
	k := min(max(n, 0), b.total) * width / b.total
	fmt.Fprintf(b.w, "\r\x1b[K%s [%s%s] %s", b.label, strings.Repeat("#", int(k)), strings.Repeat(".", width-int(k)), b.format(n, b.total))
}

// done clears the bar's line, so the summary that follows starts clean.
func (b *countBar) done() {
	if b == nil || !b.drawn {
		return
	}
	fmt.Fprint(b.w, "\r\x1b[K")
	b.drawn = false
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
