package shell

import (
	"net/url"
	"strings"
)

// Installing code from an unusual source is running code no one has
// reviewed: a package manager's default registry (PyPI, npm's registry)
// has names, owners and takedowns, a URL, a git repository, a tarball on
// some host or another index has none of them, and the package's build
// or install scripts run as it arrives. Such an install asks
// (dynamic-exec, with the source in the reason); installs by name from the
// default registry and from local paths stay as they are.

// defaultIndexHosts are the hosts of the default registries an index
// option may name without changing where packages come from.
var defaultIndexHosts = map[string]bool{
	"pypi.org": true, "files.pythonhosted.org": true, "pypi.python.org": true, "test.pypi.org": false,
	"registry.npmjs.org": true, "registry.yarnpkg.com": true,
}

// remoteSource reports whether a package operand names code fetched from
// somewhere other than the registry: a URL, a VCS address (git+https://,
// git@host:, github:owner/repo) or, for npm-style managers (npmStyle), the
// owner/repo shorthand of a GitHub repository.
func remoteSource(v string, npmStyle bool) bool {
	if v == "" || strings.HasPrefix(v, "-") {
		return false
	}
	// a requirement with an address: "pkg @ https://…"
	if strings.Contains(v, "://") {
		return !strings.HasPrefix(v, "file://")
	}
	for _, p := range []string{"git+", "git@", "hg+", "svn+", "bzr+", "github:", "gitlab:", "bitbucket:", "gist:"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	if npmStyle {
		// npm install owner/repo[#ref] is a GitHub repository; @scope/name
		// is a registry package, ./dir and /dir are local
		if strings.HasPrefix(v, "@") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
			return false
		}
		name, _, _ := strings.Cut(v, "#")
		if i := strings.IndexByte(name, '/'); i > 0 && i < len(name)-1 && !strings.Contains(name[i+1:], "/") &&
			!strings.HasSuffix(name, ".tgz") && !strings.HasSuffix(name, ".tar.gz") {
			return true
		}
	}
	return false
}

// otherIndex reports whether an index or registry address names a host
// other than the default registries.
func otherIndex(v string) bool {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return v != "" && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".")
	}
	if u.Scheme == "file" {
		return false
	}
	return !defaultIndexHosts[strings.ToLower(u.Hostname())]
}

// installSources marks an install whose packages come from an unusual
// source. ops are the operands after the subcommand; idx the values of the
// options that name an index or registry; npmStyle as in remoteSource.
func (k *call) installSources(manager string, ops, idx []field, npmStyle bool) {
	for _, f := range idx {
		if !f.known {
			k.dynamicExec(manager + " installs from an index or registry not known at check time")
			return
		}
		if otherIndex(f.val) {
			k.net(f)
			k.dynamicExec(manager + " installs packages from " + f.val + ", not the default registry: code no one has reviewed, whose build scripts run as it arrives")
			return
		}
	}
	for _, f := range ops {
		if f.known && remoteSource(f.val, npmStyle) {
			if u := sourceURL(f.val); u != "" {
				k.net(lit(u))
			}
			k.dynamicExec(manager + " installs code from " + f.val + ", not from the registry: code no one has reviewed, whose build scripts run as it arrives")
			return
		}
	}
}

// sourceURL returns the address in a package operand ("pkg @ https://…",
// "git+https://…"), without a VCS prefix; "" when there is none.
func sourceURL(v string) string {
	i := strings.Index(v, "://")
	if i < 0 {
		return ""
	}
	j := i
	for j > 0 && (v[j-1] >= 'a' && v[j-1] <= 'z' || v[j-1] >= 'A' && v[j-1] <= 'Z' || v[j-1] == '+') {
		j--
	}
	u := v[j:]
	if scheme, _, ok := strings.Cut(u[:i-j], "+"); ok && scheme != "" {
		u = u[len(scheme)+1:]
	}
	return u
}

// pipSources judges pip install/download/wheel (and uv pip install):
// operands that are addresses, and -i/--index-url, --extra-index-url,
// -f/--find-links naming another host. args start after "install".
func (k *call) pipSources(manager string, args []field) {
	p := parseOpts(args, spec{arg: "rceitfd", long: []string{"requirement", "constraint", "editable", "index-url", "extra-index-url",
		"find-links", "target", "prefix", "root", "src", "python", "platform", "implementation", "abi", "python-version",
		"upgrade-strategy", "progress-bar", "trusted-host", "cache-dir", "log", "proxy", "retries", "timeout", "exists-action",
		"cert", "client-cert", "only-binary", "no-binary", "report", "config-settings", "global-option", "dest", "d", "default-index", "index"}})
	idx := append(p.all("i", "index-url", "extra-index-url", "f", "find-links", "default-index", "index"), k.envSources("pip")...)
	ops := append(p.ops, p.all("e", "editable")...)
	k.installSources(manager, ops, idx, false)
}

// npmSources judges npm/pnpm/yarn/bun install and add: operands that are
// URLs, tarballs on a host, git addresses or GitHub shorthands, and
// --registry naming another host. rest are the words after the
// subcommand.
func (k *call) npmSources(rest []field, registry []field) {
	p := parseOpts(rest, spec{long: []string{"registry", "tag", "save-prefix", "omit", "include", "install-strategy", "workspace", "w", "filter"}})
	k.installSources(k.name, p.ops, append(append(registry, p.all("registry")...), k.envSources("npm")...), true)
}

// helmSources judges helm install/upgrade/template/pull of a chart given
// by address (oci://, https://) or from --repo URL: a chart's templates
// and hooks run in the cluster as they arrive.
func (k *call) helmSources() {
	p := parseOpts(k.args, spec{arg: "nfo", long: []string{"namespace", "kube-context", "kubeconfig", "values", "set", "set-string",
		"set-file", "version", "repo", "username", "password", "output", "timeout", "post-renderer", "description", "ca-file",
		"cert-file", "key-file", "registry-config", "repository-config", "repository-cache"}})
	if len(p.ops) == 0 || !p.ops[0].known {
		return
	}
	switch p.ops[0].val {
	case "install", "upgrade", "template", "pull", "fetch", "show", "inspect":
	default:
		return
	}
	k.installSources("helm", p.ops[1:], p.all("repo"), false)
}

// editorExtensions judges code/codium/cursor --install-extension: an
// extension runs in the editor with the user's rights, and the
// marketplace's names are not reviewed code: ask.
func (k *call) editorExtensions() {
	for i, f := range k.args {
		if !f.known {
			continue
		}
		v, val, eq := strings.Cut(f.val, "=")
		if v != "--install-extension" {
			continue
		}
		src := val
		if !eq && i+1 < len(k.args) {
			src = k.args[i+1].text(k.c)
		}
		k.dynamicExec(k.name + " installs the editor extension " + src + ", code that runs in the editor with the user's rights")
		return
	}
}

// sourceEnv are the environment variables that choose where a package
// manager fetches from, by manager family: the same choice as an index or
// registry option on the command line (PIP_INDEX_URL=… pip install x is
// pip install -i … x).
var sourceEnv = map[string][]string{
	"pip": {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_INDEX", "UV_DEFAULT_INDEX"},
	"npm": {"npm_config_registry", "NPM_CONFIG_REGISTRY", "YARN_REGISTRY", "YARN_NPM_REGISTRY_SERVER", "BUN_CONFIG_REGISTRY"},
}

// envSources returns the values of the source variables of family set for
// this command or earlier in the line, each a space-separated list as pip
// reads them.
func (k *call) envSources(family string) []field {
	var out []field
	for _, name := range sourceEnv[family] {
		f, ok := k.envVar(name)
		if !ok {
			continue
		}
		if !f.known {
			out = append(out, f)
			continue
		}
		for _, v := range strings.Fields(f.val) {
			out = append(out, sub(f, v))
		}
	}
	return out
}

// goSources judges the Go toolchain's fetching commands (go get, go
// install pkg@v, go run pkg@v, go mod download) under settings that fetch
// modules from elsewhere than the module proxy or without the checksum
// database: GOPROXY naming another host, GOSUMDB=off, GONOSUMDB,
// GONOSUMCHECK, GOINSECURE, GOFLAGS=-insecure. With the defaults a module
// comes through proxy.golang.org and is checked against sum.golang.org (a
// named, logged, immutable source, like a default registry): allowed.
func (k *call) goSources() {
	if len(k.args) == 0 || !k.args[0].known {
		return
	}
	fetches := false
	switch k.args[0].val {
	case "get", "mod":
		fetches = true
	case "install", "run":
		for _, f := range k.args[1:] {
			if f.known && !strings.HasPrefix(f.val, "-") && strings.Contains(f.val, "@") {
				fetches = true
			}
		}
	}
	if !fetches {
		return
	}
	for _, name := range []string{"GONOSUMDB", "GONOSUMCHECK", "GOINSECURE", "GOPRIVATE", "GONOPROXY"} {
		if f, ok := k.envVar(name); ok && (!f.known || strings.TrimSpace(f.val) != "") {
			k.dynamicExec("go fetches modules with " + name + " set: modules it names are not checked against the checksum database")
			return
		}
	}
	if f, ok := k.envVar("GOSUMDB"); ok && (!f.known || f.val == "off") {
		k.dynamicExec("go fetches modules with GOSUMDB=" + f.text(k.c) + ": they are not checked against the checksum database")
		return
	}
	if f, ok := k.envVar("GOFLAGS"); ok && (!f.known || strings.Contains(f.val, "-insecure")) {
		k.dynamicExec("go fetches modules with GOFLAGS=" + f.text(k.c))
		return
	}
	if f, ok := k.envVar("GOPROXY"); ok {
		if !f.known {
			k.dynamicExec("go fetches modules from a proxy not known at check time")
			return
		}
		for _, v := range strings.FieldsFunc(f.val, func(r rune) bool { return r == ',' || r == '|' }) {
			switch v {
			case "direct", "off", "https://proxy.golang.org", "https://proxy.golang.org/":
				continue
			}
			if strings.HasPrefix(v, "file://") || strings.HasPrefix(v, "/") {
				continue
			}
			k.net(lit(v))
			k.dynamicExec("go fetches modules from " + v + ", not the Go module proxy")
			return
		}
	}
}
