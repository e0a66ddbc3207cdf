package event

import (
	"context"
	"errors"
	"sync"
)

// ReadFunc reads durable events with ID > afterID from the log, in ascending
// ID order, at most limit of them. The bus uses it to let subscribers catch up.
type ReadFunc func(ctx context.Context, afterID int64, limit int) ([]Event, error)

// ErrSubscriptionClosed is returned by Next after Close.
var ErrSubscriptionClosed = errors.New("event: subscription closed")

// Bus fans durable events out to live subscribers.
//
// Publish must only be called with events the log has already made durable.
// Publish never blocks: a subscriber whose buffer is full is marked as lagging
// and catches up from the log by ID, so a slow reader never slows the gate.
// Subscribers receive every event exactly once, in ascending ID order.
type Bus struct {
	read   ReadFunc
	buffer int

	mu   sync.Mutex
	subs map[*Subscription]struct{}
}

// NewBus returns a bus whose subscribers catch up through read. buffer is the
// number of live events a subscriber may have pending before it lags (a
// value < 1 means 256).
func NewBus(read ReadFunc, buffer int) *Bus {
	if buffer < 1 {
		buffer = 256
	}
	return &Bus{read: read, buffer: buffer, subs: make(map[*Subscription]struct{})}
}

// Publish hands durable events to every subscriber without blocking.
func (b *Bus) Publish(events ...Event) {
	if len(events) == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		for _, e := range events {
			select {
			case s.live <- e:
			default:
				// Full: drop and let the subscriber re-read from the log.
				select {
				case s.lagged <- struct{}{}:
				default:
				}
			}
		}
	}
}

// Subscribe returns a subscription that yields every event with ID > afterID:
// first those already in the log, then live ones as they become durable.
func (b *Bus) Subscribe(afterID int64) *Subscription {
	s := &Subscription{
		bus:     b,
		last:    afterID,
		live:    make(chan Event, b.buffer),
		lagged:  make(chan struct{}, 1),
		closed:  make(chan struct{}),
		catchUp: true,
	}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// Subscribers reports how many subscriptions are open.
func (b *Bus) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// Subscription is one reader's cursor on the event stream. Next must be
// called from one goroutine at a time; Close may be called from any.
type Subscription struct {
	bus     *Bus
	last    int64
	live    chan Event
	lagged  chan struct{}
	closed  chan struct{}
	once    sync.Once
	pending []Event
	catchUp bool
}

const catchUpPage = 512

// Next returns the next event in ID order, waiting for one if needed. It
// returns ctx.Err() when ctx ends and ErrSubscriptionClosed after Close.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		for len(s.pending) > 0 {
			e := s.pending[0]
			s.pending = s.pending[1:]
			if e.ID <= s.last {
				continue
			}
			s.last = e.ID
			return e, nil
		}
		select {
		case <-s.closed:
			return Event{}, ErrSubscriptionClosed
		default:
		}
		if s.catchUp {
			evs, err := s.bus.read(ctx, s.last, catchUpPage)
			if err != nil {
				return Event{}, err
			}
			s.catchUp = len(evs) == catchUpPage
			s.pending = evs
			continue
		}
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case <-s.closed:
			return Event{}, ErrSubscriptionClosed
		case <-s.lagged:
			s.catchUp = true
		case e := <-s.live:
			switch {
			case e.ID <= s.last:
				// Already delivered from the log.
			case e.ID == s.last+1:
				s.last = e.ID
				return e, nil
			default:
				// A gap: events were dropped or published out of order.
				// Everything up to e is durable, so the log has it all.
				s.catchUp = true
				s.pending = nil
			}
		}
	}
}

// Last returns the ID of the last event Next returned (or the starting point).
func (s *Subscription) Last() int64 { return s.last }

// Close ends the subscription and releases it from the bus.
func (s *Subscription) Close() {
	s.once.Do(func() {
		close(s.closed)
		s.bus.mu.Lock()
		delete(s.bus.subs, s)
		s.bus.mu.Unlock()
	})
}
