package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/warden-dev/warden/internal/policy"
)

// Access is what a confined process may do under a path.
type Access string

// The kinds of access a Profile grants or refuses.
const (
	// ReadWrite: read, write, create, remove, rename and execute.
	ReadWrite Access = "read-write"
	// ReadExec: read files, list directories, execute programs.
	ReadExec Access = "read-exec"
	// ReadOnly: read files and list directories; nothing runs from here.
	ReadOnly Access = "read-only"
	// Denied: nothing at all (a secret location; listed to explain, and
	// checked: no grant may contain one or lie inside one).
	Denied Access = "denied"
)

// Entry is one path of a Profile.
type Entry struct {
	// Path is absolute and clean.
	Path string `json:"path"`
	// Access is what the confined process may do under Path.
	Access Access `json:"access"`
	// Why says where the entry comes from ("the workspace", "Go build
	// cache", "sandbox.readWrite in the policy", "SSH keys", ...).
	Why string `json:"why"`
	// Device grants ioctl on device files (terminals).
	Device bool `json:"device,omitempty"`
	// Create: a missing directory is created (0700) just before the
	// profile is applied, so a first build can fill its cache.
	Create bool `json:"create,omitempty"`
	// Missing: the path did not exist when the profile was built; it is
	// granted only if it exists (or is created) when the profile is applied.
	Missing bool `json:"missing,omitempty"`
	// Dev and Ino identify the file Path led to when the profile was built
	// (0: not recorded); applying the profile fails if Path now leads to
	// another one, so nothing swapped in after the checks is granted.
	Dev uint64 `json:"dev,omitempty"`
	Ino uint64 `json:"ino,omitempty"`
}

// Dropped is a configured grant that was refused, with the reason.
type Dropped struct {
	Entry
	// Reason says which secret location the grant would have exposed.
	Reason string `json:"reason"`
}

// Profile is what a confined process may touch. Landlock is an allow-list:
// everything not under a Grant is refused (reading included).
type Profile struct {
	// Workspace is the workspace directory (symlinks resolved).
	Workspace string `json:"workspace"`
	// Grants are the allowed paths, in order.
	Grants []Entry `json:"grants"`
	// Denied are the secret locations no grant reaches (for explanation).
	Denied []Entry `json:"denied"`
	// Dropped are grants refused because they contained or lay inside a
	// denied location.
	Dropped []Dropped `json:"dropped,omitempty"`
	// AllowUnixSockets lets the command create Unix sockets on kernels
	// whose Landlock cannot confine their use (ABI < 9): the policy's
	// sandbox.unixSockets.
	AllowUnixSockets bool `json:"allowUnixSockets,omitempty"`
}

// Machine is what a Profile is built from besides the policy: the user's
// home, the temp dirs, warden's own directories and the environment.
type Machine struct {
	// Home is the home directory ($HOME).
	Home string
	// TempDirs are the read-write temp dirs (unless the policy's
	// sandbox.tempDirs replaces them).
	TempDirs []string
	// DataDir is warden's data dir (token, socket, log, overlay): denied.
	DataDir string
	// ConfigDir is warden's config dir: denied.
	ConfigDir string
}

// CurrentMachine describes this process's machine: $HOME, the temp dirs
// (/tmp, /var/tmp, /dev/shm), and warden's data and config dirs as given.
//
// Grants never come from the environment ($TMPDIR, $GOCACHE, $GOPATH,
// $XDG_CACHE_HOME, ...): an agent can influence the environment of the
// process that starts the sandbox (a project's agent settings, an env
// file), and GOCACHE=~/.config/autostart would make a persistence spot
// writable. Paths beyond the built-in ones come from the policy file.
func CurrentMachine(dataDir, configDir string) (Machine, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Machine{}, fmt.Errorf("sandbox: home directory: %w", err)
	}
	return Machine{Home: home, TempDirs: []string{"/tmp", "/var/tmp", "/dev/shm"}, DataDir: dataDir, ConfigDir: configDir}, nil
}

// systemDirs are readable and executable: the system and its toolchains.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/snap", "/nix"}

// devices are the device files everyday programs open.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// terminals are the device files terminals need (with ioctl). Not
// /dev/pts: the user's other terminals are there, and reading one steals
// what is typed into it. The terminal the command runs on is granted by
// itself when the profile is applied (ownTerminals).
var terminals = []string{"/dev/tty", "/dev/ptmx"}

// homeSecrets are the secret locations in the home directory: never
// granted, and no grant may contain one.
var homeSecrets = []struct{ path, why string }{
	{".ssh", "SSH keys"},
	{".gnupg", "GnuPG keys"},
	{".aws", "AWS credentials"},
	{".azure", "Azure credentials"},
	{".config/gcloud", "Google Cloud credentials"},
	{".kube", "Kubernetes credentials"},
	{".docker", "Docker registry credentials"},
	{".netrc", "network credentials"},
	{".git-credentials", "git credentials"},
	{".config/gh", "GitHub CLI token"},
	{".config/hub", "hub token"},
	{".npmrc", "npm config (may hold registry tokens)"},
	{".yarnrc.yml", "yarn config (may hold registry tokens)"},
	{".pypirc", "PyPI credentials"},
	{".cargo/credentials.toml", "crates.io token"},
	{".cargo/credentials", "crates.io token"},
	{".gradle/gradle.properties", "Gradle credentials"},
	{".m2/settings.xml", "Maven credentials"},
	{".vault-token", "Vault token"},
	{".terraform.d", "Terraform credentials"},
	{".password-store", "pass password store"},
	{".local/share/keyrings", "keyrings"},
	{".mozilla", "Firefox profiles"},
	{".config/google-chrome", "Chrome profiles"},
	{".config/chromium", "Chromium profiles"},
	{".config/BraveSoftware", "Brave profiles"},
	{".claude", "Claude Code credentials and settings"},
	{".claude.json", "Claude Code state"},
	{".codex", "Codex credentials"},
	{".local/share/opencode", "OpenCode credentials (auth.json)"},
	{".config/opencode", "OpenCode config (may hold API keys)"},
	{".bash_history", "shell history"},
	{".zsh_history", "shell history"},
	{".local/share/fish", "shell history"},
	{".python_history", "Python history"},
	{".node_repl_history", "Node history"},
	{".psql_history", "psql history"},
	{".mysql_history", "MySQL history"},
	{".lesshst", "less history"},
}

// Build makes the profile for workspace from the policy's sandbox section
// and the machine. It refuses a workspace that contains a secret location
// or warden's data dir (such as the home directory or /), and drops, with
// the reason in Dropped, every other grant that would.
func Build(cfg policy.SandboxConfig, m Machine, workspace string) (*Profile, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if m.Home == "" || !filepath.IsAbs(m.Home) {
		return nil, fmt.Errorf("sandbox: home directory %q is not absolute", m.Home)
	}
	if !filepath.IsAbs(workspace) {
		abs, err := filepath.Abs(workspace)
		if err != nil {
			return nil, fmt.Errorf("sandbox: workspace %s: %w", workspace, err)
		}
		workspace = abs
	}
	ws, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	}
	if fi, err := os.Stat(ws); err != nil {
		return nil, fmt.Errorf("sandbox: workspace: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox: workspace %s is not a directory", ws)
	}
	home := filepath.Clean(m.Home)
	expand := func(p string) string {
		switch {
		case p == "~":
			return home
		case strings.HasPrefix(p, "~/"):
			return filepath.Join(home, p[2:])
		case p == "$WORKSPACE":
			return ws
		case strings.HasPrefix(p, "$WORKSPACE/"):
			return filepath.Join(ws, p[len("$WORKSPACE/"):])
		}
		return filepath.Clean(p)
	}

	p := &Profile{Workspace: ws, AllowUnixSockets: cfg.UnixSockets != nil && *cfg.UnixSockets}
	for _, s := range homeSecrets {
		p.Denied = append(p.Denied, Entry{Path: filepath.Join(home, s.path), Access: Denied, Why: s.why})
	}
	if m.DataDir != "" {
		p.Denied = append(p.Denied, Entry{Path: absClean(m.DataDir), Access: Denied, Why: "warden's data dir (token, socket, log, overlay)"})
	}
	if m.ConfigDir != "" {
		p.Denied = append(p.Denied, Entry{Path: absClean(m.ConfigDir), Access: Denied, Why: "warden's config dir"})
	}
	for _, d := range cfg.Deny {
		p.Denied = append(p.Denied, Entry{Path: expand(d), Access: Denied, Why: "sandbox.deny in the policy"})
	}
	for i := range p.Denied {
		p.Denied[i].Missing = !exists(p.Denied[i].Path)
	}
	denied := resolveDenied(p.Denied)
	if d, ok := conflict(denied, ws); ok {
		return nil, fmt.Errorf("sandbox: the workspace %s would expose %s (%s): choose a project directory", ws, d.Path, d.Why)
	}

	add := func(path string, a Access, why string, create, device bool) {
		e := Entry{Path: path, Access: a, Why: why, Create: create, Device: device}
		e.Dev, e.Ino, e.Missing = identity(path)
		for _, g := range p.Grants {
			if g.Path == e.Path && g.Access == e.Access {
				return
			}
		}
		if d, ok := conflict(denied, path); ok {
			p.Dropped = append(p.Dropped, Dropped{Entry: e, Reason: fmt.Sprintf("it would expose %s (%s)", d.Path, d.Why)})
			return
		}
		p.Grants = append(p.Grants, e)
	}

	add(ws, ReadWrite, "the workspace", false, false)
	if len(cfg.TempDirs) > 0 {
		for _, t := range cfg.TempDirs {
			add(expand(t), ReadWrite, "temp dir (sandbox.tempDirs in the policy)", false, false)
		}
	} else {
		for _, t := range m.TempDirs {
			add(absClean(t), ReadWrite, "temp dir", false, false)
		}
	}
	for _, d := range devices {
		add(d, ReadWrite, "device", false, false)
	}
	for _, d := range terminals {
		add(d, ReadWrite, "terminal device", false, true)
	}
	for _, d := range systemDirs {
		add(d, ReadExec, "system and toolchains", false, false)
	}
	if dir := resolvConfDir(); dir != "" {
		add(dir, ReadOnly, "DNS resolver config (/etc/resolv.conf points here)", false, false)
	}
	if cfg.UsesDefaults() {
		for _, c := range homeDefaults(home) {
			add(c.path, c.access, c.why, c.access == ReadWrite, false)
		}
	}
	for _, d := range cfg.ReadWrite {
		add(expand(d), ReadWrite, "sandbox.readWrite in the policy", false, false)
	}
	for _, d := range cfg.ReadOnly {
		add(expand(d), ReadExec, "sandbox.readOnly in the policy", false, false)
	}
	// Last, when every writable grant is known: the worktree's repository
	// is trusted only where no confined command could have forged it.
	if dir, common, err := gitWorktree(ws); err != nil {
		p.Dropped = append(p.Dropped, Dropped{Entry: Entry{Path: filepath.Join(ws, ".git"), Access: ReadWrite, Why: "git worktree"}, Reason: err.Error()})
	} else if dir != "" {
		for _, g := range p.Grants {
			if g.Access == ReadWrite && (within(dir, g.Path) || within(common, g.Path)) {
				p.Dropped = append(p.Dropped, Dropped{Entry: Entry{Path: common, Access: ReadWrite, Why: "git worktree's repository"},
					Reason: "it lies in " + g.Path + ", which confined commands can write, so it could be forged"})
				return p, nil
			}
		}
		// A linked worktree: its own git dir, and of the shared repository
		// what a commit, a branch or a fetch writes (objects, refs, logs);
		// the rest (config, hooks) only read, so a confined command cannot
		// plant a hook that a later unconfined git run would execute.
		add(dir, ReadWrite, "the workspace's git worktree dir", false, false)
		for _, sub := range []string{"objects", "refs", "logs"} {
			add(filepath.Join(common, sub), ReadWrite, "the worktree's repository: "+sub, false, false)
		}
		add(common, ReadOnly, "the worktree's repository (config, hooks: read only)", false, false)
	}
	return p, nil
}

type homeEntry struct {
	path   string
	access Access
	why    string
}

// homeDefaults are the built-in entries in the home directory: build
// caches (read-write), toolchains installed in the home (read-exec), and
// the non-secret config that shells and tools read (read-only).
func homeDefaults(home string) []homeEntry {
	h := func(p string) string { return filepath.Join(home, p) }
	cache, gopath, cargo := h(".cache"), h("go"), h(".cargo")
	out := []homeEntry{
		{filepath.Join(cache, "go-build"), ReadWrite, "Go build cache"},
		{filepath.Join(gopath, "pkg", "mod"), ReadWrite, "Go module cache"},
		{h(".npm"), ReadWrite, "npm cache"},
		{filepath.Join(cache, "yarn"), ReadWrite, "yarn cache"},
		{filepath.Join(cache, "pnpm"), ReadWrite, "pnpm cache"},
		{h(".local/share/pnpm"), ReadWrite, "pnpm store"},
		{filepath.Join(cache, "pip"), ReadWrite, "pip cache"},
		{filepath.Join(cache, "uv"), ReadWrite, "uv cache"},
		{filepath.Join(cargo, "registry"), ReadWrite, "cargo registry cache"},
		{filepath.Join(cargo, "git"), ReadWrite, "cargo git cache"},
	}
	for _, t := range []struct{ path, why string }{
		{filepath.Join(gopath, "bin"), "Go programs (go install)"},
		{h("sdk"), "Go toolchains (golang.org/dl)"},
		{h(".local/bin"), "user programs"},
		{h(".local/lib"), "user libraries (pip --user)"},
		{filepath.Join(cargo, "bin"), "cargo programs"},
		{h(".rustup"), "Rust toolchains"},
		{h(".nvm"), "Node versions (nvm)"},
		{h(".volta"), "Node versions (volta)"},
		{h(".pyenv"), "Python versions (pyenv)"},
		{h(".bun/bin"), "bun"},
		{h(".deno/bin"), "deno"},
	} {
		out = append(out, homeEntry{t.path, ReadExec, t.why})
	}
	for _, c := range []struct{ path, why string }{
		{".gitconfig", "git config"},
		{".config/git", "git config"},
		{".bashrc", "shell startup"},
		{".bash_profile", "shell startup"},
		{".profile", "shell startup"},
		{".bash_logout", "shell startup"},
		{".inputrc", "readline config"},
		{".zshrc", "shell startup"},
		{".zshenv", "shell startup"},
		{".config/go", "go env -w settings"},
		{".config/pip", "pip config"},
		{".cargo/config.toml", "cargo config"},
	} {
		out = append(out, homeEntry{h(c.path), ReadOnly, c.why})
	}
	return out
}

// conflict returns the denied location that path contains or lies inside,
// comparing both the path as written and with symlinks resolved.
func conflict(denied []resolvedEntry, path string) (Entry, bool) {
	cands := []string{path}
	if r, err := filepath.EvalSymlinks(path); err == nil && r != path {
		cands = append(cands, r)
	}
	for _, d := range denied {
		for _, c := range cands {
			for _, dp := range d.paths {
				if within(dp, c) || within(c, dp) {
					return d.Entry, true
				}
			}
		}
	}
	return Entry{}, false
}

// resolvedEntry is a denied entry with its path as written and, when it
// exists and differs, with symlinks resolved.
type resolvedEntry struct {
	Entry
	paths []string
}

func resolveDenied(denied []Entry) []resolvedEntry {
	out := make([]resolvedEntry, len(denied))
	for i, d := range denied {
		out[i] = resolvedEntry{Entry: d, paths: []string{d.Path}}
		if r, err := filepath.EvalSymlinks(d.Path); err == nil && r != d.Path {
			out[i].paths = append(out[i].paths, r)
		}
	}
	return out
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	if path == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(path, dir+"/")
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// identity is the device and inode Path leads to, or missing.
func identity(p string) (dev, ino uint64, missing bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, 0, true
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), false
	}
	return 0, 0, false
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Writable returns the read-write grant under which path (symlinks
// resolved, as far as it exists) lies, if any: a confined command can
// change it. Callers use it to refuse a policy or config file that a
// confined command could rewrite.
func (p *Profile) Writable(path string) (Entry, bool) {
	cands := []string{absClean(path)}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		cands = append(cands, r)
	}
	for _, g := range p.Grants {
		if g.Access != ReadWrite {
			continue
		}
		for _, c := range cands {
			if within(c, g.Path) {
				return g, true
			}
		}
	}
	return Entry{}, false
}

// gitWorktree returns, when ws is a linked git worktree (its .git is a
// file "gitdir: DIR"), DIR and the repository's common dir, with symlinks
// resolved; ("", "", nil) when ws is not a linked worktree. The .git file
// is the workspace's, so a confined command can write it: the link is
// believed only when git's own bookkeeping agrees, that is DIR is
// COMMON/worktrees/NAME, DIR/commondir names COMMON, and DIR/gitdir points
// back at ws/.git. (Build also refuses a DIR or COMMON that confined
// commands can write.)
func gitWorktree(ws string) (dir, common string, err error) {
	b, err := os.ReadFile(filepath.Join(ws, ".git"))
	if err != nil {
		return "", "", nil // a directory (a plain repository) or no git at all
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || line == "" {
		return "", "", errors.New(".git is a file without a gitdir: line")
	}
	if !filepath.IsAbs(line) {
		line = filepath.Join(ws, line)
	}
	if dir, err = filepath.EvalSymlinks(line); err != nil {
		return "", "", fmt.Errorf("gitdir: %w", err)
	}
	if filepath.Base(filepath.Dir(dir)) != "worktrees" {
		return "", "", fmt.Errorf("gitdir %s is not a worktree of a repository (REPO/worktrees/NAME)", dir)
	}
	common = filepath.Dir(filepath.Dir(dir))
	c, err := os.ReadFile(filepath.Join(dir, "commondir"))
	if err != nil {
		return "", "", fmt.Errorf("gitdir %s: %w", dir, err)
	}
	cd := strings.TrimSpace(string(c))
	if !filepath.IsAbs(cd) {
		cd = filepath.Join(dir, cd)
	}
	if r, err := filepath.EvalSymlinks(cd); err != nil || r != common {
		return "", "", fmt.Errorf("gitdir %s: commondir does not name %s", dir, common)
	}
	back, err := os.ReadFile(filepath.Join(dir, "gitdir"))
	if err != nil {
		return "", "", fmt.Errorf("gitdir %s: %w", dir, err)
	}
	bp := strings.TrimSpace(string(back))
	if r, err := filepath.EvalSymlinks(bp); err == nil {
		bp = r
	}
	if bp != filepath.Join(ws, ".git") {
		return "", "", fmt.Errorf("gitdir %s belongs to %s, not to this workspace", dir, bp)
	}
	return dir, common, nil
}

// resolvConfDir is the directory /etc/resolv.conf points into when it is a
// symlink out of /etc (systemd-resolved, resolvconf), so DNS keeps working.
func resolvConfDir() string {
	r, err := filepath.EvalSymlinks("/etc/resolv.conf")
	if err != nil || within(r, "/etc") {
		return ""
	}
	return filepath.Dir(r)
}

// Validate checks a profile read from elsewhere (the child's command
// line): an absolute clean workspace, absolute clean paths, known access.
func (p *Profile) Validate() error {
	if p.Workspace == "" || !filepath.IsAbs(p.Workspace) || filepath.Clean(p.Workspace) != p.Workspace {
		return fmt.Errorf("sandbox profile: workspace %q is not an absolute clean path", p.Workspace)
	}
	if len(p.Grants) == 0 {
		return errors.New("sandbox profile: no grants")
	}
	for i, e := range p.Grants {
		if e.Path == "" || !filepath.IsAbs(e.Path) || filepath.Clean(e.Path) != e.Path || strings.ContainsRune(e.Path, 0) {
			return fmt.Errorf("sandbox profile: grant %d: path %q is not an absolute clean path", i, e.Path)
		}
		switch e.Access {
		case ReadWrite, ReadExec, ReadOnly:
		default:
			return fmt.Errorf("sandbox profile: grant %d (%s): unknown access %q", i, e.Path, e.Access)
		}
	}
	return nil
}
