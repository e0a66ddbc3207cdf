package shell

// wardenChanges reports whether a warden command whose subcommand is
// read-only by name changes something all the same: approvals --watch
// answers the queue from a terminal (y/n/a), a read-only command given
// more words than it takes is not known to be read-only (warden
// approvals approve --all), and events export -o FILE writes FILE (the
// write is added as an effect; the command stays read-only).
func (k *call) wardenChanges(sc, sc2 string, words []field) bool {
	switch sc {
	case "approvals":
		for _, f := range k.args {
			if f.known && (f.val == "--watch" || f.val == "-W" || f.val == "--watch=true") {
				return true
			}
		}
	case "events":
		if sc2 == "export" {
			p := parseOpts(k.args, spec{arg: "o", long: []string{"output", "after", "data-dir", "config"}})
			for _, o := range p.all("o", "output") {
				k.file(Write, o, false)
			}
		}
	}
	if subs, ok := wardenReadOnly[sc]; ok && len(subs) == 1 && subs[0] == "" && len(words) > 1 {
		return true
	}
	return false
}
