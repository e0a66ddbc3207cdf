package index

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
	"strings"
)

// postings is a compact inverted index: sorted keys, each with a run of
// delta-encoded uvarints in one byte slice. Values are appended in
// increasing order; a value may carry a small payload (a term frequency):
// then each delta is shifted left by one, its low bit set when a payload
// other than 1 follows (most terms occur once in a chunk, and cost no byte
// for it). Without payloads, a run that is shorter as a bitmap (a value
// in more than about one of eight documents: "err", "ret") is one: a 0
// byte, which no delta list starts with, then a bit per value from 0 up.
// String keys are kept as one string and offsets into it (4 bytes a key
// instead of a string header and an allocation each).
type postings[K ~uint32 | ~string] struct {
	keys  []K    // nil for string keys
	blob  string // string keys: key i is blob[boffs[i]:boffs[i+1]]
	boffs []uint32
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

func newPostingsBuilder[K ~uint32 | ~string](pay bool) *postingsBuilder[K] {
	return &postingsBuilder[K]{runs: map[K]runHead{}, arena: make([]byte, blockSize, 1<<16), pay: pay}
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

// packKeys concatenates keys into one string, with the offset of each
// and the end.
func packKeys(keys []string) (string, []uint32) {
	n := 0
	for _, k := range keys {
		n += len(k)
	}
	var sb strings.Builder
	sb.Grow(n)
	offs := make([]uint32, 0, len(keys)+1)
	for _, k := range keys {
		offs = append(offs, uint32(sb.Len()))
		sb.WriteString(k)
	}
	return sb.String(), append(offs, uint32(sb.Len()))
}

// strKey is string key i.
func (p *postings[K]) strKey(i int) string { return p.blob[p.boffs[i]:p.boffs[i+1]] }

// run returns key k's encoded run (nil when absent).
func (p *postings[K]) run(k K) []byte {
	if p.boffs != nil {
		ks, _ := any(k).(string)
		n := len(p.boffs) - 1
		i := sort.Search(n, func(i int) bool { return p.strKey(i) >= ks })
		if i == n || p.strKey(i) != ks {
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
