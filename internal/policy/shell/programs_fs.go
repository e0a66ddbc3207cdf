package shell

import (
	"path"
	"strings"
)

// fsPrograms declares programs that delete, write, move or change the attributes of files.
func fsPrograms() []program {
	return []program{
		{names: []string{"patch"}, model: (*call).patch,
			examples: []example{ex("patch ~/.bashrc < fix.diff", "write /home/u/.bashrc", "read /home/u/proj/fix.diff"),
				ex("patch -p1 < fix.diff", "write:r /home/u/proj"), ex("patch -d ~ -p1 -i x.diff", "write:r /home/u", "read /home/u/proj/x.diff"),
				ex("patch -o out.txt in.txt d.diff", "write /home/u/proj/out.txt", "read /home/u/proj/in.txt", "read /home/u/proj/d.diff")}},
		{names: []string{"cpio"}, model: (*call).cpio,
			examples: []example{ex("cd / && cpio -idmu < x.cpio", "write:r /"), ex("cpio -i -D out < a.cpio", "write:r /home/u/proj/out"),
				ex("find . | cpio -o > a.cpio", "!write:r /home/u/proj"), ex("find src | cpio -pdm ~/bak", "write:r /home/u/bak")}},
		{names: []string{"rm"}, model: func(k *call) {
			p := parseOpts(k.args, spec{})
			rec := p.has("r", "R", "recursive")
			mark := len(k.cmd.Effects)
			k.files(Delete, p.ops, rec)
			k.markLinks(mark, p.ops)
			k.sourcesGlob(p.ops, false)
			if p.has("no-preserve-root") {
				k.attr("no-preserve-root", "true")
			}
		}, examples: []example{ex("rm -rf build", "delete:r /home/u/proj/build"), ex("rm a.txt", "delete /home/u/proj/a.txt", "!delete:r"),
			ex("rm -f src/*.go", "tag workspace.sources"), ex("rm -f *.o main.go", "!tag workspace.sources"),
			ex("rm -f api/*.pb.go gen/*.ts internal/*_gen.go", "!tag workspace.sources")}},
		{names: []string{"rimraf", "del", "trash", "trash-put", "gio"}, model: func(k *call) {
			n := k.name
			ops := parseOpts(k.args, spec{}).ops
			if n == "gio" {
				if len(ops) == 0 || !ops[0].known || (ops[0].val != "remove" && ops[0].val != "trash") {
					return
				}
				ops = ops[1:]
			}
			k.files(Delete, ops, true)
		}, examples: []example{ex("gio trash old", "delete:r /home/u/proj/old"), ex("gio info old", "!delete")}},
		{names: []string{"rmdir"}, model: func(k *call) {
			k.files(Delete, parseOpts(k.args, spec{}).ops, false)
		}, examples: []example{ex("rmdir -p a/b", "delete /home/u/proj/a/b", "!delete:r")}},
		{names: []string{"unlink"}, model: func(k *call) {
			ops := parseOpts(k.args, spec{}).ops
			mark := len(k.cmd.Effects)
			k.files(Delete, ops, false)
			k.markLinks(mark, ops)
		}, examples: []example{ex("unlink ~/.bashrc", "delete /home/u/.bashrc")}},
		{names: []string{"shred"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "ns", long: []string{"iterations", "size", "random-source"}})
			k.files(Write, p.ops, false)
			if p.has("u", "remove", "zero") && p.has("u", "remove") {
				k.files(Delete, p.ops, false)
			}
			for _, o := range p.ops {
				if o.known && isDiskDevice(o.val) {
					k.tag(TagFormatFS)
				}
			}
			k.sourcesGlob(p.ops, true)
		}, examples: []example{ex("shred -u k", "write /home/u/proj/k", "delete /home/u/proj/k"), ex("shred -n 3 /dev/sda", "tag fs.format"),
			ex("shred -u lib/*.rs", "tag workspace.sources"), ex("shred -u tmp/key.pem", "!tag workspace.sources")}},
		{names: []string{"mv"}, model: func(k *call) {
			k.copyMove(true)
		}, examples: []example{ex("mv a ~/b", "delete /home/u/proj/a", "write /home/u/b")}},
		{names: []string{"cp"}, model: func(k *call) {
			k.copyMove(false)
		}, examples: []example{ex("cp -r ~/.ssh /tmp/k", "read:r /home/u/.ssh", "write:r /tmp/k")}},
		{names: []string{"ln"}, model: (*call).ln,
			examples: []example{ex("ln -sf /etc/passwd p", "write /home/u/proj/p")}},
		{names: []string{"install"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "gmoStZ", long: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}})
			if p.has("d", "directory") {
				k.files(Write, p.ops, false)
				return
			}
			k.copyMove(false)
		}, examples: []example{ex("install -m 755 bin ~/.local/bin/x", "read /home/u/proj/bin", "write /home/u/.local/bin/x")}},
		{names: []string{"dd"}, model: func(k *call) {
			var in, out *field
			for _, f := range k.args {
				if !f.known {
					continue
				}
				switch {
				case strings.HasPrefix(f.val, "if="):
					i := sub(f, f.val[3:])
					in = &i
					k.file(Read, i, false)
				case strings.HasPrefix(f.val, "of="):
					o := sub(f, f.val[3:])
					out = &o
					k.file(Write, o, false)
				}
			}
			if in != nil && out != nil {
				k.recordCopy(*in, *out, false, false)
			}
			if out != nil && (in == nil || in.known && stdinNames[in.val]) {
				// without if= dd copies its standard input
				k.stdinWrites([]field{*out}, false)
			}
		}, examples: []example{ex("dd if=/home/u/.ssh/id_rsa of=/dev/sda bs=1M", "read /home/u/.ssh/id_rsa", "write /dev/sda", "tag disk.write")}},
		{names: []string{"truncate"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "sr", long: []string{"size", "reference"}})
			if r, ok := p.get("r", "reference"); ok {
				k.file(Read, r, false)
			}
			k.files(Write, p.ops, false)
			k.sourcesGlob(p.ops, true)
		}, examples: []example{ex("truncate -s 0 -r ref log", "read /home/u/proj/ref", "write /home/u/proj/log"),
			ex("truncate -s0 src/*.go", "tag workspace.sources"), ex("truncate -s 0 logs/*.log", "!tag workspace.sources")}},
		{names: []string{"sponge"}, model: func(k *call) {
			// moreutils' sponge soaks up stdin, then writes (-a appends) its file
			p := parseOpts(k.args, spec{})
			k.files(Write, p.ops, false)
			k.stdinWrites(p.ops, p.has("a"))
		}, examples: []example{ex("jq . a.json | sponge a.json", "write /home/u/proj/a.json"), ex("echo x | sponge -a ~/.bashrc", "write /home/u/.bashrc")}},
		{names: []string{"touch"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "dtr", long: []string{"date", "reference", "time"}})
			k.files(Write, p.ops, false)
		}, examples: []example{ex("touch -d yesterday f", "write /home/u/proj/f", "!write /home/u/proj/yesterday")}},
		{names: []string{"mkdir"}, model: func(k *call) {
			k.files(Write, parseOpts(k.args, spec{arg: "m", long: []string{"mode"}}).ops, false)
		}, examples: []example{ex("mkdir -m 700 -p d", "write /home/u/proj/d", "!write /home/u/proj/700")}},
		{names: []string{"tee"}, model: (*call).tee,
			examples: []example{ex("echo x | tee -a ~/.bashrc", "write /home/u/.bashrc"), ex("echo 'rm -rf /x' | tee r.sh; sh r.sh", "delete:r /x")}},
		{names: []string{"sed", "gsed"}, model: (*call).sed,
			examples: []example{ex("sed -i 's/a/b/' f", "write /home/u/proj/f"), ex("sed -n 1p f", "read /home/u/proj/f", "!write"),
				ex("sed 's/.*/rm -rf \\/x/e' f", "delete:r /x"), ex("sed '1e rm -rf /x' f", "delete:r /x"), ex("sed -n '/a/w /x/out' f", "write /x/out"),
				ex("sed 's/a/b/gw /x/out' f", "write /x/out"), ex("sed 'e' f", "tag dynamic-exec"), ex("sed -e '/^#/d' -e 's/e/E/g' f", "!tag dynamic-exec", "!exec")}},
		{names: []string{"chmod"}, model: (*call).chmod,
			examples: []example{ex("chmod -R 777 /", "write:r /", "tag perm.recursive", "attr mode=777")}},
		{names: []string{"chown", "chgrp"}, model: func(k *call) {
			p := parseOpts(k.args, spec{long: []string{"reference", "from"}})
			files := p.ops
			if _, ok := p.get("reference"); !ok && len(files) > 0 {
				k.attr("owner", files[0].text(k.c))
				files = files[1:]
			}
			rec := p.has("R", "recursive")
			k.files(Write, files, rec)
			if rec {
				k.tag(TagPermRecursive)
			}
		}, examples: []example{ex("chown -R u:u ~", "write:r /home/u", "tag perm.recursive", "attr owner=u:u")}},
		{names: []string{"chattr", "setfacl"}, model: func(k *call) {
			n := k.name
			var files []field
			rec := false
			for i := 0; i < len(k.args); i++ {
				f := k.args[i]
				switch {
				case !f.known:
					files = append(files, f)
				case f.val == "-R" || f.val == "--recursive":
					rec = true
				case f.val == "-v" || f.val == "-p" || f.val == "-m" || f.val == "-x" || f.val == "-M" || f.val == "-X" || f.val == "--set" || f.val == "--modify":
					i++
				case strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "+") || strings.HasPrefix(f.val, "="):
					if n == "chattr" || strings.Contains(f.val, "R") && !strings.HasPrefix(f.val, "--") {
						rec = rec || (strings.HasPrefix(f.val, "-") && strings.Contains(f.val, "R") && len(f.val) <= 4)
					}
				default:
					files = append(files, f)
				}
			}
			k.files(Write, files, rec)
			if rec {
				k.tag(TagPermRecursive)
			}
		}, examples: []example{ex("chattr +i f", "write /home/u/proj/f"), ex("setfacl -R -m u:x:r d", "write:r /home/u/proj/d", "!write /home/u/proj/u:x:r")}},
	}
}

func (k *call) copyMove(move bool) {
	p := parseOpts(k.args, spec{arg: "tS", long: []string{"target-directory", "suffix"}})
	var srcs []field
	var dest *field
	if t, ok := p.get("t", "target-directory"); ok {
		srcs = p.ops
		dest = &t
	} else if len(p.ops) >= 2 {
		srcs = p.ops[:len(p.ops)-1]
		d := p.ops[len(p.ops)-1]
		dest = &d
	} else {
		srcs = p.ops
	}
	rec := move || p.has("r", "R", "a", "recursive", "archive")
	if move {
		k.files(Delete, srcs, false)
	} else {
		k.files(Read, srcs, rec)
	}
	if dest != nil {
		k.file(Write, *dest, rec && !move)
		if len(srcs) == 1 {
			k.copiedWarden(srcs[0], *dest)
			if srcs[0].known && stdinNames[srcs[0].val] {
				// cp /dev/stdin f <<< '…' writes what stdin carries
				k.stdinWrites([]field{*dest}, false)
			}
		}
		_, toDir := p.get("t", "target-directory")
		for _, s := range srcs {
			k.recordCopy(s, *dest, toDir || len(srcs) > 1, false)
		}
	}
}

func (k *call) ln() {
	p := parseOpts(k.args, spec{arg: "tS", long: []string{"target-directory", "suffix"}})
	k.hardLink(p)
	if p.has("s", "symbolic") && len(p.ops) >= 1 && len(p.ops) <= 2 && !p.has("t", "target-directory") {
		k.recordLink(p.ops)
	}
	if t, ok := p.get("t", "target-directory"); ok {
		k.file(Write, t, false)
		if !p.has("s", "symbolic") {
			for _, o := range p.ops {
				k.recordCopy(o, t, true, false) // a hard link is the same file
			}
		}
		return
	}
	if !p.has("s", "symbolic") && len(p.ops) == 2 {
		defer k.recordCopy(p.ops[0], p.ops[1], false, false) // a hard link is the same file
	}
	switch len(p.ops) {
	case 0:
	case 1:
		if p.ops[0].known {
			k.file(Write, sub(p.ops[0], path.Base(p.ops[0].val)), false)
		} else {
			k.file(Write, p.ops[0], false)
		}
	default:
		k.file(Write, p.ops[len(p.ops)-1], false)
	}
}

// recordLink remembers the symlink ln -s TARGET [NAME] makes, so a later
// rm -rf NAME/ in the same line is judged on TARGET.
func (k *call) recordLink(ops []field) {
	t := ops[0]
	name := sub(t, path.Base(t.val))
	if len(ops) == 2 {
		name = ops[1]
	}
	if !t.known || !name.known || t.glob || name.glob || t.val == "" {
		return
	}
	le, ok := k.a.target(k.st, Write, name, false)
	if !ok || le.Unknown || le.Target == "" {
		return
	}
	tv := t.val
	if !strings.HasPrefix(tv, "/") {
		tv = path.Join(path.Dir(le.Target), tv)
	}
	if k.a.links == nil {
		k.a.links = map[string]string{}
	}
	if len(k.a.links) < maxLoopItems {
		k.a.links[le.Target] = path.Clean(tv)
	}
}

func (k *call) sed() {
	p := parseOpts(k.args, spec{arg: "efl", optArg: "i", long: []string{"expression", "file", "line-length"}})
	inplace := p.has("i", "in-place")
	files := p.ops
	scripts := p.all("f", "file")
	k.files(Read, scripts, false)
	exprs := p.all("e", "expression")
	if !p.has("e", "expression", "f", "file") && len(files) > 0 {
		exprs = files[:1]
		files = files[1:]
	}
	if !p.has("sandbox") {
		for _, e := range exprs {
			k.sedScript(e)
		}
		for _, f := range scripts {
			if txt, ok := k.scriptText(f); ok {
				k.sedScript(lit(txt))
			}
		}
	}
	if inplace {
		k.files(Write, files, false)
		return
	}
	k.files(Read, files, false)
}

func (k *call) chmod() {
	var files []field
	rec := false
	mode := ""
	haveMode := false
	for i := 0; i < len(k.args); i++ {
		f := k.args[i]
		v := f.val
		switch {
		case !f.known:
			if !haveMode {
				haveMode = true
				continue
			}
			files = append(files, f)
		case v == "--":
			for _, r := range k.args[i+1:] {
				if !haveMode {
					haveMode = true
					mode = r.val
					continue
				}
				files = append(files, r)
			}
			i = len(k.args)
		case v == "-R" || v == "--recursive":
			rec = true
		case strings.HasPrefix(v, "--reference="):
			haveMode = true
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.Trim(v[1:], "RcfvHLP") == "":
			rec = rec || strings.Contains(v, "R")
		case !haveMode:
			haveMode = true
			mode = v
		default:
			files = append(files, f)
		}
	}
	if mode != "" {
		k.attr("mode", mode)
	}
	k.files(Write, files, rec)
	if rec {
		k.tag(TagPermRecursive)
	}
}

// patch models patch: the file named (or, with none, the files the diff
// names, below -d DIR or the current directory) is written; the diff and
// the original are read.
func (k *call) patch() {
	p := parseOpts(k.args, spec{arg: "pdiobBFrVYzDg", long: []string{"strip", "directory", "input", "output", "backup", "prefix", "fuzz", "reject-file", "version-control", "basename-prefix", "suffix", "ifdef", "quoting-style", "get"}})
	k.files(Read, p.all("i", "input"), false)
	dir := lit(".")
	if d, ok := p.get("d", "directory"); ok {
		dir = d
	}
	if o, ok := p.get("o", "output"); ok {
		k.file(Write, o, false)
		k.files(Read, p.ops, false)
		return
	}
	if len(p.ops) == 0 {
		k.file(Write, dir, true) // the files the diff names, below dir
		return
	}
	if dir.known && dir.val != "." && p.ops[0].known && !strings.HasPrefix(p.ops[0].val, "/") {
		k.file(Write, sub(p.ops[0], path.Join(dir.val, p.ops[0].val)), false)
	} else {
		k.file(Write, p.ops[0], false)
	}
	k.files(Read, p.ops[1:], false)
}

// cpio models cpio: -i extracts an archive into the current directory (or
// -D DIR), -p copies the files named on stdin into a directory, -o only
// writes an archive to stdout.
func (k *call) cpio() {
	p := parseOpts(k.args, spec{arg: "DEFHIMORCs", long: []string{"directory", "pattern-file", "file", "format", "io-size", "message", "owner", "block-size", "rsh-command"}})
	for _, f := range p.all("F", "file", "E", "pattern-file") {
		k.file(Read, f, false)
	}
	switch {
	case p.has("i", "extract"):
		dir := lit(".")
		if d, ok := p.get("D", "directory"); ok {
			dir = d
		}
		k.file(Write, dir, true)
	case p.has("p", "pass-through"):
		if len(p.ops) > 0 {
			k.file(Write, p.ops[len(p.ops)-1], true)
		}
	}
	if p.has("o", "create", "p", "pass-through") {
		// the names of the files to copy are read from stdin
		for _, txt := range k.stdinText() {
			for n, l := range strings.Split(txt, "\n") {
				if n >= maxEdLines {
					break
				}
				if l = strings.TrimSpace(l); l != "" {
					k.file(Read, k.home(lit(l)), false)
				}
			}
		}
	}
}
