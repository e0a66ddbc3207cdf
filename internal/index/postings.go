package index

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
)

// postings is a compact inverted index: sorted keys, each with a run of
// delta-encoded uvarints in one byte slice. Values are appended in
// increasing order; a value may carry a small payload (a term frequency):
// then each delta is shifted left by one, its low bit set when a payload
// other than 1 follows (most terms occur once in a chunk, and cost no byte
// for it). Without payloads, a run that is shorter as a bitmap (a value
// in more than about one of eight documents: "err", "ret") is one: a 0
// byte, which no delta list starts with, then a bit per value from 0 up.
// String keys are kept front-coded in one string with an offset per block
// of keys (a string header, an allocation and the whole key each cost
// more).
type postings[K ~uint32 | ~string] struct {
	keys  []K      // nil for string keys
	blob  string   // string keys, front-coded in blocks (see packKeys)
	boffs []uint32 // where each block of keys starts in blob
	offs  []uint32 // offs[i]:offs[i+1] is key i's run in data
	data  []byte
	pay   bool // every value is followed by a uvarint payload
}

// postingsBuilder collects (key, value[, payload]) with values per key in
// increasing order. Runs are chains of fixed-size blocks in one byte
// arena and the map holds no pointers, so building millions of runs
// neither allocates per run nor gives the garbage collector anything to
// scan.
type postingsBuilder[K ~uint32 | ~string] struct {
	runs  map[K]runHead
	arena []byte
	pay   bool
	total int
}

// A block is blockData bytes of run followed by the next block's number
// (4 bytes, 0 for none: block 0 is never used).
const (
	blockSize = 32
	blockData = blockSize - 4
)

type runHead struct {
	head, tail uint32 // block numbers
	used       uint32 // bytes used in the tail block
	last       uint32 // last value added
	n          uint32 // bytes in the run
}

// newPostingsBuilder returns a builder sized for about keys keys and
// size bytes of runs (hints: it grows past them).
func newPostingsBuilder[K ~uint32 | ~string](pay bool, keys, size int) *postingsBuilder[K] {
	return &postingsBuilder[K]{runs: make(map[K]runHead, keys), arena: make([]byte, blockSize, max(1<<16, size)), pay: pay}
}

func (b *postingsBuilder[K]) newBlock() uint32 {
	n := uint32(len(b.arena) / blockSize)
	b.arena = append(b.arena, make([]byte, blockSize)...)
	return n
}

// add appends value v (greater than the key's previous value) to key's run.
func (b *postingsBuilder[K]) add(k K, v uint32, payload uint32) {
	r, ok := b.runs[k]
	d := v + 1 // the first delta is from -1, so 0 stays distinct
	if !ok {
		blk := b.newBlock()
		r = runHead{head: blk, tail: blk}
	} else {
		d = v - r.last
	}
	var buf [20]byte
	var enc []byte
	switch {
	case !b.pay:
		enc = binary.AppendUvarint(buf[:0], uint64(d))
	case payload == 1:
		enc = binary.AppendUvarint(buf[:0], uint64(d)<<1)
	default:
		enc = binary.AppendUvarint(buf[:0], uint64(d)<<1|1)
		enc = binary.AppendUvarint(enc, uint64(payload))
	}
	for _, c := range enc {
		if r.used == blockData {
			blk := b.newBlock()
			binary.LittleEndian.PutUint32(b.arena[int(r.tail)*blockSize+blockData:], blk)
			r.tail, r.used = blk, 0
		}
		b.arena[int(r.tail)*blockSize+int(r.used)] = c
		r.used++
	}
	r.n += uint32(len(enc))
	b.total += len(enc)
	r.last = v
	b.runs[k] = r
}

// build freezes the builder into a postings index.
func (b *postingsBuilder[K]) build() postings[K] {
	p := postings[K]{keys: make([]K, 0, len(b.runs)), pay: b.pay}
	for k := range b.runs {
		p.keys = append(p.keys, k)
	}
	slices.Sort(p.keys)
	p.offs = make([]uint32, 0, len(p.keys)+1)
	p.data = make([]byte, 0, b.total)
	var tmp []byte
	for _, k := range p.keys {
		start := len(p.data)
		p.offs = append(p.offs, uint32(start))
		r := b.runs[k]
		left := int(r.n)
		for blk := r.head; left > 0; {
			at := int(blk) * blockSize
			n := min(left, blockData)
			p.data = append(p.data, b.arena[at:at+n]...)
			left -= n
			blk = binary.LittleEndian.Uint32(b.arena[at+blockData:])
		}
		if bm := 1 + int(r.last)/8 + 1; !b.pay && bm < int(r.n) {
			tmp = append(tmp[:0], p.data[start:]...)
			p.data = append(p.data[:start], make([]byte, bm)...)
			bits := p.data[start+1:]
			eachDelta(tmp, false, func(v, _ uint32) { bits[v/8] |= 1 << (v % 8) })
		}
	}
	p.offs = append(p.offs, uint32(len(p.data)))
	if len(p.data) < cap(p.data)-cap(p.data)/16 { // bitmaps made it shorter
		p.data = slices.Clone(p.data)
	}
	b.runs, b.arena = nil, nil
	if keys, ok := any(p.keys).([]string); ok {
		p.blob, p.boffs = packKeys(keys)
		p.keys = nil
	}
	return p
}

// keyBlock is how many string keys share a block: the first is stored
// whole, each next one as the length of the prefix it shares with the one
// before and the rest (sorted terms share long prefixes).
const keyBlock = 16

// packKeys front-codes sorted keys into one string, with the offset of
// each block of keyBlock keys.
func packKeys(keys []string) (string, []uint32) {
	var b []byte
	offs := make([]uint32, 0, (len(keys)+keyBlock-1)/keyBlock)
	for i, k := range keys {
		shared := 0
		if i%keyBlock == 0 {
			offs = append(offs, uint32(len(b)))
		} else {
			prev := keys[i-1]
			for shared < len(prev) && shared < len(k) && prev[shared] == k[shared] {
				shared++
			}
			b = binary.AppendUvarint(b, uint64(shared))
		}
		b = binary.AppendUvarint(b, uint64(len(k)-shared))
		b = append(b, k[shared:]...)
	}
	return string(b), offs
}

// keyReader decodes one block of front-coded keys.
type keyReader struct {
	blob  string
	at    int
	first bool
	key   []byte
}

// next decodes the next key into r.key.
func (r *keyReader) next() {
	shared := 0
	if !r.first {
		s, m := uvarintString(r.blob[r.at:])
		shared, r.at = int(s), r.at+m
	}
	r.first = false
	n, m := uvarintString(r.blob[r.at:])
	r.at += m
	r.key = append(r.key[:shared], r.blob[r.at:r.at+int(n)]...)
	r.at += int(n)
}

// uvarintString is binary.Uvarint of a string.
func uvarintString(s string) (uint64, int) {
	var x uint64
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<(7*i), i + 1
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
	return 0, len(s)
}

// strKey is string key i (lookups use findStr).
func (p *postings[K]) strKey(i int) string {
	r := keyReader{blob: p.blob, at: int(p.boffs[i/keyBlock]), first: true}
	for range i%keyBlock + 1 {
		r.next()
	}
	return string(r.key)
}

// findStr returns the index of string key k, -1 when absent.
func (p *postings[K]) findStr(k string) int {
	first := func(b int) string { // block b's first key, stored whole
		at := int(p.boffs[b])
		n, m := uvarintString(p.blob[at:])
		return p.blob[at+m : at+m+int(n)]
	}
	// The last block whose first key is <= k.
	b := sort.Search(len(p.boffs), func(b int) bool { return first(b) > k }) - 1
	if b < 0 {
		return -1
	}
	r := keyReader{blob: p.blob, at: int(p.boffs[b]), first: true}
	nkeys := len(p.offs) - 1
	for i := b * keyBlock; i < min(nkeys, (b+1)*keyBlock); i++ {
		r.next()
		switch { // conversions in comparisons do not allocate
		case string(r.key) == k:
			return i
		case string(r.key) > k:
			return -1
		}
	}
	return -1
}

// run returns key k's encoded run (nil when absent).
func (p *postings[K]) run(k K) []byte {
	if p.boffs != nil {
		ks, _ := any(k).(string)
		i := p.findStr(ks)
		if i < 0 {
			return nil
		}
		return p.data[p.offs[i]:p.offs[i+1]]
	}
	i := sort.Search(len(p.keys), func(i int) bool { return p.keys[i] >= k })
	if i == len(p.keys) || p.keys[i] != k {
		return nil
	}
	return p.data[p.offs[i]:p.offs[i+1]]
}

// count is the number of values of k (its document frequency).
func (p *postings[K]) count(k K) int {
	r := p.run(k)
	if !p.pay && len(r) > 0 && r[0] == 0 {
		n := 0
		for _, c := range r[1:] {
			n += bits.OnesCount8(c)
		}
		return n
	}
	n := 0
	for len(r) > 0 {
		d, m := binary.Uvarint(r)
		r = r[m:]
		if p.pay && d&1 != 0 {
			_, m = binary.Uvarint(r)
			r = r[m:]
		}
		n++
	}
	return n
}

// each calls fn with every value of k and its payload, in order.
func (p *postings[K]) each(k K, fn func(v, payload uint32)) {
	r := p.run(k)
	if !p.pay && len(r) > 0 && r[0] == 0 {
		for i, c := range r[1:] {
			for c != 0 {
				fn(uint32(i*8+bits.TrailingZeros8(c)), 0)
				c &= c - 1
			}
		}
		return
	}
	eachDelta(r, p.pay, fn)
}

// eachDelta decodes a run of deltas (with payloads when pay).
func eachDelta(r []byte, pay bool, fn func(v, payload uint32)) {
	var v uint32
	first := true
	for len(r) > 0 {
		d, m := binary.Uvarint(r)
		r = r[m:]
		pl := uint64(1)
		if pay {
			if d&1 != 0 {
				pl, m = binary.Uvarint(r)
				r = r[m:]
			}
			d >>= 1
		} else {
			pl = 0
		}
		if first {
			v, first = uint32(d-1), false
		} else {
			v += uint32(d)
		}
		fn(v, uint32(pl))
	}
}

// values returns k's values.
func (p *postings[K]) values(k K) []uint32 {
	var out []uint32
	p.each(k, func(v, _ uint32) { out = append(out, v) })
	return out
}

// size is the memory the index holds, in bytes.
func (p *postings[K]) size() int {
	return len(p.data) + 4*len(p.offs) + 4*len(p.keys) + len(p.blob) + 4*len(p.boffs)
}
