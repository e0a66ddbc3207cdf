package shell

import "strings"

// mentions models a program the analyser has no model for: every argument
// that names a file (a path, a dotted name, or the value of --opt=path) is
// assumed to be read, so "openssl rsa -in ~/.ssh/id_rsa" or "tool .env"
// reads what it names. Arguments not known at check time add nothing: an
// unknown program is not made suspicious by a variable.
func (k *call) mentions() {
	for _, f := range k.args {
		if !f.known || f.proc || f.tmpl {
			continue
		}
		v := f.val
		if strings.HasPrefix(v, "-") {
			_, val, ok := strings.Cut(v, "=")
			if !ok {
				continue
			}
			v = val
			f = sub(f, v)
		}
		if !pathShaped(v) {
			continue
		}
		e, ok := k.a.target(k.st, Read, f, false)
		if !ok || e.Unknown || e.Kind != Read {
			continue
		}
		if e.Reason == "" {
			e.Reason = "assumed read: " + k.name + " has no model and names this file"
		}
		k.eff(e)
	}
}

// pathShaped reports whether an argument looks like a file name rather
// than a word: it has a slash or a dot, or starts with "~". URLs,
// host:path specs and plain words are not paths.
func pathShaped(v string) bool {
	if v == "" || v == "." || v == ".." || strings.Contains(v, "://") || strings.ContainsAny(v, "\n=@") {
		return false
	}
	if i := strings.IndexByte(v, ':'); i > 0 && !strings.HasPrefix(v, "/") {
		return false // host:path, key:value
	}
	return strings.HasPrefix(v, "~") || strings.ContainsAny(v, "/.")
}
