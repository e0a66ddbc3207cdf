package opencode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxEventSize bounds one server-sent event (its data and each of its
// lines) when no other limit is given.
const DefaultMaxEventSize = 1 << 20

// ErrEventTooLarge is returned by SSEReader.Next when an event or a line is
// larger than the reader's limit. The stream cannot be resynchronised after
// it: the caller must close it.
var ErrEventTooLarge = errors.New("opencode: server-sent event too large")

// ErrBadEvent is returned (wrapped) by EventStream.Next for an event whose
// data is not an OpenCode event. It is not fatal: the next call reads on.
var ErrBadEvent = errors.New("opencode: malformed event")

// SSEReader decodes a text/event-stream (the subset OpenCode uses): lines end
// with LF or CRLF, "data:" lines (one leading space dropped) are joined with
// LF, a blank line ends an event, lines starting with ":" are comments and the
// fields event, id and retry (and any unknown field) are ignored. An event
// without data lines is skipped; an unterminated event at the end of the
// stream is discarded, as the SSE specification says.
type SSEReader struct {
	r   *bufio.Reader
	max int
}

// NewSSEReader returns a reader of r that fails with ErrEventTooLarge on an
// event larger than maxSize bytes (DefaultMaxEventSize when maxSize <= 0).
func NewSSEReader(r io.Reader, maxSize int) *SSEReader {
	if maxSize <= 0 {
		maxSize = DefaultMaxEventSize
	}
	return &SSEReader{r: bufio.NewReaderSize(r, 4096), max: maxSize}
}

// Next returns the data of the next event. It returns io.EOF at a clean end
// of the stream, io.ErrUnexpectedEOF when the stream ends inside an event,
// and ErrEventTooLarge (wrapped) for an oversized event.
func (d *SSEReader) Next() ([]byte, error) {
	var data []byte
	hasData := false
	for {
		line, err := d.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) == 0 {
			if hasData {
				return data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" {
			continue
		}
		if hasData {
			data = append(data, '\n')
		}
		if len(data)+len(value) > d.max {
			return nil, fmt.Errorf("%w: more than %d bytes", ErrEventTooLarge, d.max)
		}
		data = append(data, value...)
		hasData = true
	}
}

// lineSlack is what a line may hold beyond the event limit: a field name,
// its colon and space, and the line ending.
const lineSlack = 64

// readLine returns the next line without its LF or CRLF ending. A last line
// without an ending is returned as a line; io.EOF comes after it.
func (d *SSEReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(line)+len(chunk) > d.max+lineSlack {
			return nil, fmt.Errorf("%w: line longer than %d bytes", ErrEventTooLarge, d.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		default:
			return nil, err
		}
	}
}

// Event is one event of OpenCode's bus as GET /event sends it:
// {"id":"evt_...","type":"session.status","properties":{...}}.
type Event struct {
	// ID is the event id ("evt_...").
	ID string `json:"id"`
	// Type names the event ("session.status", "permission.asked", ...).
	Type string `json:"type"`
	// Properties is the event's payload, as sent.
	Properties json.RawMessage `json:"properties"`
}

// ParseEvent decodes the data of one server-sent event into an Event. Data
// without a type is an error (wrapping ErrBadEvent).
func ParseEvent(data []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(data, &ev); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	if ev.Type == "" {
		return Event{}, fmt.Errorf("%w: no type", ErrBadEvent)
	}
	return ev, nil
}
