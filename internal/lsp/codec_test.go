package lsp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

func TestReadMessage(t *testing.T) {
	in := "Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}" +
		"content-length:3\n\n[1]"
	r := bufio.NewReader(strings.NewReader(in))
	for _, want := range []string{"{}", "[1]"} {
		got, err := readMessage(r)
		if err != nil || string(got) != want {
			t.Fatalf("readMessage = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := readMessage(r); !errors.Is(err, io.EOF) {
		t.Fatalf("at end: %v, want io.EOF", err)
	}
	for _, bad := range []string{
		"Content-Type: x\r\n\r\n{}",
		"Content-Length: -1\r\n\r\n",
		"Content-Length: 99999999999\r\n\r\n",
		"Content-Length: 10\r\n\r\n{}",
		"garbage\r\n\r\n",
	} {
		if _, err := readMessage(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readMessage(%q) succeeded", bad)
		}
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("Content-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 5\r\nContent-Type: x\r\n\r\nhello"))
	f.Add([]byte("content-length:0\n\n"))
	f.Add([]byte("\r\nContent-Length: 1\r\n\r\nx"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReaderSize(bytes.NewReader(data), 64)
		for range 100 {
			body, err := readMessage(r)
			if err != nil {
				return
			}
			// Whatever was read must survive a write/read round trip.
			var buf bytes.Buffer
			if err := writeMessage(&buf, body); err != nil {
				t.Fatal(err)
			}
			again, err := readMessage(bufio.NewReader(&buf))
			if err != nil || !bytes.Equal(again, body) {
				t.Fatalf("round trip: %q, %v; want %q", again, err, body)
			}
		}
	})
}

func TestApplyEdits(t *testing.T) {
	text := "héllo 😀 world\nsecond\n"
	edits := []protocol.TextEdit{
		{Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 0}, End: protocol.Position{Line: 1, Character: 6}}, NewText: "2nd"},
		// 😀 is two UTF-16 units: "world" starts at character 9.
		{Range: protocol.Range{Start: protocol.Position{Line: 0, Character: 9}, End: protocol.Position{Line: 0, Character: 14}}, NewText: "there"},
	}
	got, err := ApplyEdits(text, edits)
	if err != nil {
		t.Fatal(err)
	}
	if want := "héllo 😀 there\n2nd\n"; got != want {
		t.Fatalf("ApplyEdits = %q, want %q", got, want)
	}
	overlap := []protocol.TextEdit{edits[1], edits[1]}
	if _, err := ApplyEdits(text, overlap); err == nil {
		t.Fatal("overlapping edits accepted")
	}
}

func TestLanguageID(t *testing.T) {
	for path, want := range map[string]string{
		"/a/b.go": "go", "x.py": "python", "x.ts": "typescript", "x.js": "javascript",
		"x.json": "json", "README.md": "markdown", "/m/go.mod": "go.mod", "file:///a/b.tsx": "typescriptreact",
		"noext": "plaintext",
	} {
		if got := LanguageID(path); got != want {
			t.Errorf("LanguageID(%q) = %q, want %q", path, got, want)
		}
	}
}
