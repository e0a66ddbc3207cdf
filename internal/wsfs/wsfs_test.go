package wsfs

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const sentinel = "SENTINEL-OUTSIDE-NEVER-RETURN"

// fixture is a workspace next to an outside directory holding a sentinel.
type fixture struct {
	base, ws, outside, secret string
	fs                        *FS
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	fx := &fixture{
		base:    base,
		ws:      filepath.Join(base, "ws"),
		outside: filepath.Join(base, "outside"),
	}
	fx.secret = filepath.Join(fx.outside, "secret.txt")
	must(t, os.MkdirAll(filepath.Join(fx.ws, "sub", "inner"), 0o755))
	must(t, os.MkdirAll(fx.outside, 0o755))
	must(t, os.WriteFile(fx.secret, []byte(sentinel), 0o644))
	must(t, os.WriteFile(filepath.Join(fx.ws, "hello.txt"), []byte("hello\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(fx.ws, "sub", "a.txt"), []byte("a"), 0o644))
	f, err := Open(fx.ws)
	must(t, err)
	t.Cleanup(func() { f.Close() })
	fx.fs = f
	return fx
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) link(t *testing.T, target, name string) {
	t.Helper()
	p := filepath.Join(fx.ws, name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.Symlink(target, p))
}

// checkOutside fails if the sentinel changed or anything appeared outside.
func (fx *fixture) checkOutside(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(fx.secret)
	if err != nil || string(b) != sentinel {
		t.Fatalf("sentinel changed: %q %v", b, err)
	}
	ents, err := os.ReadDir(fx.outside)
	must(t, err)
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("outside directory changed: %v", names)
	}
}

func TestEscapeCorpus(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs
	relOut, _ := filepath.Rel(fx.ws, fx.outside)
	fx.link(t, "/etc", "etclink")
	fx.link(t, "/etc/passwd", "passwdlink")
	fx.link(t, fx.outside, "abs_out")
	fx.link(t, fx.secret, "abs_secret")
	fx.link(t, relOut, "rel_out")
	fx.link(t, filepath.Join(relOut, "secret.txt"), "rel_secret")
	fx.link(t, "/proc/self/root", "proclink")
	fx.link(t, strings.Repeat("../", 40)+"proc/self/root", "procrel")
	fx.link(t, filepath.Join("..", "..", relOut), "sub/deeplink")
	fx.link(t, "chain2", "chain1")
	fx.link(t, "rel_secret", "chain2")
	fx.link(t, "../../..", "sub/inner/up3")
	// A loop must fail cleanly too.
	fx.link(t, "loop2", "loop1")
	fx.link(t, "loop1", "loop2")

	etcNew := "/etc/wsfs-escape-test-" + filepath.Base(fx.base)
	t.Cleanup(func() { os.Remove(etcNew) })

	// through: paths that can only be reached through an escape. Every
	// operation on them must fail with ErrEscape.
	through := []string{
		"..",
		"../outside/secret.txt",
		"../outside",
		"sub/../../outside/secret.txt",
		"sub/inner/../../../outside/secret.txt",
		strings.Repeat("../", 30) + "etc/passwd",
		"./../ws/../outside/secret.txt",
		"/etc/passwd",
		"/etc",
		fx.secret,
		fx.outside,
		fx.base,
		"/",
		"/proc/self/root/etc/passwd",
		"/proc/self/root" + fx.secret,
		"/proc/self/cwd",
		"etclink/passwd",
		"etclink/" + filepath.Base(etcNew),
		"abs_out/secret.txt",
		"abs_out/newfile",
		"rel_out/secret.txt",
		"rel_out/newfile",
		"rel_out/newdir/x",
		"proclink/etc/passwd",
		"proclink" + fx.secret,
		"procrel/etc/passwd",
		"sub/deeplink/secret.txt",
		"sub/deeplink/new",
		"sub/inner/up3/outside/secret.txt",
		"sub/inner/up3/etc/passwd",
	}
	// links: symlinks whose target is outside. Operations that follow them
	// must fail with ErrEscape; operations on the link itself are allowed.
	links := []string{"etclink", "passwdlink", "abs_out", "abs_secret", "rel_out", "rel_secret", "proclink", "procrel", "sub/deeplink", "chain1", "chain2"}

	type op struct {
		name string
		fn   func(p string) error
	}
	following := []op{
		{"ReadFile", func(p string) error { b, err := f.ReadFile(p); checkNoSentinel(t, b); return err }},
		{"WriteFile", func(p string) error { return f.WriteFile(p, []byte("pwned")) }},
		{"AppendFile", func(p string) error { return f.AppendFile(p, []byte("pwned")) }},
		{"List", func(p string) error { _, err := f.List(p, true); return err }},
		{"CopyFrom", func(p string) error { return f.Copy(p, "copied-"+filepath.Base(p)) }},
	}
	all := append(slices.Clone(following),
		op{"MkdirAll", func(p string) error { return f.MkdirAll(p) }},
		op{"DeleteFile", func(p string) error { return f.DeleteFile(p) }},
		op{"RemoveDir", func(p string) error { return f.RemoveDir(p, true) }},
		op{"Stat", func(p string) error { _, err := f.Stat(p); return err }},
		op{"CopyTo", func(p string) error { return f.Copy("hello.txt", p) }},
		op{"RenameTo", func(p string) error { return f.Rename("sub/a.txt", p) }},
		op{"RenameFrom", func(p string) error { return f.Rename(p, "renamed") }},
	)
	for _, p := range through {
		for _, o := range all {
			t.Run(o.name+"/"+p, func(t *testing.T) {
				err := o.fn(p)
				if !errors.Is(err, ErrEscape) {
					t.Fatalf("%s(%q) = %v, want ErrEscape", o.name, p, err)
				}
				if ok, _, _ := f.Exists(p); ok {
					t.Fatalf("Exists(%q) = true", p)
				}
			})
		}
	}
	for _, p := range links {
		for _, o := range following {
			t.Run("link/"+o.name+"/"+p, func(t *testing.T) {
				if err := o.fn(p); !errors.Is(err, ErrEscape) {
					t.Fatalf("%s(%q) = %v, want ErrEscape", o.name, p, err)
				}
			})
		}
		t.Run("link/Stat/"+p, func(t *testing.T) {
			info, err := f.Stat(p)
			if err != nil || !info.IsSymlink || info.IsFile || info.IsDir {
				t.Fatalf("Stat(%q) = %+v, %v; want the link itself", p, info, err)
			}
			if ok, isFile, isDir := f.Exists(p); !ok || isFile || isDir {
				t.Fatalf("Exists(%q) = %v %v %v", p, ok, isFile, isDir)
			}
		})
	}
	for _, p := range []string{"loop1", "loop1/x"} {
		if _, err := f.ReadFile(p); err == nil {
			t.Fatalf("ReadFile(%q) succeeded", p)
		}
		if err := f.WriteFile(p, []byte("x")); err == nil && p != "loop1" {
			t.Fatalf("WriteFile(%q) succeeded", p)
		}
	}
	// Deleting an escaping link removes the link, never the target.
	must(t, f.DeleteFile("rel_secret"))
	must(t, f.DeleteFile("abs_secret"))
	if err := f.RemoveDir("rel_out", true); !errors.Is(err, ErrNotDir) {
		t.Fatalf("RemoveDir(symlink) = %v, want ErrNotDir", err)
	}
	fx.checkOutside(t)
	if _, err := os.Lstat(etcNew); err == nil {
		t.Fatalf("%s was created", etcNew)
	}
}

func checkNoSentinel(t *testing.T, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(sentinel)) {
		t.Fatalf("sentinel content returned")
	}
}

func TestEscapeErrorShape(t *testing.T) {
	fx := newFixture(t)
	_, err := fx.fs.ReadFile("../outside/secret.txt")
	if !errors.Is(err, ErrEscape) || !strings.Contains(err.Error(), "../outside/secret.txt") {
		t.Fatalf("err = %v", err)
	}
	fx.link(t, "../outside", "out")
	_, err = fx.fs.ReadFile("out/secret.txt")
	if !errors.Is(err, ErrEscape) || !strings.Contains(err.Error(), "out/secret.txt") {
		t.Fatalf("err = %v", err)
	}
	_, err = fx.fs.ReadFile("missing.txt")
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrEscape) {
		t.Fatalf("err = %v", err)
	}
}

// TestSymlinkSwapRace flips symlinks between an inside and an outside
// target while reads and writes loop through them.
func TestSymlinkSwapRace(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs
	must(t, os.MkdirAll(filepath.Join(fx.ws, "indir"), 0o755))
	must(t, os.WriteFile(filepath.Join(fx.ws, "indir", "secret.txt"), []byte("inside"), 0o644))
	relOut, _ := filepath.Rel(fx.ws, fx.outside)
	targets := map[string][2]string{
		"flipdir":  {"indir", relOut},
		"flipabs":  {"indir", fx.outside},
		"flipfile": {"indir/secret.txt", filepath.Join(relOut, "secret.txt")},
	}
	for name, tg := range targets {
		fx.link(t, tg[0], name)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			for name, tg := range targets {
				tmp := filepath.Join(fx.ws, name+".tmp")
				os.Remove(tmp)
				if os.Symlink(tg[i%2], tmp) == nil {
					os.Rename(tmp, filepath.Join(fx.ws, name))
				}
			}
		}
	}()
	const iters = 1500
	var insideReads int
	for i := range iters {
		for _, p := range []string{"flipdir/secret.txt", "flipabs/secret.txt", "flipfile"} {
			b, err := f.ReadFile(p)
			checkNoSentinel(t, b)
			if err == nil {
				insideReads++
			}
			_ = f.WriteFile(p, []byte("written"))
			_ = f.AppendFile(p, []byte("appended"))
			if i%50 == 0 {
				_, _ = f.List("flipdir", true)
				_ = f.Copy(p, "copy.txt")
				_ = f.DeleteFile("copy.txt")
			}
		}
		_ = f.WriteFile("flipdir/new.txt", []byte("new"))
		_ = f.MkdirAll("flipdir/newdir")
	}
	stop.Store(true)
	wg.Wait()
	fx.checkOutside(t)
	t.Logf("%d successful reads of inside content out of %d", insideReads, 3*iters)
}

// TestHardLinkWrites: a hard link inside the workspace to an outside file
// is replaced by writes, never written through.
func TestHardLinkWrites(t *testing.T) {
	fx := newFixture(t)
	hl := filepath.Join(fx.ws, "hl")
	if err := os.Link(fx.secret, hl); err != nil {
		t.Fatalf("link: %v", err)
	}
	must(t, fx.fs.AppendFile("hl", []byte("+appended")))
	fx.checkOutside(t)
	b, _ := os.ReadFile(hl)
	if string(b) != sentinel+"+appended" {
		t.Fatalf("hl = %q", b)
	}
	must(t, os.Remove(hl))
	must(t, os.Link(fx.secret, hl))
	must(t, fx.fs.WriteFile("hl", []byte("new")))
	fx.checkOutside(t)
	if b, _ := os.ReadFile(hl); string(b) != "new" {
		t.Fatalf("hl = %q", b)
	}
	// Appending to a single-link file happens in place.
	must(t, fx.fs.AppendFile("hello.txt", []byte("more")))
	if b, _ := fx.fs.ReadFile("hello.txt"); string(b) != "hello\nmore" {
		t.Fatalf("hello.txt = %q", b)
	}
}

func TestRel(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs
	cases := []struct {
		in, want string
		escape   bool
	}{
		{"", ".", false},
		{".", ".", false},
		{"./", ".", false},
		{"a/b", "a/b", false},
		{"./a//b/", "a/b", false},
		{"a/../b", "b", false},
		{"a/..", ".", false},
		{fx.ws, ".", false},
		{fx.ws + "/", ".", false},
		{fx.ws + "/x/../y", "y", false},
		{"..", "", true},
		{"a/../..", "", true},
		{"../ws/x", "", true},
		{fx.ws + "/..", "", true},
		{fx.ws + "x/y", "", true},
		{"/etc/passwd", "", true},
		{"/", "", true},
	}
	for _, c := range cases {
		got, err := f.Rel(c.in)
		if c.escape {
			if !errors.Is(err, ErrEscape) {
				t.Errorf("Rel(%q) = %q, %v; want ErrEscape", c.in, got, err)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("Rel(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := f.Rel("a\x00b"); err == nil {
		t.Error("Rel accepted a NUL byte")
	}
}

func TestSymlinkedWorkspace(t *testing.T) {
	fx := newFixture(t)
	alias := filepath.Join(fx.base, "alias")
	must(t, os.Symlink(fx.ws, alias))
	f, err := Open(alias)
	must(t, err)
	defer f.Close()
	for _, p := range []string{filepath.Join(alias, "hello.txt"), filepath.Join(fx.ws, "hello.txt"), "hello.txt"} {
		if b, err := f.ReadFile(p); err != nil || string(b) != "hello\n" {
			t.Errorf("ReadFile(%q) = %q, %v", p, b, err)
		}
	}
	if f.Root() != fx.ws {
		t.Errorf("Root() = %q, want %q", f.Root(), fx.ws)
	}
}

func TestFileOps(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs

	// WriteFile creates parents and keeps the mode of an existing file.
	must(t, f.WriteFile("new/deep/file.txt", []byte("one")))
	if b, err := f.ReadFile(filepath.Join(fx.ws, "new/deep/file.txt")); err != nil || string(b) != "one" {
		t.Fatalf("read back = %q, %v", b, err)
	}
	must(t, os.Chmod(filepath.Join(fx.ws, "hello.txt"), 0o600))
	must(t, f.WriteFile("hello.txt", []byte("two")))
	fi, err := os.Stat(filepath.Join(fx.ws, "hello.txt"))
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode().Perm())
	}
	if err := f.WriteFile("sub", []byte("x")); !errors.Is(err, ErrIsDir) {
		t.Fatalf("WriteFile(dir) = %v", err)
	}
	if _, err := f.ReadFile("sub"); !errors.Is(err, ErrIsDir) {
		t.Fatalf("ReadFile(dir) = %v", err)
	}
	// Writing through an inside symlink keeps the link.
	fx.link(t, "sub/a.txt", "alink")
	must(t, f.WriteFile("alink", []byte("via link")))
	if fi, err := os.Lstat(filepath.Join(fx.ws, "alink")); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(filepath.Join(fx.ws, "sub/a.txt")); string(b) != "via link" {
		t.Fatalf("target = %q", b)
	}
	// No temporary files left behind.
	ents, _ := f.List(".", true)
	for _, e := range ents {
		if strings.Contains(e.Name, ".wsfs-") {
			t.Fatalf("temporary file left: %s", e.Path)
		}
	}

	// AppendFile creates.
	must(t, f.AppendFile("log/app.log", []byte("a")))
	must(t, f.AppendFile("log/app.log", []byte("b")))
	if b, _ := f.ReadFile("log/app.log"); string(b) != "ab" {
		t.Fatalf("append = %q", b)
	}

	// DeleteFile.
	if err := f.DeleteFile("sub"); !errors.Is(err, ErrIsDir) {
		t.Fatalf("DeleteFile(dir) = %v", err)
	}
	if err := f.DeleteFile("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("DeleteFile(missing) = %v", err)
	}
	must(t, f.DeleteFile("log/app.log"))

	// Rename.
	must(t, f.Rename("hello.txt", "moved/hello.txt"))
	if ok, isFile, _ := f.Exists("moved/hello.txt"); !ok || !isFile {
		t.Fatal("rename target missing")
	}
	if err := f.Rename("moved/hello.txt", "sub/a.txt"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Rename onto existing = %v", err)
	}
	if err := f.Rename(".", "x"); !errors.Is(err, ErrIsRoot) {
		t.Fatalf("Rename(root) = %v", err)
	}

	// Copy a file and a directory.
	must(t, f.Copy("moved/hello.txt", "copies/h.txt"))
	if b, _ := f.ReadFile("copies/h.txt"); string(b) != "two" {
		t.Fatalf("copy = %q", b)
	}
	if fi, _ := os.Stat(filepath.Join(fx.ws, "copies/h.txt")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy mode = %v", fi.Mode().Perm())
	}
	if err := f.Copy("moved/hello.txt", "copies/h.txt"); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Copy onto existing = %v", err)
	}
	fx.link(t, "a.txt", "sub/rel-link")
	must(t, f.Copy("sub", "sub2"))
	if b, _ := f.ReadFile("sub2/a.txt"); string(b) != "via link" {
		t.Fatalf("dir copy = %q", b)
	}
	if l, err := os.Readlink(filepath.Join(fx.ws, "sub2/rel-link")); err != nil || l != "a.txt" {
		t.Fatalf("copied link = %q, %v", l, err)
	}
	if ok, _, isDir := f.Exists("sub2/inner"); !ok || !isDir {
		t.Fatal("nested dir not copied")
	}
	if err := f.Copy("sub", "sub/inner/again"); err == nil {
		t.Fatal("copy into itself succeeded")
	}

	// Directories.
	must(t, f.MkdirAll("d1/d2/d3"))
	must(t, f.MkdirAll("d1/d2/d3"))
	if err := f.RemoveDir("d1", false); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("RemoveDir(non-empty) = %v", err)
	}
	must(t, f.RemoveDir("d1/d2/d3", false))
	must(t, f.RemoveDir("d1", true))
	if ok, _, _ := f.Exists("d1"); ok {
		t.Fatal("d1 still exists")
	}
	for _, p := range []string{".", "", fx.ws, "sub/.."} {
		if err := f.RemoveDir(p, true); !errors.Is(err, ErrIsRoot) {
			t.Fatalf("RemoveDir(%q) = %v, want ErrIsRoot", p, err)
		}
	}
	if err := f.RemoveDir("copies/h.txt", false); !errors.Is(err, ErrNotDir) {
		t.Fatalf("RemoveDir(file) = %v", err)
	}
}

func TestListStatExists(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs
	fx.link(t, "sub", "sublink")
	fx.link(t, "missing", "dangling")
	ents, err := f.List(".", false)
	must(t, err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Path+":"+e.Type)
	}
	want := []string{"dangling:symlink", "hello.txt:file", "sub:directory", "sublink:symlink"}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
	ents, err = f.List(fx.ws, true)
	must(t, err)
	got = got[:0]
	for _, e := range ents {
		got = append(got, e.Path)
	}
	want = []string{"dangling", "hello.txt", "sub", "sub/a.txt", "sub/inner", "sublink"}
	if !slices.Equal(got, want) {
		t.Fatalf("recursive List = %v, want %v", got, want)
	}
	if ents[1].Size != 6 || ents[1].Mtime == 0 || ents[1].Name != "hello.txt" {
		t.Fatalf("entry = %+v", ents[1])
	}
	// The listed directory itself may be an inside symlink.
	if ents, err := f.List("sublink", false); err != nil || len(ents) != 2 || ents[0].Path != "sublink/a.txt" {
		t.Fatalf("List(sublink) = %v, %v", ents, err)
	}
	if _, err := f.List("hello.txt", false); !errors.Is(err, ErrNotDir) {
		t.Fatalf("List(file) = %v", err)
	}

	info, err := f.Stat("hello.txt")
	must(t, err)
	if !info.IsFile || info.IsDir || info.IsSymlink || info.Size != 6 || info.Mtime == 0 || info.Ctime == 0 {
		t.Fatalf("Stat = %+v", info)
	}
	info, err = f.Stat("sublink")
	must(t, err)
	if !info.IsDir || !info.IsSymlink {
		t.Fatalf("Stat(sublink) = %+v", info)
	}
	if _, err := f.Stat("nope"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat(missing) = %v", err)
	}

	for p, want := range map[string][3]bool{
		"hello.txt": {true, true, false},
		"sub":       {true, false, true},
		"sublink":   {true, false, true},
		"dangling":  {true, false, false},
		"nope":      {false, false, false},
		".":         {true, false, true},
	} {
		a, b, c := f.Exists(p)
		if [3]bool{a, b, c} != want {
			t.Errorf("Exists(%q) = %v %v %v, want %v", p, a, b, c, want)
		}
	}
}

func TestListLimit(t *testing.T) {
	fx := newFixture(t)
	dir := filepath.Join(fx.ws, "many")
	must(t, os.MkdirAll(dir, 0o755))
	for i := range MaxListEntries + 5 {
		must(t, os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i%7)+strconv.Itoa(i)), nil, 0o644))
	}
	ents, err := fx.fs.List("many", false)
	if !errors.Is(err, ErrListLimit) || len(ents) != MaxListEntries {
		t.Fatalf("List = %d entries, %v", len(ents), err)
	}
}

func TestWatch(t *testing.T) {
	fx := newFixture(t)
	f := fx.fs
	type ev struct{ path, kind string }
	events := make(chan Change, 100)
	id, err := f.Watch("**/*.txt", func(c Change) { events <- c })
	must(t, err)
	all := make(chan Change, 100)
	id2, err := f.Watch(filepath.Join(fx.ws, "**"), func(c Change) { all <- c })
	must(t, err)

	wait := func(ch chan Change, want ev) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case c := <-ch:
				e := ev{c.Path, c.Kind}
				if ch == events && strings.HasSuffix(e.path, ".go") {
					t.Fatalf("non-matching path reported: %v", e)
				}
				if strings.Contains(e.path, ".wsfs-") {
					t.Fatalf("a temporary file of a write reported: %v", e)
				}
				if wantID := map[chan Change]string{events: id, all: id2}[ch]; c.Watcher != wantID {
					t.Fatalf("change %v carries watcher %q, want %q", e, c.Watcher, wantID)
				}
				if e == want {
					return
				}
			case <-deadline:
				t.Fatalf("no event %v", want)
			}
		}
	}
	must(t, os.WriteFile(filepath.Join(fx.ws, "x.go"), []byte("package x"), 0o644))
	must(t, os.WriteFile(filepath.Join(fx.ws, "new.txt"), []byte("1"), 0o644))
	wait(events, ev{"new.txt", Created})
	must(t, os.MkdirAll(filepath.Join(fx.ws, "n1", "n2"), 0o755))
	must(t, os.WriteFile(filepath.Join(fx.ws, "n1", "n2", "deep.txt"), []byte("1"), 0o644))
	wait(events, ev{"n1/n2/deep.txt", Created})
	must(t, os.WriteFile(filepath.Join(fx.ws, "sub", "a.txt"), []byte("changed"), 0o644))
	wait(events, ev{"sub/a.txt", Changed})
	must(t, os.Remove(filepath.Join(fx.ws, "new.txt")))
	wait(events, ev{"new.txt", Deleted})
	// An overwrite is a change, whether written in place, atomically by
	// WriteFile (a temporary file renamed over it), or by another program
	// renaming its own file over it; the name appearing anew is a creation.
	must(t, f.WriteFile("sub/a.txt", []byte("atomic")))
	wait(events, ev{"sub/a.txt", Changed})
	must(t, os.WriteFile(filepath.Join(fx.ws, "sub", "b.tmp"), []byte("saved"), 0o644))
	must(t, os.Rename(filepath.Join(fx.ws, "sub", "b.tmp"), filepath.Join(fx.ws, "sub", "a.txt")))
	wait(events, ev{"sub/a.txt", Changed})
	must(t, f.WriteFile("new.txt", []byte("again")))
	wait(events, ev{"new.txt", Created})
	wait(all, ev{"new.txt", Created}) // and no temporary file on the way
	// A new directory created after the watch started is watched.
	must(t, os.WriteFile(filepath.Join(fx.ws, "n1", "n2", "later.txt"), []byte("1"), 0o644))
	wait(events, ev{"n1/n2/later.txt", Created})
	wait(all, ev{"n1/n2/later.txt", Created})
	// .git is skipped.
	must(t, os.MkdirAll(filepath.Join(fx.ws, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(fx.ws, ".git", "HEAD.txt"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(fx.ws, "after-git.txt"), nil, 0o644))
	for {
		e := <-events
		if strings.Contains(e.Path, ".git") {
			t.Fatalf(".git reported: %v", e)
		}
		if e.Path == "after-git.txt" {
			break
		}
	}
	must(t, f.Unwatch(id))
	if err := f.Unwatch(id); !errors.Is(err, ErrNoWatcher) {
		t.Fatalf("second Unwatch = %v", err)
	}
	must(t, f.Unwatch(id2))
	if _, err := f.Watch("[", func(Change) {}); !errors.Is(err, ErrBadPattern) {
		t.Fatalf("bad pattern: %v, want ErrBadPattern", err)
	}
	// A watcher can be restarted after the last one was removed, and
	// Close stops it.
	_, err = f.Watch("*.md", func(Change) {})
	must(t, err)
}

func FuzzRel(f *testing.F) {
	ws := f.TempDir()
	fsys, err := Open(ws)
	if err != nil {
		f.Fatal(err)
	}
	defer fsys.Close()
	for _, s := range []string{"", ".", "..", "a/../..", "/etc/passwd", ws, ws + "/..", ws + "/a/../b", "a//b/./c", "../" + filepath.Base(ws) + "/x", "a\x00", "/proc/self/root" + ws} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		r, err := fsys.Rel(p)
		if err != nil {
			return
		}
		if r != "." && !filepath.IsLocal(r) {
			t.Fatalf("Rel(%q) = %q: not local", p, r)
		}
		j := filepath.Join(fsys.Root(), r)
		if j != fsys.Root() && !strings.HasPrefix(j, fsys.Root()+string(filepath.Separator)) {
			t.Fatalf("Rel(%q) = %q escapes to %q", p, r, j)
		}
	})
}
