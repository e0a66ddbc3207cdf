package shell

import (
	"path"
	"strings"
)

// pkgPrograms declares package managers, build tools and coding agents.
func pkgPrograms() []program {
	return []program{
		{names: []string{"npm", "pnpm", "yarn", "bun", "cnpm"}, model: (*call).jsPM,
			examples: []example{ex("npm pkg set scripts.x='rm -rf /x' && npm run x", "delete:r /x", "via rm npm run x"),
				ex("echo '{\"scripts\":{\"test\":\"rm -rf /x\"}}' > package.json && yarn test", "delete:r /x"), ex("npm run test", "!delete"),
				ex("npm publish", "tag publish"), ex("npm install left-pad", "tag package.install", "write:r /home/u/proj/node_modules", "!tag dynamic-exec"),
				ex("npm i github:o/r", "tag dynamic-exec"), ex("pnpm add o/r#main", "tag dynamic-exec"), ex("npm install https://h.example/x.tgz", "tag dynamic-exec"), ex("npm install @types/node ./local", "!tag dynamic-exec"), ex("npm run build", "exec package.json script"), ex("npm config set script-shell /tmp/x.sh", "write /home/u/.npmrc", "attr key=script-shell"),
				ex("npm config set -L project registry=https://r.example", "write /home/u/proj/.npmrc"), ex("npm config get registry", "!write"),
				ex("npm set script-shell /tmp/x.sh", "write /home/u/.npmrc", "attr key=script-shell")}},
		{names: []string{"cargo"}, model: func(k *call) {
			k.subcmdTags(map[string]string{"publish": TagPublish}, "crates.io")
			if k.subcommand(spec{}) == "release" && hasArg(k.args, "-x", "--execute") {
				k.tag(TagPublish) // cargo-release: without --execute it is a dry run
			}
			k.pkgInstall("cargo", "crates.io", "install", "add", "fetch", "update", "build")
		}, examples: []example{ex("cargo publish", "tag publish"), ex("cargo release minor -x", "tag publish"), ex("cargo release patch", "!tag publish"), ex("cargo build", "tag package.install")}},
		{names: []string{"twine"}, model: func(k *call) {
			k.subcmdTags(map[string]string{"upload": TagPublish, "register": TagPublish}, "upload.pypi.org")
		}, examples: []example{ex("twine upload dist/*", "tag publish", "net upload.pypi.org")}},
		{names: []string{"gem"}, model: func(k *call) {
			k.subcmdTags(map[string]string{"push": TagPublish, "yank": TagPublish}, "rubygems.org")
			k.pkgInstall("gem", "rubygems.org", "install", "update")
		}, examples: []example{ex("gem push x.gem", "tag publish"), ex("gem install rails", "tag package.install")}},
		{names: []string{"poetry", "uv", "flit", "hatch", "pdm", "rye"}, model: func(k *call) {
			n := k.name
			k.subcmdTags(map[string]string{"publish": TagPublish}, "upload.pypi.org")
			if n == "uv" && len(k.args) > 1 && k.args[0].val == "pip" && k.args[1].val == "install" {
				k.tag(TagPackageInstall)
				k.attr("manager", "uv")
				k.eff(Effect{Kind: Network, Target: "pypi.org"})
				k.pipSources("uv pip", k.args[2:])
			}
			k.pkgInstall(n, "pypi.org", "add", "install", "sync", "lock")
			if n == "uv" && len(k.args) > 0 && k.args[0].val == "run" {
				ops := parseOpts(k.args[1:], spec{arg: "p", long: []string{"with", "python", "project", "directory", "env-file", "package", "extra", "group"}, stop: true}).ops
				if len(ops) > 0 && ops[0].known && (strings.Contains(ops[0].val, "://") || strings.HasSuffix(ops[0].val, ".py")) {
					k.script(ops[0], false) // uv run script.py, uv run https://…/s.py
					k.runWritten(ops[0], "python")
				} else {
					k.inner(ops, "uv run", nil, nil)
				}
			}
			if n == "poetry" && len(k.args) > 0 && k.args[0].val == "run" {
				k.inner(k.args[1:], "poetry run", nil, nil)
			}
		}, examples: []example{ex("uv pip install x", "tag package.install", "attr manager=uv"), ex("poetry run rm -rf /x", "delete:r /x")}},
		{names: []string{"uvx", "pipx"}, model: func(k *call) {
			n := k.name
			args := k.args
			if n == "pipx" {
				if len(args) == 0 || args[0].val != "run" {
					k.pkgInstall("pipx", "pypi.org", "install", "upgrade")
					return
				}
				args = args[1:]
			}
			k.eff(Effect{Kind: Network, Target: "pypi.org"})
			p := parseOpts(args, spec{long: []string{"from", "with", "python", "spec", "index-url", "pip-args"}, stop: true})
			for _, src := range p.all("from", "spec", "with") {
				if src.known && strings.Contains(src.val, "://") {
					// a package built from an address, not the index:
					// code no one has reviewed, run as it arrives
					k.net(src)
					k.dynamicExec(n + " runs a package fetched from " + src.val)
				}
			}
			if len(p.ops) > 0 && p.ops[0].known && strings.Contains(p.ops[0].val, "://") {
				k.script(p.ops[0], false) // pipx run https://…/script.py
				return
			}
			k.inner(p.ops, n, nil, nil)
		}, examples: []example{ex("uvx ruff check", "net pypi.org", "cmd ruff"), ex("pipx install black", "tag package.install")}},
		{names: []string{"pip", "pip3", "pip2"}, model: func(k *call) {
			k.pkgInstall("pip", "pypi.org", "install", "download", "wheel")
			if sc := k.subcommand(spec{}); sc == "install" || sc == "download" || sc == "wheel" {
				k.pipSources(k.name, k.args)
			}
			if p := parseOpts(k.args, spec{arg: "rcet", long: []string{"requirement", "constraint", "editable", "target", "index-url", "extra-index-url", "find-links"}}); true {
				k.files(Read, p.all("r", "requirement", "c", "constraint"), false)
			}
			if len(k.args) > 1 && k.args[0].known && k.args[0].val == "config" {
				k.pipConfig(k.args[1:])
			}
		}, examples: []example{ex("pip install -r req.txt", "tag package.install", "read /home/u/proj/req.txt"),
			ex("pip config set global.index-url https://x.example/simple", "write /home/u/.config/pip/pip.conf"),
			ex("pip config --site set global.timeout 5", "!write /home/u/.config/pip/pip.conf"), ex("pip config list", "!write"),
			ex("pip install git+https://git.example/x.git", "tag dynamic-exec", "net https://git.example/x.git"), ex("pip install --index-url https://mirror.example/simple x", "tag dynamic-exec"),
			ex("pip install -e .", "!tag dynamic-exec"), ex("pip install requests", "!tag dynamic-exec"), ex("pip install -i https://pypi.org/simple x", "!tag dynamic-exec")}},
		{names: []string{"apt", "apt-get", "aptitude", "dnf", "yum", "zypper", "apk", "pacman", "brew", "port", "snap", "flatpak", "nix-env", "conda", "mamba", "choco", "winget"}, model: func(k *call) {
			n := k.name
			k.pkgInstall(n, n, "install", "upgrade", "update", "reinstall", "add", "dist-upgrade", "full-upgrade", "-S", "-Syu", "-Sy")
		}, examples: []example{ex("apt-get install -y jq", "tag package.install", "attr manager=apt-get"), ex("pacman -Syu", "tag package.install"), ex("apt list", "!tag package.install")}},
		{names: []string{"claude"}, model: func(k *call) {
			k.claude()
			k.mentions()
		}},
		{names: []string{"go"}, model: func(k *call) {
			k.pkgInstall("go", "proxy.golang.org", "install", "get", "mod")
			k.goSources()
			if len(k.args) > 1 && k.args[0].known && k.args[0].val == "run" {
				k.goRun()
			}
			if len(k.args) > 0 && k.args[0].known && (k.args[0].val == "build" || k.args[0].val == "install") {
				k.goBuild()
			}
		}, examples: []example{ex("go install golang.org/x/tools/cmd/goimports@latest", "tag package.install"), ex("go vet ./...", "!tag package.install")}},
		{names: []string{"mvn", "gradle", "gradlew", "sbt"}, model: func(k *call) {
			for _, f := range k.args {
				if f.known && (f.val == "deploy" || f.val == "publish" || strings.HasPrefix(f.val, "publish")) {
					k.tag(TagPublish)
				}
			}
		}, examples: []example{ex("mvn deploy", "tag publish"), ex("gradle build", "!tag publish")}},
		{names: []string{"dotnet", "nuget"}, model: func(k *call) {
			for _, f := range k.args {
				if f.known && f.val == "push" {
					k.tag(TagPublish)
				}
			}

		}, examples: []example{ex("dotnet nuget push p.nupkg", "tag publish")}},
	}
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
	if k.name == "bun" && len(k.args) > 0 && k.args[0].known && contains([]string{"-e", "--eval", "-p", "--print"}, strings.SplitN(k.args[0].val, "=", 2)[0]) {
		k.interp("ep", "", "", "bun") // bun -e CODE runs JavaScript as node -e does
		return
	}
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
	case "config", "c":
		k.pmConfig(rest, ".npmrc")
	case "set":
		// npm set KEY VALUE is npm config set KEY VALUE
		if k.name == "npm" || k.name == "pnpm" {
			k.pmConfig(append([]field{lit("set")}, rest...), ".npmrc")
		}
	case "publish", "unpublish", "deprecate":
		k.tag(TagPublish)
		k.attr("subcommand", sc)
		k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
	case "dist-tag", "dist-tags":
		// moving a dist-tag (latest) changes what every install gets
		if len(rest) > 0 && rest[0].known && (rest[0].val == "add" || rest[0].val == "rm") {
			k.tag(TagPublish)
			k.attr("subcommand", sc+" "+rest[0].val)
		}
	case "install", "i", "add", "ci", "update", "up", "upgrade", "in", "isntall":
		for _, n := range []string{"preinstall", "install", "postinstall", "prepare"} {
			k.npmRunScript(n)
		}
		k.tag(TagPackageInstall)
		k.attr("manager", k.name)
		k.eff(Effect{Kind: Network, Target: "registry.npmjs.org"})
		k.npmSources(rest, p.all("registry"))
		if k.st.dir != "" {
			k.eff(Effect{Kind: Write, Target: path.Join(k.st.dir, "node_modules"), Recursive: true})
		}
	case "exec", "x", "dlx":
		k.npx(rest, k.name+" "+sc)
	case "pkg", "set-script":
		k.npmSetScripts(sc, rest)
	case "run", "run-script", "test", "start", "t", "restart", "stop":
		k.eff(Effect{Kind: Exec, Target: "package.json script", Reason: "runs a package.json script"})
		name := sc
		if sc == "run" || sc == "run-script" {
			name = ""
			if r := parseOpts(rest, spec{stop: true}); len(r.ops) > 0 && r.ops[0].known {
				name = r.ops[0].val
			}
		} else if sc == "t" {
			name = "test"
		}
		if name != "" {
			k.npmRunScript(name)
		}
		if k.name == "bun" && sc == "run" && len(rest) > 0 && rest[0].known && (strings.HasSuffix(rest[0].val, ".ts") || strings.HasSuffix(rest[0].val, ".js")) {
			k.script(rest[0], false)
			k.runScript(rest[0], "js")
		}
	default:
		if k.name == "bun" && (strings.HasSuffix(sc, ".ts") || strings.HasSuffix(sc, ".js") || strings.HasSuffix(sc, ".tsx")) {
			k.script(p.ops[0], false)
			k.runScript(p.ops[0], "js")
		} else if k.name != "npm" && k.name != "cnpm" {
			k.npmRunScript(sc) // yarn x, pnpm x: a script by name
		}
	}
}

// pmConfig models npm/pnpm/yarn config set|delete|edit: the user's config
// file in home (file, e.g. ".npmrc") is written, or the project's with
// --location=project, the global one with -g.
func (k *call) pmConfig(rest []field, file string) {
	p := parseOpts(rest, spec{arg: "L", long: []string{"location", "userconfig", "globalconfig"}})
	if len(p.ops) == 0 || !p.ops[0].known {
		return
	}
	switch p.ops[0].val {
	case "set", "delete", "rm", "edit", "unset", "fix":
	default:
		return
	}
	if len(p.ops) > 1 {
		k.attr("key", strings.SplitN(p.ops[1].text(k.c), "=", 2)[0])
	}
	loc, _ := p.get("L", "location")
	switch {
	case loc.known && loc.val == "project":
		k.file(Write, lit(file), false)
	case p.has("g", "global") || loc.known && loc.val == "global":
		k.eff(Effect{Kind: Write, Unknown: true, Reason: "the global " + file + " of the package manager's prefix"})
	default:
		if f, ok := p.get("userconfig"); ok {
			k.file(Write, f, false)
		} else if h, set := k.envVar("HOME"); set && h.known && strings.HasPrefix(h.val, "/") {
			k.file(Write, lit(path.Join(h.val, file)), false) // HOME=/x npm config set …
		} else if h := k.a.lookup(k.st, "HOME"); !set && h.known && strings.HasPrefix(h.val, "/") {
			k.file(Write, lit(path.Join(h.val, file)), false)
		} else {
			k.eff(Effect{Kind: Write, Unknown: true, Reason: "the " + file + " in a home directory not known at check time"})
		}
	}
}

// pipConfig models pip config set|unset|edit: the user's pip.conf is
// written unless --site (the environment's) or --global (the system's).
func (k *call) pipConfig(rest []field) {
	p := parseOpts(rest, spec{arg: "", long: []string{"editor"}})
	if len(p.ops) == 0 || !p.ops[0].known {
		return
	}
	switch p.ops[0].val {
	case "set", "unset", "edit":
	default:
		return
	}
	switch {
	case p.has("site"):
		k.eff(Effect{Kind: Write, Unknown: true, Reason: "the pip.conf of the active environment"})
	case p.has("global"):
		k.file(Write, lit("/etc/pip.conf"), false)
	default:
		if h := k.a.lookup(k.st, "HOME"); h.known && strings.HasPrefix(h.val, "/") {
			k.file(Write, lit(path.Join(h.val, ".config/pip/pip.conf")), false)
		}
	}
}
