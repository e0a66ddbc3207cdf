package shell

import (
	"path"
	"strings"
)

// p6Programs declares programs that print names rather than read what
// they name.
func p6Programs() []program {
	return []program{
		// readlink and realpath print a path: they read the link (its
		// name), not the content of what it leads to, so
		// readlink -f key_link reads no key; what they print is the
		// operand's path, which a later read through $(…) follows.
		{names: []string{"readlink", "realpath"}, model: (*call).pathPrinter,
			examples: []example{ex("readlink -f key_link", "!read"), ex("realpath ~/.ssh/id_rsa", "!read"),
				ex("cat \"$(readlink -f ~/.ssh/id_rsa)\"", "read /home/u/.ssh/id_rsa")}},
	}
}

// pathPrinter is the model of readlink and realpath: nothing is read;
// with one operand, what the call prints is that path (the file a read of
// it through $(…) reads, symlinks followed as the reader's own read
// follows them).
func (k *call) pathPrinter() {
	p := parseOpts(k.args, spec{arg: "", long: []string{"relative-to", "relative-base"}})
	if len(p.ops) != 1 || !p.ops[0].known || p.ops[0].glob || p.has("relative-to", "relative-base") {
		return
	}
	v := p.ops[0].val
	if !strings.HasPrefix(v, "/") {
		if k.st.dir == "" {
			return
		}
		v = path.Join(k.st.dir, v)
	}
	f := sub(p.ops[0], v)
	k.meta.prints = &f
}

// after runs once a program's model has run: the judgements that hold
// across the families (a program's output that names files).
func (k *call) after() {
	if k.name == "git" {
		k.gitPrintsFiles()
	}
}

// gitPrintsFiles records that a git command prints names of files of the
// work tree below the current directory — git ls-files, git diff
// --name-only/--name-status, git grep -l, git ls-tree --name-only — so
// what it hands on (perl -pi … $(git ls-files '*.go'), | xargs sed -i) is
// a file below that directory, as find ROOT -name N prints.
func (k *call) gitPrintsFiles() {
	if k.meta.prints != nil {
		return
	}
	args := k.args
	i := 0
	for i < len(args) && args[i].known && strings.HasPrefix(args[i].val, "-") {
		switch args[i].val {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env":
			return // another directory or configuration: leave it unknown
		}
		i++
	}
	if i >= len(args) || !args[i].known {
		return
	}
	rest := args[i+1:]
	has := func(names ...string) bool {
		for _, f := range rest {
			if f.known && contains(names, f.val) {
				return true
			}
		}
		return false
	}
	switch args[i].val {
	case "ls-files":
		if has("--error-unmatch", "--with-tree", "-s", "--stage", "--debug") {
			return
		}
	case "diff", "show", "log":
		if !has("--name-only", "--name-status") || has("--no-index") {
			return
		}
	case "grep":
		if !has("-l", "--files-with-matches", "--name-only", "-L", "--files-without-match") {
			return
		}
	default:
		return
	}
	k.printsUnder(nil)
}
