package terminal

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineRing(t *testing.T) {
	r := newLineRing(3, 0)
	if got := r.last(0); got != "" {
		t.Fatalf("empty ring: %q", got)
	}
	// Chunks cut anywhere: lines are made of '\n'-terminated runs.
	for _, c := range []string{"a", "\nb\n", "c\nd", "\n", "e"} {
		r.write([]byte(c))
	}
	// Held: "c\n", "d\n" complete plus partial "e" = 3 lines.
	if got := r.last(0); got != "c\nd\ne" {
		t.Fatalf("last(0) = %q", got)
	}
	if got := r.last(2); got != "d\ne" {
		t.Fatalf("last(2) = %q", got)
	}
	if got := r.last(1); got != "e" {
		t.Fatalf("last(1) = %q", got)
	}
	if got := r.last(99); got != "c\nd\ne" {
		t.Fatalf("last(99) = %q", got)
	}
	r.write([]byte("\n"))
	if got := r.last(0); got != "c\nd\ne\n" {
		t.Fatalf("after completing e: %q", got)
	}
}

func TestLineRingThousand(t *testing.T) {
	r := newLineRing(0, 0)
	var b strings.Builder
	for i := 1; i <= 1500; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	// Write in awkward chunks.
	s := b.String()
	for len(s) > 0 {
		n := min(7, len(s))
		r.write([]byte(s[:n]))
		s = s[n:]
	}
	out := r.last(0)
	if !strings.HasPrefix(out, "501\n") || !strings.HasSuffix(out, "\n1500\n") || strings.Count(out, "\n") != 1000 {
		t.Fatalf("held %d lines starting %q", strings.Count(out, "\n"), out[:10])
	}
	r.write([]byte("$ "))
	if out := r.last(0); !strings.HasPrefix(out, "502\n") || !strings.HasSuffix(out, "1500\n$ ") {
		t.Fatalf("with partial: starts %q", out[:10])
	}
}

func TestLineRingLongLine(t *testing.T) {
	r := newLineRing(2, 8)
	r.write([]byte("0123456789é\nxy"))
	// "0123456789é\n" is 13 bytes; its last 8 are "56789é\n".
	if got := r.last(0); got != "56789é\nxy" {
		t.Fatalf("got %q", got)
	}
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                             "plain",
		"\x1b[31mred\x1b[0m":                "red",
		"\x1b[?2004hPROMPT> ":               "PROMPT> ",
		"\x1b]0;title\x07x":                 "x",
		"\x1b]8;;http://e\x1b\\link":        "link",
		"\x1b(Bq\x1b=":                      "q",
		"a\x1bPdcs\x1b\\b":                  "ab",
		"cut\x1b[1;3":                       "cut",
		"\r\n\x1b[K":                        "\r\n",
		"\x1b":                              "",
		"x\x1b[38;2;1;2;3mrgb\x1b[m\x1b[2J": "xrgb",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLineRingLongLineRuneCut(t *testing.T) {
	r := newLineRing(2, 4)
	r.write([]byte("ab\u00e9\u00e9")) // a b C3 A9 C3 A9: last 4 bytes "éé"
	r.write([]byte("c"))              // last 4 of "abééc" cut inside é: "éc"
	if got := r.last(0); got != "\u00e9c" {
		t.Fatalf("got %q", got)
	}
}
