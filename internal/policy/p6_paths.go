package policy

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// linkResolved is where the last component of the absolute, clean path p
// really is when it is taken as itself, not followed (rm of a symlink):
// its directory's symlinks resolved, its name as written.
func linkResolved(p string) string {
	dir, base := filepath.Split(p)
	if base == "" || dir == "" {
		return resolvePath(p)
	}
	return filepath.Join(resolvePath(filepath.Clean(dir)), base)
}

// exists reports whether the path exists (a dangling symlink counts). A
// recursive effect on a directory reaches one of warden's own dirs below
// it only when that dir is there: an extraction into /tmp cannot touch a
// data dir that does not exist (the daemon's always does).
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// writeReaches reports whether a recursive write of target (resolved:
// after symlinks) reaches one of warden's own dirs: the target is in one,
// or holds one that exists. Files put into a tree (tar -x -C /tmp, cp -r
// x /tmp) cannot change warden's data where there is none; the daemon's
// data dir always exists, so the write stays denied where it matters.
func (r *roots) writeReaches(target, resolved string) bool {
	for _, d := range r.allPro {
		for _, t := range [2]string{target, resolved} {
			if t == "" {
				continue
			}
			if within(t, d) || within(d, t) && exists(d) {
				return true
			}
		}
	}
	return false
}

// DefaultDaemonPorts returns the ports of warden's doors by default that no
// everyday server uses: the monitor (37123), hooks (37124), MCP (37125)
// and control (19876) doors. The agent API (8080) and health (8081)
// doors' defaults are every web developer's ports too; they count when
// the daemon's config has them listen (Env.DaemonPorts).
func DefaultDaemonPorts() []int { return []int{37123, 37124, 37125, 19876} }

// holdsPort reports whether a signal or process lookup selects processes
// by a port (attr port) that is one of the daemon's.
func (r *roots) holdsPort(attrs map[string]string) bool {
	ps := attrs["port"]
	if ps == "" || len(r.ports) == 0 {
		return false
	}
	for _, p := range strings.Split(ps, ",") {
		n, err := strconv.Atoi(p)
		if err != nil {
			continue
		}
		for _, q := range r.ports {
			if q == n {
				return true
			}
		}
	}
	return false
}
