package shell

// vcsPrograms declares version control and code hosting.
func vcsPrograms() []program {
	return []program{
		{names: []string{"git"}, model: (*call).git,
			examples: []example{ex("git push --force origin main", "tag git.push.force", "attr branch=main"), ex("git status", "!tag git.push.force")}},
		{names: []string{"gh"}, model: (*call).gh,
			examples: []example{ex("gh repo delete o/r --yes", "tag remote.delete"), ex("gh gist create ~/.netrc", "read /home/u/.netrc")}},
	}
}

func (k *call) gh() {
	p := parseOpts(k.args, spec{arg: "R", long: []string{"repo"}, stop: true})
	if len(p.ops) < 2 {
		return
	}
	a, b := p.ops[0].val, p.ops[1].val
	switch {
	case a == "gist" && (b == "create" || b == "new" || b == "edit"):
		// the files named are read and uploaded
		g := parseOpts(p.ops[2:], spec{arg: "df", long: []string{"desc", "filename", "add"}})
		files := g.ops
		if b == "edit" && len(files) > 0 {
			files = files[1:] // the gist id
		}
		if v, ok := g.get("a", "add"); ok {
			files = append(files, v)
		}
		k.files(Read, files, false)
	case a == "release" && (b == "create" || b == "upload"):
		k.tag(TagPublish)
		k.attr("subcommand", a+" "+b)
		if ops := parseOpts(p.ops[2:], spec{arg: "tnFR", long: []string{"title", "notes", "notes-file", "target", "discussion-category", "notes-start-tag"}}).ops; len(ops) > 1 {
			k.files(Read, ops[1:], false) // assets after the tag
		}
	case b == "delete" || (a == "release" && b == "delete-asset"):
		k.tag(TagRemoteDelete)
	case a == "api":
		for _, f := range k.args {
			if f.known && (f.val == "DELETE" || f.val == "-XDELETE" || f.val == "--method=DELETE") {
				k.tag(TagRemoteDelete)
			}
		}
	}
	k.eff(Effect{Kind: Network, Target: "github.com"})
}
