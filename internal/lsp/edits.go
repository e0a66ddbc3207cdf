package lsp

import (
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"
)

// offset converts an LSP position (line, UTF-16 code unit) to a byte
// offset in text. A character past the end of its line clamps to the line
// end; a line past the end of text clamps to len(text).
func offset(text string, pos protocol.Position) int {
	off := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	lineEnd := strings.IndexByte(text[off:], '\n')
	if lineEnd < 0 {
		lineEnd = len(text) - off
	}
	lineText := text[off : off+lineEnd]
	units := uint32(0)
	for i, r := range lineText {
		if units >= pos.Character {
			return off + i
		}
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return off + len(lineText)
}

// ApplyEdits applies LSP text edits (positions in UTF-16 code units, as
// servers send by default) to text and returns the result. Edits must not
// overlap; they may come in any order.
func ApplyEdits(text string, edits []protocol.TextEdit) (string, error) {
	type span struct {
		start, end int
		newText    string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		s, end := offset(text, e.Range.Start), offset(text, e.Range.End)
		if end < s {
			return "", fmt.Errorf("lsp: edit range ends before it starts: %v", e.Range)
		}
		spans = append(spans, span{s, end, e.NewText})
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.start < last {
			return "", fmt.Errorf("lsp: overlapping edits at byte %d", s.start)
		}
		b.WriteString(text[last:s.start])
		b.WriteString(s.newText)
		last = s.end
	}
	b.WriteString(text[last:])
	return b.String(), nil
}
