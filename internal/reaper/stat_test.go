package reaper

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestParentOf(t *testing.T) {
	for stat, want := range map[string]int{
		"42 (bash) S 7 42 42 0 -1":           7,
		"42 (a b) c) R 1 2 3":                1,
		"42 ()) ) Z 99 0":                    99,
		"1 (systemd) S 0 1 1 0 -1 4194560 1": 0,
	} {
		if got, ok := parentOf([]byte(stat)); !ok || got != want {
			t.Errorf("parentOf(%q) = %d, %v; want %d", stat, got, ok, want)
		}
	}
	for _, bad := range []string{"", "42 bash S 7", "42 (bash) S", "42 (bash) S x", "42 (bash) S -3"} {
		if got, ok := parentOf([]byte(bad)); ok {
			t.Errorf("parentOf(%q) = %d, want no answer", bad, got)
		}
	}
	// this process's own line names its real parent
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip("no /proc here")
	}
	if got, ok := parentOf(b); !ok || got != os.Getppid() {
		t.Errorf("parentOf(/proc/self/stat) = %d, %v; want %d", got, ok, os.Getppid())
	}
}

func FuzzParentOf(f *testing.F) {
	f.Add("42 (bash) S 7 42 42 0 -1", 7)
	f.Add("42 (a b) c) R 1 2 3", 1)
	f.Fuzz(func(t *testing.T, comm string, ppid int) {
		if ppid < 0 {
			ppid = -ppid
		}
		if ppid < 0 || strings.ContainsAny(comm, "\x00") {
			return
		}
		// whatever the command's name, the parent after it is found
		stat := fmt.Sprintf("1234 (%s) S %d 1 1 0", comm, ppid)
		if got, ok := parentOf([]byte(stat)); !ok || got != ppid {
			t.Fatalf("parentOf(%q) = %d, %v; want %d", stat, got, ok, ppid)
		}
		// and any text at all gives an answer or none, never a panic
		parentOf([]byte(comm))
	})
}
