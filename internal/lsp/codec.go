package lsp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxMessageSize bounds the body of a single message read from a server, so
// a corrupt or hostile Content-Length cannot make the reader allocate
// unbounded memory.
const MaxMessageSize = 256 << 20

// ErrFraming reports a malformed base-protocol header (missing or invalid
// Content-Length, over-long header line, oversized body).
var ErrFraming = errors.New("lsp: bad message framing")

// maxHeaderLines bounds how many header lines one message may carry.
const maxHeaderLines = 32

// readMessage reads one Content-Length framed message (the LSP base
// protocol) from r and returns its body. Header names are matched
// case-insensitively, unknown headers (Content-Type) are ignored, and bare
// "\n" line ends are accepted as well as "\r\n". io.EOF is returned only when
// r ends cleanly between messages.
func readMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	for lines := 0; ; lines++ {
		if lines > maxHeaderLines {
			return nil, fmt.Errorf("%w: more than %d header lines", ErrFraming, maxHeaderLines)
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, io.EOF) && lines == 0 && len(line) == 0 {
				return nil, io.EOF
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				return nil, fmt.Errorf("%w: header line too long", ErrFraming)
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("reading header: %w", err)
		}
		s := strings.TrimRight(string(line), "\r\n")
		if s == "" {
			if lines == 0 {
				// Tolerate blank lines between messages.
				lines = -1
				continue
			}
			break
		}
		name, value, ok := strings.Cut(s, ":")
		if !ok {
			return nil, fmt.Errorf("%w: header line %q has no colon", ErrFraming, s)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: bad Content-Length %q", ErrFraming, value)
			}
			if n > MaxMessageSize {
				return nil, fmt.Errorf("%w: Content-Length %d exceeds %d", ErrFraming, n, MaxMessageSize)
			}
			length = int(n)
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("%w: no Content-Length header", ErrFraming)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("reading %d-byte body: %w", length, err)
	}
	return body, nil
}

// writeMessage writes body framed with a Content-Length header in a single
// Write call, so concurrent writers serialised by a mutex never interleave.
func writeMessage(w io.Writer, body []byte) error {
	header := "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	buf := make([]byte, 0, len(header)+len(body))
	buf = append(buf, header...)
	buf = append(buf, body...)
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("writing message: %w", err)
	}
	return nil
}
