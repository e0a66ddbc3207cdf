package shell

import "strings"

// Transformers: programs that read a file and write what they make of it
// somewhere else — a compressed, encrypted, encoded or cut-up copy. They
// read their input (a secret read so is denied as any read of it is), and
// the file they write holds what they read (carryWrites): sending it later
// in the line sends the source. Where they write is often not written on
// the command line: gzip f makes f.gz, gpg -c f makes f.gpg, split f p
// makes paq, pab, … (the glob p*). Each is declared here with the name it
// derives.

// compressSuffix is the suffix each compressor adds by default.
var compressSuffix = map[string]string{"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz", "lzma": ".lzma", "zstd": ".zst",
	"lz4": ".lz4", "compress": ".Z", "lzip": ".lz", "lzop": ".lzo", "brotli": ".br", "pigz": ".gz", "pbzip2": ".bz2", "pixz": ".xz"}

// decompressors are the names that undo a compressor, by the compressor.
var decompressors = map[string]string{"gunzip": "gzip", "bunzip2": "bzip2", "unxz": "xz", "unlzma": "lzma", "unzstd": "zstd",
	"uncompress": "compress", "unpigz": "pigz"}

// derived is f with a suffix added (or removed, when strip).
func derived(f field, suffix string, strip bool) field {
	if !f.known || f.glob {
		return f
	}
	if strip {
		if v, ok := strings.CutSuffix(f.val, suffix); ok && v != "" {
			return sub(f, v)
		}
		return f
	}
	return sub(f, f.val+suffix)
}

// prefixGlob is the files whose names begin with f: split's outputs.
func prefixGlob(f field) field {
	if !f.known {
		return f
	}
	g := sub(f, f.val+"*")
	g.glob = true
	return g
}

func transformPrograms() []program {
	return []program{
		{names: []string{"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "compress",
			"uncompress", "lzip", "lzop", "brotli", "pigz", "unpigz", "pbzip2", "pixz"}, model: (*call).compressor,
			examples: []example{ex("gzip big.log", "read /home/u/proj/big.log", "write /home/u/proj/big.log.gz", "write /home/u/proj/big.log"),
				ex("gzip -c big.log", "read /home/u/proj/big.log", "!write"),
				ex("xz -k -S .x f", "read /home/u/proj/f", "write /home/u/proj/f.x", "!write /home/u/proj/f"),
				ex("gunzip a.gz", "read /home/u/proj/a.gz", "write /home/u/proj/a"),
				ex("zstd f -o /tmp/o", "read /home/u/proj/f", "write /tmp/o"),
				ex("lz4 in out", "read /home/u/proj/in", "write /home/u/proj/out")}},
		{names: []string{"split", "csplit"}, model: (*call).splitter,
			examples: []example{ex("split -b 1M big part", "read /home/u/proj/big", "write /home/u/proj"),
				ex("split big", "read /home/u/proj/big", "write /home/u/proj"),
				ex("csplit -f sec doc '/^#/' '{*}'", "read /home/u/proj/doc", "write /home/u/proj")}},
		{names: []string{"gpg", "gpg2"}, model: (*call).gpg,
			examples: []example{ex("gpg -o out.gpg -c notes", "read /home/u/proj/notes", "write /home/u/proj/out.gpg", "!read /home/u/proj/out.gpg"),
				ex("gpg -c notes", "read /home/u/proj/notes", "write /home/u/proj/notes.gpg"),
				ex("gpg --armor --encrypt -r a@b.c notes", "read /home/u/proj/notes", "write /home/u/proj/notes.asc", "!read /home/u/proj/a@b.c"),
				ex("gpg --detach-sign rel.tgz", "read /home/u/proj/rel.tgz", "write /home/u/proj/rel.tgz.sig"),
				ex("gpg --verify x.sig x", "read /home/u/proj/x.sig", "!write")}},
		{names: []string{"rar"}, model: func(k *call) {
			// rar a|u|m|f ARCHIVE FILES…: the files are read into the archive
			p := parseOpts(k.args, spec{})
			if len(p.ops) < 2 || !p.ops[0].known {
				k.files(Read, p.ops, false)
				return
			}
			switch p.ops[0].val {
			case "a", "u", "m", "f":
				k.file(Write, p.ops[1], false)
				k.files(Read, p.ops[2:], p.has("r"))
			case "x", "e":
				k.file(Read, p.ops[1], false)
				k.file(Write, lit("."), true)
			default:
				k.file(Read, p.ops[1], false)
			}
		}, examples: []example{ex("rar a out.rar notes", "write /home/u/proj/out.rar", "read /home/u/proj/notes")}},
		{names: []string{"ar"}, model: func(k *call) {
			// ar r|q ARCHIVE FILES…: the files are read into the archive
			p := parseOpts(k.args, spec{})
			ops := p.ops
			if len(ops) < 2 || !ops[0].known {
				k.files(Read, ops, false)
				return
			}
			mode := strings.TrimPrefix(ops[0].val, "-")
			if strings.ContainsAny(mode, "rq") {
				k.file(Write, ops[1], false)
				k.files(Read, ops[2:], false)
				return
			}
			k.file(Read, ops[1], false)
			if strings.Contains(mode, "x") {
				k.file(Write, lit("."), true)
			}
		}, examples: []example{ex("ar rcs lib.a a.o b.o", "write /home/u/proj/lib.a", "read /home/u/proj/a.o")}},
		{names: []string{"age", "rage"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "oriRjI", long: []string{"output", "recipient", "recipients-file", "identity", "plugin"}})
			if o, ok := p.get("o", "output"); ok {
				k.file(Write, o, false)
			}
			k.files(Read, p.all("R", "recipients-file", "i", "identity"), false)
			k.files(Read, p.ops, false)
		}, examples: []example{ex("age -p -o /tmp/o f", "read /home/u/proj/f", "write /tmp/o", "!read /tmp/o")}},
	}
}

// compressor models gzip and its kin: FILE becomes FILE.gz (FILE stays with
// -k), -c prints, -o names the output (zstd, lz4), and lz4 IN OUT writes OUT;
// the decompressors (and -d) strip the suffix.
func (k *call) compressor() {
	p := parseOpts(k.args, spec{arg: "SbToBpLD", long: []string{"suffix", "threads", "output", "blocksize", "processes", "dict"}, num: true})
	rec := p.has("r", "recursive")
	if p.has("c", "stdout", "to-stdout", "l", "list", "t", "test") {
		k.files(Read, p.ops, rec)
		return
	}
	base, un := k.name, false
	if c, ok := decompressors[base]; ok {
		base, un = c, true
	}
	un = un || p.has("d", "decompress", "uncompress")
	suffix := compressSuffix[base]
	if s, ok := p.get("S", "suffix"); ok && s.known {
		suffix = s.val
	}
	ops := p.ops
	if (base == "lz4" || base == "lzop") && len(ops) == 2 && !p.has("m", "multiple") {
		// lz4 IN OUT
		k.file(Read, ops[0], false)
		k.file(Write, ops[1], false)
		return
	}
	if o, ok := p.get("o", "output"); ok && base != "pigz" && base != "gzip" {
		k.files(Read, ops, rec)
		k.file(Write, o, false)
		return
	}
	k.files(Read, ops, rec)
	if rec {
		k.files(Write, ops, true)
		return
	}
	for _, f := range ops {
		k.file(Write, derived(f, suffix, un), false)
		if !p.has("k", "keep") {
			k.file(Write, f, false) // the input is replaced
		}
	}
}

// splitter models split and csplit: the input is read, the pieces are
// written as PREFIX followed by a suffix (split's PREFIX operand, default
// x; csplit's -f, default xx).
func (k *call) splitter() {
	if k.name == "csplit" {
		p := parseOpts(k.args, spec{arg: "fbn", long: []string{"prefix", "suffix-format", "digits"}})
		if len(p.ops) > 0 {
			k.file(Read, p.ops[0], false)
		}
		pre := lit("xx")
		if f, ok := p.get("f", "prefix"); ok {
			pre = f
		}
		k.file(Write, prefixGlob(pre), false)
		return
	}
	p := parseOpts(k.args, spec{arg: "lbCanft", long: []string{"lines", "bytes", "line-bytes", "suffix-length", "number", "additional-suffix", "filter", "separator"}})
	if f, ok := p.get("filter"); ok {
		k.nested(f, "split --filter", nil, false)
	}
	if len(p.ops) > 0 {
		k.file(Read, p.ops[0], false)
	}
	pre := lit("x")
	if len(p.ops) > 1 {
		pre = p.ops[1]
	}
	k.file(Write, prefixGlob(pre), false)
}

// gpg models gpg's outputs: -o FILE is written (not read), and the commands
// that make a file from each input without -o write INPUT.gpg (.asc with
// --armor or --clearsign, .sig for a detached binary signature).
func (k *call) gpg() {
	p := parseOpts(k.args, spec{arg: "oruzfRN", long: []string{"output", "recipient", "local-user", "homedir", "passphrase",
		"passphrase-file", "passphrase-fd", "cipher-algo", "compress-algo", "digest-algo", "trust-model", "keyserver", "default-key",
		"hidden-recipient", "recipient-file", "encrypt-to", "s2k-cipher-algo", "s2k-digest-algo", "pinentry-mode", "status-fd",
		"logger-fd", "command-fd", "keyring", "secret-keyring", "set-filename", "comment", "default-recipient", "trustdb-name"}})
	k.files(Read, p.all("passphrase-file", "recipient-file", "f"), false)
	if o, ok := p.get("o", "output"); ok {
		k.files(Read, p.ops, false)
		if !(o.known && o.val == "-") {
			k.file(Write, o, false)
		}
		return
	}
	k.files(Read, p.ops, false)
	makes := p.has("c", "symmetric", "e", "encrypt", "s", "sign", "clearsign", "clear-sign", "b", "detach-sign")
	if !makes || p.has("d", "decrypt", "verify", "list-packets", "import", "export", "list-keys", "k") {
		return
	}
	suffix := ".gpg"
	switch {
	case p.has("a", "armor", "clearsign", "clear-sign"):
		suffix = ".asc"
	case p.has("b", "detach-sign"):
		suffix = ".sig"
	}
	for _, f := range p.ops {
		k.file(Write, derived(f, suffix, false), false)
	}
}
