package testtools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// WithMarker lists the processes whose command line holds marker, each as
// "PID: ARGV" (the argv joined by spaces): a test gives the commands it
// starts a unique marker argument and finds what they left behind here.
func WithMarker(t testing.TB, marker string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
