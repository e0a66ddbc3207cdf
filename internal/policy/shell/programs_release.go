package shell

import (
	"net"
	"net/url"
	"strings"
)

// releasePrograms declares release tools, which publish (a package, an
// extension, a GitHub release with its artifacts) as npm publish does:
// each call that publishes is tagged publish (the publish rule asks;
// --dry-run is its exception).
func releasePrograms() []program {
	return []program{
		{names: []string{"vsce", "ovsx"}, model: func(k *call) {
			if sc := k.subcommand(spec{arg: "p", long: []string{"pat", "packagePath"}}); sc == "publish" || sc == "unpublish" {
				k.tag(TagPublish)
			}
		}, examples: []example{ex("vsce publish minor", "tag publish"), ex("npx @vscode/vsce package", "!tag publish"), ex("ovsx publish -p x", "tag publish")}},
		{names: []string{"goreleaser"}, model: func(k *call) {
			// goreleaser with no subcommand is goreleaser release
			if sc := k.subcommand(spec{arg: "f", long: []string{"config", "parallelism", "timeout"}}); (sc == "" || sc == "release") &&
				!hasArg(k.args, "--snapshot", "--skip-publish", "--skip=publish") {
				k.tag(TagPublish)
			}
		}, examples: []example{ex("goreleaser --clean", "tag publish"), ex("goreleaser release --snapshot --clean", "!tag publish"), ex("goreleaser check", "!tag publish")}},
		{names: []string{"semantic-release", "release-it", "np", "standard-version", "auto"}, model: func(k *call) {
			switch k.name {
			case "standard-version":
				return // only bumps and tags locally
			case "auto":
				if k.subcommand(spec{}) != "shipit" && k.subcommand(spec{}) != "release" {
					return
				}
			}
			k.tag(TagPublish)
		}, examples: []example{ex("npx semantic-release --ci", "tag publish"), ex("npx release-it --ci patch", "tag publish"), ex("auto shipit", "tag publish"), ex("auto version", "!tag publish")}},
	}
}

// exposePrograms declares programs that expose this machine: static web
// servers, which serve a directory (their root flag, by default the
// current directory) to the network, and public tunnels, which open a
// local port to the internet.
func exposePrograms() []program {
	return []program{
		{names: []string{"http-server", "serve", "live-server", "httpd", "caddy", "twistd", "static-web-server", "miniserve", "darkhttpd",
			"webfsd", "jwebserver", "simple-http-server", "updog"}, model: (*call).staticServer,
			examples: []example{
				ex("npx http-server ~/Documents -p 8081", "read:r /home/u/Documents", "tag network.upload"),
				ex("busybox httpd -p 9000 -h /home/u", "read:r /home/u"),
				ex("caddy file-server --listen :9000", "read:r /home/u/proj"),
				ex("caddy run", "!read:r /home/u/proj"),
				ex("twistd -n web --port tcp:9000 --path /home/u/.ssh", "read:r /home/u/.ssh"),
				ex("npx serve -l 5000 build", "read:r /home/u/proj/build"),
				ex("miniserve -p 8080 ~/", "read:r /home/u"), ex("darkhttpd /home/u --port 8081", "read:r /home/u"),
				ex("webfsd -p 8000 -r /home/u/.ssh", "read:r /home/u/.ssh"), ex("jwebserver -b 0.0.0.0 -p 9000", "read:r /home/u/proj"),
				ex("updog -d dist", "read:r /home/u/proj/dist")}},
		{names: []string{"ngrok", "cloudflared", "lt", "localtunnel", "bore", "localxpose", "loclx", "zrok"}, model: func(k *call) {
			sc := k.subcommand(spec{arg: "p", long: []string{"config", "authtoken", "port", "subdomain", "host"}})
			switch sc {
			case "config", "version", "update", "help", "login", "diagnose", "completion", "access", "credits", "":
				if k.name != "lt" && k.name != "localtunnel" {
					return
				}
			}
			k.tag(TagTunnel)
			k.attr("reason", "opens a public tunnel to a local port")
		}, examples: []example{ex("ngrok http 8080", "tag network.tunnel"), ex("cloudflared tunnel --url http://localhost:3000", "tag network.tunnel"),
			ex("lt --port 3000", "tag network.tunnel"), ex("ngrok config add-authtoken x", "!tag network.tunnel")}},
	}
}

// staticServer records the directory a static web server serves.
func (k *call) staticServer() {
	var s spec
	var dirOpts []string
	switch k.name {
	case "httpd": // busybox httpd -h HOME
		s = spec{arg: "hpcurr", long: nil}
		dirOpts = []string{"h"}
	case "caddy":
		if k.subcommand(spec{}) != "file-server" {
			return
		}
		s = spec{arg: "lr", long: []string{"root", "listen", "domain", "browse-template"}}
		dirOpts = []string{"r", "root"}
	case "darkhttpd": // darkhttpd DIR
		s = spec{arg: "", long: []string{"port", "addr", "maxconn", "log", "chroot", "index", "mimetypes", "default-mimetype", "uid", "gid", "pidfile", "auth", "header", "forward", "forward-all"}}
	case "webfsd": // webfsd -r DIR
		s = spec{arg: "rpiltdUcbnaNfxmeRLuv"}
		dirOpts = []string{"r"}
	case "jwebserver", "updog": // -d DIR
		s = spec{arg: "bdpo", long: []string{"bind-address", "directory", "port", "output", "password"}}
		dirOpts = []string{"d", "directory"}
	case "miniserve", "simple-http-server": // PATH
		s = spec{arg: "piacqtu", long: []string{"port", "interfaces", "auth", "color-scheme", "title", "header", "route-prefix", "qrcode", "tls-cert", "tls-key", "index"}}
	case "twistd":
		if !hasArg(k.args, "web") {
			return
		}
		s = spec{arg: "lp", long: []string{"path", "port", "listen", "logfile", "pidfile", "index", "user", "group", "umask", "prefix", "reactor"}}
		dirOpts = []string{"path"}
	default: // http-server DIR, serve DIR, live-server DIR
		s = spec{arg: "pacolt", long: []string{"port", "address", "cors", "listen", "config", "ssl-cert", "ssl-key", "proxy", "host", "entry-file", "wait", "mount", "root"}}
		dirOpts = []string{"root"}
	}
	p := parseOpts(k.args, s)
	ops := p.ops
	dir := lit(".")
	if d, ok := p.get(dirOpts...); ok {
		dir = d
	} else if k.name != "httpd" && k.name != "caddy" && k.name != "twistd" && k.name != "webfsd" && k.name != "jwebserver" && k.name != "updog" && len(ops) > 0 {
		dir = ops[0]
	}
	k.serve(k.home(dir), "0.0.0.0")
}

// uploadHost records the host a network client sends local files to when
// it is not this machine or a private network (attr upload-host); the
// policy judges the host (an anonymous public drop asks).
func (k *call) uploadHost(urls []field) {
	for _, u := range urls {
		if !u.known {
			continue
		}
		v := u.val
		if !strings.Contains(v, "://") {
			v = "http://" + v
		}
		pu, err := url.Parse(v)
		if err != nil || pu.Hostname() == "" {
			continue
		}
		h := strings.ToLower(pu.Hostname())
		// a name without a dot is a host of the local network or an
		// alias of the user's ssh config: one they set up
		if h == "localhost" || !strings.Contains(h, ".") && net.ParseIP(h) == nil || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") || strings.HasSuffix(h, ".lan") || strings.HasSuffix(h, ".home.arpa") {
			continue
		}
		if ip := net.ParseIP(h); ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast()) {
			continue
		}
		k.attr("upload-host", h)
		return
	}
}
