package opencode

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readAllSSE(r *SSEReader) ([]string, error) {
	var out []string
	for {
		data, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, string(data))
	}
}

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want []string
		err  error
	}{
		{"empty", "", 0, nil, io.EOF},
		{"one event", "data: {\"a\":1}\n\n", 0, []string{`{"a":1}`}, io.EOF},
		{"opencode's shape", `data: {"id":"evt_1","type":"server.connected","properties":{}}` + "\n\n" +
			`data: {"id":"evt_2","type":"server.heartbeat","properties":{}}` + "\n\n", 0,
			[]string{`{"id":"evt_1","type":"server.connected","properties":{}}`, `{"id":"evt_2","type":"server.heartbeat","properties":{}}`}, io.EOF},
		{"multi-line data joined with LF", "data: a\ndata: b\ndata:\ndata: c\n\n", 0, []string{"a\nb\n\nc"}, io.EOF},
		{"no space after colon", "data:x\n\n", 0, []string{"x"}, io.EOF},
		{"only one leading space dropped", "data:  x \n\n", 0, []string{" x "}, io.EOF},
		{"CRLF endings", "data: a\r\ndata: b\r\n\r\n", 0, []string{"a\nb"}, io.EOF},
		{"comments and other fields ignored", ": hello\nevent: message\nid: 7\nretry: 1000\nfoo: bar\ndata: x\n\n", 0, []string{"x"}, io.EOF},
		{"field without colon", "data\n\n", 0, []string{""}, io.EOF},
		{"event without data is skipped", "event: ping\nid: 1\n\ndata: x\n\n", 0, []string{"x"}, io.EOF},
		{"several blank lines", "\n\n\ndata: x\n\n\n\ndata: y\n\n", 0, []string{"x", "y"}, io.EOF},
		{"unterminated event at the end", "data: x\n\ndata: y\n", 0, []string{"x"}, io.ErrUnexpectedEOF},
		{"unterminated last line", "data: x\n\ndata: y", 0, []string{"x"}, io.ErrUnexpectedEOF},
		{"comment at the end is a clean end", "data: x\n\n: bye\n", 0, []string{"x"}, io.EOF},
		{"event at the limit", "data: " + strings.Repeat("a", 16) + "\n\n", 16, []string{strings.Repeat("a", 16)}, io.EOF},
		{"event over the limit", "data: " + strings.Repeat("a", 17) + "\n\n", 16, nil, ErrEventTooLarge},
		{"data lines adding up over the limit", strings.Repeat("data: aaaaa\n", 4) + "\n", 16, nil, ErrEventTooLarge},
		{"a huge comment line", ": " + strings.Repeat("x", 100) + "\n\ndata: y\n\n", 16, nil, ErrEventTooLarge},
		{"a line longer than the read buffer", "data: " + strings.Repeat("b", 10000) + "\n\n", 0, []string{strings.Repeat("b", 10000)}, io.EOF},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, src := range []struct {
				name string
				r    io.Reader
			}{{"whole", strings.NewReader(tc.in)}, {"byte by byte", iotest.OneByteReader(strings.NewReader(tc.in))}} {
				got, err := readAllSSE(NewSSEReader(src.r, tc.max))
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: error %v, want %v", src.name, err, tc.err)
				}
				if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
					t.Fatalf("%s: events %q, want %q", src.name, got, tc.want)
				}
			}
		})
	}
}

func TestSSEReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewSSEReader(io.MultiReader(strings.NewReader("data: x\n\ndata: y"), iotest.ErrReader(boom)), 0)
	if d, err := r.Next(); err != nil || string(d) != "x" {
		t.Fatalf("%q %v", d, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}

func TestParseEvent(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"id":"evt_1","type":"session.idle","properties":{"sessionID":"ses_a"}}`))
	if err != nil || ev.ID != "evt_1" || ev.Type != "session.idle" || string(ev.Properties) != `{"sessionID":"ses_a"}` {
		t.Fatalf("%+v %v", ev, err)
	}
	for _, bad := range []string{``, `[]`, `{"id":"evt_1"}`, `{"type":1}`, `not json`} {
		if _, err := ParseEvent([]byte(bad)); !errors.Is(err, ErrBadEvent) {
			t.Fatalf("%q: error %v, want ErrBadEvent", bad, err)
		}
	}
}

// FuzzSSE feeds arbitrary streams to the decoder and the state machine: no
// panic, no event over the limit, the same events however the input is cut.
func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: {\"id\":\"evt_1\",\"type\":\"session.status\",\"properties\":{\"sessionID\":\"ses_a\",\"status\":{\"type\":\"busy\"}}}\n\n"))
	f.Add([]byte("data: {\"type\":\"permission.asked\",\"properties\":{\"id\":\"per_1\",\"sessionID\":\"ses_a\",\"patterns\":[\"x\"]}}\n\ndata: {\"type\":\"permission.replied\",\"properties\":{\"requestID\":\"per_1\"}}\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\n\r\n: c\nevent: e\nid: 1\nretry: 5\n\n"))
	f.Add([]byte("data:" + strings.Repeat("z", 300) + "\n\n"))
	f.Add([]byte("\n\n\ndata\n\ndata: {\"type\":\"session.deleted\",\"properties\":{\"info\":{\"id\":\"ses_a\"}}}"))
	const limit = 256
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, errWhole := readAllSSE(NewSSEReader(bytes.NewReader(in), limit))
		bytewise, errByte := readAllSSE(NewSSEReader(iotest.OneByteReader(bytes.NewReader(in)), limit))
		if strings.Join(whole, "\x00") != strings.Join(bytewise, "\x00") || len(whole) != len(bytewise) {
			t.Fatalf("whole %q, byte by byte %q", whole, bytewise)
		}
		if (errWhole == nil) != (errByte == nil) || errors.Is(errWhole, ErrEventTooLarge) != errors.Is(errByte, ErrEventTooLarge) {
			t.Fatalf("errors differ: %v / %v", errWhole, errByte)
		}
		s := NewState()
		for _, d := range whole {
			if len(d) > limit {
				t.Fatalf("event of %d bytes over the limit", len(d))
			}
			if ev, err := ParseEvent([]byte(d)); err == nil {
				s.Apply(ev)
			}
		}
		if !s.Status().Valid() {
			t.Fatalf("status %q", s.Status())
		}
		s.Reset()
		_ = s.Load(nil, nil, nil)
		if got := s.Status(); got != stNone {
			t.Fatalf("after an empty load: %s", got)
		}
	})
}
