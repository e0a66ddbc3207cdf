package shell

import (
	"path"
	"strings"
)

// ProcPath rewrites the absolute path p when it goes through one of the
// kernel's per-process links, as the kernel resolves them in the process
// that runs the command (not the one judging it): /proc/self/root/x,
// /proc/thread-self/root/x and /proc/PID/root/x are /x (a process's root;
// a container's process aside, the host's /), /proc/self/cwd/x is x in the
// command's working directory cwd. Another process's cwd and descriptors
// (/proc/PID/cwd/x) are left as they are: the judge's /proc shows the same
// links. It returns ok false, with the reason in place of the path, when
// the place cannot be known at check time: a path below one of the
// command's own open descriptors (/dev/fd/N/x, /proc/self/fd/N/x: a
// descriptor may be a directory), or /proc/self/cwd with cwd not known. Any other path is
// returned as it is. Components after the prefix are kept as written, so
// /proc/self/cwd/../x climbs from cwd.
func ProcPath(p, cwd string) (string, bool) {
	if !strings.HasPrefix(p, "/proc/") && !strings.HasPrefix(p, "/dev/fd/") {
		return p, true
	}
	comps := strings.FieldsFunc(p, func(r rune) bool { return r == '/' })
	// drop "." components: the kernel skips them
	n := 0
	for _, c := range comps {
		if c != "." {
			comps[n] = c
			n++
		}
	}
	comps = comps[:n]
	if len(comps) >= 3 && comps[0] == "dev" && comps[1] == "fd" {
		if len(comps) > 3 {
			return "a path below an open file descriptor (" + p + ") is not known at check time", false
		}
		return p, true
	}
	if len(comps) < 3 || comps[0] != "proc" {
		return p, true
	}
	self := comps[1] == "self" || comps[1] == "thread-self"
	if !self && !isDigits(comps[1]) {
		return p, true
	}
	i := 2
	if comps[i] == "task" && len(comps) > 4 && isDigits(comps[3]) {
		i = 4
	}
	rest := strings.Join(comps[i+1:], "/")
	switch comps[i] {
	case "root":
		return "/" + rest, true
	case "cwd":
		if !self {
			// another process's: the judge's /proc shows the same link
			return p, true
		}
		if cwd == "" {
			return "the working directory behind " + p + " is not known", false
		}
		if rest == "" {
			return cwd, true
		}
		return cwd + "/" + rest, true
	case "fd":
		if self && len(comps) > i+2 {
			return "a path below an open file descriptor (" + p + ") is not known at check time", false
		}
	}
	return p, true
}

// markLinks sets Link on the delete effects added since mark whose operand
// names a path's last component as written, without a trailing slash: rm
// and unlink remove a symlink there, they do not follow it.
func (k *call) markLinks(mark int, ops []field) {
	noFollow := map[string]bool{}
	for _, f := range ops {
		if !f.known || f.glob || f.val == "" || strings.HasSuffix(f.val, "/") || strings.HasSuffix(f.val, "/.") {
			continue
		}
		if b := path.Base(f.val); b == "." || b == ".." {
			continue
		}
		e, ok := k.a.target(k.st, Delete, f, false)
		if ok && !e.Unknown {
			noFollow[e.Target] = true
		}
	}
	for i := mark; i < len(k.cmd.Effects); i++ {
		if e := &k.cmd.Effects[i]; e.Kind == Delete && !e.Unknown && noFollow[e.Target] {
			e.Link = true
		}
	}
}

// hardLink judges ln without -s: a hard link is a second name for the
// same file, whose content the new name gives access to, so making one of
// a file is reading it (ln ~/.ssh/id_ed25519 k is a read of the key), and a
// later read of the new name in the line reads the original.
func (k *call) hardLink(p parsed) {
	if p.has("s", "symbolic") || len(p.ops) == 0 {
		return
	}
	srcs := p.ops
	if _, ok := p.get("t", "target-directory"); !ok && len(srcs) > 1 {
		srcs = srcs[:len(srcs)-1]
	}
	k.files(Read, srcs, false)
	if _, ok := p.get("t", "target-directory"); ok || len(p.ops) > 2 {
		return
	}
	src := p.ops[0]
	name := sub(src, path.Base(src.val))
	if len(p.ops) == 2 {
		name = p.ops[1]
	}
	if !src.known || !name.known || src.glob || name.glob {
		return
	}
	se, ok1 := k.a.target(k.st, Read, src, false)
	le, ok2 := k.a.target(k.st, Write, name, false)
	if !ok1 || !ok2 || se.Unknown || le.Unknown || se.Target == "" || le.Target == "" {
		return
	}
	if k.a.links == nil {
		k.a.links = map[string]string{}
	}
	if len(k.a.links) < maxLoopItems {
		k.a.links[le.Target] = se.Target
	}
}
