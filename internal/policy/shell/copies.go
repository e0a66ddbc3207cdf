package shell

import (
	"path"
	"strings"
)

// Copies carry what they copy. A file made in the line as a copy of
// another (cp, mv, install, dd if= of=, rsync to a local path, a hard
// link) holds its source's content: reading the copy later in the line
// reads the source as well, so cp ~/.ssh/id_rsa /tmp/k; curl -F f=@/tmp/k
// sends the key, ln ~/.ssh/id_rsa k; cat k reads it, and env > /tmp/e; mv
// /tmp/e /tmp/f; curl -d @/tmp/f … sends the environment (the source's
// filled reads are found through the extra read, see flow). A copy that
// is written again forgets its source.

// maxCopies bounds the copies remembered in one line.
const maxCopies = 64

// recordCopy remembers that dst now holds what src held. into says dst is
// a directory the source goes into (cp a b/, -t DIR, several sources); an
// existing directory counts as well when the file system can be asked.
// whole says a directory's content is copied into dst itself (rsync a/ b).
func (k *call) recordCopy(src, dst field, into, whole bool) {
	if !src.known || !dst.known || src.glob || dst.glob || src.val == "" || dst.val == "" {
		return
	}
	s, ok := k.a.target(k.st, Read, k.home(src), false)
	if !ok || s.Unknown || s.Target == "" {
		return
	}
	d, ok := k.a.target(k.st, Write, k.home(dst), false)
	if !ok || d.Unknown || d.Target == "" || d.Target == s.Target {
		return
	}
	into = into || strings.HasSuffix(dst.val, "/")
	if !into && !whole && k.a.opts.IsDir != nil && k.a.opts.IsDir(d.Target) {
		into = true
	}
	t := d.Target
	if into && !whole {
		t = path.Join(t, path.Base(s.Target))
	}
	if k.a.copies == nil {
		k.a.copies = map[string]string{}
	}
	if len(k.a.copies) < maxCopies {
		k.a.copies[t] = s.Target
	}
}

// viaCopies returns the reads of the sources a read e reaches through the
// copies made earlier in the line: e's target is a copy, or lies below a
// copied directory (followed through copies of copies).
func (a *analyzer) viaCopies(e Effect) []Effect {
	var out []Effect
	p := e.Target
	for range maxLinkHops {
		best := ""
		for c := range a.copies {
			if (p == c || strings.HasPrefix(p, c+"/")) && len(c) > len(best) {
				best = c
			}
		}
		if best == "" {
			break
		}
		p = a.copies[best] + p[len(best):]
		if p == e.Target {
			break
		}
		out = append(out, Effect{Kind: Read, Target: p, Recursive: e.Recursive,
			Reason: e.Target + " is a copy of " + p + " made earlier in the command line"})
	}
	return out
}

// copiers are the programs whose written files are copies (recordCopy).
var copiers = map[string]bool{"cp": true, "mv": true, "install": true, "ln": true, "dd": true, "rsync": true}

// carryWrites makes the files a command writes from what it read (an
// archive, a compressed or encrypted file, a sorted or converted one:
// tar czf a.tgz f, zip a.zip f, gzip -c, gpg -c -o, openssl enc -in -out,
// sort -o) hold those reads, as a redirection of its output would: sending
// the file later in the line sends them (see flow). Copies are followed by
// recordCopy instead, and a file rewritten in place keeps what it held.
func (k *call) carryWrites() {
	if copiers[k.name] || len(k.cmd.Effects) < 2 {
		return
	}
	var reads []Effect
	var writes []string
	for _, e := range k.cmd.Effects {
		switch {
		case e.Unknown || e.Target == "" || e.Meta:
		case e.Kind == Read:
			reads = append(reads, Effect{Kind: Read, Target: e.Target, Glob: e.Glob, Recursive: e.Recursive})
			reads = append(reads, k.a.filledOf(e)...)
		case e.Kind == Write && !e.Recursive && e.Glob != "":
			writes = append(writes, e.Glob) // split -b 1k f part: part*
		case e.Kind == Write && !e.Recursive && !isPseudoDevice(e.Target):
			writes = append(writes, e.Target)
		}
	}
	if len(reads) == 0 || len(writes) == 0 {
		return
	}
outer:
	for _, w := range writes {
		for _, r := range reads {
			if r.Target == w {
				continue outer // rewritten in place (sed -i, gzip f)
			}
		}
		k.a.fill(w, reads, false)
	}
}

// filledOf returns the reads the files a read e reaches were filled with
// earlier in the line: the file itself, the files a glob the read names
// matches (curl -T /tmp/part*), and files written under a glob (split
// writes PREFIXaa, PREFIXab, …: the key is PREFIX*).
func (a *analyzer) filledOf(e Effect) []Effect {
	if len(a.filled) == 0 || e.Unknown {
		return nil
	}
	out := a.filled[e.Target]
	if e.Glob == "" && !a.globFilled {
		return out
	}
	for key, reads := range a.filled {
		if key == e.Target {
			continue
		}
		if globOverlap(key, e) {
			out = append(out[:len(out):len(out)], reads...)
		}
	}
	return out
}

// globOverlap reports whether a file key filled earlier (a path, or a
// glob such as PREFIX*) and a read e (a path, or a glob) may name the same
// file.
func globOverlap(key string, e Effect) bool {
	keyGlob := strings.ContainsAny(key, "*?[")
	switch {
	case !keyGlob && e.Glob != "":
		ok, err := path.Match(e.Glob, key)
		return ok && err == nil
	case keyGlob && e.Glob == "":
		ok, err := path.Match(key, e.Target)
		return ok && err == nil
	case keyGlob && e.Glob != "":
		// both patterns: their literal beginnings agree
		a, b := litPrefix(key), litPrefix(e.Glob)
		return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
	}
	return false
}

// litPrefix is a glob up to its first pattern character.
func litPrefix(g string) string {
	if i := strings.IndexAny(g, "*?["); i >= 0 {
		return g[:i]
	}
	return g
}
