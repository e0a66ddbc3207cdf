package shell

import (
	"net/url"
	"strings"
)

// ssh runs commands on another machine. The remote command (its
// arguments, -o RemoteCommand, or the script fed on stdin) is analysed as
// code run there, in the remote home, so what would be denied here is
// denied there too (rm -rf /var/www); one that changes anything else asks
// (tag remote.exec), and a read-only one (uptime, ls, df, journalctl,
// git status) is allowed. Tunnels and forwards ask (tag network.tunnel).
// -o ProxyCommand and LocalCommand run here and are judged as local code.
func (k *call) ssh() {
	p := parseOpts(k.args, spec{arg: "BbcDEeFIiJLlmOoPpQRSWw", stop: true})
	if id, ok := p.get("i"); ok {
		k.attr("identity", id.text(k.c))
	}
	if e, ok := p.get("E"); ok {
		k.file(Write, e, false)
	}
	if f, ok := p.get("F"); ok {
		k.file(Read, f, false)
	}
	var remoteCmd *field
	tunnel := p.has("L", "R", "D", "w")
	for _, o := range p.all("o") {
		if !o.known {
			continue
		}
		key, val, ok := strings.Cut(o.val, "=")
		if !ok {
			key, val, _ = strings.Cut(o.val, " ")
		}
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "proxycommand", "localcommand", "knownhostscommand":
			if v := strings.TrimSpace(val); v != "" && !strings.EqualFold(v, "none") {
				k.nested(sub(o, v), "ssh -o "+key, nil, false)
			}
		case "remotecommand":
			f := sub(o, strings.TrimSpace(val))
			remoteCmd = &f
		case "localforward", "remoteforward", "dynamicforward", "tunnel":
			tunnel = true
		}
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
	hostName := host.text(k.c)
	k.attr("host", hostName)
	if tunnel {
		k.tag(TagTunnel)
	}
	ops := p.ops[1:]
	if k.name == "mosh" && len(ops) > 0 && ops[0].known && ops[0].val == "--" {
		ops = ops[1:]
	}
	var rc field
	switch {
	case len(ops) > 0:
		rc = joinCode(ops)
		if len(ops) == 1 {
			rc = ops[0]
		}
		k.attr("remote-command", rc.text(k.c))
		if !rc.known {
			k.attr("remote-command", ops[0].text(k.c))
		}
	case remoteCmd != nil:
		rc = *remoteCmd
		k.attr("remote-command", rc.text(k.c))
	case k.c.stdin.literal && !p.has("N", "T") || k.c.stdin.remote || k.c.stdin.dynamic:
		// no command: the remote login shell reads stdin
		in := k.c.stdin
		switch {
		case in.remote:
			k.remoteExec("ssh runs a script fetched from the network on " + hostName)
			return
		case in.dynamic:
			rc = unknownField("commands on stdin not known at check time")
		default:
			rc = lit(in.text)
		}
		k.attr("remote-command", strings.TrimSpace(rc.val))
	case !p.has("N", "T", "G", "V", "Q", "O") && !gitServiceLogin(hostName):
		// an interactive login: what is typed there is not known here
		k.tag(TagRemoteCommand)
		k.attr("reason", "opens an interactive shell on "+hostName+", where the commands typed are not known at check time")
		return
	default:
		return
	}
	k.remoteCommand(rc, hostName)
}

// gitServiceLogin reports whether an ssh login is to a git hosting
// account (git@host, or a known forge): its shell serves git only, and a
// bare login just prints a greeting (ssh git@github.com tests a key).
func gitServiceLogin(host string) bool {
	user, h, ok := strings.Cut(host, "@")
	if !ok {
		h, user = host, ""
	}
	switch strings.ToLower(h) {
	case "github.com", "gitlab.com", "bitbucket.org", "ssh.dev.azure.com", "codeberg.org", "git.sr.ht", "ssh.github.com", "altssh.gitlab.com":
		return true
	}
	return user == "git"
}

// remoteCommand judges a command line run on host over ssh.
func (k *call) remoteCommand(rc field, host string) {
	k.remoteRun(rc, host, "ssh")
}

// remoteRun judges a command line run on host (a machine, a pod, a
// group of hosts) by via (ssh, kubectl exec, ansible, ...): it is analysed
// as code run there, in the remote home, and tagged remote.exec unless it
// only reads.
func (k *call) remoteRun(rc field, host, via string) {
	if !rc.known {
		k.tag(TagRemoteCommand)
		k.attr("reason", orDefault(rc.reason, "the remote command is not known at check time"))
		return
	}
	if !remoteReadOnly(rc.val, k.a.opts) {
		k.tag(TagRemoteCommand)
	}
	st := k.st.clone()
	if k.a.opts.Home != "" {
		st = k.withDir(lit(k.a.opts.Home))
	}
	st.remote = orDefault(host, "?")
	// the remote shell reads its input from here: a script piped into
	// ssh host bash -s is that shell's stdin
	// data destroyed there is destroyed on that host: the call that
	// reaches it carries the tag too, so rules that judge the target
	// (a production-looking host or app) see it
	for _, t := range remoteDestroys(rc.val, k.a.opts) {
		k.tag(t)
	}
	k.nestedIn(rc, via+" "+host, st)
}

// remoteDestroys returns the data-destroying tags (db.destroy,
// remote.delete) of a remote command line.
func remoteDestroys(code string, opts Options) []string {
	a, err := Analyze(code, Options{Cwd: orDefault(opts.Home, "/"), Home: opts.Home})
	if err != nil {
		return nil
	}
	var tags []string
	for _, c := range a.Commands {
		for _, t := range c.Tags {
			if t == TagDBDestroy || t == TagRemoteDelete {
				tags = append(tags, t)
			}
		}
	}
	return tags
}

// remoteReadOnly reports whether a remote command line only reads: every
// command it runs is one of the programs that report on the machine
// (uptime, ls, df, ps, journalctl, ...), with reads as its only effects.
func remoteReadOnly(code string, opts Options) bool {
	a, err := Analyze(code, Options{Cwd: orDefault(opts.Home, "/"), Home: opts.Home})
	if err != nil || len(a.Findings) > 0 {
		return false
	}
	for _, c := range a.Commands {
		if !readOnlyRemote[c.Name] && !readOnlySub(c) || c.Dynamic || len(c.Tags) > 0 {
			return false
		}
		for _, e := range c.Effects {
			if e.Kind != Read {
				return false
			}
		}
	}
	return true
}

// readOnlyRemote are programs that report on a machine without changing it.
var readOnlyRemote = map[string]bool{"uptime": true, "ls": true, "cat": true, "df": true, "du": true, "free": true, "ps": true,
	"who": true, "w": true, "id": true, "whoami": true, "hostname": true, "uname": true, "date": true, "journalctl": true,
	"tail": true, "head": true, "grep": true, "egrep": true, "rg": true, "stat": true, "echo": true, "printf": true, "pwd": true,
	"which": true, "nproc": true, "lsblk": true, "ss": true, "netstat": true, "lsof": true, "dmesg": true, "less": true,
	"wc": true, "test": true, "[": true, "true": true, "env": false, "top": true, "vmstat": true, "iostat": true, "last": true,
	"hostnamectl": true, "timedatectl": true, "lscpu": true, "sensors": true, "find": true, "tree": true, "file": true,
	"md5sum": true, "sha256sum": true, "cd": true, "sort": true, "uniq": true, "cut": true, "awk": true, "sed": true,
	"jq": true, "diff": true, "zcat": true, "readlink": true, "realpath": true, "basename": true, "dirname": true,
	"getent": true, "groups": true, "exit": true, "locale": true, "sleep": true, "nvidia-smi": true, "ip": false}

// readOnlySub recognises the reporting subcommands of managers.
func readOnlySub(c Command) bool {
	if len(c.Argv) < 2 {
		return false
	}
	sc := c.Argv[1]
	switch c.Name {
	case "git":
		sc = c.Attrs["subcommand"]
		return sc == "status" || sc == "log" || sc == "diff" || sc == "show" || sc == "rev-parse" || sc == "describe"
	case "systemctl":
		return sc == "status" || sc == "is-active" || sc == "is-enabled" || sc == "list-units" || sc == "list-timers" || sc == "show" || sc == "--failed"
	case "docker", "podman":
		return sc == "ps" || sc == "logs" || sc == "images" || sc == "inspect" || sc == "stats" || sc == "version" || sc == "info"
	case "kubectl":
		return sc == "get" || sc == "describe" || sc == "logs" || sc == "top" || sc == "version"
	case "ip":
		return sc == "a" || sc == "addr" || sc == "r" || sc == "route" || sc == "link"
	}
	return false
}
