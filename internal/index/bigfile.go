package index

import (
	"bytes"
	"io"
	"math/bits"
	"slices"
)

// A file over MaxIndexSize keeps no content in memory: exact search reads
// it from disk when its trigrams say it can match. Read whole, such a
// file cost every query that could not exclude it a read and a scan of
// megabytes (the 2.6 MB trace viewer of $GOROOT/src holds every trigram of
// "errors.New", but not in one place). So its text is cut into up to
// maxBlocks blocks at line starts, each trigram of the file says which
// blocks hold it, and a query reads and scans only the blocks that hold
// every trigram its plan requires. A reported match lies in one line
// (search's matcher matches line by line), so in one block, and every
// trigram the plan requires of a match is in it.

// maxBlocks is the number of blocks a file over MaxIndexSize is cut into
// (a bit each in a trigram's mask).
const maxBlocks = 16

// blockMask has bit k set for block k.
type blockMask uint16

// blocks locates the blocks of a file over MaxIndexSize.
type blocks struct {
	off  []int64     // where each block starts (a line start); off[0] is 0
	line []int       // the 0-based number of each block's first line
	mask []blockMask // by the doc's tris: the blocks holding the trigram
	size int64       // the file's size when indexed
}

// newBlocks cuts content into blocks at line starts and records, for each
// of tris (content's distinct folded trigrams, sorted), the blocks
// holding it.
func newBlocks(content []byte, tris []trigram) *blocks {
	b := &blocks{off: []int64{0}, line: []int{0}, mask: make([]blockMask, len(tris)), size: int64(len(content))}
	step := (len(content) + maxBlocks - 1) / maxBlocks
	lines := 0
	for start := 0; len(b.off) < maxBlocks; {
		// The next block starts at the first line start at least a step
		// after this one's.
		at := start + step
		if at >= len(content) {
			break
		}
		i := bytes.IndexByte(content[at-1:], '\n')
		if i < 0 || at+i >= len(content) {
			break
		}
		next := at + i
		lines += bytes.Count(content[start:next], []byte{'\n'})
		b.off, b.line = append(b.off, int64(next)), append(b.line, lines)
		start = next
	}
	seen := newBitset(1 << 24)
	var found []uint32
	for k := range b.off {
		lo := int(b.off[k])
		hi := len(content)
		if k+1 < len(b.off) {
			hi = int(b.off[k+1])
		}
		// The trigrams starting in the block (the last ones run into the
		// next block over a line break, which no match holds).
		found = found[:0]
		for i := lo; i < hi && i+2 < len(content); i++ {
			t := uint32(fold(content[i]))<<16 | uint32(fold(content[i+1]))<<8 | uint32(fold(content[i+2]))
			if w, bit := &seen.w[t>>6], uint64(1)<<(t&63); *w&bit == 0 {
				*w |= bit
				found = append(found, t)
			}
		}
		for _, t := range found {
			seen.clear(t)
			if j, ok := slices.BinarySearch(tris, trigram(t)); ok {
				b.mask[j] |= 1 << k
			}
		}
	}
	return b
}

// all is the mask of every block.
func (b *blocks) all() blockMask { return blockMask(1)<<len(b.off) - 1 }

// eval returns the blocks of doc d (over MaxIndexSize, with tris) that can
// hold a match of plan p.
func (b *blocks) eval(tris []trigram, p *plan) blockMask {
	m := b.all()
	if p.matchAll() {
		return m
	}
	for _, t := range p.all {
		j, ok := slices.BinarySearch(tris, t)
		if !ok {
			return 0
		}
		m &= b.mask[j]
	}
	for _, group := range p.any {
		var u blockMask
		for _, alt := range group {
			u |= b.eval(tris, alt)
		}
		m &= u
	}
	return m
}

// part is a piece of a file's text: whole lines, the first one numbered
// line (0-based) in the file.
type part struct {
	text []byte
	line int
}

// readBlocks reads the blocks of want from r (the file, of the size it
// had when indexed) into buf (grown when short), consecutive blocks as one
// part; it returns the parts and the buffer, which holds them.
func (b *blocks) readBlocks(r io.ReaderAt, want blockMask, buf []byte) ([]part, []byte, error) {
	type span struct {
		lo, hi int64
		line   int
	}
	var spans []span
	total := 0
	for want != 0 {
		k := bits.TrailingZeros16(uint16(want))
		n := bits.TrailingZeros16(^uint16(want >> k)) // consecutive blocks from k
		want &^= (blockMask(1)<<n - 1) << k
		sp := span{lo: b.off[k], hi: b.size, line: b.line[k]}
		if k+n < len(b.off) {
			sp.hi = b.off[k+n]
		}
		spans = append(spans, sp)
		total += int(sp.hi - sp.lo)
	}
	if cap(buf) < total {
		buf = make([]byte, total)
	}
	buf = buf[:total]
	parts := make([]part, 0, len(spans))
	at := 0
	for _, sp := range spans {
		text := buf[at : at+int(sp.hi-sp.lo)]
		if _, err := r.ReadAt(text, sp.lo); err != nil {
			return nil, buf, err
		}
		parts = append(parts, part{text: text, line: sp.line})
		at += len(text)
	}
	return parts, buf, nil
}

// memSize is the bytes b holds.
func (b *blocks) memSize() int { return 2*len(b.mask) + 16*len(b.off) + 56 }
