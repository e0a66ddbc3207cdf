// Package binfind locates an agent's program (opencode, claude) the way
// warden's SetupInfo implementations need it: an explicitly configured path
// first, then the directories of a PATH value, then the node_modules folders
// npm installs agents into. It reads no global state except, when asked to,
// the process's PATH.
package binfind

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/warden-dev/warden/internal/integrations/agent"
)

// ErrNotExecutable says a file exists but cannot be run: a directory, or a
// file without an execute bit.
var ErrNotExecutable = errors.New("binfind: not an executable file")

// Options says where Find looks.
type Options struct {
	// Configured is a path the user configured explicitly. When set it is
	// the only candidate: if it is not an executable file, Find fails and
	// does not fall back to PATH or npm.
	Configured string
	// PathEnv is the PATH value to search ("" means the process's PATH).
	// Empty entries (which a shell reads as the current directory) are
	// skipped.
	PathEnv string
	// NpmDirs are node_modules folders to look in, in order, e.g.
	// <repo>/.cache/agents/node_modules or /usr/local/lib/node_modules.
	NpmDirs []string
	// Candidates are paths relative to each of NpmDirs that may hold the
	// program, in order of preference, e.g. "opencode-ai/bin/opencode.exe"
	// or ".bin/opencode".
	Candidates []string
}

// Find returns the path of the program name: Options.Configured when set,
// else the first executable name in the PATH directories, else the first
// executable candidate in the npm folders (every candidate in the first
// folder before the second folder). When nothing is found the error wraps
// agent.ErrNoBinary and lists every place searched; a configured path that
// is not executable also wraps agent.ErrNoBinary (and the reason).
func Find(name string, opts Options) (string, error) {
	if opts.Configured != "" {
		if err := executable(opts.Configured); err != nil {
			return "", fmt.Errorf("%w: %s: configured path %s: %w", agent.ErrNoBinary, name, opts.Configured, err)
		}
		return opts.Configured, nil
	}
	var searched []string
	pathEnv := opts.PathEnv
	if pathEnv == "" {
		pathEnv = os.Getenv("PATH")
	}
	if name != "" {
		for _, dir := range filepath.SplitList(pathEnv) {
			if dir == "" {
				continue
			}
			for _, n := range exeNames(name) {
				p := filepath.Join(dir, n)
				searched = append(searched, p)
				if executable(p) == nil {
					return p, nil
				}
			}
		}
	}
	for _, dir := range opts.NpmDirs {
		if dir == "" {
			continue
		}
		for _, c := range opts.Candidates {
			p := filepath.Join(dir, filepath.FromSlash(c))
			searched = append(searched, p)
			if executable(p) == nil {
				return p, nil
			}
		}
	}
	return "", &NotFoundError{Name: name, Searched: searched}
}

// SearchedMarker starts the list of places searched at the end of an error
// message that gives its hint first: "... (searched: /a, /b)". A CLI not
// asked for detail cuts the message there.
const SearchedMarker = " (searched: "

// NotFoundError is Find's error when no place held the program: it wraps
// agent.ErrNoBinary and keeps every place searched, so a caller can give the
// hint first and the list only on request.
type NotFoundError struct {
	// Name is the program's name.
	Name string
	// Searched lists every path tried, in order.
	Searched []string
}

// Error names the program and every place searched.
func (e *NotFoundError) Error() string {
	if len(e.Searched) == 0 {
		return fmt.Sprintf("%v: %s: no place to search (empty PATH, no npm folders)", agent.ErrNoBinary, e.Name)
	}
	return fmt.Sprintf("%v: %s: searched %s", agent.ErrNoBinary, e.Name, strings.Join(e.Searched, ", "))
}

// Unwrap makes errors.Is(err, agent.ErrNoBinary) hold.
func (e *NotFoundError) Unwrap() error { return agent.ErrNoBinary }

// DefaultNpmDirs returns the node_modules folders warden searches by
// default: repo's .cache/agents/node_modules (skipped when repo is ""),
// home's ~/.npm-global/lib/node_modules (skipped when home is ""), then
// /usr/local/lib/node_modules and /usr/lib/node_modules.
func DefaultNpmDirs(repo, home string) []string {
	var dirs []string
	if repo != "" {
		dirs = append(dirs, filepath.Join(repo, ".cache", "agents", "node_modules"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".npm-global", "lib", "node_modules"))
	}
	return append(dirs, "/usr/local/lib/node_modules", "/usr/lib/node_modules")
}

// exeNames returns the file names a program is found under on this OS.
func exeNames(name string) []string {
	if runtime.GOOS == "windows" && !strings.EqualFold(filepath.Ext(name), ".exe") {
		return []string{name + ".exe", name}
	}
	return []string{name}
}

// executable returns nil when p (after symlinks) is a regular file that can
// be run: on Unix, one with an execute bit.
func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w (%s)", ErrNotExecutable, describe(fi.Mode()))
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%w (mode %v)", ErrNotExecutable, fi.Mode().Perm())
	}
	return nil
}

func describe(m fs.FileMode) string {
	if m.IsDir() {
		return "a directory"
	}
	return "not a regular file"
}
