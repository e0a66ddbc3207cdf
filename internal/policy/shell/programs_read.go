package shell

import (
	"path"
	"strings"
)

// readPrograms declares programs that read files: viewers, filters, searchers, archivers, checksums.
func readPrograms() []program {
	return []program{
		{names: []string{"cat", "tac", "less", "more", "bat", "batcat", "view", "zcat", "gzcat", "bzcat", "xzcat", "zstdcat", "zless",
			"rev", "comm", "wc", "look", "tidy", "xmllint", "csvlook", "mlr",
			"nano", "open", "xdg-open"}, model: reads(spec{}),
			examples: []example{ex("cat ~/.ssh/id_rsa", "read /home/u/.ssh/id_rsa"), ex("wc -l a b", "read /home/u/proj/a", "read /home/u/proj/b"), ex("less", "!read")}},
		{names: []string{"code", "code-insiders", "codium", "cursor", "windsurf"}, model: func(k *call) {
			k.editorExtensions()
			k.reader(spec{long: []string{"install-extension", "uninstall-extension", "extensions-dir", "user-data-dir", "profile", "locale", "log", "goto"}}, 0, false)
		}, examples: []example{ex("code --install-extension pub.ext", "tag dynamic-exec"), ex("code main.go", "read /home/u/proj/main.go", "!tag dynamic-exec")}},
		{names: []string{"od"}, model: reads(spec{arg: "AjNtSw", long: []string{"address-radix", "skip-bytes", "read-bytes", "format", "strings", "width"}}),
			examples: []example{ex("od -A x -t x1z f", "read /home/u/proj/f", "!read /home/u/proj/x")}},
		{names: []string{"strings"}, model: reads(spec{arg: "ntTe", long: []string{"bytes", "radix", "target", "encoding"}}),
			examples: []example{ex("strings -n 8 bin", "read /home/u/proj/bin", "!read /home/u/proj/8")}},
		{names: []string{"hexdump", "hd"}, model: reads(spec{arg: "enNs", long: []string{"format", "length", "skip"}}),
			examples: []example{ex("hexdump -n 16 f", "read /home/u/proj/f", "!read /home/u/proj/16")}},
		{names: []string{"base64", "base32", "basenc", "fold", "fmt", "column", "pr"}, model: reads(spec{arg: "wsctl", long: []string{"wrap", "width", "separator", "table-columns", "output-separator"}}),
			examples: []example{ex("base64 -w 0 ~/.aws/credentials", "read /home/u/.aws/credentials", "!read /home/u/proj/0")}},
		{names: []string{"file"}, model: (*call).fileType,
			examples: []example{ex("file -m magic x", "read /home/u/proj/x", "!read /home/u/proj/magic"), ex("file -L x", "read /home/u/proj/x")}},
		{names: []string{"stat"}, model: reads(spec{arg: "ct", long: []string{"format", "printf"}}),
			examples: []example{ex("stat -c %s f", "read /home/u/proj/f")}},
		{names: []string{"du"}, model: walks(spec{arg: "dBXt", long: []string{"max-depth", "block-size", "exclude-from", "threshold", "exclude", "time-style"}}),
			examples: []example{ex("du -d 1", "read:r /home/u/proj"), ex("du -sh ~", "read:r /home/u")}},
		{names: []string{"tree"}, model: walks(spec{arg: "LIPo", long: []string{"filelimit", "charset", "sort"}}),
			examples: []example{ex("tree -L 2 src", "read:r /home/u/proj/src", "!read /home/u/proj/2")}},
		{names: []string{"ls", "dir"}, model: reads(spec{arg: "IwT", long: []string{"ignore", "hide", "width", "tabsize", "format", "sort", "time", "time-style", "color", "block-size", "quoting-style", "indicator-style"}}),
			examples: []example{ex("ls -la ~/.ssh", "read /home/u/.ssh"), ex("ls", "!read"), ex("ls docs/*.md | xargs -n1 wc -l", "read /home/u/proj/docs"), ex("ls -I '*.o' src", "read /home/u/proj/src", "!read /home/u/proj/*.o")}},
		{names: []string{"lsattr", "getfacl"}, model: reads(spec{}),
			examples: []example{ex("getfacl -R x", "read:r /home/u/proj/x")}},
		{names: []string{"nl"}, model: reads(spec{arg: "bdfhilnsvw"}),
			examples: []example{ex("nl -b a f", "read /home/u/proj/f", "!read /home/u/proj/a")}},
		{names: []string{"paste"}, model: reads(spec{arg: "d", long: []string{"delimiters"}}),
			examples: []example{ex("paste -d , a b", "read /home/u/proj/a", "read /home/u/proj/b", "!read /home/u/proj/,")}},
		{names: []string{"join"}, model: reads(spec{arg: "aejot12"}),
			examples: []example{ex("join -t : a b", "read /home/u/proj/a", "!read /home/u/proj/:")}},
		{names: []string{"iconv"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "fto", long: []string{"from-code", "to-code", "output"}})
			k.files(Read, p.ops, false)
			if o, ok := p.get("o", "output"); ok {
				k.file(Write, o, false)
			}
		}, examples: []example{ex("iconv -f latin1 -t utf8 f", "read /home/u/proj/f", "!read /home/u/proj/utf8"),
			ex("iconv -f a -t b f -o /tmp/o", "read /home/u/proj/f", "write /tmp/o")}},
		{names: []string{"cmp"}, model: reads(spec{arg: "in", long: []string{"ignore-initial", "bytes"}}),
			examples: []example{ex("cmp -n 10 a b", "read /home/u/proj/a", "!read /home/u/proj/10")}},
		{names: []string{"expand", "unexpand"}, model: reads(spec{arg: "t", long: []string{"tabs"}}),
			examples: []example{ex("expand -t 4 f", "read /home/u/proj/f", "!read /home/u/proj/4")}},
		{names: []string{"head", "tail"}, model: func(k *call) {
			k.reader(spec{arg: "ncs", long: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"}, num: true}, 0, false)
		}, examples: []example{ex("head -n 5 ~/.netrc", "read /home/u/.netrc", "!read /home/u/proj/5"), ex("tail -f log", "read /home/u/proj/log")}},
		{names: []string{"cut", "tr"}, model: func(k *call) {
			n := k.name
			if n == "tr" {
				return
			}
			k.reader(spec{arg: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}, 0, false)
		}, examples: []example{ex("cut -d : -f 1 /etc/passwd", "read /etc/passwd", "!read /home/u/proj/:"), ex("tr a b", "!read")}},
		{names: []string{"sort", "shuf"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "kotTSnri", long: []string{"key", "output", "field-separator", "temporary-directory", "buffer-size", "random-source", "files0-from", "head-count", "input-range"}})
			if o, ok := p.get("o", "output"); ok {
				k.file(Write, o, false)
			}
			if !p.has("e", "echo", "i", "input-range") {
				k.files(Read, p.ops, false)
			}
		}, examples: []example{ex("sort -o out in", "write /home/u/proj/out", "read /home/u/proj/in")}},
		{names: []string{"uniq"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}})
			if len(p.ops) > 0 {
				k.file(Read, p.ops[0], false)
			}
			if len(p.ops) > 1 {
				k.file(Write, p.ops[1], false)
			}
		}, examples: []example{ex("uniq in out", "read /home/u/proj/in", "write /home/u/proj/out")}},
		{names: []string{"xxd"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "cglosn", long: []string{"cols", "groupsize", "len", "seek", "name"}})
			if len(p.ops) > 0 {
				k.file(Read, p.ops[0], false)
			}
			if len(p.ops) > 1 {
				k.file(Write, p.ops[1], false)
			}
		}, examples: []example{ex("xxd -l 16 f", "read /home/u/proj/f")}},
		{names: []string{"diff", "colordiff", "vimdiff", "sdiff", "diff3"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "CUIFLSxXDW", long: []string{"context", "unified", "ignore-matching-lines", "label", "starting-file", "exclude", "exclude-from", "to-file", "from-file", "width", "line-format"}})
			k.files(Read, p.ops, p.has("r", "recursive"))
		}, examples: []example{ex("diff -r a b", "read:r /home/u/proj/a", "read:r /home/u/proj/b")}},
		{names: []string{"grep", "egrep", "fgrep", "zgrep", "ggrep"}, model: func(k *call) {
			k.grep(spec{arg: "efmABCdD", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label", "binary-files", "devices", "directories", "exclude-from"}}, false)
		}, examples: []example{ex("grep -r TODO src", "read:r /home/u/proj/src", "!read /home/u/proj/TODO"),
			ex("grep -rl old_name lib | xargs sed -i s/old_name/new_name/", "write /home/u/proj/lib"),
			ex("grep -l secret ~/.ssh/* | xargs cat", "read /home/u/.ssh"), ex("grep -e x -f pats f", "read /home/u/proj/pats", "read /home/u/proj/f")}},
		{names: []string{"rg", "ag", "ack", "pt", "ugrep"}, model: func(k *call) {
			k.grep(spec{arg: "efgtTmABCMjrEG", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "max-columns", "threads", "replace", "encoding", "max-depth", "ignore-file", "type-add", "sort", "sortr", "color", "colors", "path-separator", "pre", "pre-glob", "engine", "ignore-dir"}}, true)
		}, examples: []example{ex("rg TODO", "read:r /home/u/proj"), ex("rg -g \"*.go\" x src", "read:r /home/u/proj/src")}},
		{names: []string{"jq", "gojq", "jaq"}, model: (*call).jq,
			examples: []example{ex("jq .a f.json", "read /home/u/proj/f.json")}},
		{names: []string{"yq"}, model: (*call).yq,
			examples: []example{ex("yq e .a c.yaml", "read /home/u/proj/c.yaml")}},
		{names: []string{"awk", "gawk", "mawk", "nawk"}, model: (*call).awk,
			examples: []example{ex("awk '{print $1}' f", "read /home/u/proj/f"), ex("awk 'BEGIN{system(\"rm -rf /x\")}'", "delete:r /x"),
				ex("awk '{print | \"sh\"}' f", "tag dynamic-exec"), ex("awk '{print $1 | \"sort\"}' f", "cmd sort", "!tag dynamic-exec")}},
		{names: []string{"tar", "bsdtar", "gtar"}, model: (*call).tar,
			examples: []example{ex("tar czf x.tgz ~/.ssh", "write /home/u/proj/x.tgz", "read:r /home/u/.ssh"), ex("tar xf a.tar -C /tmp/o", "read /home/u/proj/a.tar", "write:r /tmp/o")}},
		{names: []string{"unzip"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "dxP"})
			if len(p.ops) > 0 {
				k.file(Read, p.ops[0], false)
			}
			if p.has("l", "v", "t", "Z") {
				return
			}
			if d, ok := p.get("d"); ok {
				k.file(Write, d, true)
			} else {
				k.file(Write, lit("."), true)
			}
		}, examples: []example{ex("unzip a.zip -d out", "read /home/u/proj/a.zip", "write:r /home/u/proj/out"), ex("unzip -l a.zip", "!write")}},
		{names: []string{"zip"}, model: func(k *call) {
			// -TT CMD / --unzip-command CMD: the command zip -T runs to test
			// the archive, a command line run here
			args := make([]field, 0, len(k.args))
			for i := 0; i < len(k.args); i++ {
				f := k.args[i]
				switch {
				case f.known && (f.val == "-TT" || f.val == "--unzip-command") && i+1 < len(k.args):
					i++
					k.nested(k.args[i], "zip -TT", nil, false)
					continue
				case f.known && strings.HasPrefix(f.val, "--unzip-command="):
					k.nested(sub(f, strings.TrimPrefix(f.val, "--unzip-command=")), "zip -TT", nil, false)
					continue
				}
				args = append(args, f)
			}
			p := parseOpts(args, spec{arg: "bintxP"})
			if len(p.ops) > 0 {
				k.file(Write, p.ops[0], false)
				k.files(Read, p.ops[1:], p.has("r", "R", "recurse-paths"))
			}
			if p.has("m", "move") && len(p.ops) > 1 {
				k.files(Delete, p.ops[1:], p.has("r", "R"))
			}
		}, examples: []example{ex("zip -r k.zip ~/.gnupg", "write /home/u/proj/k.zip", "read:r /home/u/.gnupg"),
			ex("zip out.zip f -T --unzip-command 'rm -rf /opt/x #'", "delete:r /opt/x", "write /home/u/proj/out.zip")}},
	}
}

// reader models programs whose operands (after skip) are files read.
func (k *call) reader(s spec, skip int, rec bool) {
	p := parseOpts(k.args, s)
	ops := p.ops
	if skip <= len(ops) {
		ops = ops[skip:]
	}
	rec = rec || p.has("R", "recursive")
	if k.name == "ls" && len(ops) == 0 {
		return
	}
	if k.name == "du" && len(ops) == 0 {
		ops = []field{lit(".")}
	}
	if k.name == "ls" && !p.has("l", "R", "recursive") {
		k.printsUnder(ops)
	}
	switch k.name {
	case "ls", "dir", "du", "tree", "stat", "lsattr", "getfacl":
		// names and attributes only, not contents
		for _, f := range ops {
			if e, ok := k.a.target(k.st, Read, f, rec); ok {
				e.Meta = !e.Unknown
				k.eff(e)
			}
		}
	default:
		k.files(Read, ops, rec)
	}
	for _, c := range p.all("c") {
		if strings.HasSuffix(k.name, "sum") {
			k.file(Read, c, false)
		}
	}
}

func (k *call) grep(s spec, rgLike bool) {
	p := parseOpts(k.args, s)
	ops := p.ops
	if !p.has("e", "regexp", "f", "file") && len(ops) > 0 {
		ops = ops[1:]
	}
	k.files(Read, p.all("f", "file"), false)
	rec := rgLike || p.has("r", "R", "recursive", "dereference-recursive")
	if rgLike && p.has("files", "type-list") {
		ops = p.ops
	}
	if len(ops) == 0 && rec {
		ops = []field{lit(".")}
	}
	k.files(Read, ops, rec)
	if p.has("l", "files-with-matches", "L", "files-without-match") || rgLike && p.has("files") {
		k.printsUnder(ops)
	}
}

// printsUnder records that a call prints names of files under the paths
// ops (grep -rl PAT DIR, ls GLOB): what it hands on (xargs, $(…)) is a
// file below their common directory, as find ROOT -name N prints.
func (k *call) printsUnder(ops []field) {
	if len(ops) == 0 {
		ops = []field{lit(".")}
	}
	root := ""
	for i, f := range ops {
		if !f.known {
			return
		}
		d := path.Clean(f.val)
		for strings.ContainsAny(d, "*?[") {
			d = path.Dir(d)
		}
		if i == 0 {
			root = d
			continue
		}
		for root != d && !strings.HasPrefix(d, root+"/") {
			if root == "." || root == "/" {
				break
			}
			root = path.Dir(root)
		}
		if root != d && !strings.HasPrefix(d, root+"/") {
			return // no common directory (a relative and an absolute path)
		}
	}
	// files below root: named "*" (a single glob operand keeps its
	// pattern), so a consumer is judged on those files, not on root itself
	name := "*"
	if len(ops) == 1 && path.Dir(path.Clean(ops[0].val)) == root && strings.ContainsAny(path.Base(ops[0].val), "*?[") {
		name = path.Base(ops[0].val)
	}
	rb := sub(ops[0], path.Join(root, name))
	rb.glob = true
	rb.under = true
	rb.named = true
	k.meta.prints = &rb
}

func (k *call) jq() {
	args := k.args
	var files []field
	filterSeen := false
	restArgs := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := f.val
		if restArgs {
			break
		}
		switch {
		case !f.known:
			if !filterSeen {
				filterSeen = true
				continue
			}
			files = append(files, f)
		case v == "--arg" || v == "--argjson":
			i += 2
		case v == "--slurpfile" || v == "--rawfile":
			if i+2 < len(args) {
				k.file(Read, args[i+2], false)
			}
			i += 2
		case v == "-f" || v == "--from-file":
			if i+1 < len(args) {
				k.file(Read, args[i+1], false)
			}
			filterSeen = true
			i++
		case v == "--indent" || v == "-L" || v == "--tab-width":
			i++
		case v == "--args" || v == "--jsonargs":
			restArgs = true
		case strings.HasPrefix(v, "-") && len(v) > 1:
		default:
			if !filterSeen {
				filterSeen = true
				continue
			}
			files = append(files, f)
		}
	}
	k.files(Read, files, false)
}

func (k *call) yq() {
	p := parseOpts(k.args, spec{arg: "pIoe", long: []string{"output-format", "input-format", "indent", "expression", "from-file"}})
	ops := p.ops
	if len(ops) > 0 && ops[0].known && (ops[0].val == "e" || ops[0].val == "eval" || ops[0].val == "ea" || ops[0].val == "eval-all") {
		ops = ops[1:]
	}
	if len(ops) > 1 || (len(ops) == 1 && (ops[0].known && (strings.HasSuffix(ops[0].val, ".yaml") || strings.HasSuffix(ops[0].val, ".yml") || strings.HasSuffix(ops[0].val, ".json")))) {
		if len(ops) > 1 || !p.has("e", "expression") {
			if len(ops) > 1 {
				ops = ops[1:]
			}
		}
	} else {
		ops = nil
	}
	if p.has("i", "inplace") {
		k.files(Write, ops, false)
		return
	}
	k.files(Read, ops, false)
}

func (k *call) awk() {
	p := parseOpts(k.args, spec{arg: "fvFiEW", long: []string{"file", "assign", "field-separator", "include", "exec"}})
	ops := p.ops
	inplace := false
	for _, o := range p.opts {
		if (o.name == "i" || o.name == "include") && o.val.val == "inplace" {
			inplace = true
		}
	}
	progs := p.all("f", "file", "E", "exec")
	k.files(Read, progs, false)
	for _, f := range progs {
		k.runScript(f, "awk")
	}
	if !p.has("f", "file", "E", "exec") && len(ops) > 0 {
		if ops[0].known {
			// the program: system(), print | "cmd", "cmd" | getline, print
			// > "file"; -v NAME=VALUE and ARGV[n] are values it reads
			for _, v := range p.all("v", "assign") {
				if name, val, ok := strings.Cut(v.val, "="); ok && v.known && name != "" {
					if k.codeVars == nil {
						k.codeVars = map[string]field{}
					}
					k.codeVars[name] = sub(v, val)
				}
			}
			k.codeOps = ops[1:]
			k.codeSinks(ops[0], "awk", 0)
			k.codeOps, k.codeVars = nil, nil
		}
		ops = ops[1:]
	}
	var files []field
	for _, o := range ops {
		if o.known && strings.Contains(o.val, "=") && !strings.HasPrefix(o.val, "/") && !strings.HasPrefix(o.val, ".") {
			continue
		}
		files = append(files, o)
	}
	if inplace {
		k.files(Write, files, false)
		return
	}
	k.files(Read, files, false)
}

func (k *call) tar() {
	args := k.args
	// old-style first argument without a dash: "tar czf out.tgz dir"
	if len(args) > 0 && args[0].known && !strings.HasPrefix(args[0].val, "-") && len(args[0].val) > 0 && strings.Trim(args[0].val, "cxtrufvzjJapPkOWmSlhC") == "" {
		na := make([]field, len(args))
		copy(na, args)
		na[0] = sub(args[0], "-"+args[0].val)
		args = na
	}
	p := parseOpts(args, spec{arg: "fCTXbHIKLNgV", long: []string{"file", "directory", "files-from", "exclude-from", "exclude", "blocking-factor", "format", "use-compress-program", "starting-file", "newer", "after-date", "listed-incremental", "label", "transform", "owner", "group", "mode", "mtime"}})
	archive, hasArchive := p.get("f", "file")
	// options whose value is a command tar runs
	for i, a := range args {
		if !a.known {
			continue
		}
		for _, o := range []string{"--to-command=", "--checkpoint-action=exec=", "--use-compress-program=", "--info-script=", "--new-volume-script="} {
			if v, ok := strings.CutPrefix(a.val, o); ok && v != "" {
				k.nested(sub(a, v), "tar "+strings.TrimSuffix(o, "="), nil, false)
			}
		}
		if (a.val == "-I" || a.val == "--to-command" || a.val == "--use-compress-program") && i+1 < len(args) {
			k.nested(args[i+1], "tar "+a.val, nil, false)
		}
	}
	var dir *field
	if d, ok := p.get("C", "directory"); ok {
		dir = &d
	}
	switch {
	case p.has("c", "create", "r", "append", "u", "update"):
		if hasArchive {
			k.file(Write, archive, false)
		}
		st := k.st
		if dir != nil {
			st = k.withDir(*dir)
		}
		for _, o := range p.ops {
			if e, ok := k.a.target(st, Read, o, true); ok {
				k.eff(e)
			}
		}
		if p.has("remove-files") {
			for _, o := range p.ops {
				if e, ok := k.a.target(st, Delete, o, true); ok {
					k.eff(e)
				}
			}
		}
	case p.has("x", "extract", "get"):
		if hasArchive {
			k.file(Read, archive, false)
		}
		if p.has("O", "to-stdout") {
			return
		}
		if dir != nil {
			k.file(Write, *dir, true)
		} else {
			k.file(Write, lit("."), true)
		}
	default:
		if hasArchive {
			k.file(Read, archive, false)
		}
	}
}

// fileType models file(1): it reads the first bytes of each file to name
// its type, but a symlink it names is described as a link, not followed
// (-h, the default), unless -L/--dereference: the link's target is then
// read.
func (k *call) fileType() {
	s := spec{arg: "fmFe", long: []string{"files-from", "magic-file", "separator", "exclude"}}
	p := parseOpts(k.args, s)
	follow := k.flagged("L", "dereference")
	for _, f := range p.all("f", "files-from") {
		k.file(Read, f, false)
	}
	for _, f := range p.ops {
		if e, ok := k.a.target(k.st, Read, f, false); ok {
			e.Link = !follow && !e.Unknown
			k.eff(e)
		}
	}
}
