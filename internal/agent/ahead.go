package agent

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/warden-dev/warden/internal/event"
)

// ahead holds a turn's records whose commits run while the turn goes on:
// the user's message (with the busy status) while the model is asked the
// first step, and a step's last tool results while the model is asked the
// next one. The model may be asked before they are durable (it is not
// told anything on warden's behalf: its answer is only recorded and
// announced after them), so the fsync and the model's first token overlap
// instead of adding up.
//
// What follows from such a record waits for its commit (wait, ready):
//   - its own announcement (session.status busy, agent.tool_end) is sent by
//     the commit's goroutine once the events are durable;
//   - the next answer's deltas are announced only after it;
//   - every later record of the turn (the answer, the gate's tool.call
//     and decision, partial answers, the turn's end) is made only after
//     it, so the log's order is the turn's and a crash leaves a prefix of
//     it: a call whose result was not yet durable is closed "interrupted"
//     by the next start, like any call cut short.
//
// A commit that fails stops the turn: nothing that followed from it is
// recorded or announced.
type ahead struct {
	mu  sync.Mutex
	fs  []*inflight
	err error // the first failed commit's error; sticky
}

// inflight is one record of ahead, committing.
type inflight struct {
	evs  []event.Event
	done chan struct{} // closed once committed (or failed) and announced
	err  error
}

// later records evs in the background, then calls then (the
// announcement) when they are durable. The turn must wait (l.wait) before
// it ends.
func (e *Engine) later(ctx context.Context, l *ahead, then func(), evs ...event.Event) *inflight {
	f := &inflight{evs: evs, done: make(chan struct{})}
	l.mu.Lock()
	l.fs = append(l.fs, f)
	l.mu.Unlock()
	go func() {
		defer close(f.done)
		// a copy: the log sets their times, and the view reads evs
		if _, err := e.record(ctx, slices.Clone(evs)...); err != nil {
			f.err = err
			return
		}
		if then != nil {
			then()
		}
	}()
	return f
}

// wait returns once every commit of l has ended (and been announced), with
// the first error any of them (ever) had. Safe on a nil l.
func (l *ahead) wait() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	fs := l.fs
	l.fs = nil
	l.mu.Unlock()
	for _, f := range fs {
		<-f.done
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, f := range fs {
		if f.err != nil && l.err == nil {
			l.err = f.err
		}
	}
	return l.err
}

// view returns h with the events of l's commits that h does not hold yet
// (h was read from the log while they were committing) after its own, for
// the model's view of the next step.
func (l *ahead) view(h *history) *history {
	if l == nil {
		return h
	}
	l.mu.Lock()
	fs := slices.Clone(l.fs)
	l.mu.Unlock()
	var extra []event.Event
	for _, f := range fs {
		if len(f.evs) > 0 && !h.holds(f.evs[0]) {
			extra = append(extra, f.evs...)
		}
	}
	if len(extra) == 0 {
		return h
	}
	v, err := h.extend(extra)
	if err != nil {
		// the engine's own events always fold; were one not to, the
		// view goes without it rather than the step failing
		return h
	}
	return v
}

// holds reports whether h has x as the log stored it: the same type and
// the same data (the log keeps data byte for byte; a message.user holds
// its turn and a tool.result its call, so no two of a session are alike).
// A batch is committed whole, so its first event stands for it.
func (h *history) holds(x event.Event) bool {
	for i := len(h.events) - 1; i >= 0; i-- {
		if y := h.events[i]; y.Type == x.Type && bytes.Equal(y.Data, x.Data) {
			return true
		}
	}
	return false
}
