package shell

// gitReads adds the reads of git subcommands that read files outside the
// index, as any reader does: git add of named paths (a .env or a key put
// in the index — with -f even when ignored — is on its way to a commit
// and a push), git diff --no-index A B and git hash-object FILE (git as a
// plain reader of any path: git diff --no-index /dev/null ~/.ssh/id_rsa
// prints the key).
func (k *call) gitReads(sc string, rest []field) {
	switch sc {
	case "add", "stage":
		p := parseOpts(rest, spec{long: []string{"chmod", "pathspec-from-file"}})
		k.files(Read, p.ops, false)
	case "diff":
		p := parseOpts(rest, spec{arg: "SGOU", long: []string{"output", "src-prefix", "dst-prefix", "word-diff-regex", "diff-algorithm", "anchored", "color-moved", "ws-error-highlight"}})
		if p.has("no-index") {
			k.files(Read, p.ops, false)
		}
	case "hash-object":
		p := parseOpts(rest, spec{arg: "t", long: []string{"path"}})
		k.files(Read, p.ops, false)
	}
}
