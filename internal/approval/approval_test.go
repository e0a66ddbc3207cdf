package approval

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func TestClaimHasOneWinnerAndDeliverWakesTheWaiter(t *testing.T) {
	q := NewQueue()
	done := q.Add(Request{ID: "a", Created: time.Unix(2, 0)})
	q.Add(Request{ID: "b", Created: time.Unix(1, 0)})
	if l := q.List(); len(l) != 2 || l[0].ID != "b" {
		t.Fatalf("list oldest first: %+v", l)
	}
	var wg sync.WaitGroup
	wins := make(chan string, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := q.Claim("a"); err == nil {
				wins <- "won"
			} else if !errors.Is(err, ErrResolved) {
				t.Errorf("loser got %v, want ErrResolved", err)
			}
		}()
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Fatalf("%d winners", n)
	}
	if _, ok := q.Get("a"); ok {
		t.Fatal("a claimed request is still offered")
	}
	if l := q.List(); len(l) != 1 || l[0].ID != "b" {
		t.Fatalf("claimed request still listed: %+v", l)
	}
	q.Deliver("a", Resolution{Outcome: Approved})
	if r := <-done; !r.Allowed() {
		t.Fatalf("resolution %+v", r)
	}
	if _, err := q.Claim("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after delivery: %v", err)
	}
}

func TestOnlyApprovedAllows(t *testing.T) {
	for o, want := range map[Outcome]bool{Approved: true, Denied: false, Expired: false, Canceled: false, "": false} {
		if got := (Resolution{Outcome: o}).Allowed(); got != want {
			t.Errorf("%q allowed = %v", o, got)
		}
	}
}
