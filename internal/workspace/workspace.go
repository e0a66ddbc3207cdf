// Package workspace is warden's registry of workspaces: the directories
// agents work in, each with its key/value metadata, the agent warden runs
// for it, and, for workspaces warden made itself, the git worktree behind
// it. The registry is a JSON file in the data dir, rewritten atomically on
// every change, so a change that returned nil survives a crash.
package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/warden-dev/warden/internal/atomicfile"
)

// FileName is the registry's file in the data dir.
const FileName = "workspaces.json"

// Limits on metadata.
const (
	MaxMetadataKeys  = 64
	MaxMetadataValue = 4096
)

// Errors returned by the registry.
var (
	ErrNotFound   = errors.New("workspace: not registered")
	ErrExists     = errors.New("workspace: already exists")
	ErrBadName    = errors.New("workspace: invalid name")
	ErrBadKey     = errors.New("workspace: invalid metadata key")
	ErrNotProject = errors.New("workspace: not a git repository")
)

// Workspace is one registered workspace.
type Workspace struct {
	// Path is the absolute, symlink-resolved root.
	Path string `json:"path"`
	// Name is a short name (the directory's base name, or the name given to
	// create).
	Name string `json:"name"`
	// Project is the repository a created workspace is a worktree of.
	Project string `json:"project,omitempty"`
	// Branch is the branch of a created worktree.
	Branch string `json:"branch,omitempty"`
	// Managed is true when warden created the worktree; removing the
	// workspace removes the worktree.
	Managed bool `json:"managed,omitempty"`
	// Agent is the agent type warden runs for this workspace ("" for none);
	// the daemon starts it again when it starts.
	Agent string `json:"agent,omitempty"`
	// Metadata is the workspace's key/value metadata.
	Metadata map[string]string `json:"metadata,omitempty"`
	// AllowBroad is set when a person registered a broad directory (/,
	// the home directory, a system directory) on purpose (--allow-broad).
	AllowBroad bool `json:"allowBroad,omitempty"`
	// Added is when it was registered.
	Added time.Time `json:"added"`
}

// Registry is the set of workspaces, persisted in one file. It is safe for
// concurrent use.
type Registry struct {
	file      string
	now       func() time.Time
	git       string
	home      string
	protected []string
	refuse    func(string) string

	mu    sync.Mutex
	items map[string]Workspace
}

// Options configure Open.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Git is the git program (default "git" from PATH).
	Git string
	// Home is the user's home directory, never a workspace itself
	// (default os.UserHomeDir).
	Home string
	// Protected are directories no workspace may contain (warden's data
	// and config dirs: a workspace is what agents may write).
	Protected []string
	// Refuse, when set, says why root cannot be a workspace beyond the
	// rules of Broad ("" when it can): the daemon asks its kernel sandbox,
	// which refuses a directory that is, or holds, a secret location
	// (~/.ssh, ~/.aws, another agent's config).
	Refuse func(root string) string
}

// Open loads the registry from file (a missing file is an empty registry).
func Open(file string, opts Options) (*Registry, error) {
	r := &Registry{file: file, now: opts.Now, git: opts.Git, home: opts.Home, protected: opts.Protected, refuse: opts.Refuse, items: map[string]Workspace{}}
	if r.home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			r.home = h
		}
	}
	if h, err := filepath.EvalSymlinks(r.home); err == nil {
		r.home = h
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.git == "" {
		r.git = "git"
	}
	b, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return r, nil
	case err != nil:
		return nil, fmt.Errorf("read workspaces %s: %w", file, err)
	}
	var doc struct {
		Workspaces []Workspace `json:"workspaces"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("read workspaces %s: %w (move the file aside to start with none)", file, err)
	}
	for _, w := range doc.Workspaces {
		if w.Path != "" {
			r.items[w.Path] = w
		}
	}
	return r, nil
}

// save writes the registry; the caller holds mu.
func (r *Registry) save() error {
	list := r.listLocked()
	b, err := json.MarshalIndent(struct {
		Workspaces []Workspace `json:"workspaces"`
	}{list}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode workspaces: %w", err)
	}
	if err := atomicfile.Write(r.file, append(b, '\n'), 0o600, 0o700); err != nil {
		return fmt.Errorf("write workspaces %s: %w", r.file, err)
	}
	return nil
}

func (r *Registry) listLocked() []Workspace {
	out := make([]Workspace, 0, len(r.items))
	for _, w := range r.items {
		out = append(out, clone(w))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func clone(w Workspace) Workspace {
	if w.Metadata != nil {
		m := make(map[string]string, len(w.Metadata))
		for k, v := range w.Metadata {
			m[k] = v
		}
		w.Metadata = m
	}
	return w
}

// Resolve turns a user's path into the form the registry keys on: absolute,
// cleaned, symlinks resolved. The directory must exist.
func Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("workspace: empty path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", path, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", path, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s: not a directory", path)
	}
	return real, nil
}

// ErrBroad reports a directory too broad to be a workspace.
var ErrBroad = errors.New("too broad to be a workspace")

// systemDirs are directories that are never a workspace, nor is anything
// above them.
var systemDirs = []string{"/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/proc", "/run",
	"/sbin", "/srv", "/sys", "/usr", "/var", "/home", "/Users", "/System", "/Library", "/private", "/snap"}

// Broad says why root (absolute, resolved) is too broad to be a workspace:
// an agent may write all of a workspace, and warden's kernel sandbox opens
// it read-write. The root directory, the home directory or anything above
// it, a system directory or anything inside one (the temp dirs apart), and
// a directory holding warden's own data or config are refused; "" means
// root is fine.
func (r *Registry) Broad(root string) string {
	root = filepath.Clean(root)
	if root == "/" {
		return "it is the root directory"
	}
	if r.home != "" && (root == r.home || strings.HasPrefix(r.home, root+"/")) {
		return "it is the home directory " + r.home + " or holds it"
	}
	for _, p := range r.protected {
		if p != "" && (root == p || strings.HasPrefix(p, root+"/") || strings.HasPrefix(root, p+"/")) {
			return "it holds (or is inside) warden's own directory " + p
		}
	}
	tmp := os.TempDir()
	if t, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = t
	}
	for _, t := range []string{"/tmp", "/var/tmp", tmp} {
		if strings.HasPrefix(root, t+"/") {
			return ""
		}
	}
	for _, d := range systemDirs {
		if root == d || strings.HasPrefix(root, d+"/") && !r.inHome(root) {
			return "it is the system directory " + d + " or inside it"
		}
	}
	return ""
}

func (r *Registry) inHome(p string) bool {
	return r.home != "" && strings.HasPrefix(p, r.home+"/")
}

// AddOptions change how Add registers a directory.
type AddOptions struct {
	// AllowBroad registers a directory Broad refuses (a person's explicit
	// choice: `warden workspace add --allow-broad`).
	AllowBroad bool
}

// Add registers the directory at path. It returns the workspace and
// whether it was new; adding a registered path changes nothing. A
// directory too broad to be a workspace (Broad) is refused with ErrBroad.
func (r *Registry) Add(path string) (Workspace, bool, error) {
	return r.AddWith(path, AddOptions{})
}

// AddWith is Add with options.
func (r *Registry) AddWith(path string, o AddOptions) (Workspace, bool, error) {
	root, err := Resolve(path)
	if err != nil {
		return Workspace{}, false, err
	}
	why := r.Broad(root)
	if why == "" && r.refuse != nil {
		why = r.refuse(root)
	}
	if why != "" && !o.AllowBroad {
		return Workspace{}, false, fmt.Errorf("workspace %s: %w: %s; register a project directory instead (or, knowing that an agent may then change all of it, add --allow-broad)", root, ErrBroad, why)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if w, ok := r.items[root]; ok {
		return clone(w), false, nil
	}
	w := Workspace{Path: root, Name: filepath.Base(root), Added: r.now().UTC(), AllowBroad: why != ""}
	r.items[root] = w
	if err := r.save(); err != nil {
		delete(r.items, root)
		return Workspace{}, false, err
	}
	return clone(w), true, nil
}

// Get returns the workspace registered at exactly path (resolved).
func (r *Registry) Get(path string) (Workspace, error) {
	root, err := r.key(path)
	if err != nil {
		return Workspace{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.items[root]
	if !ok {
		return Workspace{}, notRegistered(root)
	}
	return clone(w), nil
}

// notRegistered is ErrNotFound for root, saying what to run.
func notRegistered(root string) error {
	return fmt.Errorf("%w: %s (add it with `warden workspace add %s`)", ErrNotFound, root, root)
}

// key resolves path, falling back to a cleaned absolute path for a
// directory that no longer exists (so a deleted workspace can be removed).
func (r *Registry) key(path string) (string, error) {
	if root, err := Resolve(path); err == nil {
		return root, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", path, err)
	}
	return filepath.Clean(abs), nil
}

// Lookup returns the root of the registered workspace that holds path (the
// deepest one when workspaces nest).
func (r *Registry) Lookup(path string) (string, bool) {
	p, err := r.key(path)
	if err != nil {
		return "", false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if w, ok := r.items[p]; ok {
			if !w.AllowBroad && r.Broad(p) != "" {
				// registered before broad roots were refused: not served
				return "", false
			}
			return p, true
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		p = parent
	}
}

// Root is Lookup with an error (ErrNotFound, saying what to run) for a
// path in no registered workspace.
func (r *Registry) Root(path string) (string, error) {
	if root, ok := r.Lookup(path); ok {
		return root, nil
	}
	p, err := r.key(path)
	if err != nil {
		return "", err
	}
	return "", notRegistered(p)
}

// List returns every workspace, sorted by path.
func (r *Registry) List() []Workspace {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listLocked()
}

// Remove unregisters the workspace at path and returns it. It does not
// touch the directory; see Delete.
func (r *Registry) Remove(path string) (Workspace, error) {
	root, err := r.key(path)
	if err != nil {
		return Workspace{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w, ok := r.items[root]
	if !ok {
		return Workspace{}, notRegistered(root)
	}
	delete(r.items, root)
	if err := r.save(); err != nil {
		r.items[root] = w
		return Workspace{}, err
	}
	return w, nil
}

// update applies fn to the workspace at path and saves; on a failed save
// the change is undone.
func (r *Registry) update(path string, fn func(*Workspace) error) (Workspace, error) {
	root, err := r.key(path)
	if err != nil {
		return Workspace{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok := r.items[root]
	if !ok {
		return Workspace{}, notRegistered(root)
	}
	w := clone(old)
	if err := fn(&w); err != nil {
		return Workspace{}, err
	}
	r.items[root] = w
	if err := r.save(); err != nil {
		r.items[root] = old
		return Workspace{}, err
	}
	return clone(w), nil
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// SetMetadata sets key to *value, or deletes it when value is nil.
func (r *Registry) SetMetadata(path, key string, value *string) (Workspace, error) {
	if !keyRE.MatchString(key) {
		return Workspace{}, fmt.Errorf("%w %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrBadKey, key)
	}
	if value != nil && len(*value) > MaxMetadataValue {
		return Workspace{}, fmt.Errorf("workspace: metadata value for %q is %d bytes; the limit is %d", key, len(*value), MaxMetadataValue)
	}
	return r.update(path, func(w *Workspace) error {
		if value == nil {
			delete(w.Metadata, key)
			return nil
		}
		if w.Metadata == nil {
			w.Metadata = map[string]string{}
		}
		if _, ok := w.Metadata[key]; !ok && len(w.Metadata) >= MaxMetadataKeys {
			return fmt.Errorf("workspace: at most %d metadata keys", MaxMetadataKeys)
		}
		w.Metadata[key] = *value
		return nil
	})
}

// SetAgent records the agent type warden runs for the workspace ("" for
// none).
func (r *Registry) SetAgent(path, agent string) (Workspace, error) {
	return r.update(path, func(w *Workspace) error { w.Agent = agent; return nil })
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CreateOptions configure Create.
type CreateOptions struct {
	// Project is a directory inside the git repository to branch from.
	Project string
	// Name names the workspace and its new branch.
	Name string
	// Base is the commit-ish the branch starts at ("" = the project's HEAD).
	Base string
	// Dir is the parent directory of the new worktree; "" puts it next to
	// the repository, in <repo>.worktrees/ (outside warden's data dir,
	// which the policy protects from agents).
	Dir string
}

// Create makes a new workspace as a git worktree of the project: a new
// branch Name at Base, checked out in Dir/Name, registered as managed.
func (r *Registry) Create(ctx context.Context, o CreateOptions) (Workspace, error) {
	if !nameRE.MatchString(o.Name) || strings.Contains(o.Name, "..") || strings.HasSuffix(o.Name, ".lock") || strings.HasSuffix(o.Name, ".") {
		return Workspace{}, fmt.Errorf("%w %q: use letters, digits, '.', '_' or '-' (it names a directory and a git branch)", ErrBadName, o.Name)
	}
	proj, err := Resolve(o.Project)
	if err != nil {
		return Workspace{}, err
	}
	top, err := r.run(ctx, proj, "rev-parse", "--show-toplevel")
	if err != nil {
		return Workspace{}, fmt.Errorf("%w: %s: %v", ErrNotProject, proj, err)
	}
	// Worktrees of a worktree belong to the main repository.
	common, err := r.run(ctx, top, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err == nil && filepath.Base(common) == ".git" {
		top = filepath.Dir(common)
	}
	if o.Dir == "" {
		o.Dir = filepath.Join(filepath.Dir(top), filepath.Base(top)+".worktrees")
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return Workspace{}, fmt.Errorf("create worktree dir: %w", err)
	}
	dir := filepath.Join(o.Dir, o.Name)
	if _, err := os.Lstat(dir); err == nil {
		return Workspace{}, fmt.Errorf("%w: %s", ErrExists, dir)
	}
	args := []string{"worktree", "add", "-b", o.Name, dir}
	if o.Base != "" {
		if strings.HasPrefix(o.Base, "-") {
			return Workspace{}, fmt.Errorf("%w: base %q", ErrBadName, o.Base)
		}
		args = append(args, o.Base)
	}
	if _, err := r.run(ctx, top, args...); err != nil {
		return Workspace{}, fmt.Errorf("create worktree %s: %w", dir, err)
	}
	root, err := Resolve(dir)
	if err != nil {
		return Workspace{}, err
	}
	w := Workspace{Path: root, Name: o.Name, Project: top, Branch: o.Name, Managed: true, Added: r.now().UTC()}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.items[root] = w
	if err := r.save(); err != nil {
		delete(r.items, root)
		_, _ = r.run(context.WithoutCancel(ctx), top, "worktree", "remove", "--force", root)
		return Workspace{}, err
	}
	return clone(w), nil
}

// Delete unregisters the workspace at path and, when warden created it,
// removes its worktree (force discards uncommitted changes; without it a
// dirty worktree is an error and nothing changes). The branch is kept.
func (r *Registry) Delete(ctx context.Context, path string, force bool) (Workspace, error) {
	w, err := r.Get(path)
	if err != nil {
		return Workspace{}, err
	}
	if w.Managed {
		args := []string{"worktree", "remove", w.Path}
		if force {
			args = []string{"worktree", "remove", "--force", w.Path}
		}
		if _, err := os.Stat(w.Path); err == nil {
			if _, err := r.run(ctx, w.Project, args...); err != nil {
				return Workspace{}, fmt.Errorf("remove worktree %s: %w (commit or discard the changes, or remove with --force)", w.Path, err)
			}
		} else {
			_, _ = r.run(ctx, w.Project, "worktree", "prune")
		}
	}
	return r.Remove(w.Path)
}

// Dirty reports whether the workspace's git tree has uncommitted changes
// (false for a directory that is not a repository).
func (r *Registry) Dirty(ctx context.Context, path string) bool {
	out, err := r.run(ctx, path, "status", "--porcelain", "--untracked-files=normal")
	return err == nil && out != ""
}

func (r *Registry) run(ctx context.Context, dir string, args ...string) (string, error) {
	// warden's bookkeeping runs unconfined: none of the programs a
	// repository's config names (an agent can write it) may run here
	safe := []string{"-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "diff.external=", "-c", "core.sshCommand=false"}
	cmd := exec.CommandContext(ctx, r.git, append(safe, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSpace(out.String()), nil
}
