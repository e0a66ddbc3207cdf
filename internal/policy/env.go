package policy

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Env is the machine a policy judges paths on. It is injected: Decide never
// reads the process environment.
type Env struct {
	// Home is the user's home directory ("~", $HOME; the "home" class).
	Home string `json:"home" yaml:"home"`
	// TempDirs are scratch directories (the "temp" class), e.g. /tmp.
	TempDirs []string `json:"temp_dirs,omitempty" yaml:"temp_dirs,omitempty"`
	// ProtectedDirs are warden's own data and config directories ($PROTECTED
	// in path patterns): agents may read them but never change them.
	ProtectedDirs []string `json:"protected_dirs,omitempty" yaml:"protected_dirs,omitempty"`
	// WardenBinaries are absolute paths of warden's own binaries (the
	// running daemon's, the one the installed hooks run). A program run by
	// one of these paths is warden whatever its name; a program named
	// "warden" always is. Signals to processes of these names are signals
	// to the daemon.
	WardenBinaries []string `json:"warden_binaries,omitempty" yaml:"warden_binaries,omitempty"`
	// PolicyFiles are the policy files the daemon runs (serve --policy,
	// the config's policy:): agents may read them (they are often checked
	// into the workspace), never change them.
	PolicyFiles []string `json:"policy_files,omitempty" yaml:"policy_files,omitempty"`
	// Vars are environment variables the agents' commands are assumed to
	// see, as the daemon knows them ($WARDEN_DATA_DIR, $XDG_DATA_HOME,
	// $XDG_CONFIG_HOME), so "cat $WARDEN_DATA_DIR/token" is judged as a
	// read of the token. HOME and TMPDIR come from Home and TempDirs.
	Vars map[string]string `json:"vars,omitempty" yaml:"vars,omitempty"`
	// DaemonPIDs are the process ids of the running warden daemon(s):
	// kill of one of them is a signal to the daemon.
	DaemonPIDs []int `json:"daemon_pids,omitempty" yaml:"daemon_pids,omitempty"`
	// DaemonPorts are the TCP ports warden's doors listen on: stopping
	// what holds one (fuser -k PORT/tcp, kill $(lsof -t -i :PORT)) is a
	// signal to the daemon. DefaultEnv lists the default doors' ports
	// that no everyday server uses (DefaultDaemonPorts); the daemon adds
	// the ports its config gives the doors.
	DaemonPorts []int `json:"daemon_ports,omitempty" yaml:"daemon_ports,omitempty"`
}

// DefaultEnv describes this machine from the process environment: the home
// directory, the temp dirs (os.TempDir, /tmp, /var/tmp), warden's data
// and config dirs ($XDG_DATA_HOME/warden else ~/.local/share/warden,
// $XDG_CONFIG_HOME/warden else ~/.config/warden) and, in Vars, the XDG
// variables that are set. The CLI calls it; Decide never does.
func DefaultEnv() Env {
	var env Env
	if h, err := os.UserHomeDir(); err == nil {
		env.Home = filepath.Clean(h)
	}
	env.TempDirs = appendUniqueDirs(nil, os.TempDir(), "/tmp", "/var/tmp")
	env.DaemonPorts = append(env.DaemonPorts, DefaultDaemonPorts()...)
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" && env.Home != "" {
		data = filepath.Join(env.Home, ".local", "share")
	}
	conf := os.Getenv("XDG_CONFIG_HOME")
	if conf == "" && env.Home != "" {
		conf = filepath.Join(env.Home, ".config")
	}
	for _, d := range []string{data, conf} {
		if d != "" && filepath.IsAbs(d) {
			env.ProtectedDirs = appendUniqueDirs(env.ProtectedDirs, filepath.Join(d, "warden"))
		}
	}
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME"} {
		if x := os.Getenv(v); x != "" && filepath.IsAbs(x) {
			if env.Vars == nil {
				env.Vars = map[string]string{}
			}
			env.Vars[v] = x
		}
	}
	return env
}

func appendUniqueDirs(list []string, dirs ...string) []string {
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		dup := false
		for _, x := range list {
			if x == d {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, d)
		}
	}
	return list
}

// Class is where a target lies, as the policy sees it.
type Class string

// The target classes, from least to most severe.
const (
	ClassWorkspace Class = "workspace" // inside the call's workspace
	ClassTemp      Class = "temp"      // inside a temp dir
	ClassHome      Class = "home"      // under the home dir, outside the workspace
	ClassSystem    Class = "system"    // anywhere else: /, /etc, /usr, /dev, ...
	ClassUnknown   Class = "unknown"   // cannot be known at check time
)

func classRank(c Class) int {
	switch c {
	case ClassWorkspace:
		return 0
	case ClassTemp:
		return 1
	case ClassHome:
		return 2
	case ClassSystem:
		return 3
	}
	return 4
}

// roots are the env's directories, lexically and after symlinks.
type roots struct {
	home, homeR     string
	temps, tempsR   []string
	protected       []string
	protectedR      []string
	allTemp, allPro []string // lexical and resolved together, for $TEMP/$PROTECTED
	binaries        []string // warden's binaries, lexical and resolved
	envVars         map[string]string
	policyFiles     []string // the daemon's policy files, lexical and resolved
	pids            []int    // the daemon's pids
	ports           []int    // the daemon's ports
}

func newRoots(env Env) *roots {
	r := &roots{}
	if env.Home != "" && filepath.IsAbs(env.Home) {
		r.home = filepath.Clean(env.Home)
		r.homeR = resolvePath(r.home)
	}
	for _, t := range env.TempDirs {
		if t == "" || !filepath.IsAbs(t) {
			continue
		}
		t = filepath.Clean(t)
		r.temps = append(r.temps, t)
		r.tempsR = append(r.tempsR, resolvePath(t))
	}
	for _, d := range env.ProtectedDirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		r.protected = append(r.protected, d)
		r.protectedR = append(r.protectedR, resolvePath(d))
	}
	for _, b := range env.WardenBinaries {
		if b != "" && filepath.IsAbs(b) {
			r.binaries = appendUniqueDirs(r.binaries, filepath.Clean(b), resolvePath(filepath.Clean(b)))
		}
	}
	for _, f := range env.PolicyFiles {
		if f != "" && filepath.IsAbs(f) {
			r.policyFiles = appendUniqueDirs(r.policyFiles, filepath.Clean(f), resolvePath(filepath.Clean(f)))
		}
	}
	r.pids = append(r.pids, env.DaemonPIDs...)
	r.ports = append(r.ports, env.DaemonPorts...)
	for k, v := range env.Vars {
		if r.envVars == nil {
			r.envVars = map[string]string{}
		}
		r.envVars[k] = v
	}
	r.allTemp = appendUniqueDirs(appendUniqueDirs(nil, r.temps...), r.tempsR...)
	r.allPro = appendUniqueDirs(appendUniqueDirs(nil, r.protected...), r.protectedR...)
	// the daemon's /proc entries (environ, fd/N: the open log and socket,
	// cwd, root, mem) are warden's own data too
	for _, pid := range r.pids {
		if pid > 0 {
			r.allPro = appendUniqueDirs(r.allPro, "/proc/"+strconv.Itoa(pid))
		}
	}
	return r
}

func (r *roots) vars() pathVars {
	return pathVars{home: r.home, temp: r.allTemp, protected: r.allPro, binaries: r.binaries, policyFiles: r.policyFiles}
}

// within reports whether p is root or below it.
func within(p, root string) bool {
	if root == "" {
		return false
	}
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == root || (strings.HasPrefix(p, root) && len(p) > len(root) && p[len(root)] == '/')
}

// classify gives the class of absolute path p: the innermost root
// containing it wins. Each root is given in both spellings (as written and
// after symlinks), so a path is judged the same however the workspace, home
// or temp dir was reached.
func classify(p string, ws [2]string, home [2]string, temps []string) Class {
	best, bestLen := ClassSystem, -1
	for _, w := range ws {
		if within(p, w) && len(w) > bestLen {
			best, bestLen = ClassWorkspace, len(w)
		}
	}
	for _, t := range temps {
		if within(p, t) && len(t) > bestLen {
			best, bestLen = ClassTemp, len(t)
		}
	}
	if t := macTempRoot(p); t != "" && len(t) > bestLen {
		best, bestLen = ClassTemp, len(t)
	}
	for _, h := range home {
		if within(p, h) && len(h) > bestLen {
			best, bestLen = ClassHome, len(h)
		}
	}
	return best
}

// macTempRoot returns the macOS per-user temp dir ($TMPDIR,
// /var/folders/XX/YYYY/T, also reached as /private/var/folders/...) that p is
// in, or "". It is a temp dir on every Mac whatever Env.TempDirs says, so a
// policy judged on another machine (warden policy eval in CI) classifies it
// the same. Its siblings (…/C, caches; …/0) are not temp.
func macTempRoot(p string) string {
	rest, ok := strings.CutPrefix(p, "/private")
	if !ok {
		rest = p
	}
	const pre = "/var/folders/"
	if !strings.HasPrefix(rest, pre) {
		return ""
	}
	parts := strings.SplitN(rest[len(pre):], "/", 4)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" || parts[2] != "T" {
		return ""
	}
	n := len(p) - len(rest) + len(pre) + len(parts[0]) + 1 + len(parts[1]) + 2
	return p[:n]
}

// broadWorkspace reports whether ws is too broad to be a workspace: the
// root, the home dir or an ancestor of it, or a temp dir or an ancestor of
// one. Such a workspace would make the home dir "inside the workspace".
func (r *roots) broadWorkspace(ws string) bool {
	if ws == "/" {
		return true
	}
	if within(r.home, ws) || within(r.homeR, ws) {
		return true
	}
	for _, t := range r.allTemp {
		if within(t, ws) {
			return true
		}
	}
	return false
}

// maxLinks bounds how many symlinks resolvePath follows (loops).
const maxLinks = 64

// resolvePath resolves the symlinks of the longest existing prefix of the
// absolute, clean path p and appends the rest as written, like
// filepath.EvalSymlinks but tolerant of a missing tail: it walks p from the
// root, one Lstat per component, and stops at the first one that does not
// exist. Dangling symlinks are followed to where they point. On a symlink
// loop it returns p.
// readScript returns the content of the script at p for the analyser (see
// shell.Options.ReadFile): a regular file, symlinks followed, of at most
// max bytes. A FIFO or a device is refused before it is opened, so a read
// never blocks.
func readScript(p string, max int64) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("script %s is not a regular file", p)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("script %s is larger than %d bytes", p, max)
	}
	// non-blocking, and checked again once open: the path may have been
	// swapped for a FIFO in between
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", p, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("script %s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", p, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("script %s is larger than %d bytes", p, max)
	}
	return b, nil
}

// isDir reports whether an absolute path is an existing directory.
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func resolvePath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	resolved, rest, links := "/", p, 0
	for rest != "" {
		var comp string
		rest = strings.TrimLeft(rest, "/")
		if rest == "" {
			break
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		switch comp {
		case ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := resolved + "/" + comp
		if resolved == "/" {
			next = "/" + comp
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable): the rest is taken as written.
			if rest == "" {
				return next
			}
			return filepath.Join(next, rest)
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		links++
		if links > maxLinks {
			return p
		}
		target, err := os.Readlink(next)
		if err != nil {
			return p
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		if rest == "" {
			rest = target
		} else {
			rest = target + "/" + rest
		}
	}
	return resolved
}

// reachesProtected reports whether an effect on target (resolved: after
// symlinks) reaches into one of warden's own dirs: the target is one or is
// inside one; or the effect is recursive, not a walk over names (meta),
// and the target holds one (grep -r ~/.local, tar of ~); or glob, the
// pattern the target was written as, can name one or something inside
// one.
func (r *roots) reachesProtected(target, resolved string, recursive, meta bool, glob string) bool {
	if target == "" {
		return false
	}
	// A glob's target is the directory before its first glob segment: what
	// it reaches is decided by the pattern, segment by segment (rm -rf
	// /tmp/x/go-build* cannot name /tmp/x/home/.local/share/warden, rm -rf
	// /tmp/x/* can), as written and with that directory's symlinks resolved.
	var globR string
	if glob != "" && resolved != "" && resolved != target && strings.HasPrefix(glob, target+"/") {
		globR = resolved + glob[len(target):]
	}
	for _, d := range r.allPro {
		for _, t := range [2]string{target, resolved} {
			if t == "" {
				continue
			}
			if within(t, d) || glob == "" && recursive && !meta && within(d, t) {
				return true
			}
		}
		if glob != "" && globReaches(glob, d, recursive && !meta, meta) {
			return true
		}
		if globR != "" && globReaches(globR, d, recursive && !meta, meta) {
			return true
		}
	}
	return false
}

// globReaches reports whether the absolute shell glob pattern can name dir,
// a path below it, or (recursive) a directory above it. Each segment is
// matched like the shell does: "*" and "?" do not match a leading dot, and
// "**" spans any number of segments; for a search by name (meta) a "**"
// passes through dir without reaching into it, as find does.
func globReaches(pattern, dir string, recursive, meta bool) bool {
	ps := strings.Split(strings.Trim(pattern, "/"), "/")
	ds := strings.Split(strings.Trim(dir, "/"), "/")
	if dir == "/" {
		ds = nil
	}
	for i, seg := range ps {
		if i >= len(ds) {
			return true // the pattern names paths inside dir
		}
		if seg == "**" {
			return !meta
		}
		if !globSegment(seg, ds[i]) {
			return false
		}
	}
	// the pattern names dir itself or a directory above it
	return len(ps) == len(ds) || recursive
}

// globSegment matches one path segment against one glob segment, as the
// shell does by default (no dotglob): a leading dot must be matched
// literally. A malformed pattern matches (fail-closed).
func globSegment(seg, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(seg, ".") {
		return false
	}
	ok, err := filepath.Match(seg, name)
	return ok || err != nil
}
