package shell

import "strings"

// follows marks the recursive reads of a walk that follows the symlinks
// it meets (Effect.Follow): what a link in the tree leads to is read as
// well. find -L/-follow, grep -R/--dereference-recursive (grep -r follows
// only the links it is given), rg -L/--follow, zip -r (it follows unless
// -y/--symlinks), rsync -L/--copy-links/--copy-unsafe-links, cp -L, tar
// -h/--dereference, scp -r, and the static web servers (python -m
// http.server, php -S, serve, http-server, …), which serve what a link
// leads to.
func (k *call) follows() {
	yes := false
	switch n := k.name; {
	case n == "find":
		yes = k.flagged("L", "follow") || k.has("-follow")
	case n == "grep" || n == "egrep" || n == "fgrep":
		yes = k.flagged("R", "dereference-recursive")
	case n == "rg":
		yes = k.flagged("L", "follow")
	case n == "zip":
		yes = !k.flagged("y", "symlinks")
	case n == "rsync":
		yes = k.flagged("L", "copy-links") || k.has("--copy-unsafe-links")
	case n == "cp":
		yes = k.flagged("L", "dereference")
	case n == "tar" || n == "bsdtar" || n == "gtar":
		yes = k.flagged("h", "dereference") || k.tarBundledH()
	case n == "scp":
		yes = true
	case isPython(n) || n == "php" || n == "ruby" || n == "http-server" || n == "serve" || n == "live-server" ||
		n == "httpd" || n == "caddy" || n == "twistd" || n == "static-web-server":
		yes = hasTag(k.cmd.Tags, TagUpload) || k.serves()
	}
	if yes {
		for i := range k.cmd.Effects {
			if e := &k.cmd.Effects[i]; e.Kind == Read && e.Recursive && !e.Meta && !e.Unknown {
				e.Follow = true
			}
		}
	}
	// a destructive walk that follows links deletes or changes what they
	// lead to: find -L … -delete, chmod/chown/chgrp -R -L
	kind := Kind("")
	switch n := k.name; {
	case n == "find" && k.findFollows():
		kind = Delete
	case (n == "chmod" || n == "chown" || n == "chgrp") && k.flagged("R", "recursive") && k.flagged("L", ""):
		kind = Write
	}
	if kind == "" {
		return
	}
	for i := range k.cmd.Effects {
		if e := &k.cmd.Effects[i]; e.Kind == kind && e.Recursive && !e.Unknown {
			e.Follow = true
		}
	}
}

// findFollows reports whether a find call follows symlinks (-L,
// -follow): the files it hands on (-exec, its output) include those below
// the links in its trees.
func (k *call) findFollows() bool {
	return k.flagged("L", "follow") || k.has("-follow")
}

// serves reports whether the call has the network effect of a server
// next to a recursive read (the directory it serves).
func (k *call) serves() bool {
	net, rec := false, false
	for _, e := range k.cmd.Effects {
		net = net || e.Kind == Network
		rec = rec || e.Kind == Read && e.Recursive
	}
	return net && rec
}

// flagged reports whether the call has the short option letter (alone or
// in a cluster of letters) or the long option name.
func (k *call) flagged(short, long string) bool {
	for _, f := range k.args {
		if !f.known || len(f.val) < 2 || f.val[0] != '-' {
			continue
		}
		if f.val == "--" {
			return false
		}
		if strings.HasPrefix(f.val, "--") {
			if name, _, _ := strings.Cut(f.val[2:], "="); name == long {
				return true
			}
			continue
		}
		if strings.Contains(f.val[1:], short) && isLetters(f.val[1:]) {
			return true
		}
	}
	return false
}

// tarBundledH reports tar's old-style bundled options (tar czhf x .).
func (k *call) tarBundledH() bool {
	if len(k.args) == 0 || !k.args[0].known {
		return false
	}
	v := k.args[0].val
	return !strings.HasPrefix(v, "-") && strings.Contains(v, "h") && isLetters(v)
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

func hasTag(tags []string, t string) bool {
	for _, x := range tags {
		if x == t {
			return true
		}
	}
	return false
}
