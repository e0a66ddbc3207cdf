// Package shell analyses shell command lines as effects on targets: it parses
// them into an AST with mvdan.cc/sh/v3, walks every command that would run
// (lists, pipes, subshells, substitutions, functions, loops, nested shells,
// wrappers) and reports what each one does, so the policy judges meaning,
// not spelling.
package shell

// Kind is a kind of side effect.
type Kind string

// The effect kinds a command can have.
const (
	Delete    Kind = "delete"
	Write     Kind = "write"
	Read      Kind = "read"
	Exec      Kind = "exec"
	Network   Kind = "network"
	Privilege Kind = "privilege"
)

// Effect is one thing a command does to one target.
type Effect struct {
	// Kind is what is done.
	Kind Kind `json:"kind"`
	// Target is what it is done to: for file effects an absolute, lexically
	// cleaned path (resolved against the command's working directory; "~"
	// expanded with Options.Home); for Network a URL or host; for Exec the
	// program or script. Empty when the target is Unknown or there is none.
	Target string `json:"target,omitempty"`
	// Unknown is set when the target cannot be known at check time (unset
	// variable, command substitution, glob over unknown dir...). Reason says why.
	Unknown bool   `json:"unknown,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Recursive is set for recursive operations (rm -r, chmod -R, cp -r ...).
	Recursive bool `json:"recursive,omitempty"`
	// Glob is set when the target was written as a glob, which is not
	// expanded: Target is then the directory before the first glob
	// component and Glob the whole pattern, absolute (~/.local/*/token).
	Glob string `json:"glob,omitempty"`
	// Meta is set for reads of names and attributes only, not contents
	// (find's walk, ls, du, stat, tree).
	Meta bool `json:"meta,omitempty"`
	// Link is set when the effect is on the last component itself, not on
	// what it links to: rm and unlink remove a symlink, they do not follow
	// it (rm -rf link removes the link; rm -rf link/ goes into it).
	Link bool `json:"link,omitempty"`
	// Follow is set for a recursive read that follows the symlinks it
	// meets below Target (find -L, grep -R, zip -r, rsync -L, cp -L -r,
	// tar -h): what the links lead to is read too; and for a recursive
	// delete or write that does (find -L … -delete, chmod/chown -R -L):
	// what the links lead to is deleted or changed too.
	Follow bool `json:"follow,omitempty"`
	// Served is set for the tree a server exposes to the network (python3
	// -m http.server, php -S, busybox httpd, serve, …): every file below
	// Target can be fetched, so each is read and sent.
	Served bool `json:"served,omitempty"`
}

// Span locates a piece of the analysed input.
type Span struct {
	// Start and End are byte offsets into the top-level input; for commands
	// found inside nested strings (bash -c '...') they are the span of the
	// outermost enclosing command.
	Start int `json:"start"`
	End   int `json:"end"`
	// Text is the source text of the command itself (the nested text for
	// nested shells).
	Text string `json:"text"`
}

// Command is one simple command that would run, after unwrapping wrappers.
type Command struct {
	// Name is the normalised program name: basename, quotes and escapes
	// removed ("/bin/rm", "\rm", "\"r\"m" all give "rm"). Empty if dynamic.
	Name string `json:"name"`
	// Argv is the normalised argv with Argv[0] == Name. Words that cannot be
	// known are kept as their source text.
	Argv []string `json:"argv"`
	// Dir is the working directory the command runs in (after cd/pushd
	// tracking), "" when unknown.
	Dir string `json:"dir,omitempty"`
	// Span is where the command came from.
	Span Span `json:"span"`
	// Via lists the wrappers and nestings it was found inside, outermost
	// first, e.g. ["sudo", "bash -c"], ["xargs"], ["find -exec"], ["$()"].
	Via []string `json:"via,omitempty"`
	// Effects are the command's effects on targets.
	Effects []Effect `json:"effects,omitempty"`
	// Tags name recognised operations that matter to policy; see the Tag
	// constants.
	Tags []string `json:"tags,omitempty"`
	// Attrs carry details for tags, e.g. "branch": "main" for git.push.force.
	Attrs map[string]string `json:"attrs,omitempty"`
	// Dynamic is set when the program name itself cannot be known.
	Dynamic bool `json:"dynamic,omitempty"`
}

// Analysis is the result of analysing one command line.
type Analysis struct {
	// Commands lists every simple command that would run, in source order.
	Commands []Command `json:"commands"`
	// Findings are facts spanning commands, e.g. remote code piped to a shell.
	Findings []Finding `json:"findings,omitempty"`
}

// Finding is a fact about several commands together.
type Finding struct {
	// Tag names the finding (see the Tag constants).
	Tag string `json:"tag"`
	// Reason is a human sentence.
	Reason string `json:"reason"`
	// Span is the source text involved.
	Span Span `json:"span"`
}

// Options tell the analyser about the environment of the command line.
type Options struct {
	// Cwd is the absolute directory the command line starts in.
	Cwd string
	// Home is the user's home directory, used for "~" and $HOME.
	Home string
	// Env holds variables known to be set (beyond those assigned in the
	// command line itself). Variables not here and not assigned are unknown.
	Env map[string]string
	// Warden lists absolute paths of warden's own binaries: a program run
	// by one of these paths is warden whatever its name (it is always
	// warden by the name "warden").
	Warden []string
	// Resolve, when set, resolves the symlinks of an absolute path as the
	// kernel does, component by component, so ".." after a symlink is the
	// parent of the link's target (link/../x is not ./x when link leads
	// elsewhere). The analyser does no I/O itself: without Resolve, paths
	// are cleaned lexically. It is used for paths that climb with ".."
	// after a named component, and for cd -P.
	Resolve func(path string) string
	// IsDir, when set, reports whether an absolute path is an existing
	// directory (following symlinks). It answers the questions whose
	// answer is the file system's: a git pathspec naming a directory
	// discards a tree, a relative cd searches CDPATH's entries. Without
	// it, those paths are taken as plain files and names.
	IsDir func(path string) bool
	// ReadFile, when set, returns the content of a script a command runs
	// by its path (bash /tmp/x.sh, python3 a.py, source f, /tmp/x.sh): a
	// regular file of at most max bytes, following symlinks as the kernel
	// does. A file that does not exist answers an error wrapping
	// fs.ErrNotExist; one that is larger, not a regular file or not
	// readable answers another error. Without it, only scripts the line
	// itself writes are read.
	ReadFile func(path string, max int64) ([]byte, error)
	// Workspace is the absolute workspace root, when there is one: a
	// script inside it run directly (./gradlew) is the project's own.
	Workspace string
}

// Tags for recognised operations (Command.Tags) and findings (Finding.Tag).
const (
	TagRemoteExec     = "remote-exec"     // remote content piped/substituted into a shell or interpreter
	TagDynamicExec    = "dynamic-exec"    // eval/sh -c of content unknown at check time
	TagGitForcePush   = "git.push.force"  // Attrs: remote, branch (comma-separated), lease=true for --force-with-lease
	TagGitResetHard   = "git.reset.hard"  // git reset --hard (also --merge/--keep)
	TagGitClean       = "git.clean"       // git clean -f (Attrs: ignored=true for -x/-X, dirs=true for -d)
	TagGitHistory     = "git.history"     // history rewrite: filter-branch, filter-repo, rebase, commit --amend, update-ref -d, branch -D, push --delete/:ref
	TagPublish        = "publish"         // npm/yarn/pnpm publish, cargo publish, twine upload, gem push, go's none...
	TagDiskWrite      = "disk.write"      // dd of=/dev/..., writes/redirects to block devices
	TagFormatFS       = "fs.format"       // mkfs*, wipefs, fdisk/parted/sgdisk writes, shred of devices
	TagPermRecursive  = "perm.recursive"  // chmod/chown/chgrp -R
	TagPrivilege      = "privilege"       // sudo/doas/su/pkexec
	TagDynamicCommand = "dynamic-command" // program name unknown at check time
)
