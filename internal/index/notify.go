package index

import (
	"context"
	"fmt"
)

// notifier applies the paths Notify queues, in batches, on a goroutine of
// the index's own.
type notifier struct {
	pending []string
	queued  uint64 // paths queued so far
	applied uint64 // of them, applied
	waiters []flushWaiter
	wake    chan struct{} // capacity 1: work is pending
	stop    chan struct{}
	done    chan struct{}
	running bool
}

type flushWaiter struct {
	seq uint64
	ch  chan struct{}
}

// Notify queues paths (as Update takes them) that changed on disk and
// returns at once: the index's goroutine applies every path queued so far
// in one Update, so a burst of events (a git checkout) costs one pass.
// It is for watchers' callbacks, which must not block; Flush waits for
// what was queued.
func (x *Index) Notify(paths ...string) {
	if len(paths) == 0 {
		return
	}
	x.nmu.Lock()
	defer x.nmu.Unlock()
	n := &x.notify
	if n.stop == nil {
		n.wake, n.stop, n.done = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
	}
	select {
	case <-n.stop:
		return // closed
	default:
	}
	n.pending = append(n.pending, paths...)
	n.queued += uint64(len(paths))
	if !n.running {
		n.running = true
		go x.notifyLoop()
	}
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Flush waits until every path Notify queued before the call is applied
// (or ctx ends, or the index closes).
func (x *Index) Flush(ctx context.Context) error {
	x.nmu.Lock()
	n := &x.notify
	if n.applied >= n.queued {
		x.nmu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	n.waiters = append(n.waiters, flushWaiter{seq: n.queued, ch: ch})
	stop := n.stop
	x.nmu.Unlock()
	select {
	case <-ch:
		return nil
	case <-stop:
		return ErrClosed
	case <-ctx.Done():
		return fmt.Errorf("index: flush: %w", ctx.Err())
	}
}

func (x *Index) notifyLoop() {
	n := &x.notify
	defer close(n.done)
	for {
		select {
		case <-n.stop:
			return
		case <-n.wake:
		}
		x.nmu.Lock()
		paths, seq := n.pending, n.queued
		n.pending = nil
		x.nmu.Unlock()
		if err := x.Update(context.Background(), paths...); err != nil && err != ErrClosed {
			x.log.Warn("index: update", "err", err)
		}
		x.nmu.Lock()
		n.applied = seq
		kept := n.waiters[:0]
		for _, w := range n.waiters {
			if w.seq <= seq {
				close(w.ch)
			} else {
				kept = append(kept, w)
			}
		}
		n.waiters = kept
		x.nmu.Unlock()
	}
}

// stopNotify ends the notifier's goroutine and waits for it.
func (x *Index) stopNotify() {
	x.nmu.Lock()
	n := &x.notify
	if n.stop == nil {
		n.stop = make(chan struct{})
		close(n.stop)
		x.nmu.Unlock()
		return
	}
	select {
	case <-n.stop:
		x.nmu.Unlock()
		return
	default:
	}
	close(n.stop)
	running := n.running
	x.nmu.Unlock()
	if running {
		<-n.done
	}
}
