// Package fakemodel holds what the fake model servers share (one per hosted
// API: fakemodel/openai, fakemodel/anthropic, fakemodel/ollama): a Gate that
// holds a stream mid-response, for abort tests, and a Queue of scripted
// replies, for multi-step tool conversations. Test code only (the import
// rules forbid it elsewhere).
package fakemodel

import (
	"context"
	"sync"
)

// Gate holds a fake's stream mid-response: the fake calls Wait after the
// first piece of the answer has left (flushed), which marks the gate
// reached and blocks until Release or until the client goes away. A test
// waits on Reached, then aborts (or releases) and checks what happened.
type Gate struct {
	reached, released  chan struct{}
	reachOnce, relOnce sync.Once
}

// NewGate returns a closed-over gate, not yet reached nor released.
func NewGate() *Gate {
	return &Gate{reached: make(chan struct{}), released: make(chan struct{})}
}

// Reached is closed once a stream stops at the gate.
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release lets every stream held at the gate (and every later one) go on.
func (g *Gate) Release() { g.relOnce.Do(func() { close(g.released) }) }

// Wait marks the gate reached and blocks until Release or until ctx (the
// fake's request context: the client hung up) is done; it reports
// ctx.Err() in the second case, and the fake then ends the response.
func (g *Gate) Wait(ctx context.Context) error {
	if g == nil {
		return nil
	}
	g.reachOnce.Do(func() { close(g.reached) })
	select {
	case <-g.released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Queue hands out scripted replies in order, one per request; Next is a
// fake's script (pass q.Next to New). When the queue is empty it answers
// with the Exhausted reply (each fake sets one that fails the request
// loudly), so a test that drives one step too many sees why.
type Queue[Req, Rep any] struct {
	mu      sync.Mutex
	replies []Rep
	// Exhausted is the reply when no scripted reply is left.
	Exhausted Rep
	served    int
}

// Push appends replies to the queue.
func (q *Queue[Req, Rep]) Push(rs ...Rep) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.replies = append(q.replies, rs...)
}

// Next returns the next reply (the request is not looked at; use a Script of
// your own to answer by content).
func (q *Queue[Req, Rep]) Next(Req) Rep {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.replies) == 0 {
		return q.Exhausted
	}
	r := q.replies[0]
	q.replies = q.replies[1:]
	q.served++
	return r
}

// Len returns how many scripted replies are left.
func (q *Queue[Req, Rep]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.replies)
}

// Served returns how many scripted replies were handed out.
func (q *Queue[Req, Rep]) Served() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.served
}

// Chunks splits s into pieces of about n bytes (on rune boundaries), the way
// a model streams text; "" gives no pieces.
func Chunks(s string, n int) []string {
	if n <= 0 {
		n = 8
	}
	var out []string
	for len(s) > 0 {
		i := n
		if i >= len(s) {
			out = append(out, s)
			break
		}
		for i < len(s) && (s[i]&0xC0) == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
