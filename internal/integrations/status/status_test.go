package status

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// provider is the smallest agent.Provider: its status is set by the test.
type provider struct {
	mu     sync.Mutex
	status agent.Status
	subs   map[int]func(agent.Status)
	next   int
}

func newProvider() *provider {
	return &provider{status: agent.StatusNone, subs: map[int]func(agent.Status){}}
}

func (p *provider) set(s agent.Status) {
	p.mu.Lock()
	p.status = s
	subs := make([]func(agent.Status), 0, len(p.subs))
	for _, fn := range p.subs {
		subs = append(subs, fn)
	}
	p.mu.Unlock()
	for _, fn := range subs {
		fn(s)
	}
}

func (p *provider) Connect(context.Context, int) error { return nil }
func (p *provider) Disconnect()                        {}
func (p *provider) Reconnect(context.Context) error    { return nil }
func (p *provider) Status() agent.Status               { p.mu.Lock(); defer p.mu.Unlock(); return p.status }
func (p *provider) Session() (agent.SessionInfo, bool) { return agent.SessionInfo{}, false }
func (p *provider) Environment() map[string]string     { return nil }
func (p *provider) MarkActive()                        {}
func (p *provider) Dispose()                           {}
func (p *provider) OnStatusChange(fn func(agent.Status)) func() {
	p.mu.Lock()
	id := p.next
	p.next++
	p.subs[id] = fn
	s := p.status
	p.mu.Unlock()
	fn(s)
	return func() { p.mu.Lock(); delete(p.subs, id); p.mu.Unlock() }
}

func TestAggregatesAndUnsubscribes(t *testing.T) {
	m := New()
	var got []Change
	var mu sync.Mutex
	unsub := m.OnChange(func(c Change) { mu.Lock(); got = append(got, c); mu.Unlock() })
	a, b := newProvider(), newProvider()
	a.set(agent.StatusIdle)
	m.Register("/a", a) // current status delivered at once
	m.Register("/b", b)
	a.set(agent.StatusBusy)
	a.set(agent.StatusBusy) // repeated: no change
	b.set(agent.StatusWaiting)
	a.set(agent.StatusIdle)
	if s := m.Status("/a"); s != agent.StatusIdle {
		t.Fatalf("Status(/a) = %s", s)
	}
	if all := m.All(); !reflect.DeepEqual(all, map[string]agent.Status{"/a": agent.StatusIdle, "/b": agent.StatusWaiting}) {
		t.Fatalf("All = %v", all)
	}
	m.Unregister("/b")
	b.set(agent.StatusBusy) // no longer followed
	if s := m.Status("/b"); s != agent.StatusNone {
		t.Fatalf("unregistered status %s", s)
	}
	// A replacement provider takes over; the old one is unsubscribed.
	a2 := newProvider()
	m.Register("/a", a2)
	a.set(agent.StatusBusy)
	unsub()
	a2.set(agent.StatusBusy)
	want := []Change{
		{"/a", "none", "idle"},
		{"/a", "idle", "busy"},
		{"/b", "none", "waiting"},
		{"/a", "busy", "idle"},
		{"/b", "waiting", "none"},
		{"/a", "idle", "none"},
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("changes\n got %v\nwant %v", got, want)
	}
	if len(a.subs) != 0 || len(b.subs) != 0 {
		t.Fatalf("providers still subscribed: a=%d b=%d", len(a.subs), len(b.subs))
	}
}
