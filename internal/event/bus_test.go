package event

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// memLog is an in-memory log for testing the bus: it assigns dense IDs.
type memLog struct {
	mu  sync.Mutex
	evs []Event
}

func (m *memLog) append(n int) []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for i := 0; i < n; i++ {
		e := Event{ID: int64(len(m.evs) + 1), Session: "s", Type: ToolCall}
		m.evs = append(m.evs, e)
		out = append(out, e)
	}
	return out
}

func (m *memLog) read(_ context.Context, after int64, limit int) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	for _, e := range m.evs {
		if e.ID > after {
			out = append(out, e)
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func collect(t *testing.T, s *Subscription, n int) []int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ids []int64
	for len(ids) < n {
		e, err := s.Next(ctx)
		if err != nil {
			t.Fatalf("Next after %d events: %v", len(ids), err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

func assertDense(t *testing.T, ids []int64, from int64) {
	t.Helper()
	for i, id := range ids {
		if id != from+int64(i) {
			t.Fatalf("event %d has id %d, want %d (ids %v)", i, id, from+int64(i), ids)
		}
	}
}

func TestBusDeliversLiveInOrder(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 16)
	s := b.Subscribe(0)
	defer s.Close()
	for i := 0; i < 5; i++ {
		b.Publish(log.append(2)...)
	}
	assertDense(t, collect(t, s, 10), 1)
}

func TestBusCatchesUpFromLogBeforeLive(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 16)
	log.append(1000) // history, never published to this subscriber
	s := b.Subscribe(100)
	defer s.Close()
	b.Publish(log.append(3)...)
	assertDense(t, collect(t, s, 903), 101)
}

func TestBusSlowSubscriberNeverBlocksAndCatchesUp(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 4)
	slow := b.Subscribe(0)
	defer slow.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 2000; i++ {
			b.Publish(log.append(1)...) // must never block although nobody reads
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	assertDense(t, collect(t, slow, 2000), 1)
}

func TestBusOutOfOrderPublishIsReordered(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 16)
	s := b.Subscribe(0)
	defer s.Close()
	evs := log.append(3)
	b.Publish(evs[2]) // a racing publisher got there first
	b.Publish(evs[0], evs[1])
	assertDense(t, collect(t, s, 3), 1)
}

func TestBusConcurrentPublishers(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 8)
	s := b.Subscribe(0)
	defer s.Close()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				b.Publish(log.append(1)...)
			}
		}()
	}
	assertDense(t, collect(t, s, 800), 1)
	wg.Wait()
}

func TestBusCloseAndContext(t *testing.T) {
	log := &memLog{}
	b := NewBus(log.read, 8)
	s := b.Subscribe(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Next(ctx); err == nil {
		t.Fatal("Next with a canceled context returned no error")
	}
	s.Close()
	s.Close() // idempotent
	if _, err := s.Next(context.Background()); err != ErrSubscriptionClosed {
		t.Fatalf("Next after Close = %v, want ErrSubscriptionClosed", err)
	}
	if n := b.Subscribers(); n != 0 {
		t.Fatalf("%d subscribers left after Close", n)
	}
}
