package ops

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePath(t *testing.T) {
	const root = "/work/ws"
	for _, tc := range []struct {
		in, want string
		outside  bool
	}{
		{in: "a.go", want: "/work/ws/a.go"},
		{in: "./src/../b.go", want: "/work/ws/b.go"},
		{in: ".", want: "/work/ws"},
		{in: "/work/ws/c/d", want: "/work/ws/c/d"},
		{in: "file:///work/ws/e", want: "/work/ws/e"},
		{in: "../../etc/passwd", outside: true},
		{in: "/etc/passwd", outside: true},
		{in: "/work/wsx/a", outside: true},
		{in: "a/../../ws2", outside: true},
		{in: "file:///etc/passwd", outside: true},
	} {
		got, err := ResolvePath(root, tc.in)
		if tc.outside {
			if !errors.Is(err, ErrOutside) {
				t.Errorf("ResolvePath(%q) = %q, %v; want ErrOutside", tc.in, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ResolvePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := ResolvePath(root, ""); err == nil {
		t.Error("empty path accepted")
	}
	if _, err := ResolvePath(root, "a\x00b"); err == nil {
		t.Error("NUL byte accepted")
	}
}

// FuzzResolvePath checks that whatever a client sends, a resolved path is
// absolute, clean and inside the workspace, and an error never panics.
func FuzzResolvePath(f *testing.F) {
	for _, s := range []string{"a.go", "../x", "/etc/passwd", "file:///work/ws/a", "./a/../../b", ".", "", "a\x00", "//work/ws/./a", "/work/ws/../ws/a"} {
		f.Add(s)
	}
	const root = "/work/ws"
	f.Fuzz(func(t *testing.T, p string) {
		got, err := ResolvePath(root, p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("ResolvePath(%q) = %q: not absolute and clean", p, got)
		}
		if got != root && !strings.HasPrefix(got, root+"/") {
			t.Fatalf("ResolvePath(%q) = %q: outside %s", p, got, root)
		}
	})
}

func TestReplace(t *testing.T) {
	for _, tc := range []struct {
		text, old, repl string
		all             bool
		want            string
		n               int
		err             string
	}{
		{text: "a b c", old: "b", repl: "x", want: "a x c", n: 1},
		{text: "a b b", old: "b", repl: "x", err: "occurs 2 times"},
		{text: "a b b", old: "b", repl: "x", all: true, want: "a x x", n: 2},
		{text: "a b c", old: "z", repl: "x", err: "not found"},
		{text: "a b c", old: "", repl: "x", err: "empty"},
		{text: "a b c", old: "b", repl: "b", err: "the same"},
		{text: "a\r\nb", old: "a\r\n", repl: "", want: "b", n: 1},
	} {
		got, n, err := Replace(tc.text, tc.old, tc.repl, tc.all)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("replace(%q, %q) error %v, want %q", tc.text, tc.old, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || n != tc.n {
			t.Errorf("replace(%q, %q, %q, %v) = %q, %d, %v; want %q, %d", tc.text, tc.old, tc.repl, tc.all, got, n, err, tc.want, tc.n)
		}
	}
}
