package ports

import (
	"errors"
	"net"
	"testing"
)

func TestAcquireReserveRelease(t *testing.T) {
	m := New()
	seen := map[int]bool{}
	for range 50 {
		p, err := m.Acquire()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	p, _ := m.Acquire()
	if err := m.Reserve(p); !errors.Is(err, ErrInUse) {
		t.Fatalf("Reserve of a held port: %v", err)
	}
	m.Release(p)
	if err := m.Reserve(p); err != nil {
		t.Fatalf("Reserve after Release: %v", err)
	}
	m.Release(p)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().(*net.TCPAddr).Port
	if Free(busy) {
		t.Fatal("Free reported a listening port as free")
	}
	if err := m.Reserve(busy); !errors.Is(err, ErrInUse) {
		t.Fatalf("Reserve of a port another process listens on: %v", err)
	}
}
