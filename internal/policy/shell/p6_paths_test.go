package shell

import (
	"strings"
	"testing"
)

// TestP6ProcPath: the kernel's per-process links as the command's own
// process sees them.
func TestP6ProcPath(t *testing.T) {
	cases := []struct {
		in, cwd, want string
		ok            bool
	}{
		{"/proc/self/root/home/u/.ssh/id_rsa", "/w", "/home/u/.ssh/id_rsa", true},
		{"/proc/thread-self/root/etc", "/w", "/etc", true},
		{"/proc/1/root/etc/shadow", "/w", "/etc/shadow", true},
		{"/proc/self/root", "/w", "/", true},
		{"/proc/self/task/12/root/x", "/w", "/x", true},
		{"/proc/self/cwd/../.bashrc", "/home/u/proj", "/home/u/proj/../.bashrc", true},
		{"/proc/self/./cwd/x", "/w", "/w/x", true},
		{"/proc/self/cwd", "/w", "/w", true},
		{"/proc/self/cwd/x", "", "", false},
		{"/proc/77/cwd/x", "/w", "/proc/77/cwd/x", true},
		{"/proc/77/fd/3/x", "/w", "/proc/77/fd/3/x", true},
		{"/dev/fd/3/.ssh/id_rsa", "/w", "", false},
		{"/proc/self/fd/3/x", "/w", "", false},
		{"/dev/fd/3", "/w", "/dev/fd/3", true},
		{"/proc/self/fd/1", "/w", "/proc/self/fd/1", true},
		{"/proc/self/environ", "/w", "/proc/self/environ", true},
		{"/proc/cpuinfo", "/w", "/proc/cpuinfo", true},
		{"/proc/sys/kernel/x", "/w", "/proc/sys/kernel/x", true},
		{"/home/u/x", "/w", "/home/u/x", true},
	}
	for _, c := range cases {
		got, ok := ProcPath(c.in, c.cwd)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ProcPath(%q, %q) = %q, %v; want %q, %v", c.in, c.cwd, got, ok, c.want, c.ok)
		}
	}
}

// TestP6LinkEffects: rm and unlink act on the link itself (Link), a
// trailing slash goes into it; a hard link reads its source.
func TestP6LinkEffects(t *testing.T) {
	opts := Options{Cwd: "/home/u/proj", Home: "/home/u"}
	for _, c := range []struct {
		in   string
		link map[string]bool
	}{
		{"rm -f a b", map[string]bool{"/home/u/proj/a": true, "/home/u/proj/b": true}},
		{"rm -rf x/", map[string]bool{"/home/u/proj/x": false}},
		{"rm -rf x/.", map[string]bool{"/home/u/proj/x": false}},
		{"unlink l", map[string]bool{"/home/u/proj/l": true}},
		{"rm -rf ~/x", map[string]bool{"/home/u/x": true}},
	} {
		an, err := Analyze(c.in, opts)
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, cm := range an.Commands {
			for _, e := range cm.Effects {
				if want, ok := c.link[e.Target]; ok && e.Kind == Delete {
					seen++
					if e.Link != want {
						t.Errorf("%s: %s Link=%v, want %v", c.in, e.Target, e.Link, want)
					}
				}
			}
		}
		if seen != len(c.link) {
			t.Errorf("%s: saw %d of %d deletes", c.in, seen, len(c.link))
		}
	}
	for in, want := range map[string][]string{
		"ln ~/.ssh/id_rsa k":          {"read /home/u/.ssh/id_rsa", "write /home/u/proj/k"},
		"ln ~/.ssh/id_rsa k && cat k": {"read /home/u/.ssh/id_rsa"},
		"ln -s ~/.ssh/id_rsa k":       {"!read"},
		"ln a b c dir/":               {"read /home/u/proj/a", "read /home/u/proj/c", "!read /home/u/proj/dir"},
	} {
		expectAll(t, in, want)
	}
}

// FuzzProcPath: ProcPath never panics, and a path it rewrites is
// absolute.
func FuzzProcPath(f *testing.F) {
	for _, s := range []string{"/proc/self/root/x", "/proc/self/cwd/../y", "/dev/fd/3/z", "/proc/1/task/2/root", "/proc//self/./cwd"} {
		f.Add(s, "/w")
	}
	f.Fuzz(func(t *testing.T, p, cwd string) {
		if !strings.HasPrefix(p, "/") {
			return
		}
		got, ok := ProcPath(p, cwd)
		if ok && got != p && !strings.HasPrefix(got, "/") && !(cwd != "" && strings.HasPrefix(got, cwd)) {
			t.Fatalf("ProcPath(%q, %q) = %q: not absolute", p, cwd, got)
		}
	})
}
