package shell

import (
	"net/url"
	"path"
	"strings"
)

// model applies the effect model of the program k runs.
func (a *analyzer) model(k *call) {
	n := k.name
	if v, ok := a.aliases[n]; ok && a.aliasBusy[n] == "" && !a.funcs[n] && len(k.cmd.Via) == len(k.c.via) {
		k.expandAlias(n, v)
		return
	}
	switch {
	case n == "":
		return
	case k.isWarden():
		k.warden()
		return
	case k.argv[0].known && strings.Contains(k.argv[0].val, "/") && k.runWritten(k.argv[0], ""):
		return // a script written earlier in the line, run by its path
	case isShell(n):
		k.shell()
		return
	case isPython(n):
		k.interp("c", "m", "WX", "python")
		return
	case strings.HasPrefix(n, "mkfs") || n == "mke2fs" || n == "mkswap" || n == "mkdosfs" || n == "mkntfs" || n == "mkexfatfs" || n == "newfs":
		k.format()
		return
	case strings.HasPrefix(n, "sha") && strings.HasSuffix(n, "sum"), strings.HasSuffix(n, "sum") && (n == "md5sum" || n == "b2sum" || n == "cksum" || n == "sum"):
		k.reader(spec{arg: "c"}, 0, false)
		return
	}
	switch n {
	case "exit", "logout", "return":
		// the shell leaves: what follows in this path does not run, unless
		// a function of that name shadows the builtin
		if !k.a.funcs[n] && len(k.c.via) == 0 {
			k.st.dead = true
		}
	// wrappers
	case "sudo":
		k.sudo()
	case "sudoedit":
		k.privilege("root")
		k.files(Write, parseOpts(k.args, spec{arg: "ugCDpRrTtU"}).ops, false)
	case "doas":
		k.doas()
	case "pkexec", "run0":
		k.pkexec()
	case "su":
		k.su()
	case "runuser":
		k.runuser()
	case "env":
		k.env()
	case "nice":
		k.simpleWrapper(spec{arg: "n", long: []string{"adjustment"}, num: true}, 0)
	case "nohup", "builtin", "unbuffer", "setsid", "catchsegv", "proxychains", "proxychains4", "torsocks", "tsocks", "firejail", "time-out":
		k.simpleWrapper(spec{}, 0)
	case "exec":
		k.simpleWrapper(spec{arg: "a"}, 0)
	case "command":
		k.commandBuiltin()
	case "time":
		k.timeCmd()
	case "timeout":
		k.simpleWrapper(spec{arg: "sk", long: []string{"signal", "kill-after"}}, 1)
	case "stdbuf":
		k.simpleWrapper(spec{arg: "ioe", long: []string{"input", "output", "error"}}, 0)
	case "caffeinate":
		k.simpleWrapper(spec{arg: "tw"}, 0)
	case "ionice":
		k.ionice()
	case "chrt":
		k.chrt()
	case "taskset":
		k.taskset()
	case "flock":
		k.flock()
	case "strace", "ltrace":
		k.traceCmd()
	case "chroot":
		k.chroot()
	case "watch":
		k.watch()
	case "xargs":
		k.xargs()
	case "parallel":
		k.parallel()
	case "find":
		k.find()
	case "busybox", "toybox":
		k.busybox()
	case "npx", "bunx", "pnpx":
		k.npx(k.args, k.name)
	case "eval":
		k.nested(joinCode(k.args), "eval", nil, true)
	case "trap":
		k.trap()
	case "source", ".":
		k.source()
	case "cd", "pushd", "popd":
		k.cd()
	case "read", "mapfile", "readarray":
		k.readVars()
	case "unset":
		for _, f := range k.args {
			if f.known && !strings.HasPrefix(f.val, "-") {
				k.st.vars[f.val] = variable{unset: true}
			}
		}

	// deletes and writes
	case "rm":
		p := parseOpts(k.args, spec{})
		rec := p.has("r", "R", "recursive")
		k.files(Delete, p.ops, rec)
		if p.has("no-preserve-root") {
			k.attr("no-preserve-root", "true")
		}
	case "rimraf", "del", "trash", "trash-put", "gio":
		ops := parseOpts(k.args, spec{}).ops
		if n == "gio" {
			if len(ops) == 0 || !ops[0].known || (ops[0].val != "remove" && ops[0].val != "trash") {
				return
			}
			ops = ops[1:]
		}
		k.files(Delete, ops, true)
	case "rmdir":
		k.files(Delete, parseOpts(k.args, spec{}).ops, false)
	case "unlink":
		k.files(Delete, parseOpts(k.args, spec{}).ops, false)
	case "shred":
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
	case "mv":
		k.copyMove(true)
	case "cp":
		k.copyMove(false)
	case "ln":
		k.ln()
	case "install":
		p := parseOpts(k.args, spec{arg: "gmoStZ", long: []string{"group", "mode", "owner", "suffix", "target-directory", "strip-program"}})
		if p.has("d", "directory") {
			k.files(Write, p.ops, false)
			return
		}
		k.copyMove(false)
	case "rsync":
		k.rsync()
	case "dd":
		for _, f := range k.args {
			if !f.known {
				continue
			}
			switch {
			case strings.HasPrefix(f.val, "if="):
				k.file(Read, sub(f, f.val[3:]), false)
			case strings.HasPrefix(f.val, "of="):
				k.file(Write, sub(f, f.val[3:]), false)
			}
		}
	case "truncate":
		p := parseOpts(k.args, spec{arg: "sr", long: []string{"size", "reference"}})
		if r, ok := p.get("r", "reference"); ok {
			k.file(Read, r, false)
		}
		k.files(Write, p.ops, false)
	case "touch":
		p := parseOpts(k.args, spec{arg: "dtr", long: []string{"date", "reference", "time"}})
		k.files(Write, p.ops, false)
	case "mkdir":
		k.files(Write, parseOpts(k.args, spec{arg: "m", long: []string{"mode"}}).ops, false)
	case "tee":
		k.files(Write, parseOpts(k.args, spec{}).ops, false)
	case "sed", "gsed":
		k.sed()
	case "perl":
		k.perl()
	case "chmod":
		k.chmod()
	case "chown", "chgrp":
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
	case "chattr", "setfacl":
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
	case "wipefs":
		p := parseOpts(k.args, spec{arg: "otp", long: []string{"offset", "types"}})
		if p.has("a", "all", "o", "offset") && !p.has("n", "no-act") {
			k.tag(TagFormatFS)
			k.files(Write, p.ops, false)
		} else {
			k.files(Read, p.ops, false)
		}
	case "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard", "cryptsetup", "zpool", "pvcreate", "vgcreate", "lvremove", "hdparm":
		k.partition()

	// readers
	case "cat", "tac", "less", "more", "nl", "bat", "batcat", "view", "zcat", "gzcat", "bzcat", "xzcat", "zstdcat", "zless",
		"rev", "fold", "fmt", "column", "expand", "unexpand", "paste", "join", "comm", "cmp", "readlink", "realpath",
		"hexdump", "hd", "strings", "od", "base64", "base32", "basenc", "file", "stat", "du", "tree", "ls", "dir", "lsattr",
		"getfacl", "wc", "pr", "look", "tidy", "xmllint", "iconv", "csvlook", "mlr", "vim", "vi", "nvim", "nano", "emacs", "code", "open", "xdg-open":
		k.reader(readerSpec(n), 0, n == "du" || n == "tree")
	case "head", "tail":
		k.reader(spec{arg: "ncs", long: []string{"lines", "bytes", "sleep-interval", "pid", "max-unchanged-stats"}, num: true}, 0, false)
	case "cut", "tr":
		if n == "tr" {
			return
		}
		k.reader(spec{arg: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}, 0, false)
	case "sort", "shuf":
		p := parseOpts(k.args, spec{arg: "kotTSnri", long: []string{"key", "output", "field-separator", "temporary-directory", "buffer-size", "random-source", "files0-from", "head-count", "input-range"}})
		if o, ok := p.get("o", "output"); ok {
			k.file(Write, o, false)
		}
		if !p.has("e", "echo", "i", "input-range") {
			k.files(Read, p.ops, false)
		}
	case "uniq":
		p := parseOpts(k.args, spec{arg: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars"}})
		if len(p.ops) > 0 {
			k.file(Read, p.ops[0], false)
		}
		if len(p.ops) > 1 {
			k.file(Write, p.ops[1], false)
		}
	case "xxd":
		p := parseOpts(k.args, spec{arg: "cglosn", long: []string{"cols", "groupsize", "len", "seek", "name"}})
		if len(p.ops) > 0 {
			k.file(Read, p.ops[0], false)
		}
		if len(p.ops) > 1 {
			k.file(Write, p.ops[1], false)
		}
	case "diff", "colordiff", "vimdiff", "sdiff", "diff3":
		p := parseOpts(k.args, spec{arg: "CUIFLSxXDW", long: []string{"context", "unified", "ignore-matching-lines", "label", "starting-file", "exclude", "exclude-from", "to-file", "from-file", "width", "line-format"}})
		k.files(Read, p.ops, p.has("r", "recursive"))
	case "grep", "egrep", "fgrep", "zgrep", "ggrep":
		k.grep(spec{arg: "efmABCdD", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "label", "binary-files", "devices", "directories", "exclude-from"}}, false)
	case "rg", "ag", "ack", "pt", "ugrep":
		k.grep(spec{arg: "efgtTmABCMjrEG", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "max-columns", "threads", "replace", "encoding", "max-depth", "ignore-file", "type-add", "sort", "sortr", "color", "colors", "path-separator", "pre", "pre-glob", "engine", "ignore-dir"}}, true)
	case "jq", "gojq", "jaq":
		k.jq()
	case "yq":
		k.yq()
	case "awk", "gawk", "mawk", "nawk":
		k.awk()
	case "tar", "bsdtar", "gtar":
		k.tar()
	case "unzip":
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
	case "zip":
		p := parseOpts(k.args, spec{arg: "bintxP"})
		if len(p.ops) > 0 {
			k.file(Write, p.ops[0], false)
			k.files(Read, p.ops[1:], p.has("r", "R", "recurse-paths"))
		}
		if p.has("m", "move") && len(p.ops) > 1 {
			k.files(Delete, p.ops[1:], p.has("r", "R"))
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "compress", "uncompress":
		p := parseOpts(k.args, spec{arg: "SbTo", long: []string{"suffix", "threads", "output"}, num: true})
		if p.has("c", "stdout", "to-stdout", "l", "list", "t", "test") {
			k.files(Read, p.ops, p.has("r", "recursive"))
			return
		}
		k.files(Write, p.ops, p.has("r", "recursive"))
	case "split", "csplit":
		p := parseOpts(k.args, spec{arg: "lbCanft", long: []string{"lines", "bytes", "line-bytes", "suffix-length", "number", "additional-suffix", "filter", "separator", "prefix"}})
		if len(p.ops) > 0 {
			k.file(Read, p.ops[0], false)
		}
		if len(p.ops) > 1 && n == "split" {
			k.file(Write, p.ops[1], false)
		}

	// network
	case "curl":
		k.curl()
	case "wget", "wget2":
		k.wget()
	case "scp", "sftp", "rcp":
		k.scp()
	case "ssh", "mosh", "autossh", "rsh", "slogin":
		k.ssh()
	case "nc", "ncat", "netcat", "telnet", "ftp", "tftp", "lftp":
		k.netcat()
	case "socat":
		k.socat()
	case "http", "https", "xh", "httpie", "aria2c", "fetch", "lynx", "w3m", "links":
		for _, f := range parseOpts(k.args, spec{arg: "aAohd", long: []string{"auth", "output", "dir", "out"}}).ops {
			if f.known && (strings.Contains(f.val, "://") || strings.Contains(f.val, ".") && !strings.Contains(f.val, "=") && !strings.Contains(f.val, ":=")) {
				k.net(f)
				break
			}
		}
		if f := firstURLish(k.args); f != nil {
			k.net(*f)
		}

	case "git":
		k.git()
	case "npm", "pnpm", "yarn", "bun", "cnpm":
		k.jsPM()
	case "cargo":
		k.subcmdTags(map[string]string{"publish": TagPublish}, "crates.io")
		k.pkgInstall("cargo", "crates.io", "install", "add", "fetch", "update", "build")
	case "twine":
		k.subcmdTags(map[string]string{"upload": TagPublish, "register": TagPublish}, "upload.pypi.org")
	case "gem":
		k.subcmdTags(map[string]string{"push": TagPublish, "yank": TagPublish}, "rubygems.org")
		k.pkgInstall("gem", "rubygems.org", "install", "update")
	case "poetry", "uv", "flit", "hatch", "pdm", "rye":
		k.subcmdTags(map[string]string{"publish": TagPublish}, "upload.pypi.org")
		if n == "uv" && len(k.args) > 1 && k.args[0].val == "pip" && k.args[1].val == "install" {
			k.tag(TagPackageInstall)
			k.attr("manager", "uv")
			k.eff(Effect{Kind: Network, Target: "pypi.org"})
		}
		k.pkgInstall(n, "pypi.org", "add", "install", "sync", "lock")
		if n == "uv" && len(k.args) > 0 && k.args[0].val == "run" {
			k.inner(parseOpts(k.args[1:], spec{arg: "p", long: []string{"with", "python", "project", "directory", "env-file", "package", "extra", "group"}, stop: true}).ops, "uv run", nil, nil)
		}
		if n == "poetry" && len(k.args) > 0 && k.args[0].val == "run" {
			k.inner(k.args[1:], "poetry run", nil, nil)
		}
	case "uvx", "pipx":
		args := k.args
		if n == "pipx" {
			if len(args) == 0 || args[0].val != "run" {
				k.pkgInstall("pipx", "pypi.org", "install", "upgrade")
				return
			}
			args = args[1:]
		}
		k.eff(Effect{Kind: Network, Target: "pypi.org"})
		k.inner(parseOpts(args, spec{long: []string{"from", "with", "python", "spec"}, stop: true}).ops, n, nil, nil)
	case "pip", "pip3", "pip2":
		k.pkgInstall("pip", "pypi.org", "install", "download", "wheel")
		if p := parseOpts(k.args, spec{arg: "rcet", long: []string{"requirement", "constraint", "editable", "target", "index-url", "extra-index-url", "find-links"}}); true {
			k.files(Read, p.all("r", "requirement", "c", "constraint"), false)
		}
	case "apt", "apt-get", "aptitude", "dnf", "yum", "zypper", "apk", "pacman", "brew", "port", "snap", "flatpak", "nix-env", "conda", "mamba", "choco", "winget":
		k.pkgInstall(n, n, "install", "upgrade", "update", "reinstall", "add", "dist-upgrade", "full-upgrade", "-S", "-Syu", "-Sy")
	case "claude":
		k.claude()
		k.mentions()
	case "go":
		k.pkgInstall("go", "proxy.golang.org", "install", "get", "mod")
		if len(k.args) > 1 && k.args[0].known && k.args[0].val == "run" {
			k.goRun()
		}
		if len(k.args) > 0 && k.args[0].known && (k.args[0].val == "build" || k.args[0].val == "install") {
			k.goBuild()
		}
	case "docker", "podman", "nerdctl":
		k.docker()
	case "docker-compose", "podman-compose":
		k.compose(k.args, k.name)
	case "kubectl", "oc":
		if sc := k.subcommand(spec{arg: "nsc", long: []string{"namespace", "context", "cluster", "kubeconfig", "user", "server"}}); sc == "delete" || sc == "drain" {
			k.tag(TagRemoteDelete)
		}
	case "helm":
		if sc := k.subcommand(spec{arg: "n", long: []string{"namespace", "kube-context", "kubeconfig"}}); sc == "uninstall" || sc == "delete" || sc == "del" || sc == "un" {
			k.tag(TagRemoteDelete)
		} else if sc == "push" {
			k.tag(TagPublish)
		}
	case "terraform", "tofu", "terragrunt", "pulumi", "cdk":
		sc := k.subcommand(spec{})
		if sc == "destroy" || (sc == "apply" || sc == "up") && hasArg(k.args, "-destroy", "--destroy") {
			k.tag(TagRemoteDelete)
		}
	case "aws":
		k.aws()
	case "gsutil":
		if sc := k.subcommand(spec{arg: "ohp"}); sc == "rm" || sc == "rb" {
			k.tag(TagRemoteDelete)
		}
	case "gcloud", "az", "doctl", "heroku", "flyctl", "fly", "vercel", "netlify", "firebase":
		for _, f := range k.args {
			if f.known && (f.val == "delete" || f.val == "destroy" || f.val == "remove" || f.val == "rm" || f.val == "apps:destroy") {
				k.tag(TagRemoteDelete)
			}
		}
		if n == "vercel" || n == "netlify" || n == "firebase" {
			for _, f := range k.args {
				if f.known && (f.val == "deploy" || f.val == "--prod") {
					k.tag(TagPublish)
				}
			}
		}
	case "gh":
		k.gh()
	case "mvn", "gradle", "gradlew", "sbt":
		for _, f := range k.args {
			if f.known && (f.val == "deploy" || f.val == "publish" || strings.HasPrefix(f.val, "publish")) {
				k.tag(TagPublish)
			}
		}
	case "dotnet", "nuget":
		for _, f := range k.args {
			if f.known && f.val == "push" {
				k.tag(TagPublish)
			}
		}

	// interpreters
	case "node", "nodejs":
		k.interp("epr", "", "", "node")
	case "ruby", "irb":
		k.interp("e", "", "rIC", "ruby")
	case "php":
		k.interp("r", "", "dcf", "php")
	case "lua", "luajit", "Rscript", "R", "tclsh", "osascript", "julia", "ts-node", "tsx", "swift", "groovy", "scala", "elixir", "erl", "escript":
		k.interp("e", "", "l", n)
	case "deno":
		k.deno()
	case "pwsh", "powershell":
		k.interp("c", "", "f", n)

	// system
	case "shutdown", "reboot", "halt", "poweroff", "kexec":
		k.tag(TagSystemPower)
	case "init", "telinit":
		if len(k.args) > 0 && k.args[0].known && (k.args[0].val == "0" || k.args[0].val == "6") {
			k.tag(TagSystemPower)
		}
	case "kill":
		k.kill()
	case "pkill", "pgrep", "pidwait":
		k.pkill()
	case "killall":
		k.killall()
	case "pidof":
		k.pidof()
	case "service", "launchctl":
		k.serviceStop()
	case "systemctl", "loginctl":
		if n == "systemctl" {
			k.serviceStop()
		}
		for _, f := range k.args {
			switch f.val {
			case "poweroff", "reboot", "halt", "suspend", "hibernate", "kexec", "rescue", "emergency", "hybrid-sleep", "soft-reboot":
				k.tag(TagSystemPower)
			}
		}
	case "crontab":
		p := parseOpts(k.args, spec{arg: "uc"})
		switch {
		case p.has("r"):
			k.tag(TagCrontab)
			k.attr("action", "remove")
		case p.has("e"):
			k.tag(TagCrontab)
			k.attr("action", "edit")
		case p.has("l"):
		default:
			k.tag(TagCrontab)
			k.attr("action", "install")
			k.files(Read, p.ops, false)
		}
	case "mount", "umount":
		k.tag(TagMount)
		p := parseOpts(k.args, spec{arg: "toOLUTNB", long: []string{"types", "options", "label", "uuid", "fstab", "namespace", "source", "target"}})
		if len(p.ops) > 0 {
			k.file(Write, p.ops[len(p.ops)-1], false)
		}
	case "iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "iptables-restore":
		k.tag(TagFirewall)
	case "useradd", "userdel", "usermod", "adduser", "deluser", "passwd", "chpasswd", "groupadd", "groupdel", "groupmod", "gpasswd", "visudo", "vipw", "chsh", "chfn", "addgroup", "delgroup":
		k.tag(TagUserAdmin)
		ops := parseOpts(k.args, spec{arg: "cdegGkKpsuUbfRP", long: []string{"comment", "home", "home-dir", "expiredate", "gid", "groups", "skel", "key", "password", "shell", "uid", "root", "prefix"}}).ops
		user := ""
		if len(ops) > 0 {
			user = ops[len(ops)-1].text(k.c)
		}
		k.eff(Effect{Kind: Privilege, Target: user, Unknown: user == "", Reason: reasonIf(user == "", "user not given")})
	case "openssl":
		k.openssl()
	case "alias":
		k.aliasDef()
	// programs that take file names without reading their content
	case "echo", "printf", "test", "[", "[[", "true", "false", ":", "which", "type", "whereis", "basename", "dirname",
		"pwd", "export", "set", "shift", "local", "declare", "typeset", "readonly", "unalias",
		"sleep", "date", "seq", "yes", "id", "whoami", "hostname", "uname", "expr",
		"break", "continue", "wait", "umask", "ulimit", "printenv", "jobs", "fg", "bg", "hash", "getopts",
		"let", "shopt", "ssh-add", "ssh-keygen", "notify-send", "tput", "clear", "reset", "stty", "nproc", "uptime",
		"free", "df", "ps", "mkfifo":
	default:
		k.mentions()
	}
}

// openssl reads the files named by its input options and writes those of
// its output options.
func (k *call) openssl() {
	for i := 0; i+1 < len(k.args); i++ {
		f := k.args[i]
		if !f.known {
			continue
		}
		switch f.val {
		case "-in", "-inkey", "-key", "-kfile", "-passin", "-CAkey", "-signkey", "-infiles", "-pubin":
			if f.val == "-pubin" {
				continue
			}
			v := k.args[i+1]
			if v.known && strings.HasPrefix(v.val, "file:") {
				v = sub(v, v.val[len("file:"):])
			}
			k.file(Read, v, false)
			i++
		case "-out", "-keyout":
			k.file(Write, k.args[i+1], false)
			i++
		}
	}
}

// readerSpec gives the options that take a value for file readers.
func readerSpec(n string) spec {
	switch n {
	case "od":
		return spec{arg: "AjNtSw", long: []string{"address-radix", "skip-bytes", "read-bytes", "format", "strings", "width"}}
	case "strings":
		return spec{arg: "ntTe", long: []string{"bytes", "radix", "target", "encoding"}}
	case "hexdump", "hd":
		return spec{arg: "enNs", long: []string{"format", "length", "skip"}}
	case "base64", "base32", "basenc", "fold", "fmt", "column", "pr":
		return spec{arg: "wsctl", long: []string{"wrap", "width", "separator", "table-columns", "output-separator"}}
	case "file":
		return spec{arg: "fmFe", long: []string{"files-from", "magic-file", "separator", "exclude"}}
	case "stat":
		return spec{arg: "ct", long: []string{"format", "printf"}}
	case "du":
		return spec{arg: "dBXt", long: []string{"max-depth", "block-size", "exclude-from", "threshold", "exclude", "time-style"}}
	case "tree":
		return spec{arg: "LIPo", long: []string{"filelimit", "charset", "sort"}}
	case "ls", "dir":
		return spec{arg: "IwT", long: []string{"ignore", "hide", "width", "tabsize", "format", "sort", "time", "time-style", "color", "block-size", "quoting-style", "indicator-style"}}
	case "nl":
		return spec{arg: "bdfhilnsvw"}
	case "paste":
		return spec{arg: "d", long: []string{"delimiters"}}
	case "join":
		return spec{arg: "aejot12"}
	case "iconv":
		return spec{arg: "fto", long: []string{"from-code", "to-code", "output"}}
	case "cmp":
		return spec{arg: "in", long: []string{"ignore-initial", "bytes"}}
	case "expand", "unexpand":
		return spec{arg: "t", long: []string{"tabs"}}
	}
	return spec{}
}

func reasonIf(c bool, r string) string {
	if c {
		return r
	}
	return ""
}

func hasArg(args []field, vals ...string) bool {
	for _, f := range args {
		if f.known && contains(vals, f.val) {
			return true
		}
	}
	return false
}

func firstURLish(args []field) *field {
	for i := range args {
		f := args[i]
		if f.known && strings.Contains(f.val, "://") {
			return &args[i]
		}
	}
	return nil
}

func isShell(n string) bool {
	switch n {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish", "tcsh", "csh", "yash", "posh", "ksh93", "pdksh", "oksh", "loksh", "hush":
		return true
	}
	return false
}

func isPython(n string) bool {
	if n == "pypy" || n == "pypy3" || n == "ipython" || n == "ipython3" {
		return true
	}
	if !strings.HasPrefix(n, "python") {
		return false
	}
	for _, c := range n[len("python"):] {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return true
}

// shell models sh/bash/zsh/...: -c code is re-parsed, a script file is
// read and executed, stdin is analysed when known.
func (k *call) shell() {
	args := k.args
	code, noexec := false, false
	stdin := false
	i := 0
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		switch {
		case v == "--":
			i++
			break loop
		case strings.HasPrefix(v, "--"):
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		for _, ch := range v[1:] {
			switch ch {
			case 'c':
				code = true
			case 's':
				stdin = true
			case 'n':
				noexec = true
			case 'o', 'O':
				i++
			}
		}
	}
	ops := args[min(i, len(args)):]
	for _, e := range k.cmd.Effects {
		if e.Kind == Network {
			k.remoteExec(k.name + " with its input or output connected to " + e.Target + " (reverse shell)")
		}
	}
	switch {
	case code:
		if len(ops) == 0 {
			return
		}
		k.eff(Effect{Kind: Exec, Reason: "inline code (" + k.name + " -c)"})
		var pos []field
		if len(ops) > 1 {
			pos = ops[1:]
		} else {
			pos = []field{lit(k.name)}
		}
		k.nested(ops[0], k.name+" -c", pos, false)
	case len(ops) > 0 && !stdin && !(ops[0].known && (ops[0].val == "-" || ops[0].val == "/dev/stdin")):
		k.script(ops[0], noexec)
		if !noexec {
			k.runWritten(ops[0], "sh")
		}
	default:
		k.stdinCode(true)
	}
}

// script records running a script file.
func (k *call) script(f field, readOnly bool) {
	if f.proc {
		if f.remote {
			k.remoteExec(k.name + " runs a script fetched from the network")
		}
		k.eff(Effect{Kind: Exec, Reason: "process substitution"})
		return
	}
	if f.known && (strings.HasPrefix(f.val, "http://") || strings.HasPrefix(f.val, "https://")) {
		k.net(f)
		k.remoteExec(k.name + " runs a script fetched from " + f.val)
		return
	}
	k.file(Read, f, false)
	if readOnly {
		return
	}
	k.file(Exec, f, false)
	if e, ok := k.a.target(k.st, Exec, f, false); ok && !e.Unknown && k.a.downloaded[e.Target] {
		k.remoteExec(k.name + " runs " + e.Target + ", which was downloaded earlier in the command line")
	}
}

// stdinCode handles an interpreter that reads its program from stdin.
func (k *call) stdinCode(isSh bool) {
	in := k.c.stdin
	switch {
	case in.remote:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		k.remoteExec("code fetched from the network (" + orDefault(in.what, "download") + ") is piped into " + k.name)
	case in.dynamic:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		k.dynamicExec(k.name + " runs code from stdin not known at check time: " + in.what)
	case in.literal && isSh:
		k.eff(Effect{Kind: Exec, Reason: "code from stdin"})
		via := k.name + " <<"
		if in.pipeline != nil {
			via = k.name + " stdin"
		}
		k.nested(lit(in.text), via, []field{lit(k.name)}, false)
	}
}

// interp models interpreters: codeOpts take inline code, modOpts a module,
// argOpts another value.
func (k *call) interp(codeOpts, modOpts, argOpts, lang string) {
	args := k.args
	i := 0
	var code *field
	module := false
loop:
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, "--") {
			name, _, eq := strings.Cut(v[2:], "=")
			switch name {
			case "eval", "print", "command":
				if !eq && i+1 < len(args) {
					i++
					c := args[i]
					code = &c
				} else {
					c := sub(f, v[strings.IndexByte(v, '=')+1:])
					code = &c
				}
				i++
				break loop
			case "require", "import", "loader", "input-type", "experimental-loader", "conditions", "env-file", "title":
				if !eq {
					i++
				}
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			ch := v[j : j+1]
			switch {
			case strings.Contains(codeOpts, ch):
				var c field
				if j+1 < len(v) {
					c = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					c = args[i]
				}
				code = &c
				i++
				break loop
			case modOpts != "" && strings.Contains(modOpts, ch):
				module = true
				var m field
				if j+1 < len(v) {
					m = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					m = args[i]
				}
				k.eff(Effect{Kind: Exec, Target: m.text(k.c), Reason: "module"})
				i++
				break loop
			case strings.Contains(argOpts, ch):
				if j+1 == len(v) {
					i++
				}
				j = len(v)
			}
		}
	}
	switch {
	case code != nil:
		k.eff(Effect{Kind: Exec, Reason: "inline code (" + lang + ")"})
		k.inlineCode(*code, lang)
		if code.remote {
			k.remoteExec(k.name + " runs code fetched from the network")
		} else if !code.known {
			k.dynamicExec(k.name + " runs code not known at check time: " + orDefault(code.reason, "dynamic"))
		}
	case module:
	case i < len(args) && !(args[i].known && args[i].val == "-"):
		k.script(args[i], false)
		k.runWritten(args[i], lang)
	default:
		k.stdinCode(false)
		if in := k.c.stdin; in.literal && !in.remote {
			// the program is the known text on stdin (python3 - <<'EOF')
			k.inlineCode(lit(in.text), lang)
		}
	}
}

func (k *call) deno() {
	if len(k.args) == 0 {
		return
	}
	switch k.args[0].val {
	case "run":
		p := parseOpts(k.args[1:], spec{long: []string{"config", "import-map", "lock", "cert", "location", "seed", "v8-flags", "inspect", "env-file"}, stop: true})
		if len(p.ops) > 0 {
			k.script(p.ops[0], false)
		}
	case "eval":
		k.eff(Effect{Kind: Exec, Reason: "inline code (deno eval)"})
	case "install", "add", "cache":
		k.eff(Effect{Kind: Network, Target: "jsr.io"})
	case "publish":
		k.tag(TagPublish)
	default:
		if strings.HasSuffix(k.args[0].val, ".ts") || strings.HasSuffix(k.args[0].val, ".js") || strings.Contains(k.args[0].val, "://") {
			k.script(k.args[0], false)
		}
	}
}

func (k *call) perl() {
	args := k.args
	inplace := false
	loopMode := false
	var code *field
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		v := f.val
		if !f.known || len(v) < 2 || v[0] != '-' {
			break
		}
		if v == "--" {
			i++
			break
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'e', 'E':
				var c field
				if j+1 < len(v) {
					c = sub(f, v[j+1:])
				} else if i+1 < len(args) {
					i++
					c = args[i]
				}
				code = &c
				j = len(v)
			case 'i':
				inplace = true
				j = len(v)
			case 'n', 'p':
				loopMode = true
			case 'I', 'M', 'm', 'F', 'l', '0', 'C', 'x', 'd', 'D':
				if j+1 == len(v) && (v[j] == 'I' || v[j] == 'M') && i+1 < len(args) {
					i++
				}
				j = len(v)
			}
		}
	}
	rest := args[min(i, len(args)):]
	if code == nil {
		if len(rest) == 0 {
			k.stdinCode(false)
			if in := k.c.stdin; in.literal && !in.remote {
				k.inlineCode(lit(in.text), "perl")
			}
			return
		}
		k.script(rest[0], false)
		k.runWritten(rest[0], "perl")
		return
	}
	k.eff(Effect{Kind: Exec, Reason: "inline code (perl)"})
	k.inlineCode(*code, "perl")
	if code.remote {
		k.remoteExec("perl runs code fetched from the network")
	}
	switch {
	case inplace:
		k.files(Write, rest, false)
	case loopMode:
		k.files(Read, rest, false)
	}
}

func (k *call) source() {
	if len(k.args) == 0 {
		return
	}
	f := k.args[0]
	if f.proc {
		if f.remote {
			k.remoteExec(k.name + " runs a script fetched from the network")
		}
		return
	}
	if f.known && (f.val == "/dev/stdin" || f.val == "-") {
		k.stdinCode(true)
		return
	}
	k.script(f, false)
	k.runWritten(f, "sh")
}

// cd tracks the working directory.
func (k *call) cd() {
	st := k.st
	p := parseOpts(k.args, spec{})
	switch k.name {
	case "popd":
		if n := len(st.dirStack); n > 0 {
			st.dir = st.dirStack[n-1]
			st.dirStack = st.dirStack[:n-1]
			if st.dir == "" {
				st.dirWhy = "popd returns to a directory that is not known"
			}
		} else {
			st.setDir("", "popd with an empty directory stack")
		}
		return
	case "pushd":
		if len(p.ops) == 0 {
			if n := len(st.dirStack); n > 0 {
				st.dir, st.dirStack[n-1] = st.dirStack[n-1], st.dir
			} else {
				st.setDir("", "pushd without a directory")
			}
			return
		}
		st.dirStack = append(st.dirStack, st.dir)
	}
	if len(p.ops) == 0 {
		if st.ctr != nil && st.ctr.ownEnv {
			if h := k.a.lookup(st, "HOME"); h.known && strings.HasPrefix(h.val, "/") {
				st.dir = path.Clean(h.val)
			} else {
				st.setDir("", "cd to the container's home directory, which is not known")
			}
		} else if k.a.opts.Home != "" {
			st.dir = path.Clean(k.a.opts.Home)
		} else {
			st.setDir("", "cd to the home directory, which is not known")
		}
		return
	}
	d := p.ops[0]
	if d.known && (d.val == "-" || strings.HasPrefix(d.val, "+") || strings.HasPrefix(d.val, "-")) {
		st.setDir("", "cd "+d.val+" goes to a directory not known at check time")
		return
	}
	e, ok := k.a.target(st, Read, d, false)
	if !ok || e.Unknown {
		st.setDir("", "cd to "+d.text(k.c)+": "+orDefault(e.Reason, "directory not known at check time"))
		return
	}
	st.dir = e.Target
}

func (k *call) readVars() {
	p := parseOpts(k.args, spec{arg: "adeinNptuCc", long: []string{}})
	for _, o := range p.opts {
		if o.name == "a" && o.has && o.val.known {
			k.st.vars[o.val.val] = variable{f: unknownField("variable $" + o.val.val + " is read from input")}
		}
	}
	names := p.ops
	if len(names) == 0 && k.name == "read" {
		names = []field{lit("REPLY")}
	}
	if len(names) == 0 {
		names = []field{lit("MAPFILE")}
	}
	for _, f := range names {
		if f.known {
			u := unknownField("variable $" + f.val + " is read from input")
			u.remote = k.c.stdin.remote
			k.st.vars[f.val] = variable{f: u}
		}
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
		}
	}
}

// aliasDef records alias NAME=VALUE definitions. Whether the shell expands
// aliases (interactive shells, shopt -s expand_aliases) is not known, so a
// later command NAME is judged as VALUE: a line that redefines ls to delete
// home is judged by what it would do where aliases are on.
func (k *call) aliasDef() {
	for _, f := range k.args {
		if !f.known {
			continue
		}
		name, val, ok := strings.Cut(f.val, "=")
		if !ok || name == "" {
			continue
		}
		if k.a.aliases == nil {
			k.a.aliases = map[string]string{}
		}
		k.a.aliases[name] = val
		// a shell that lives on (a terminal) runs the value whenever the
		// name is typed later, in lines judged on their own: the value is
		// judged now, as the code it is
		k.nested(lit(val), "alias "+name, nil, true)
	}
}

// expandAlias analyses a command whose name is an alias as the alias value
// followed by its arguments (an alias is not expanded again inside itself).
func (k *call) expandAlias(name, val string) {
	k.wrapper = true
	code := joinCode(k.args)
	if !code.known {
		code = field{val: val, known: true}
	} else if code.val != "" {
		code.val = val + " " + code.val
	} else {
		code.val = val
	}
	if k.a.aliasBusy == nil {
		k.a.aliasBusy = map[string]string{}
	}
	k.a.aliasBusy[name] = val
	defer delete(k.a.aliasBusy, name)
	k.nested(field{val: code.val, known: true, pos: k.argv[0].pos, end: k.argv[len(k.argv)-1].end}, "alias "+name, nil, true)
}

func (k *call) ln() {
	p := parseOpts(k.args, spec{arg: "tS", long: []string{"target-directory", "suffix"}})
	if p.has("s", "symbolic") && len(p.ops) >= 1 && len(p.ops) <= 2 && !p.has("t", "target-directory") {
		k.recordLink(p.ops)
	}
	if t, ok := p.get("t", "target-directory"); ok {
		k.file(Write, t, false)
		return
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

func isRemoteSpec(v string) bool {
	if strings.HasPrefix(v, "rsync://") || strings.Contains(v, "::") {
		return true
	}
	i := strings.IndexByte(v, ':')
	if i <= 0 {
		return false
	}
	return !strings.Contains(v[:i], "/")
}

func remoteHost(v string) string {
	if strings.HasPrefix(v, "rsync://") {
		if u, err := url.Parse(v); err == nil {
			return u.Host
		}
	}
	h, _, _ := strings.Cut(v, ":")
	return h
}

func (k *call) rsync() {
	p := parseOpts(k.args, spec{arg: "eBfTM@", long: []string{"rsh", "exclude", "include", "filter", "files-from", "port", "timeout", "chmod",
		"bwlimit", "log-file", "backup-dir", "partial-dir", "temp-dir", "compare-dest", "link-dest", "copy-dest", "remote-option",
		"password-file", "exclude-from", "include-from", "rsync-path", "iconv", "max-size", "min-size", "suffix", "out-format",
		"info", "debug", "chown", "usermap", "groupmap", "sockopts", "outbuf", "modify-window", "stop-after", "stop-at",
		"checksum-choice", "compress-choice", "compress-level", "skip-compress", "protocol", "address", "contimeout",
		"write-batch", "read-batch", "only-write-batch", "max-delete", "block-size", "log-file-format", "mkpath"}})
	rec := p.has("r", "a", "recursive", "archive")
	del := false
	for _, o := range p.opts {
		if strings.HasPrefix(o.name, "delete") || o.name == "del" {
			del = true
		}
	}
	if lf, ok := p.get("log-file"); ok {
		k.file(Write, lf, false)
	}
	if len(p.ops) < 2 {
		for _, o := range p.ops {
			if o.known && isRemoteSpec(o.val) {
				k.net(lit(remoteHost(o.val)))
			} else {
				k.file(Read, o, rec)
			}
		}
		return
	}
	dest := p.ops[len(p.ops)-1]
	srcs := p.ops[:len(p.ops)-1]
	destRemote := dest.known && isRemoteSpec(dest.val)
	for _, s := range srcs {
		if s.known && isRemoteSpec(s.val) {
			k.net(lit(remoteHost(s.val)))
			continue
		}
		k.file(Read, s, rec)
		if destRemote {
			k.tag(TagUpload)
		}
		if p.has("remove-source-files") {
			k.file(Delete, s, false)
		}
	}
	if destRemote {
		k.net(lit(remoteHost(dest.val)))
		if del {
			k.tag(TagRemoteDelete)
		}
		return
	}
	k.file(Write, dest, rec)
	if del {
		k.file(Delete, dest, true)
	}
}

func (k *call) sed() {
	p := parseOpts(k.args, spec{arg: "efl", optArg: "i", long: []string{"expression", "file", "line-length"}})
	inplace := p.has("i", "in-place")
	files := p.ops
	scripts := p.all("f", "file")
	k.files(Read, scripts, false)
	if !p.has("e", "expression", "f", "file") && len(files) > 0 {
		files = files[1:]
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
		case strings.HasPrefix(v, "-") && len(v) > 1 && strings.Trim(v[1:], "Rcfv") == "":
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

func (k *call) format() {
	var devs []field
	var last *field
	for i, f := range k.args {
		if !f.known {
			devs = append(devs, f)
			continue
		}
		if strings.HasPrefix(f.val, "/dev/") {
			devs = append(devs, f)
		}
		if !strings.HasPrefix(f.val, "-") && !isDigits(f.val) {
			last = &k.args[i]
		}
	}
	if len(devs) == 0 && last != nil {
		devs = []field{*last}
	}
	k.tag(TagFormatFS)
	k.files(Write, devs, false)
}

func (k *call) partition() {
	readOnly := false
	for _, f := range k.args {
		switch f.val {
		case "-l", "--list", "-d", "--dump", "-V", "--verify", "-p", "--print", "print", "-s", "--show-size", "-v", "--version", "-h", "--help", "-I", "status", "list":
			readOnly = true
		}
	}
	var devs []field
	for _, f := range k.args {
		if !f.known || strings.HasPrefix(f.val, "/dev/") {
			devs = append(devs, f)
		}
	}
	if readOnly && k.name != "blkdiscard" {
		k.files(Read, devs, false)
		return
	}
	k.tag(TagFormatFS)
	k.files(Write, devs, false)
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
	k.files(Read, p.all("f", "file", "E", "exec"), false)
	if !p.has("f", "file", "E", "exec") && len(ops) > 0 {
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

// home expands a leading ~/ in a value found inside an argument.
func (k *call) home(f field) field {
	if f.known && (f.val == "~" || strings.HasPrefix(f.val, "~/")) && k.a.opts.Home != "" {
		f.val = k.a.opts.Home + f.val[1:]
	}
	return f
}

func urlBase(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	b := path.Base(pu.Path)
	if b == "/" || b == "." || b == "" {
		return "index.html"
	}
	return b
}

func (k *call) download(f field) {
	e, ok := k.a.target(k.st, Write, f, false)
	if !ok {
		return
	}
	k.eff(e)
	if !e.Unknown {
		if k.a.downloaded == nil {
			k.a.downloaded = map[string]bool{}
		}
		k.a.downloaded[e.Target] = true
	}
}

func (k *call) curl() {
	p := parseOpts(k.args, spec{arg: "AbcCdDeEFHKmoPQrtTuUwxXyYz", long: []string{"data", "data-ascii", "data-binary", "data-raw", "data-urlencode",
		"form", "form-string", "upload-file", "output", "output-dir", "config", "cookie", "cookie-jar", "dump-header", "header",
		"user-agent", "referer", "user", "proxy", "request", "max-time", "connect-timeout", "retry", "retry-delay", "retry-max-time",
		"url", "cacert", "capath", "cert", "key", "key-type", "cert-type", "pass", "ciphers", "resolve", "connect-to", "interface",
		"local-port", "max-filesize", "max-redirs", "proxy-user", "range", "speed-limit", "speed-time", "time-cond", "trace",
		"trace-ascii", "stderr", "write-out", "unix-socket", "abstract-unix-socket", "json", "variable", "expect100-timeout",
		"netrc-file", "oauth2-bearer", "proto", "proto-redir", "proto-default", "noproxy", "dns-servers", "doh-url", "limit-rate",
		"mail-from", "mail-rcpt", "mail-auth", "preproxy", "proxy-header", "socks4", "socks4a", "socks5", "socks5-hostname",
		"telnet-option", "tls-max", "aws-sigv4", "etag-save", "etag-compare", "crlfile", "pinnedpubkey", "quote", "ftp-port", "url-query"}})
	var urls []field
	urls = append(urls, p.ops...)
	urls = append(urls, p.all("url")...)
	for _, u := range urls {
		k.net(u)
	}
	outDir := lit(".")
	if d, ok := p.get("output-dir"); ok {
		outDir = d
	}
	outs := p.all("o", "output")
	for _, o := range outs {
		if o.known && o.val != "-" && outDir.known && !strings.HasPrefix(o.val, "/") {
			o = sub(o, path.Join(outDir.val, o.val))
		}
		k.download(o)
	}
	if p.has("O", "remote-name", "remote-name-all") {
		for _, u := range urls[min(len(outs), len(urls)):] {
			if u.known && outDir.known {
				k.download(sub(u, path.Join(outDir.val, urlBase(u.val))))
			} else {
				k.download(unknownField("file name comes from the URL"))
			}
		}
	}
	upload := func(f field) {
		k.file(Read, k.home(f), false)
		k.tag(TagUpload)
	}
	for _, o := range p.opts {
		if !o.has {
			continue
		}
		v := o.val
		switch o.name {
		case "d", "data", "data-ascii", "data-binary", "json":
			if v.known && strings.HasPrefix(v.val, "@") && v.val != "@-" {
				upload(sub(v, v.val[1:]))
			}
		case "data-urlencode":
			if v.known {
				if i := strings.IndexByte(v.val, '@'); i >= 0 && !strings.Contains(v.val[:i], "=") && v.val[i+1:] != "-" {
					upload(sub(v, v.val[i+1:]))
				}
			}
		case "F", "form":
			if v.known {
				if _, val, ok := strings.Cut(v.val, "="); ok && (strings.HasPrefix(val, "@") || strings.HasPrefix(val, "<")) {
					fname, _, _ := strings.Cut(val[1:], ";")
					if fname != "-" {
						upload(sub(v, fname))
					}
				}
			}
		case "T", "upload-file":
			if !(v.known && v.val == "-") {
				upload(v)
			}
		case "K", "config", "netrc-file", "cacert", "crlfile":
			k.file(Read, k.home(v), false)
		case "unix-socket":
			// talking to a Unix socket reaches what listens on it
			k.file(Read, k.home(v), false)
		case "E", "cert", "key":
			if v.known {
				name, _, _ := strings.Cut(v.val, ":")
				k.file(Read, k.home(sub(v, name)), false)
			}
		case "b", "cookie":
			if v.known && !strings.Contains(v.val, "=") {
				k.file(Read, k.home(v), false)
			}
		case "c", "cookie-jar", "D", "dump-header", "trace", "trace-ascii", "stderr", "etag-save":
			k.file(Write, v, false)
		}
	}
}

func (k *call) wget() {
	p := parseOpts(k.args, spec{arg: "oaeiBtOTwQPUlARDIX", long: []string{"output-document", "output-file", "append-output", "input-file", "base",
		"tries", "timeout", "wait", "quota", "directory-prefix", "user-agent", "level", "accept", "reject", "domains",
		"include-directories", "exclude-directories", "post-data", "post-file", "body-file", "body-data", "method", "header",
		"load-cookies", "save-cookies", "certificate", "private-key", "ca-certificate", "user", "password", "http-user",
		"http-password", "referer", "limit-rate", "execute", "config", "warc-file", "bind-address", "dns-timeout", "connect-timeout", "read-timeout"}})
	for _, u := range p.ops {
		k.net(u)
	}
	prefix := lit(".")
	if d, ok := p.get("P", "directory-prefix"); ok {
		prefix = d
	}
	if o, ok := p.get("O", "output-document"); ok {
		if !(o.known && o.val == "-") {
			k.download(o)
		}
	} else if p.has("r", "recursive", "m", "mirror") {
		k.file(Write, prefix, true)
	} else if !p.has("spider") {
		for _, u := range p.ops {
			if u.known && prefix.known {
				k.download(sub(u, path.Join(prefix.val, urlBase(u.val))))
			} else {
				k.download(unknownField("file name comes from the URL"))
			}
		}
	}
	for _, o := range p.opts {
		if !o.has {
			continue
		}
		switch o.name {
		case "post-file", "body-file":
			k.file(Read, k.home(o.val), false)
			k.tag(TagUpload)
		case "i", "input-file", "load-cookies", "config", "certificate", "private-key", "ca-certificate":
			k.file(Read, k.home(o.val), false)
		case "o", "output-file", "a", "append-output", "save-cookies":
			k.file(Write, o.val, false)
		}
	}
}

func (k *call) scp() {
	p := parseOpts(k.args, spec{arg: "cFiJloPSDX", long: []string{}})
	if id, ok := p.get("i"); ok {
		k.attr("identity", id.text(k.c))
	}
	if k.name == "sftp" {
		for _, o := range p.ops {
			if o.known {
				k.net(lit(remoteHost(o.val)))
			}
		}
		return
	}
	rec := p.has("r")
	if len(p.ops) < 2 {
		return
	}
	dest := p.ops[len(p.ops)-1]
	destRemote := dest.known && isRemoteSpec(dest.val)
	for _, s := range p.ops[:len(p.ops)-1] {
		if s.known && isRemoteSpec(s.val) {
			k.net(lit(remoteHost(s.val)))
			continue
		}
		k.file(Read, k.home(s), rec)
		if destRemote {
			k.tag(TagUpload)
		}
	}
	if destRemote {
		k.net(lit(remoteHost(dest.val)))
	} else {
		k.file(Write, dest, rec)
	}
}

func (k *call) ssh() {
	p := parseOpts(k.args, spec{arg: "BbcDEeFIiJLlmOoPpQRSWw", stop: true})
	if id, ok := p.get("i"); ok {
		k.attr("identity", id.text(k.c))
	}
	if e, ok := p.get("E"); ok {
		k.file(Write, e, false)
	}
	if len(p.ops) == 0 {
		return
	}
	host := p.ops[0]
	if host.known {
		h := host.val
		if strings.HasPrefix(h, "ssh://") {
			if u, err := url.Parse(h); err == nil {
				h = u.Host
			}
		}
		host = sub(host, h)
	}
	k.net(host)
	if len(p.ops) > 1 {
		rc := joinCode(p.ops[1:])
		k.attr("remote-command", rc.val)
		if !rc.known {
			k.attr("remote-command", p.ops[1].text(k.c))
		}
	}
}

func (k *call) netcat() {
	p := parseOpts(k.args, spec{arg: "ecipqswxXIOTbgGMmPSVW", long: []string{"exec", "sh-exec", "lua-exec", "source", "source-port", "wait", "proxy", "proxy-type", "output", "append-output"}})
	if p.has("e", "c", "exec", "sh-exec", "lua-exec") {
		k.remoteExec(k.name + " connects a program to the network (remote shell)")
	}
	unix := p.has("unixsock") || p.has("U") && (k.name == "nc" || k.name == "netcat")
	for _, o := range p.ops {
		if o.known && !isDigits(o.val) {
			if unix {
				// a Unix socket: talking to it reaches what listens on it
				k.file(Read, k.home(o), false)
			} else {
				k.net(o)
			}
			break
		}
	}
	if o, ok := p.get("o", "output", "append-output"); ok {
		k.file(Write, o, false)
	}
}

func (k *call) socat() {
	execs, nets := false, false
	for _, f := range k.args {
		if !f.known {
			continue
		}
		u := strings.ToUpper(f.val)
		switch {
		case strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:"):
			execs = true
		case strings.HasPrefix(u, "TCP") || strings.HasPrefix(u, "UDP") || strings.HasPrefix(u, "SSL") || strings.HasPrefix(u, "OPENSSL"):
			nets = true
			if parts := strings.SplitN(f.val, ":", 2); len(parts) == 2 {
				k.net(sub(f, strings.Split(parts[1], ",")[0]))
			}
		case strings.HasPrefix(u, "OPEN:") || strings.HasPrefix(u, "CREATE:"):
			k.file(Write, sub(f, strings.Split(f.val[strings.IndexByte(f.val, ':')+1:], ",")[0]), false)
		case strings.HasPrefix(u, "UNIX") || strings.HasPrefix(u, "GOPEN:") || strings.HasPrefix(u, "PIPE:"):
			// UNIX-CONNECT:, UNIX-CLIENT:, UNIX-SENDTO:, UNIX:, GOPEN:
			// open the path (a socket reaches what listens on it)
			k.file(Read, k.home(sub(f, strings.Split(f.val[strings.IndexByte(f.val, ':')+1:], ",")[0])), false)
		case strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, "~/") || strings.HasPrefix(f.val, "./"):
			// an address that is a path is GOPEN
			k.file(Read, k.home(sub(f, strings.Split(f.val, ",")[0])), false)
		}
	}
	if execs && nets {
		k.remoteExec("socat connects a program to the network (remote shell)")
	}
}

// subcommand returns the first operand after global options.
func (k *call) subcommand(s spec) string {
	s.stop = true
	p := parseOpts(k.args, s)
	if len(p.ops) == 0 || !p.ops[0].known {
		return ""
	}
	return p.ops[0].val
}

func (k *call) subcmdTags(tags map[string]string, host string) {
	sc := k.subcommand(spec{})
	if t, ok := tags[sc]; ok {
		k.tag(t)
		k.attr("subcommand", sc)
		k.eff(Effect{Kind: Network, Target: host})
	}
}

func (k *call) pkgInstall(manager, host string, subs ...string) {
	sc := k.subcommand(spec{})
	if !contains(subs, sc) {
		// pacman -S style
		found := false
		for _, f := range k.args {
			if f.known && strings.HasPrefix(f.val, "-S") && contains(subs, "-S") {
				found = true
			}
		}
		if !found {
			return
		}
	}
	k.tag(TagPackageInstall)
	k.attr("manager", manager)
	k.eff(Effect{Kind: Network, Target: host})
}

func (k *call) jsPM() {
	p := parseOpts(k.args, spec{arg: "C", long: []string{"prefix", "cwd", "dir", "filter", "workspace", "registry"}, stop: true})
	if len(p.ops) == 0 {
		if k.name == "yarn" || k.name == "bun" {
			k.tag(TagPackageInstall)
			k.attr("manager", k.name)
			k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
		}
		return
	}
	sc := p.ops[0].val
	rest := p.ops[1:]
	if k.name == "yarn" && sc == "npm" && len(rest) > 0 {
		sc = rest[0].val
		rest = rest[1:]
	}
	switch sc {
	case "publish", "unpublish", "deprecate":
		k.tag(TagPublish)
		k.attr("subcommand", sc)
		k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
	case "install", "i", "add", "ci", "update", "up", "upgrade", "in", "isntall":
		k.tag(TagPackageInstall)
		k.attr("manager", k.name)
		k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
		if k.st.dir != "" {
			k.eff(Effect{Kind: Write, Target: path.Join(k.st.dir, "node_modules"), Recursive: true})
		}
	case "exec", "x", "dlx":
		k.npx(rest, k.name+" "+sc)
	case "run", "run-script", "test", "start", "t":
		k.eff(Effect{Kind: Exec, Target: "package.json script", Reason: "runs a package.json script"})
		if k.name == "bun" && sc == "run" && len(rest) > 0 && rest[0].known && (strings.HasSuffix(rest[0].val, ".ts") || strings.HasSuffix(rest[0].val, ".js")) {
			k.script(rest[0], false)
		}
	default:
		if k.name == "bun" && (strings.HasSuffix(sc, ".ts") || strings.HasSuffix(sc, ".js") || strings.HasSuffix(sc, ".tsx")) {
			k.script(p.ops[0], false)
		}
	}
}

func (k *call) docker() {
	p := parseOpts(k.args, spec{arg: "cHl", long: []string{"context", "host", "log-level", "config", "tlscacert", "tlscert", "tlskey",
		"connection", "identity", "url", "module", "root", "runroot", "storage-driver", "cgroup-manager", "events-backend", "network-cmd-path", "tmpdir"}, stop: true})
	if len(p.ops) == 0 {
		return
	}
	ops := p.ops
	if ops[0].val == "container" && len(ops) > 1 {
		ops = ops[1:]
	}
	switch sc := ops[0].val; sc {
	case "run", "create":
		k.containerRun(ops[1:], k.name+" "+sc, false)
		return
	case "exec":
		k.containerRun(ops[1:], k.name+" exec", true)
		return
	case "compose":
		k.compose(ops[1:], k.name+" compose")
		return
	}
	switch p.ops[0].val {
	case "push":
		k.tag(TagPublish)
		k.attr("subcommand", "push")
		if len(p.ops) > 1 {
			k.net(p.ops[len(p.ops)-1])
		}
	case "pull":
		if len(p.ops) > 1 {
			k.net(p.ops[len(p.ops)-1])
		}
	}
}

// compose models docker compose / docker-compose: run and exec run a
// command in a service's container, whose own mounts are not known.
func (k *call) compose(args []field, label string) {
	p := parseOpts(args, spec{arg: "fp", long: []string{"file", "project-name", "project-directory", "profile", "env-file", "ansi", "progress", "parallel"}, stop: true})
	if len(p.ops) == 0 || !p.ops[0].known {
		return
	}
	switch sc := p.ops[0].val; sc {
	case "run", "exec":
		k.containerRun(p.ops[1:], label+" "+sc, true)
	}
}

func (k *call) aws() {
	p := parseOpts(k.args, spec{long: []string{"profile", "region", "output", "endpoint-url", "query"}, stop: true})
	if len(p.ops) < 2 {
		return
	}
	svc, op := p.ops[0].val, p.ops[1].val
	if svc == "s3" && (op == "rm" || op == "rb") || strings.HasPrefix(op, "delete") || strings.HasPrefix(op, "terminate") || op == "remove" {
		k.tag(TagRemoteDelete)
	}
	if svc == "s3" && (op == "cp" || op == "sync" || op == "mv") && len(p.ops) >= 4 {
		src, dst := p.ops[2], p.ops[3]
		if dst.known && strings.HasPrefix(dst.val, "s3://") && !(src.known && strings.HasPrefix(src.val, "s3://")) {
			k.file(Read, src, true)
			k.tag(TagUpload)
			k.net(dst)
		} else if src.known && strings.HasPrefix(src.val, "s3://") {
			k.net(src)
			if !(dst.known && strings.HasPrefix(dst.val, "s3://")) {
				k.file(Write, dst, true)
			}
		}
		if hasArg(k.args, "--delete") {
			k.tag(TagRemoteDelete)
		}
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

// trap: `trap ACTION SIGNAL...` runs ACTION later (on the signal, at EXIT,
// on ERR, before every command with DEBUG), in this shell: it is judged as
// that code. `trap`, `trap -p`, `trap -l`, `trap - SIG` and `trap ” SIG`
// run nothing; a lone number resets that signal.
func (k *call) trap() {
	args := k.args
	for len(args) > 0 && args[0].known && strings.HasPrefix(args[0].val, "-") && args[0].val != "-" {
		if args[0].val == "--" {
			args = args[1:]
			break
		}
		if args[0].val == "-p" || args[0].val == "-l" || args[0].val == "-P" {
			return
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return
	}
	action := args[0]
	if action.known && (action.val == "-" || action.val == "") {
		return
	}
	if action.known && len(args) == 1 && isUnsigned(action.val) {
		return
	}
	k.nested(action, "trap", nil, true)
}

func isUnsigned(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
