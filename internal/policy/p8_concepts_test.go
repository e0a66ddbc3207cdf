package policy

import "testing"

// TestP8InstallSources: installing code from an unusual source (a URL, a
// git repository, a GitHub shorthand, a tarball on a host, another index
// or registry, an OCI chart, an editor extension) is code no one has
// reviewed whose build scripts run as it arrives: ask. Installs by name
// from the default registry and from local paths stay allowed.
func TestP8InstallSources(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: bash("python3 -m pip install 'tool @ https://files.example.net/tool-1.0.tar.gz'"), want: Ask},
		{call: bash("pip3 install --user git+ssh://git@git.example.org/team/lib.git@v2"), want: Ask},
		{call: bash("pip download hg+https://hg.example.org/lib"), want: Ask},
		{call: bash("pip install --extra-index-url=https://pkgs.internal.example/simple/ fastlib"), want: Ask},
		{call: bash("pip install -i http://10.0.0.5:8080/simple numpy"), want: Ask},
		{call: bash("pip install -f https://wheels.example.com/ torch"), want: Ask},
		{call: bash("uv pip install 'https://x.example/pkg.whl'"), want: Ask},
		{call: bash("pnpm add gitlab:group/tool"), want: Ask},
		{call: bash("yarn add https://cdn.example.com/widget-3.1.0.tgz"), want: Ask},
		{call: bash("npm i -D someone/their-fork#fix"), want: Ask},
		{call: bash("npm install --registry https://npm.mirror.example/ left-pad"), want: Ask},
		{call: bash("bun add git@github.com:o/r.git"), want: Ask},
		{call: bash("helm upgrade --install web oci://ghcr.io/someone/charts/web --version 1.2.0"), want: Ask},
		{call: bash("helm install web web --repo https://charts.example.io"), want: Ask},
		{call: bash("codium --install-extension someone.theme"), want: Ask},
		{call: bash("code --install-extension=./local.vsix"), want: Ask},
		// the default registries and local paths
		{call: bash("pip install 'django>=4,<5' celery"), want: Allow},
		{call: bash("pip install --index-url https://pypi.org/simple httpx"), want: Allow},
		{call: bash("pip install -e '.[dev]'"), want: Allow},
		{call: bash("pip install ./dist/pkg-1.0-py3-none-any.whl"), want: Allow},
		{call: bash("npm install @scope/pkg react@18"), want: Allow},
		{call: bash("npm i --save-dev ./packages/shared"), want: Allow},
		{call: bash("yarn add lodash --registry https://registry.yarnpkg.com"), want: Allow},
		{call: bash("helm install web bitnami/nginx -n web"), want: Allow},
		{call: bash("code src/main.go"), want: Allow},
		{call: bash("code --list-extensions"), want: Allow},
	})
}

// TestP8SudoProbes: sudo -l enumerates what this user may run as root and
// asks for the password to do it: ask. Version and help print text: allow.
func TestP8SudoProbes(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		{call: bash("sudo -ll"), want: Ask},
		{call: bash("sudo -n -l"), want: Ask},
		{call: bash("sudo --version | head -1"), want: Allow},
		{call: bash("sudo --help"), want: Allow},
		{call: bash("coproc cat; echo started"), want: Allow},
		{call: bash("coproc { sleep 1; }"), want: Allow},
		{call: bash("coproc rm -rf ~/Documents"), want: Deny},
	})
}

// TestP8LinksNotFollowed: listing or stat-ing a path reads its name and
// attributes, not its content; file(1) describes a symlink without
// following it unless -L. A link to a key is not a read of the key; the
// key itself read by content stays denied.
func TestP8LinksNotFollowed(t *testing.T) {
	p, home, ws, _, _ := p6Home(t, true)
	sh := p6Sh(ws)
	runCases(t, p, []decideCase{
		{call: sh("ls -l key_link"), want: Allow},
		{call: sh("ls -la key_link rc_link link_home"), want: Allow},
		{call: sh("stat -c '%N %s' key_link"), want: Allow},
		{call: sh("stat " + home + "/.ssh/id_ed25519"), want: Allow},
		{call: sh("file key_link"), want: Allow},
		{call: sh("file -h key_link"), want: Allow},
		{call: sh("readlink -f key_link"), want: Allow},
		{call: sh("test -L key_link && echo link"), want: Allow},
		{call: sh("[ -h key_link ] || echo no"), want: Allow},
		// content reads through the link, or of the key
		{call: sh("file -L key_link"), want: Deny},
		{call: sh("file " + home + "/.ssh/id_ed25519"), want: Deny},
		{call: sh("cat key_link"), want: Deny},
		{call: sh("head -c 10 key_link"), want: Deny},
		{call: sh("cp key_link /tmp/k"), want: Deny},
		// warden's own dirs stay closed even to names
		{call: sh("ls " + home + "/.local/share/warden"), want: Deny},
	})
}
