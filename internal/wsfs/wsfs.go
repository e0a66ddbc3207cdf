// Package wsfs is the workspace file system sandbox: the mechanism behind
// the control door's fs.* methods.
//
// Every operation goes through an [os.Root] opened on the workspace
// directory, so a path can never name anything outside the workspace: not
// with ".." chains, not with absolute paths, not through a symlink that
// points outside (absolute or relative), not through /proc/self/root, and
// not through a symlink swapped in between a check and a use (os.Root
// resolves each component with openat and O_NOFOLLOW semantics on the file
// descriptor of the directory it has already reached). Escapes are reported
// as [ErrEscape], wrapped with the path; missing files stay detectable with
// errors.Is(err, fs.ErrNotExist).
//
// Paths given by callers are workspace-relative ("src/a.go", "./src/a.go")
// or absolute ("/work/ws/src/a.go"); [FS.Rel] turns either into a
// root-relative path. Paths returned by wsfs ([Entry.Path], watch events)
// are workspace-relative and slash-separated; [FS.Abs] turns them back into
// absolute paths.
//
// Writes ([FS.WriteFile], [FS.Copy], and [FS.AppendFile] on a file with
// more than one hard link) never modify an existing inode: they write a
// temporary file in the destination's directory and rename it over the
// destination. A hard link planted in the workspace that shares its inode
// with a file outside is therefore replaced, never written through. Reads
// cannot tell a hard link from a regular file (the kernel does not say
// where the other links are); hard links to files the process may read are
// read like any other file.
//
// All methods are safe for concurrent use.
package wsfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrEscape reports a path that names something outside the workspace: an
// absolute path elsewhere, a ".." chain that climbs out, or a symlink whose
// target lies outside.
var ErrEscape = errors.New("path escapes the workspace")

// ErrIsRoot reports an attempt to delete or rename the workspace root itself.
var ErrIsRoot = errors.New("operation not permitted on the workspace root")

// ErrIsDir reports a file operation (read, write, delete) on a directory.
var ErrIsDir = errors.New("is a directory")

// ErrNotDir reports a directory operation on something that is not a
// directory (including a symlink to a directory: RemoveDir does not follow
// symlinks).
var ErrNotDir = errors.New("not a directory")

// ErrNotEmpty reports a non-recursive RemoveDir of a directory with entries.
var ErrNotEmpty = errors.New("directory not empty")

// ErrListLimit is returned by [FS.List] together with the first
// [MaxListEntries] entries when a listing has more.
var ErrListLimit = errors.New("listing truncated")

// ErrNoWatcher reports an [FS.Unwatch] of an unknown or already removed id.
var ErrNoWatcher = errors.New("no such watcher")

// ErrClosed reports use of an FS after [FS.Close].
var ErrClosed = errors.New("workspace file system closed")

// MaxListEntries caps the entries one [FS.List] call returns.
const MaxListEntries = 10000

// maxSymlinkHops bounds symlink resolution in writes (Linux uses 40).
const maxSymlinkHops = 40

// FS is a workspace opened for sandboxed access. Create it with [Open].
type FS struct {
	root *os.Root
	// abs is the cleaned absolute workspace path as given; real is the same
	// with symlinks evaluated. Absolute caller paths under either are inside.
	abs, real string
	// escErr is os.Root's own (unexported) escape error, captured at Open so
	// that it can be recognised with errors.Is and mapped to ErrEscape.
	escErr error

	w watchState

	hookMu   sync.Mutex
	onChange func(rels ...string)
}

// Open opens the workspace rooted at dir. The directory must exist.
func Open(dir string) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("wsfs: workspace %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("wsfs: workspace %s: %w", dir, err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("wsfs: workspace %s: %w", dir, err)
	}
	f := &FS{root: r, abs: abs, real: real}
	_, err = r.Lstat("..")
	var pe *fs.PathError
	if errors.As(err, &pe) {
		f.escErr = pe.Err
	} else {
		f.escErr = ErrEscape
	}
	f.w.subs = map[string]*watchSub{}
	return f, nil
}

// Close stops every watcher, waits for their goroutines and closes the
// root. It must not be called from a watch callback.
func (f *FS) Close() error {
	f.stopWatching()
	if err := f.root.Close(); err != nil {
		return fmt.Errorf("wsfs: close: %w", err)
	}
	return nil
}

// Root returns the absolute, symlink-free path of the workspace.
func (f *FS) Root() string { return f.real }

// Rel turns a workspace-relative or absolute path into a cleaned
// root-relative path using the OS separator ("." for the root itself; ""
// also means the root). It returns ErrEscape, wrapped with p, for absolute
// paths outside the workspace and for relative paths whose ".." climbs
// out. Rel is lexical: a path that is inside lexically but crosses a
// symlink pointing outside is refused later, by the operation, also with
// ErrEscape.
func (f *FS) Rel(p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("wsfs: %q: %w", p, fs.ErrInvalid)
	}
	if p == "" {
		return ".", nil
	}
	if filepath.IsAbs(p) {
		c := filepath.Clean(p)
		for _, base := range []string{f.real, f.abs} {
			if r, ok := under(base, c); ok {
				return r, nil
			}
		}
		return "", fmt.Errorf("wsfs: %s: %w", p, ErrEscape)
	}
	c := filepath.Clean(p)
	if c == "." {
		return c, nil
	}
	if !filepath.IsLocal(c) {
		return "", fmt.Errorf("wsfs: %s: %w", p, ErrEscape)
	}
	return c, nil
}

// under reports whether the clean absolute path c is base or beneath it,
// and returns it relative to base.
func under(base, c string) (string, bool) {
	if c == base {
		return ".", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(c, prefix) {
		return "", false
	}
	r := c[len(prefix):]
	if !filepath.IsLocal(r) {
		return "", false
	}
	return r, true
}

// Abs returns the absolute path of a workspace-relative path (as returned
// in Entry.Path or a watch event). It does not check the path.
func (f *FS) Abs(rel string) string {
	return filepath.Join(f.real, filepath.FromSlash(rel))
}

// wrap maps os.Root's escape error to ErrEscape and adds op and path.
func (f *FS) wrap(op, p string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, f.escErr) || errors.Is(err, ErrEscape) {
		return fmt.Errorf("wsfs: %s %s: %w (%w)", op, p, ErrEscape, err)
	}
	return fmt.Errorf("wsfs: %s %s: %w", op, p, err)
}

// ReadFile returns the content of the file at p. Symlinks are followed
// while they stay inside the workspace.
func (f *FS) ReadFile(p string) ([]byte, error) {
	rel, err := f.Rel(p)
	if err != nil {
		return nil, err
	}
	file, err := f.root.Open(rel)
	if err != nil {
		return nil, f.wrap("read", p, err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, f.wrap("read", p, err)
	}
	if fi.IsDir() {
		return nil, f.wrap("read", p, ErrIsDir)
	}
	b, err := io.ReadAll(file)
	if err != nil {
		return nil, f.wrap("read", p, err)
	}
	return b, nil
}

// writeFile replaces the content of the file at p atomically, creating it
// (mode 0644) and any missing parent directories (mode 0755) if needed. An
// existing file keeps its permission bits. The data goes to a temporary
// file in the same directory which is then renamed over p, so readers see
// the old or the new content, never a mix, and an existing inode (possibly
// hard-linked elsewhere) is never written. If p is a symlink inside the
// workspace the file it resolves to is replaced and the link is kept.
func (f *FS) writeFile(p string, data []byte) error {
	rel, err := f.Rel(p)
	if err != nil {
		return err
	}
	if rel == "." {
		return f.wrap("write", p, ErrIsDir)
	}
	target, err := f.resolve(rel)
	if err != nil {
		return f.wrap("write", p, err)
	}
	return f.wrap("write", p, f.writeAtomic(target, data, 0o644, true))
}

// resolve follows symlinks at the last component of rel (lexically, as
// os.Root does) and returns the root-relative path of the final non-symlink
// name, which may not exist.
func (f *FS) resolve(rel string) (string, error) {
	for range maxSymlinkHops {
		fi, err := f.root.Lstat(rel)
		if errors.Is(err, fs.ErrNotExist) {
			return rel, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return rel, nil
		}
		link, err := f.root.Readlink(rel)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(link) {
			return "", ErrEscape
		}
		next := filepath.Join(filepath.Dir(rel), link)
		if !filepath.IsLocal(next) {
			return "", ErrEscape
		}
		rel = next
	}
	return "", fmt.Errorf("too many levels of symbolic links: %w", fs.ErrInvalid)
}

// writeAtomic writes data to rel through a temporary sibling and a rename.
// An existing rel keeps its permission bits; otherwise perm is used.
func (f *FS) writeAtomic(rel string, data []byte, perm fs.FileMode, mkParents bool) error {
	if fi, err := f.root.Lstat(rel); err == nil {
		if fi.IsDir() {
			return ErrIsDir
		}
		if fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(rel)
	if mkParents && dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp, file, err := f.createTemp(dir, filepath.Base(rel))
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			file.Close()
			_ = f.root.Remove(tmp)
		}
	}()
	if _, err := file.Write(data); err != nil {
		return err
	}
	// fchmod on the descriptor: immune to the path being swapped.
	if err := file.Chmod(perm); err != nil {
		return err
	}
	if err := file.Sync(); err != nil {
		return err
	}
	if err := file.Close(); err != nil {
		return err
	}
	if err := f.root.Rename(tmp, rel); err != nil {
		return err
	}
	ok = true
	return nil
}

// createTemp creates a new, exclusive temporary file in dir.
func (f *FS) createTemp(dir, base string) (string, *os.File, error) {
	var rnd [8]byte
	for range 100 {
		if _, err := randRead(rnd[:]); err != nil {
			return "", nil, err
		}
		name := filepath.Join(dir, fmt.Sprintf(".%s.wsfs-%x.tmp", base, rnd))
		file, err := f.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return name, file, nil
	}
	return "", nil, fmt.Errorf("cannot create a temporary file in %s: %w", dir, fs.ErrExist)
}

// appendFile appends data to the file at p, creating it (and missing
// parents) like WriteFile when it does not exist. A regular file with a
// single link is appended to in place (O_APPEND); a file with more than one
// hard link is rewritten atomically instead, so an inode shared with a file
// outside the workspace is never modified.
func (f *FS) appendFile(p string, data []byte) error {
	rel, err := f.Rel(p)
	if err != nil {
		return err
	}
	if rel == "." {
		return f.wrap("append", p, ErrIsDir)
	}
	target, err := f.resolve(rel)
	if err != nil {
		return f.wrap("append", p, err)
	}
	file, err := f.root.OpenFile(target, os.O_WRONLY|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return f.wrap("append", p, f.writeAtomic(target, data, 0o644, true))
	}
	if err != nil {
		return f.wrap("append", p, err)
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return f.wrap("append", p, err)
	}
	if fi.Mode().IsRegular() && linkCount(fi) <= 1 {
		_, werr := file.Write(data)
		cerr := file.Close()
		return f.wrap("append", p, errors.Join(werr, cerr))
	}
	file.Close()
	if !fi.Mode().IsRegular() {
		return f.wrap("append", p, fmt.Errorf("not a regular file: %w", fs.ErrInvalid))
	}
	old, err := f.root.ReadFile(target)
	if err != nil {
		return f.wrap("append", p, err)
	}
	return f.wrap("append", p, f.writeAtomic(target, append(old, data...), 0o644, false))
}

// deleteFile removes the file (or symlink, not its target) at p. It
// refuses directories with ErrIsDir.
func (f *FS) deleteFile(p string) error {
	rel, err := f.Rel(p)
	if err != nil {
		return err
	}
	if rel == "." {
		return f.wrap("delete", p, ErrIsRoot)
	}
	fi, err := f.root.Lstat(rel)
	if err != nil {
		return f.wrap("delete", p, err)
	}
	if fi.IsDir() {
		return f.wrap("delete", p, ErrIsDir)
	}
	return f.wrap("delete", p, f.root.Remove(rel))
}

// rename moves oldPath to newPath (files, symlinks or directories). It
// fails with fs.ErrExist if newPath exists, and creates newPath's missing
// parent directories. Neither path may be the workspace root.
func (f *FS) rename(oldPath, newPath string) error {
	oldRel, err := f.Rel(oldPath)
	if err != nil {
		return err
	}
	newRel, err := f.Rel(newPath)
	if err != nil {
		return err
	}
	if oldRel == "." || newRel == "." {
		return f.wrap("rename", oldPath, ErrIsRoot)
	}
	if _, err := f.root.Lstat(oldRel); err != nil {
		return f.wrap("rename", oldPath, err)
	}
	if _, err := f.root.Lstat(newRel); err == nil {
		return f.wrap("rename", newPath, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return f.wrap("rename", newPath, err)
	}
	if dir := filepath.Dir(newRel); dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return f.wrap("rename", newPath, err)
		}
	}
	return f.wrap("rename", oldPath, f.root.Rename(oldRel, newRel))
}

// copy copies src to dst, which must not exist (fs.ErrExist); dst's
// missing parents are created. A file is copied with its permission bits
// (symlinks at src are followed while inside the workspace). A directory
// is copied recursively without following symlinks inside it: those are
// recreated as symlinks with the same target text. dst may not lie inside
// src.
func (f *FS) copy(src, dst string) error {
	srcRel, err := f.Rel(src)
	if err != nil {
		return err
	}
	dstRel, err := f.Rel(dst)
	if err != nil {
		return err
	}
	if dstRel == "." {
		return f.wrap("copy", dst, fs.ErrExist)
	}
	fi, err := f.root.Stat(srcRel)
	if err != nil {
		return f.wrap("copy", src, err)
	}
	if _, err := f.root.Lstat(dstRel); err == nil {
		return f.wrap("copy", dst, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return f.wrap("copy", dst, err)
	}
	if !fi.IsDir() {
		return f.wrap("copy", src, f.copyFile(srcRel, dstRel))
	}
	if srcRel == "." || dstRel == srcRel || strings.HasPrefix(dstRel, srcRel+string(filepath.Separator)) {
		return f.wrap("copy", dst, fmt.Errorf("destination inside the source directory: %w", fs.ErrInvalid))
	}
	if dir := filepath.Dir(dstRel); dir != "." {
		if err := f.root.MkdirAll(dir, 0o755); err != nil {
			return f.wrap("copy", dst, err)
		}
	}
	return f.wrap("copy", src, f.copyDir(srcRel, dstRel, 0))
}

// copyFile copies one regular file's content and permission bits.
func (f *FS) copyFile(srcRel, dstRel string) error {
	in, err := f.root.Open(srcRel)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file: %w", fs.ErrInvalid)
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	return f.writeAtomic(dstRel, data, fi.Mode().Perm(), true)
}

// copyDir copies the directory srcRel to the new directory dstRel.
func (f *FS) copyDir(srcRel, dstRel string, depth int) error {
	if depth > 256 {
		return fmt.Errorf("directory nesting too deep: %w", fs.ErrInvalid)
	}
	fi, err := f.root.Lstat(srcRel)
	if err != nil {
		return err
	}
	if err := f.root.Mkdir(dstRel, fi.Mode().Perm()|0o700); err != nil {
		return err
	}
	ents, err := f.readDir(srcRel)
	if err != nil {
		return err
	}
	for _, e := range ents {
		s, d := filepath.Join(srcRel, e.Name()), filepath.Join(dstRel, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			link, err := f.root.Readlink(s)
			if err != nil {
				return err
			}
			if err := f.root.Symlink(link, d); err != nil {
				return err
			}
		case e.IsDir():
			if err := f.copyDir(s, d, depth+1); err != nil {
				return err
			}
		case e.Type().IsRegular():
			if err := f.copyFile(s, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// readDir lists one directory inside the root, sorted by name.
func (f *FS) readDir(rel string) ([]fs.DirEntry, error) {
	d, err := f.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sortEntries(ents)
	return ents, nil
}

// MkdirAll creates the directory p and any missing parents (mode 0755). An
// existing directory is not an error.
func (f *FS) MkdirAll(p string) error {
	rel, err := f.Rel(p)
	if err != nil {
		return err
	}
	return f.wrap("mkdir", p, f.root.MkdirAll(rel, 0o755))
}

// removeDir removes the directory p: only if empty (ErrNotEmpty otherwise)
// unless recursive. It refuses the workspace root (ErrIsRoot) and anything
// that is not a directory, including a symlink to one (ErrNotDir).
// Recursive removal does not follow symlinks inside the tree.
func (f *FS) removeDir(p string, recursive bool) error {
	rel, err := f.Rel(p)
	if err != nil {
		return err
	}
	if rel == "." {
		return f.wrap("rmdir", p, ErrIsRoot)
	}
	fi, err := f.root.Lstat(rel)
	if err != nil {
		return f.wrap("rmdir", p, err)
	}
	if !fi.IsDir() {
		return f.wrap("rmdir", p, ErrNotDir)
	}
	if recursive {
		return f.wrap("rmdir", p, f.root.RemoveAll(rel))
	}
	ents, err := f.readDir(rel)
	if err != nil {
		return f.wrap("rmdir", p, err)
	}
	if len(ents) > 0 {
		return f.wrap("rmdir", p, ErrNotEmpty)
	}
	return f.wrap("rmdir", p, f.root.Remove(rel))
}

// Entry is one listed directory entry (the spec's FileEntry).
type Entry struct {
	// Name is the base name.
	Name string `json:"name"`
	// Path is workspace-relative and slash-separated ("src/a.go").
	Path string `json:"path"`
	// Type is "file", "directory" or "symlink" (a symlink is not followed;
	// other special files are reported as "file").
	Type string `json:"type"`
	// Size is the size in bytes (of the link itself for a symlink).
	Size int64 `json:"size"`
	// Mtime is the modification time in milliseconds since the epoch.
	Mtime int64 `json:"mtime"`
}

// List returns the entries of the directory p (symlinks to directories
// inside the workspace are followed for p itself), sorted by name; when
// recursive, each directory's entries are followed by those of its
// subdirectories (depth-first, pre-order). Recursion never follows
// symlinks. At most MaxListEntries entries are returned; when there are
// more, List returns those and ErrListLimit.
func (f *FS) List(p string, recursive bool) ([]Entry, error) {
	rel, err := f.Rel(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.root.Stat(rel)
	if err != nil {
		return nil, f.wrap("list", p, err)
	}
	if !fi.IsDir() {
		return nil, f.wrap("list", p, ErrNotDir)
	}
	var out []Entry
	err = f.list(rel, recursive, &out)
	if errors.Is(err, ErrListLimit) {
		return out, fmt.Errorf("wsfs: list %s: more than %d entries: %w", p, MaxListEntries, ErrListLimit)
	}
	return out, f.wrap("list", p, err)
}

func (f *FS) list(rel string, recursive bool, out *[]Entry) error {
	ents, err := f.readDir(rel)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if len(*out) >= MaxListEntries {
			return ErrListLimit
		}
		child := filepath.Join(rel, e.Name())
		ent := Entry{Name: e.Name(), Path: filepath.ToSlash(child), Type: "file"}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			ent.Type = "symlink"
		case e.IsDir():
			ent.Type = "directory"
		}
		if info, err := e.Info(); err == nil {
			ent.Size = info.Size()
			ent.Mtime = info.ModTime().UnixMilli()
		}
		*out = append(*out, ent)
		if recursive && e.IsDir() {
			if err := f.list(child, true, out); err != nil {
				if errors.Is(err, ErrListLimit) {
					return err
				}
				// A directory that vanished or cannot be read mid-walk is
				// skipped, like `find` does; an escape cannot happen here.
				continue
			}
		}
	}
	return nil
}

// Exists reports whether p names something (Lstat: a dangling symlink
// exists) and whether it is, following symlinks inside the workspace, a
// regular file or a directory. A path that escapes the workspace or cannot
// be examined reports false; call Rel first to tell an escape apart.
func (f *FS) Exists(p string) (exists, isFile, isDir bool) {
	rel, err := f.Rel(p)
	if err != nil {
		return false, false, false
	}
	if _, err := f.root.Lstat(rel); err != nil {
		return false, false, false
	}
	fi, err := f.root.Stat(rel)
	if err != nil {
		return true, false, false
	}
	return true, fi.Mode().IsRegular(), fi.IsDir()
}

// Info is the result of Stat (the spec's fs.stat result).
type Info struct {
	// Size in bytes (of the target for a symlink that resolves inside the
	// workspace, of the link otherwise).
	Size int64 `json:"size"`
	// Ctime is the inode change time in milliseconds since the epoch
	// (Node's ctime; mtime on systems that do not report it).
	Ctime int64 `json:"ctime"`
	// Mtime is the modification time in milliseconds since the epoch.
	Mtime int64 `json:"mtime"`
	// IsFile reports a regular file (following a symlink).
	IsFile bool `json:"isFile"`
	// IsDir reports a directory (following a symlink).
	IsDir bool `json:"isDirectory"`
	// IsSymlink reports that p itself is a symbolic link.
	IsSymlink bool `json:"isSymbolicLink"`
}

// Stat describes p. A symlink is reported with IsSymlink and the type,
// size and times of its target when that resolves inside the workspace;
// a dangling or escaping symlink is described by the link itself.
func (f *FS) Stat(p string) (Info, error) {
	rel, err := f.Rel(p)
	if err != nil {
		return Info{}, err
	}
	lfi, err := f.root.Lstat(rel)
	if err != nil {
		return Info{}, f.wrap("stat", p, err)
	}
	fi := lfi
	isLink := lfi.Mode()&fs.ModeSymlink != 0
	if isLink {
		if tfi, err := f.root.Stat(rel); err == nil {
			fi = tfi
		}
	}
	return Info{
		Size:      fi.Size(),
		Ctime:     changeTime(fi).UnixMilli(),
		Mtime:     fi.ModTime().UnixMilli(),
		IsFile:    fi.Mode().IsRegular(),
		IsDir:     fi.IsDir(),
		IsSymlink: isLink,
	}, nil
}

// WriteFile does what writeFile says, then tells the change hook (SetOnChange).
func (f *FS) WriteFile(p string, data []byte) error {
	if err := f.writeFile(p, data); err != nil {
		return err
	}
	f.changed(p)
	return nil
}

// AppendFile does what appendFile says, then tells the change hook (SetOnChange).
func (f *FS) AppendFile(p string, data []byte) error {
	if err := f.appendFile(p, data); err != nil {
		return err
	}
	f.changed(p)
	return nil
}

// DeleteFile does what deleteFile says, then tells the change hook (SetOnChange).
func (f *FS) DeleteFile(p string) error {
	if err := f.deleteFile(p); err != nil {
		return err
	}
	f.changed(p)
	return nil
}

// Rename does what rename says, then tells the change hook (SetOnChange).
func (f *FS) Rename(oldPath, newPath string) error {
	if err := f.rename(oldPath, newPath); err != nil {
		return err
	}
	f.changed(oldPath, newPath)
	return nil
}

// Copy does what copy says, then tells the change hook (SetOnChange).
func (f *FS) Copy(src, dst string) error {
	if err := f.copy(src, dst); err != nil {
		return err
	}
	f.changed(dst)
	return nil
}

// RemoveDir does what removeDir says, then tells the change hook (SetOnChange).
func (f *FS) RemoveDir(p string, recursive bool) error {
	if err := f.removeDir(p, recursive); err != nil {
		return err
	}
	f.changed(p)
	return nil
}

// SetOnChange sets fn to be called, after each write, append, delete,
// rename, copy or directory removal made through this FS succeeds, with
// the workspace-relative slash paths it changed (both names of a rename),
// before the call returns: the code index applies them at once, so a
// write is searchable when it returns. nil removes the hook.
func (f *FS) SetOnChange(fn func(rels ...string)) {
	f.hookMu.Lock()
	f.onChange = fn
	f.hookMu.Unlock()
}

// changed tells the change hook about paths (as callers name them).
func (f *FS) changed(paths ...string) {
	f.hookMu.Lock()
	fn := f.onChange
	f.hookMu.Unlock()
	if fn == nil {
		return
	}
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		if rel, err := f.Rel(p); err == nil {
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	fn(rels...)
}
