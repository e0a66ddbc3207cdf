package index

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// TestPostings round-trips values and payloads (1, which costs no byte,
// and others, up to the largest) through both key kinds, and checks that
// packed string keys are still found.
func TestPostings(t *testing.T) {
	type entry struct{ v, pay uint32 }
	want := map[string][]entry{}
	sb := newPostingsBuilder[string](true)
	tb := newPostingsBuilder[trigram](false)
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
	}
	if p.run("term") != nil || p.count("absent") != 0 || tp.values(999) != nil {
		t.Fatal("absent keys found")
	}
	// Packed keys are consecutive pieces of one string.
	for i := 1; i < len(p.keys); i++ {
		prev := uintptr(unsafe.Pointer(unsafe.StringData(p.keys[i-1])))
		if uintptr(unsafe.Pointer(unsafe.StringData(p.keys[i]))) != prev+uintptr(len(p.keys[i-1])) {
			t.Fatalf("key %q is not packed after %q", p.keys[i], p.keys[i-1])
		}
	}
}
