package shell

import (
	"regexp"
	"strings"
)

// What inline code sends to the network. A program of another language
// (python -c, node -e, ruby -e, perl -e, php -r, awk) that reaches the
// network and, in the same code, takes the whole environment
// (os.environ, process.env, ENV.to_h, %ENV, $_ENV, awk's ENVIRON) sends
// it: the call reads /proc/self/environ into a network program
// (TagUpload), which the policy denies as env | curl is denied. Code that
// connects a socket and starts a shell in it (dup2 of the socket, pty.spawn,
// /bin/sh -i) is a reverse shell: the far side runs what it likes here.
// Secret files the code opens are reads of their own (inlineCode), denied
// whether or not they are sent.

// codeSocketWords mark code that opens a raw connection.
var codeSocketWords = []string{"socket(", ".connect(", "create_connection", "io::socket", "tcpsocket", "udpsocket", "net.connect", "net.createconnection",
	"net.socket", "fsockopen", "stream_socket_client", "/inet/tcp", "/inet/udp", "/dev/tcp/", "/dev/udp/"}

// codeShellWords mark code that starts an interactive shell or hands a
// descriptor to one.
var codeShellWords = []string{"dup2", "pty.spawn", "/bin/sh", "/bin/bash", "/bin/zsh", "/bin/dash", "'sh'", "\"sh\"", "'bash'", "\"bash\"",
	"sh -i", "bash -i", "cmd.exe", "powershell", "exec sprintf", "proc_open", "shell_exec", "popen("}

// codeStdinWords mark code that reads its standard input.
var codeStdinWords = []string{"sys.stdin", "stdin.read", "process.stdin", "readfilesync(0", "readfilesync('/dev/stdin", "readfilesync(\"/dev/stdin",
	"<stdin>", "$stdin", "stdin.each", "argf", "php://stdin", "io.read", "/dev/stdin", "input()", "fileinput", "<>"}

// codeNetModules mark code that loads a network module by name (node's
// require('http'), import of node:net).
var codeNetModules = []string{"require('http", "require(\"http", "require('net", "require(\"net", "require('tls", "require(\"tls",
	"node:http", "node:net", "node:tls", "node:dgram", "require('dgram", "require(\"dgram", "from 'http", "from \"http", "from 'net", "from \"net"}

// codeSends judges inline code that reaches the network: the environment
// it sends, a shell it connects to a socket. It reports whether the code
// reaches the network.
func (k *call) codeSends(src string, sc *codeScan) bool {
	l := strings.ToLower(src)
	socket := hasAny(l, codeSocketWords) || hasAny(l, []string{"require('net", "require(\"net", "node:net", "require('dgram", "require(\"dgram"})
	if !socket && !hasAny(l, codeNetWords) && !hasAny(l, codeNetModules) && !codeURL.MatchString(src) && !sc.usesNetModule() {
		return false
	}
	if socket && hasAny(l, codeShellWords) {
		k.remoteExec(k.name + " connects a socket to a shell (a reverse shell: the far side runs commands here)")
	}
	if len(k.c.stdin.carries) > 0 && hasAny(l, codeStdinWords) {
		// env | python3 -c '…sys.stdin.read()… urlopen(…)': what flows in
		// is sent, as it is by curl -d @-
		for _, e := range k.c.stdin.carries {
			e.Reason = "its content is read from standard input by " + k.name + ", which sends to the network"
			k.eff(e)
		}
		k.tag(TagUpload)
	}
	if sendsWholeEnv(src) {
		k.eff(Effect{Kind: Read, Target: "/proc/self/environ"})
		k.tag(TagUpload)
		k.attr("reason", k.name+" sends its whole environment (every variable, secrets included) to the network")
	}
	return true
}

// netModules are the modules, by the name code imports them under, that
// reach the network; a module under another name (import requests as r,
// from urllib import request as q, const h = require("https")) is still
// the network.
var netModules = []string{"requests", "httpx", "urllib", "urllib2", "urllib3", "http.client", "httplib", "http", "https", "socket",
	"aiohttp", "ftplib", "smtplib", "telnetlib", "paramiko", "websocket", "websockets", "pycurl", "xmlrpc", "asyncio.open_connection",
	"net", "tls", "dgram", "axios", "node-fetch", "undici", "got", "ws", "Net.HTTP", "Socket", "TCPSocket", "UDPSocket",
	"LWP", "HTTP.Tiny", "IO.Socket", "Net.FTP", "Net.SMTP", "Faraday", "HTTParty", "RestClient"}

// usesNetModule reports whether the code binds a name to a network
// module (or a member of one).
func (s *codeScan) usesNetModule() bool {
	if s == nil {
		return false
	}
	isNet := func(m string) bool {
		for _, n := range netModules {
			if m == n || strings.HasPrefix(m, n+".") {
				return true
			}
		}
		return false
	}
	for _, m := range s.alias {
		if isNet(m) {
			return true
		}
	}
	for _, m := range s.star {
		if isNet(m) {
			return true
		}
	}
	return false
}

// envWholes are the spellings of the whole environment in the languages
// of inline code, with the members that take one variable from it (and
// so are not the whole: os.environ["X"], process.env.X, ENV.fetch("X")).
var envWholes = []struct {
	name   string
	single []string // members after a dot that name one variable; "*" any
}{
	{"os.environ", []string{"get", "setdefault", "pop", "__getitem__"}},
	{"environ", []string{"get", "setdefault", "pop"}},
	{"process.env", []string{"*"}},
	{"Bun.env", []string{"*"}},
	{"Deno.env", []string{"get", "has", "set", "delete"}},
	{"ENV", []string{"fetch", "key?", "has_key?", "include?", "[]", "delete", "store"}},
	{"%ENV", nil},
	{"$_ENV", nil},
	{"$_SERVER", nil},
	{"ENVIRON", nil},
	{"getenv()", nil},
	{"os.environb", []string{"get"}},
	{"System.getenv()", nil},
}

// sendsWholeEnv reports whether code takes the whole environment as a
// value (not one variable of it).
func sendsWholeEnv(src string) bool {
	for _, w := range envWholes {
		for from := 0; ; {
			i := strings.Index(src[from:], w.name)
			if i < 0 {
				break
			}
			i += from
			from = i + len(w.name)
			if i > 0 {
				p := src[i-1]
				if p == '_' || p == '.' && !strings.Contains(w.name, ".") || p >= 'a' && p <= 'z' || p >= 'A' && p <= 'Z' || p >= '0' && p <= '9' || p == '$' && w.name == "ENV" {
					continue // part of another name, or perl's $ENV{X}
				}
			}
			rest := strings.TrimLeft(src[from:], " \t")
			if rest != "" {
				c := rest[0]
				if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
					continue // a longer name (ENVIRONMENT, environ_x)
				}
				if c == '[' || c == '{' {
					continue // one variable
				}
				if c == '.' {
					m := rest[1:]
					j := 0
					for j < len(m) && (m[j] == '_' || m[j] == '?' || m[j] >= 'a' && m[j] <= 'z' || m[j] >= 'A' && m[j] <= 'Z' || m[j] >= '0' && m[j] <= '9') {
						j++
					}
					member := m[:j]
					if len(w.single) > 0 && w.single[0] == "*" || contains(w.single, member) {
						continue
					}
				}
			}
			if w.name == "environ" && !strings.Contains(src, "import") {
				continue // python's bare environ needs from os import environ
			}
			return true
		}
	}
	return false
}

// codeSendWords mark code that sends a body: a POST or PUT, a form's
// files, a request body, a socket's send.
var codeSendWords = []string{".post(", ".put(", ".patch(", "'post'", "\"post\"", "'put'", "\"put\"", "files=", "files:", "data=", "data:",
	"body:", "body=", ".send(", "sendall(", "sendfile(", ".write(", "upload", "post_form", "multipart", "formdata", "-method post", "uploadfile",
	"sendmail(", "send_message(", "storbinary(", "storlines(", "put_object(", ".sendto("}

// codeUploads judges inline code that reaches the network (codeSends),
// reads files (the reads recorded from mark on) and sends a body: the files go to the
// hosts of the URLs the code names (tag TagUpload, attr upload-host, as
// curl -F f=@src/x.py … has), so an upload of workspace files to a host
// outside this machine's network asks; secret files the code opens are
// denied by their reads.
func (k *call) codeUploads(src string, mark int) {
	read := false
	for _, e := range k.cmd.Effects[min(mark, len(k.cmd.Effects)):] {
		if e.Kind == Read && !e.Meta && !e.Unknown && e.Target != "" && !requestBody(e.Target) {
			read = true // a request body read from a data file is an API call
			break
		}
	}
	if !read {
		return
	}
	if !hasAny(strings.ToLower(src), codeSendWords) {
		return
	}
	var urls []field
	for _, u := range codeURL.FindAllString(src, 8) {
		urls = append(urls, lit(u))
	}
	urls = append(urls, codeHosts(src)...)
	k.tag(TagUpload)
	k.uploadHost(urls)
}

// codeHost matches a literal that is a host name or an IPv4 address.
var codeHost = regexp.MustCompile(`(?i)^(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3})$`)

// codeHosts returns the hosts code connects to by name rather than by URL:
// a host literal given to a call that opens a connection
// (http.client.HTTPSConnection("h"), socket.create_connection(("h", 80)),
// net.connect(80, "h"), Net::HTTP.new("h"), smtplib.SMTP("h")).
func codeHosts(src string) []field {
	lits := scanLiterals(src)
	var out []field
	for _, l := range lits {
		if !codeHost.MatchString(l.val) {
			continue
		}
		calls := enclosingCalls(src, lits, l.start)
		for n, c := range calls {
			if n > 1 {
				break
			}
			c = strings.ToLower(c)
			if hasAny(c, []string{"connect", "connection", "socket", "smtp", "ftp", "telnet", "client", "http", "request", "dial"}) {
				out = append(out, lit(l.val))
				break
			}
		}
		if len(out) >= 8 {
			break
		}
	}
	return out
}
