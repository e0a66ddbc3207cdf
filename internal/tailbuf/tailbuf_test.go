package tailbuf

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestKeepsTheTail(t *testing.T) {
	b := New(8)
	fmt.Fprint(b, "  hello ")
	if got := b.String(); got != "hello" {
		t.Fatalf("String = %q", got)
	}
	fmt.Fprint(b, "world, again")
	if got := b.String(); got != "d, again" || len(b.buf) != 8 {
		t.Fatalf("String = %q (kept %d bytes)", got, len(b.buf))
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				fmt.Fprint(b, "xyz")
			}
		}()
	}
	wg.Wait()
	if got := b.String(); len(got) != 8 || strings.Trim(got, "xyz") != "" {
		t.Fatalf("after concurrent writes: %q", got)
	}
}

func ExampleBuffer() {
	b := New(12)
	fmt.Fprintln(b, "starting server")
	fmt.Fprintln(b, "error: port in use")
	fmt.Println(b.String())
	// Output: port in use
}
