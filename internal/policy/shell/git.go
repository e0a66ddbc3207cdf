package shell

import (
	"path"
	"strings"
)

// git models git's subcommands.
func (k *call) git() {
	// the shell's state, which a checkout changes; -C and --work-tree below
	// only move this call
	flow := k.st
	args := k.args
	i := 0
	for i < len(args) {
		f := args[i]
		v := f.val
		if !f.known || !strings.HasPrefix(v, "-") {
			break
		}
		switch v {
		case "-C":
			if i+1 < len(args) {
				k.st = k.withDir(args[i+1])
				k.cmd.Dir = k.st.dir
			}
			i += 2
			continue
		case "--work-tree":
			if i+1 < len(args) {
				k.st = k.withDir(args[i+1])
				k.cmd.Dir = k.st.dir
			}
			i += 2
			continue
		case "-c":
			if i+1 < len(args) {
				k.gitConfigCode(args[i+1])
			}
			i += 2
			continue
		case "--git-dir", "--namespace", "--super-prefix", "--config-env", "--exec-path", "--list-cmds":
			i += 2
			continue
		}
		if strings.HasPrefix(v, "--work-tree=") {
			k.st = k.withDir(sub(f, v[len("--work-tree="):]))
			k.cmd.Dir = k.st.dir
		}
		i++
	}
	k.gitEnv()
	if i >= len(args) || !args[i].known {
		return
	}
	sc := args[i].val
	rest := args[i+1:]
	k.attr("subcommand", sc)
	k.gitRuns(sc, rest)
	switch sc {
	case "rm":
		p := parseOpts(rest, spec{long: []string{"pathspec-from-file"}})
		if p.has("cached") {
			k.attr("cached", "true")
			return
		}
		if p.has("n", "dry-run") {
			return
		}
		k.files(Delete, p.ops, p.has("r"))
	case "mv":
		p := parseOpts(rest, spec{})
		if len(p.ops) >= 2 {
			k.files(Delete, p.ops[:len(p.ops)-1], false)
			k.file(Write, p.ops[len(p.ops)-1], false)
		}
	case "clean":
		p := parseOpts(rest, spec{arg: "e", long: []string{"exclude"}})
		if p.has("n", "dry-run") {
			return
		}
		k.tag(TagGitClean)
		if p.has("f", "force") {
			k.attr("force", "true")
		}
		if p.has("d") {
			k.attr("dirs", "true")
		}
		if p.has("x", "X") {
			k.attr("ignored", "true")
		}
		if len(p.ops) > 0 {
			k.files(Delete, p.ops, p.has("d"))
		} else {
			k.file(Delete, lit("."), true)
		}
	case "reset":
		p := parseOpts(rest, spec{long: []string{"pathspec-from-file"}})
		if p.has("hard", "merge", "keep") {
			k.tag(TagGitResetHard)
			if len(p.ops) > 0 {
				k.attr("ref", p.ops[0].text(k.c))
			}
			k.file(Write, lit("."), true)
		}
	case "checkout":
		k.gitCheckout(rest, flow)
	case "switch":
		k.gitSwitch(rest, flow)
	case "restore":
		p := parseOpts(rest, spec{arg: "s", long: []string{"source", "pathspec-from-file"}})
		if p.has("S", "staged") && !p.has("W", "worktree") {
			return
		}
		for _, o := range p.ops {
			k.file(Write, o, o.known && (o.val == "." || strings.HasSuffix(o.val, "/")))
		}
		k.discardIfWhole(p.ops, "restore")
	case "push":
		k.gitPush(rest)
	case "remote":
		k.gitRemote(rest)
	case "filter-branch", "filter-repo", "replace":
		k.tag(TagGitHistory)
	case "rebase":
		if !hasArg(rest, "--abort", "--continue", "--skip", "--quit", "--edit-todo", "--show-current-patch") {
			k.tag(TagGitHistory)
		}
	case "commit":
		if hasArg(rest, "--amend") {
			k.tag(TagGitHistory)
			k.attr("amend", "true")
		}
	case "update-ref":
		k.tag(TagGitHistory)
		if hasArg(rest, "-d") {
			k.attr("delete", "true")
			k.gitDrop("update-ref -d, which deletes a ref as branch -D does")
		}
	case "branch":
		p := parseOpts(rest, spec{arg: "tu", long: []string{"set-upstream-to", "track", "contains", "merged", "no-merged", "points-at", "sort", "format"}})
		k.gitBranchRename(p, flow)
		force := p.has("D", "M", "C", "f", "force")
		del := p.has("D", "d", "delete")
		if force && (p.has("D") || del || p.has("M")) || p.has("D") {
			k.tag(TagGitHistory)
			var names []string
			for _, o := range p.ops {
				names = append(names, o.text(k.c))
			}
			k.attr("branch", strings.Join(names, ","))
			if p.has("D") || del {
				// commits only that branch held are left to the reflog
				k.gitDrop("branch -D, whose commits not merged elsewhere only the reflog still holds")
			}
		}
	case "reflog":
		if len(rest) > 0 && (rest[0].val == "expire" || rest[0].val == "delete") {
			k.tag(TagGitHistory)
			k.gitDrop("reflog " + rest[0].val + ", the record that recovers lost commits")
		}
	case "gc":
		for _, f := range rest {
			if f.known && (f.val == "--prune=now" || f.val == "--prune=all") {
				k.tag(TagGitHistory)
				k.gitDrop("gc " + f.val + ", which deletes unreachable commits at once")
			}
		}
	case "prune":
		k.tag(TagGitHistory)
		if !hasArg(rest, "-n", "--dry-run") {
			k.gitDrop("prune, which deletes unreachable objects")
		}
	case "stash":
		if len(rest) > 0 && (rest[0].val == "clear" || rest[0].val == "drop") {
			k.attr("stash", rest[0].val)
			if rest[0].val == "clear" {
				k.gitDrop("stash clear")
			} else {
				k.gitDrop("stash drop")
			}
		}
	case "config":
		if cp := parseOpts(rest, spec{arg: "f", long: []string{"file", "blob", "type", "default", "comment"}}); cp.has("f", "file") {
			f, _ := cp.get("f", "file")
			k.file(Read, k.home(f), false) // git config -f FILE reads it (and prints it with -l)
		}
		k.gitConfig(rest)
	case "diff", "grep":
		// --no-index compares or searches files as files, wherever they are
		if hasArg(rest, "--no-index") {
			p := parseOpts(rest, spec{arg: "eABCfmO", long: []string{"output", "src-prefix", "dst-prefix", "max-depth", "threads", "open-files-in-pager"}})
			ops := p.ops
			if sc == "grep" && !p.has("e", "f") && len(ops) > 0 {
				ops = ops[1:] // the pattern
			}
			if sc == "grep" && len(ops) == 0 {
				ops = []field{lit(".")}
			}
			for _, o := range ops {
				if o.known && o.val != "--" {
					k.file(Read, k.home(o), sc == "grep")
				}
			}
		}
	case "hash-object":
		// hash-object FILE reads it (-w stores it in the repository)
		for _, o := range parseOpts(rest, spec{arg: "t", long: []string{"path"}}).ops {
			k.file(Read, k.home(o), false)
		}
	case "worktree":
		if len(rest) == 0 || !rest[0].known {
			return
		}
		p := parseOpts(rest[1:], spec{arg: "bB", long: []string{"reason"}})
		switch rest[0].val {
		case "add":
			if len(p.ops) > 0 {
				k.file(Write, p.ops[0], true)
			}
		case "remove":
			if len(p.ops) > 0 {
				k.file(Delete, p.ops[0], true)
			}
		case "move":
			if len(p.ops) > 1 {
				k.file(Delete, p.ops[0], true)
				k.file(Write, p.ops[1], true)
			}
		}
	case "clone":
		p := parseOpts(rest, spec{arg: "obcju", long: []string{"origin", "branch", "config", "depth", "jobs", "upload-pack", "reference", "separate-git-dir", "template", "shallow-since", "shallow-exclude", "filter", "server-option", "bundle-uri"}})
		if len(p.ops) > 0 {
			k.net(p.ops[0])
			if len(p.ops) > 1 {
				k.file(Write, p.ops[1], true)
			} else if p.ops[0].known {
				b := strings.TrimSuffix(path.Base(strings.TrimRight(p.ops[0].val, "/")), ".git")
				if i := strings.LastIndexByte(b, ':'); i >= 0 {
					b = b[i+1:]
				}
				k.file(Write, sub(p.ops[0], b), true)
			}
		}
	case "fetch", "pull", "ls-remote":
		p := parseOpts(rest, spec{arg: "oj", long: []string{"depth", "upload-pack", "jobs", "server-option", "shallow-since", "shallow-exclude", "refmap", "recurse-submodules-default", "strategy", "strategy-option"}})
		if len(p.ops) > 0 {
			k.net(p.ops[0])
		} else {
			k.eff(Effect{Kind: Network, Target: "origin"})
		}
	case "init":
		p := parseOpts(rest, spec{arg: "b", long: []string{"template", "separate-git-dir", "initial-branch", "object-format", "shared"}})
		if len(p.ops) > 0 {
			k.file(Write, p.ops[0], false)
		}
	case "apply", "am":
		if !hasArg(rest, "--check", "--stat", "--numstat", "--summary") {
			k.file(Write, lit("."), true)
		}
	}
}

func (k *call) gitCheckout(rest []field, flow *state) {
	p := parseOpts(rest, spec{arg: "bB", long: []string{"orphan", "conflict", "pathspec-from-file"}})
	dd := -1
	for i, f := range rest {
		if f.known && f.val == "--" {
			dd = i
			break
		}
	}
	if dd >= 0 {
		for _, o := range rest[dd+1:] {
			k.file(Write, o, o.known && (o.val == "." || strings.HasSuffix(o.val, "/")))
		}
		k.discardIfWhole(rest[dd+1:], "checkout --")
		if p.has("b", "B", "orphan") {
			k.setBranch(flow, p, nil, "b", "B", "orphan")
		}
		return
	}
	paths := false
	for _, o := range p.ops {
		if o.known && (o.val == "." || o.val == "./" || o.val == ":/") {
			paths = true
		}
	}
	if !paths && !p.has("b", "B", "orphan", "p", "patch") {
		// git checkout TREE-ISH DIR: a directory is a pathspec (the tree
		// under it is overwritten); a lone operand is a branch first
		// unless it is spelled as a path (src/, ./src)
		for i, o := range p.ops {
			lone := i == 0 && (len(p.ops) == 1 && !(strings.HasSuffix(o.val, "/") || strings.HasPrefix(o.val, "./") || strings.HasPrefix(o.val, "../")) || len(p.ops) > 1)
			if !lone && k.isDirPath(o) {
				k.file(Write, o, true)
				k.discardIfWhole([]field{o}, "checkout")
				return
			}
		}
	}
	if p.has("f", "force") || paths {
		k.file(Write, lit("."), true)
		k.tag(TagGitDiscard)
		k.attr("discard", "checkout "+map[bool]string{true: "-f", false: "."}[p.has("f", "force")])
	}
	if p.has("p", "patch") || paths && !p.has("b", "B", "orphan") || len(p.ops) > 1 && !p.has("b", "B", "orphan") {
		return // files from a commit; the branch stays
	}
	k.setBranch(flow, p, p.ops, "b", "B", "orphan")
}

// gitSwitch models git switch: it changes the current branch.
func (k *call) gitSwitch(rest []field, flow *state) {
	p := parseOpts(rest, spec{arg: "cC", long: []string{"create", "force-create", "orphan", "conflict"}})
	if p.has("f", "force", "discard-changes") {
		k.file(Write, lit("."), true)
		k.tag(TagGitDiscard)
		k.attr("discard", "switch --discard-changes")
	}
	k.setBranch(flow, p, p.ops, "c", "C", "create", "force-create", "orphan")
}

// setBranch records in the shell's state the branch a checkout or switch
// makes current: the new branch of -b NEW (-c, --orphan), else the branch
// named (the last part of --track's remote branch). A detached HEAD, the
// previous branch (-) and names not known at check time leave it unknown.
func (k *call) setBranch(flow *state, p parsed, ops []field, create ...string) {
	if flow == nil {
		return
	}
	var name field
	switch v, ok := p.get(create...); {
	case ok:
		name = v
	case p.has("detach", "d"):
		name = unknownField("detached")
	case len(ops) == 0:
		return // no branch named: nothing changes
	default:
		name = ops[0]
		if p.has("t", "track") && name.known {
			if _, b, ok := strings.Cut(name.val, "/"); ok {
				name = sub(name, b)
			}
		}
	}
	b := ""
	if name.known && name.val != "-" && name.val != "" && !strings.HasPrefix(name.val, "-") &&
		!strings.HasPrefix(name.val, "HEAD") && !strings.HasPrefix(name.val, "@") {
		b = strings.TrimPrefix(name.val, "refs/heads/")
	}
	flow.branch, flow.branchDir = b, k.st.dir
	if b == "" || k.st.dir == "" {
		flow.branch, flow.branchDir = "", ""
	}
}

// gitBranchRename follows git branch -m NEW (and -m OLD NEW of the current
// branch): the current branch gets the new name.
func (k *call) gitBranchRename(p parsed, flow *state) {
	if flow == nil || !p.has("m", "M", "move") || len(p.ops) == 0 || len(p.ops) > 2 {
		return
	}
	if len(p.ops) == 2 && !(p.ops[0].known && p.ops[0].val == k.currentBranch()) {
		return
	}
	nb := p.ops[len(p.ops)-1]
	if nb.known && k.st.dir != "" && nb.val != "" && !strings.HasPrefix(nb.val, "-") {
		flow.branch, flow.branchDir = nb.val, k.st.dir
	} else {
		flow.branch, flow.branchDir = "", ""
	}
}

// currentBranch is the branch checked out earlier in the line in the
// repository this call runs in, "" when not known.
func (k *call) currentBranch() string {
	d := k.st.dir
	if k.st.branch == "" || d == "" || k.st.branchDir == "" {
		return ""
	}
	if d == k.st.branchDir || strings.HasPrefix(d, k.st.branchDir+"/") {
		return k.st.branch
	}
	return ""
}

func (k *call) gitPush(rest []field) {
	p := parseOpts(rest, spec{arg: "o", long: []string{"repo", "push-option", "receive-pack", "exec"}})
	force := p.has("f", "force", "force-with-lease", "mirror")
	// a lease holds only when nothing forces without one (--force and a
	// +ref override it)
	lease := p.has("force-with-lease") && !p.has("f", "force", "mirror")
	del := p.has("d", "delete")
	remote := ""
	var refs []field
	if r, ok := p.get("repo"); ok {
		remote = r.text(k.c)
		refs = p.ops
	} else if len(p.ops) > 0 {
		remote = p.ops[0].text(k.c)
		refs = p.ops[1:]
	}
	var branches, deleted []string
	unknown := false
	for _, r := range refs {
		if !r.known {
			unknown = true
			continue
		}
		v := r.val
		if strings.HasPrefix(v, "+") {
			force, lease = true, false
			v = v[1:]
		}
		dst := v
		isDel := del
		if strings.HasPrefix(v, ":") {
			isDel = true
			dst = v[1:]
		} else if i := strings.LastIndexByte(v, ':'); i >= 0 {
			dst = v[i+1:]
		}
		dst = strings.TrimPrefix(dst, "refs/heads/")
		if dst == "HEAD" || dst == "@" {
			dst = ""
		}
		if isDel {
			deleted = append(deleted, dst)
			continue
		}
		if dst != "" {
			branches = append(branches, dst)
		}
	}
	named := remote
	if named == "" {
		named = "origin" // git push with no remote pushes to origin (or the branch's upstream)
	}
	if u, ok := k.a.gitRemotes[named]; ok {
		// a remote added earlier in the line: the repository goes there
		k.tag(TagGitPushNew)
		k.attr("remote", named)
		k.attr("url", u)
		k.eff(Effect{Kind: Network, Target: u})
	} else if isGitURL(remote) {
		k.tag(TagGitPushNew)
		k.attr("url", remote)
	}
	if remote != "" {
		k.eff(Effect{Kind: Network, Target: remote})
	} else {
		k.eff(Effect{Kind: Network, Target: "origin"})
	}
	if len(deleted) > 0 {
		k.tag(TagGitHistory)
		k.attr("remote", remote)
		k.attr("delete", strings.Join(deleted, ","))
	}
	if force {
		k.tag(TagGitForcePush)
		k.attr("remote", remote)
		b := strings.Join(branches, ",")
		if unknown {
			b = ""
			k.attr("branch-unknown", "true")
		} else if b == "" && !p.has("all", "branches", "tags", "mirror") {
			// no branch named: the current one, when a checkout earlier in
			// the line says which
			if cur := k.currentBranch(); cur != "" {
				b = cur
				k.attr("current-branch", "true")
			}
		}
		k.attr("branch", b)
		if lease {
			k.attr("lease", "true")
		}
		if p.has("mirror") {
			k.attr("mirror", "true")
		}
		if p.has("all", "branches", "tags") {
			k.attr("all", "true")
		}
	}
}

// gitConfigCode analyses the value of git -c KEY=VALUE when the key names a
// command git runs (core.sshCommand, core.pager, alias.x=!cmd, …): the
// command is analysed as shell code, so git -c core.sshCommand='rm -rf ~'
// fetch deletes home.
func (k *call) gitConfigCode(kv field) {
	if !kv.known {
		return
	}
	key, val, ok := strings.Cut(kv.val, "=")
	if !ok || val == "" {
		return
	}
	key = strings.ToLower(key)
	if key == "core.hookspath" {
		k.gitHooksPath(sub(kv, val))
		return
	}
	k.gitCommandValue(key, sub(kv, val), "git -c ")
}

// gitCommandKey reports whether a (lower-cased) git config key holds a
// command git runs, and whether the command is the value only after a
// leading "!" (aliases and credential helpers; without it they name a git
// subcommand or a git-credential-NAME program).
func gitCommandKey(key string) (command, bang bool) {
	switch {
	case strings.HasPrefix(key, "alias."), key == "credential.helper", strings.HasPrefix(key, "credential.") && strings.HasSuffix(key, ".helper"):
		return true, true
	case strings.HasPrefix(key, "pager."), strings.HasSuffix(key, ".textconv"),
		strings.HasPrefix(key, "diff.") && strings.HasSuffix(key, ".command"),
		strings.HasPrefix(key, "filter.") && (strings.HasSuffix(key, ".clean") || strings.HasSuffix(key, ".smudge") || strings.HasSuffix(key, ".process")),
		strings.HasPrefix(key, "merge.") && strings.HasSuffix(key, ".driver"),
		strings.HasPrefix(key, "mergetool.") && strings.HasSuffix(key, ".cmd"),
		strings.HasPrefix(key, "difftool.") && strings.HasSuffix(key, ".cmd"):
		return true, false
	}
	switch key {
	case "core.sshcommand", "core.pager", "core.editor", "core.fsmonitor", "core.askpass", "sequence.editor",
		"diff.external", "gpg.program", "gpg.ssh.program", "gpg.x509.program", "uploadpack.packobjectshook", "core.gitproxy":
		return true, false
	}
	return false, false
}

// gitCommandValue judges the value of a command-valued git config key as
// the command it is (as the rebase todo's exec lines an editor writes,
// for the editors). It reports whether the value was judged: a value not
// known at check time is not (it runs as dynamic code).
func (k *call) gitCommandValue(key string, val field, via string) bool {
	command, bang := gitCommandKey(key)
	if !command {
		return false
	}
	if val.known {
		v := strings.TrimSpace(val.val)
		if bang {
			if !strings.HasPrefix(v, "!") {
				return true // a git subcommand or a git-credential-NAME helper
			}
			v = v[1:]
		}
		if key == "core.fsmonitor" && (v == "true" || v == "false") {
			return true // git's own daemon
		}
		val = sub(val, v)
	}
	k.nested(val, via+key, nil, false)
	if key == "sequence.editor" || key == "core.editor" {
		k.todoExecs(val, via+key)
	}
	return val.known
}

func (k *call) gitConfig(rest []field) {
	p := parseOpts(rest, spec{arg: "f", long: []string{"file", "blob", "type", "default", "comment"}})
	if p.has("get", "get-all", "get-regexp", "get-urlmatch", "l", "list", "get-color", "get-colorbool", "e", "edit") && !p.has("e", "edit") {
		return
	}
	ops := p.ops
	if len(ops) > 0 && ops[0].known {
		switch ops[0].val {
		case "get", "list":
			return
		case "set", "unset":
			ops = ops[1:]
		}
	}
	if len(ops) < 2 && !p.has("unset", "unset-all", "remove-section", "rename-section", "add", "replace-all", "e", "edit") {
		return
	}
	var target field
	switch {
	case p.has("global"):
		// $HOME as the line may have set it (HOME=/etc git config --global …)
		h, set := k.envVar("HOME")
		if !set {
			h = k.a.lookup(k.st, "HOME")
		}
		if h.known && strings.HasPrefix(h.val, "/") {
			target = lit(path.Join(h.val, ".gitconfig"))
		} else {
			target = unknownField("home directory is not known")
		}
	case p.has("system"):
		target = lit("/etc/gitconfig")
	default:
		if f, ok := p.get("f", "file"); ok {
			target = f
		} else {
			target = lit(".git/config")
		}
	}
	if len(ops) > 0 {
		k.attr("key", ops[0].text(k.c))
	}
	if len(ops) >= 2 && ops[0].known && !p.has("unset", "unset-all", "remove-section", "rename-section", "e", "edit") {
		// a key whose value is a command: the command is judged as itself
		// (git config core.pager 'less -R' runs less)
		key := strings.ToLower(ops[0].val)
		if k.gitCommandValue(key, ops[1], "git config ") {
			k.attr("value", "judged")
		}
	}
	k.file(Write, target, false)
}

// gitHooksPath records the directory git -c core.hooksPath=DIR points
// at, as an Exec of what is there: git runs the hooks found in it. (git
// config core.hooksPath, which makes it last, is denied by its key.)
func (k *call) gitHooksPath(dir field) {
	if e, ok := k.a.target(k.st, Exec, dir, true); ok {
		e.Reason = "git runs the hooks in this directory"
		k.eff(e)
		k.attr("hooks", "path")
	}
}

// gitRemote records the remotes git remote add / set-url point elsewhere
// in this line, so a later push to one is judged as a push to that URL.
func (k *call) gitRemote(rest []field) {
	p := parseOpts(rest, spec{arg: "tm", long: []string{"track", "master", "mirror"}})
	if len(p.ops) < 3 || !p.ops[0].known || !p.ops[1].known {
		return
	}
	switch p.ops[0].val {
	case "add", "set-url":
		url := p.ops[len(p.ops)-1].text(k.c)
		if k.a.gitRemotes == nil {
			k.a.gitRemotes = map[string]string{}
		}
		k.a.gitRemotes[p.ops[1].val] = url
		k.attr("url", url)
	}
}

// isGitURL reports whether a push's remote is a URL or an scp-like
// address rather than a configured remote's name.
func isGitURL(r string) bool {
	if strings.Contains(r, "://") {
		return true
	}
	at, colon := strings.IndexByte(r, '@'), strings.IndexByte(r, ':')
	return at > 0 && colon > at
}

// discardIfWhole tags a checkout or restore of paths that overwrites
// uncommitted work across a whole tree (".", a directory, ":/", a glob):
// a single file's discard stays a plain write.
func (k *call) discardIfWhole(paths []field, what string) {
	for _, o := range paths {
		// a pathspec git matches itself ('*.go', ':(glob)src/**') is many
		// files, as a shell glob is
		if !o.known || o.glob || o.val == "." || o.val == "./" || o.val == ":/" || o.val == "*" || strings.HasSuffix(o.val, "/") ||
			strings.ContainsAny(o.val, "*?[") || strings.HasPrefix(o.val, ":(") || k.isDirPath(o) {
			k.tag(TagGitDiscard)
			k.attr("discard", what+" "+o.text(k.c))
			return
		}
	}
}

// gitDrop marks a git operation that drops work or the means to recover
// it for good (branch -D, stash drop and clear, reflog expire, gc
// --prune=now): it asks like a hard reset (git-discard).
func (k *call) gitDrop(what string) {
	k.tag(TagGitDiscard)
	k.attr("discard", what)
}

// isDirPath reports whether a known path names an existing directory
// (Options.IsDir): a pathspec that is a directory is the tree under it.
func (k *call) isDirPath(o field) bool {
	if k.a.opts.IsDir == nil || !o.known {
		return false
	}
	e, ok := k.a.target(k.st, Write, o, false)
	return ok && !e.Unknown && e.Target != "" && k.a.opts.IsDir(e.Target)
}
