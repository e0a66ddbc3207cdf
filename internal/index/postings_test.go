package index

import (
	"fmt"
	"slices"
	"testing"
)

// TestPostings round-trips values and payloads (1, which costs no byte,
// and others, up to the largest) through both key kinds, and checks that
// packed string keys are still found.
func TestPostings(t *testing.T) {
	type entry struct{ v, pay uint32 }
	want := map[string][]entry{}
	sb := newPostingsBuilder[string](true, 0, 0)
	tb := newPostingsBuilder[trigram](false, 0, 0)
	wantTri := map[trigram][]uint32{}
	for k := range 50 {
		key := fmt.Sprintf("term%d", k)
		v := uint32(k % 3)
		for i := range 40 + k {
			pay := uint32(1)
			switch i % 4 {
			case 1:
				pay = uint32(i + 2)
			case 2:
				pay = 1 << 31
			}
			want[key] = append(want[key], entry{v, pay})
			sb.add(key, v, pay)
			tb.add(trigram(k), v, 0)
			wantTri[trigram(k)] = append(wantTri[trigram(k)], v)
			v += uint32(1 + i*i*977%100000)
		}
	}
	// Dense runs (shorter as bitmaps): every value, every other, and
	// most of them.
	for k, step := range []uint32{1, 2, 3} {
		key := trigram(1000 + k)
		for v := uint32(k); v < 3000; v += step {
			tb.add(key, v, 0)
			wantTri[key] = append(wantTri[key], v)
		}
	}
	// The last value a uint32 holds.
	sb.add("zz", 1<<32-1, 7)
	want["zz"] = []entry{{1<<32 - 1, 7}}
	p, tp := sb.build(), tb.build()
	for key, es := range want {
		var got []entry
		p.each(key, func(v, pay uint32) { got = append(got, entry{v, pay}) })
		if !slices.Equal(got, es) {
			t.Fatalf("%s: got %v, want %v", key, got, es)
		}
		if n := p.count(key); n != len(es) {
			t.Fatalf("%s: count %d, want %d", key, n, len(es))
		}
	}
	for k, vs := range wantTri {
		if got := tp.values(k); !slices.Equal(got, vs) {
			t.Fatalf("trigram %d: got %v, want %v", k, got, vs)
		}
		if n := tp.count(k); n != len(vs) {
			t.Fatalf("trigram %d: count %d, want %d", k, n, len(vs))
		}
	}
	if r := tp.run(1000); len(r) != 1+3000/8 || r[0] != 0 {
		t.Errorf("a dense run is %d bytes, not a bitmap", len(r))
	}
	if p.run("term") != nil || p.count("absent") != 0 || tp.values(999) != nil {
		t.Fatal("absent keys found")
	}
	// String keys are one string and its offsets, in order.
	if p.keys != nil || p.strKey(0) != "term0" || p.strKey(len(want)-1) != "zz" {
		t.Fatalf("keys %v %q", p.keys, p.blob)
	}
	// Front coding: keys that share prefixes, across blocks; lookups of
	// keys between and beyond them.
	b := newPostingsBuilder[string](true, 0, 0)
	var keys []string
	for _, w := range []string{"", "a", "ab", "abc", "abd", "b", "ba", "bab", "http", "httptest", "https", "z"} {
		for i := range 5 {
			keys = append(keys, fmt.Sprintf("%s%d", w, i))
		}
	}
	slices.Sort(keys)
	for i, k := range keys {
		b.add(k, uint32(i), 1)
	}
	fp := b.build()
	for i, k := range keys {
		if got := fp.strKey(i); got != k {
			t.Fatalf("key %d: %q, want %q", i, got, k)
		}
		if vs := fp.values(k); len(vs) != 1 || vs[0] != uint32(i) {
			t.Fatalf("%q: values %v", k, vs)
		}
		for _, absent := range []string{k + "\x00", k[:len(k)-1], k + "~"} {
			if !slices.Contains(keys, absent) && fp.run(absent) != nil {
				t.Fatalf("absent %q found", absent)
			}
		}
	}
	if fp.run("") != nil || fp.run("zzzz") != nil || fp.run("\x00") != nil {
		t.Fatal("absent keys found")
	}
}

func TestSlab(t *testing.T) {
	var s slab
	a := s.alloc(10)
	b := s.alloc(20)
	if len(a) != 10 || cap(a) != 10 || len(b) != 20 || cap(b) != 20 || &a[0] == &b[0] {
		t.Fatalf("pieces %d/%d %d/%d", len(a), cap(a), len(b), cap(b))
	}
	copy(a, "0123456789")
	// Appending to a piece never writes over the next.
	_ = append(a, 'x')
	if b[0] != 0 {
		t.Fatal("append wrote into the next piece")
	}
	// The last piece can be given back and is handed out again; another
	// cannot.
	s.giveBack(a)
	s.giveBack(b)
	if c := s.alloc(20); &c[0] != &b[0] {
		t.Error("the piece given back was not reused")
	}
	// A large file gets its own buffer, a full slab a new one.
	if big := s.alloc(slabSize/8 + 1); len(big) != slabSize/8+1 {
		t.Fatal("big piece")
	}
	for range 20 {
		p := s.alloc(slabSize / 8)
		if len(p) != slabSize/8 || cap(p) != slabSize/8 {
			t.Fatal("piece size")
		}
	}
}
