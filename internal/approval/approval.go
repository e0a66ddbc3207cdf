// Package approval holds the calls that wait for a person: the queue of "ask"
// decisions. It only tracks who is waiting and hands each one exactly one
// resolution; recording requests and resolutions in the log, and the
// deadline, are the core's job.
package approval

import (
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/policy"
)

// Errors returned by Claim.
var (
	ErrNotFound = errors.New("approval: no such pending approval")
	ErrResolved = errors.New("approval: already resolved")
)

// Outcome is how an approval ended.
type Outcome string

// The ways an approval can end. Only Approved lets the call run.
const (
	Approved Outcome = "approved"
	Denied   Outcome = "denied"
	Expired  Outcome = "expired"
	Canceled Outcome = "canceled"
	// Lost: the agent that asked forgot the request (it restarted); the
	// request is closed without an answer ever being sent.
	Lost Outcome = "lost"
)

// Request is one call waiting for a person.
type Request struct {
	ID        string          `json:"id"`
	Session   string          `json:"session"`
	Workspace string          `json:"workspace"`
	Source    string          `json:"source"`
	CallID    string          `json:"callId,omitempty"`
	Call      policy.Call     `json:"call"`
	Decision  policy.Decision `json:"decision"`
	Created   time.Time       `json:"created"`
	Deadline  time.Time       `json:"deadline"`
}

// Resolution is a person's (or the deadline's) answer to a request.
type Resolution struct {
	Outcome Outcome `json:"outcome"`
	Reason  string  `json:"reason,omitempty"`
	// By says who resolved it: "cli", "dashboard", "deadline", ...
	By string `json:"by,omitempty"`
	// Always asks for a standing rule so the same call is not asked again.
	Always bool `json:"always,omitempty"`
}

// Allowed reports whether the resolution lets the call run.
func (r Resolution) Allowed() bool { return r.Outcome == Approved }

type entry struct {
	req     Request
	claimed bool
	done    chan Resolution
}

// Queue is the set of pending approvals. It is safe for concurrent use.
type Queue struct {
	mu    sync.Mutex
	items map[string]*entry
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{items: make(map[string]*entry)} }

// Add registers a pending request and returns the channel on which its one
// resolution will be delivered.
func (q *Queue) Add(req Request) <-chan Resolution {
	e := &entry{req: req, done: make(chan Resolution, 1)}
	q.mu.Lock()
	q.items[req.ID] = e
	q.mu.Unlock()
	return e.done
}

// Claim reserves the right to resolve id. Exactly one caller wins; the
// others get ErrResolved (or ErrNotFound for an unknown id). The winner must
// call Deliver.
func (q *Queue) Claim(id string) (Request, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.items[id]
	if !ok {
		return Request{}, ErrNotFound
	}
	if e.claimed {
		return Request{}, ErrResolved
	}
	e.claimed = true
	return e.req, nil
}

// Deliver hands the resolution to the waiting call and removes the request.
// Only the winner of Claim may call it.
func (q *Queue) Deliver(id string, r Resolution) {
	q.mu.Lock()
	e, ok := q.items[id]
	delete(q.items, id)
	q.mu.Unlock()
	if ok {
		e.done <- r
	}
}

// Get returns a pending request.
func (q *Queue) Get(id string) (Request, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.items[id]
	if !ok || e.claimed {
		return Request{}, false
	}
	return e.req, true
}

// List returns the pending requests, oldest first.
func (q *Queue) List() []Request {
	q.mu.Lock()
	out := make([]Request, 0, len(q.items))
	for _, e := range q.items {
		if !e.claimed {
			out = append(out, e.req)
		}
	}
	q.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out
}
