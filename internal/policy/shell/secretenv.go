package shell

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Secrets held in the environment. A variable whose name says it holds a
// secret (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, OPENAI_API_KEY)
// and that the line did not set holds a credential. Its expansions are
// reads of that credential, however they are spelled: ${TOKEN:-none}
// is the token when it is set (the default only when it is not), and so
// are ${TOKEN:=x}, ${TOKEN#Bearer }, ${TOKEN%%.*}. What the analyser does
// with them:
//
//   - a network program that gets one in its words or on its stdin sends
//     it, to the hosts it reaches: a host the secret is for (GITHUB_TOKEN to
//     api.github.com), this machine or a private network is fine; any other
//     host is exfiltration (TagSecretEnvSend, attr secret-host=other); a
//     host not known at check time, or a secret whose name does not say
//     whom it is for (TOKEN, API_KEY), is attr secret-host=unknown;
//   - a filter over the environment that picks secret names (env | grep -i
//     token) prints them (TagSecretEnvPrint), as printenv TOKEN does.

// The tags of the secret-environment concept.
const (
	TagSecretEnvSend  = "secret.env.send"  // a secret-named variable sent by a network program (Attrs: secret-var, secret-host=other|unknown, host)
	TagSecretEnvPrint = "secret.env.print" // secret-named variables printed (Attrs: secret-var)
)

// secretWords are the words (between underscores) of a variable name that
// say it holds a secret.
var secretWords = map[string]bool{"token": true, "secret": true, "password": true, "passwd": true, "pass": true, "pwd": true,
	"apikey": true, "credential": true, "credentials": true, "pat": true, "passphrase": true, "privatekey": true, "accesskey": true,
	"secretkey": true, "authtoken": true}

// keyWords are the words before "key" that make it a secret key
// (API_KEY, SECRET_ACCESS_KEY, PRIVATE_KEY, SIGNING_KEY).
var keyWords = map[string]bool{"api": true, "access": true, "private": true, "secret": true, "signing": true, "encryption": true,
	"master": true, "service": true, "client": true, "auth": true, "license": true, "account": true, "admin": true, "deploy": true}

// notSecretLast are last words that make a secret-sounding name hold
// something else: where a secret is, not what it is (PASSWORD_STORE_DIR,
// AWS_ACCESS_KEY_ID, GIT_ASKPASS's helper, TOKEN_URL).
var notSecretLast = map[string]bool{"dir": true, "file": true, "path": true, "id": true, "host": true, "url": true, "uri": true,
	"user": true, "username": true, "name": true, "type": true, "length": true, "len": true, "min": true, "max": true,
	"count": true, "helper": true, "cmd": true, "command": true, "prompt": true, "env": true, "region": true, "expiry": true,
	"expires": true, "expiration": true, "endpoint": true, "store": true, "program": true, "ttl": true, "method": true,
	"mode": true, "format": true, "header": true, "prefix": true, "set": true, "enabled": true, "limit": true, "askpass": true}

// isSecretName reports whether a variable's name says it holds a secret.
func isSecretName(name string) bool {
	if len(name) < 3 || name == "PWD" || name == "OLDPWD" {
		return false
	}
	words := strings.Split(strings.ToLower(name), "_")
	if notSecretLast[words[len(words)-1]] || strings.HasSuffix(name, "ASKPASS") {
		return false
	}
	for i, w := range words {
		switch {
		case secretWords[w]:
			if (w == "pass" || w == "pwd" || w == "pat") && len(words) == 1 {
				return false
			}
			return true
		case w == "key" && i > 0 && keyWords[words[i-1]]:
			return true
		case strings.HasSuffix(w, "token") || strings.HasSuffix(w, "secret") || strings.HasSuffix(w, "password") || strings.HasSuffix(w, "apikey"):
			return true // GHTOKEN, CLIENTSECRET, DBPASSWORD
		}
	}
	return false
}

// secretParam expands a parameter whose name says it holds a secret and
// that comes from the environment (the line did not set it): the value is
// the secret, not known at check time, whichever operator reads it
// (${X:-default} is X when it is set). ${X:+word}, ${X+word} and ${#X}
// say only whether it is set or how long it is: those are not reads.
func (a *analyzer) secretParam(st *state, name string, x *syntax.ParamExp, v field) (field, bool) {
	if _, own := st.vars[name]; own || v.known || x.Length || !isSecretName(name) {
		return field{}, false
	}
	if x.Exp != nil {
		switch x.Exp.Op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			return field{}, false
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			st.vars[name] = variable{f: field{reason: "the secret $" + name, sec: &secretRef{name: name}}}
		}
	}
	return field{reason: "the value of the secret $" + name + " is not known at check time", sec: &secretRef{name: name}}, true
}

// addSecrets adds names to list, once each, up to a small bound.
func addSecrets(list []string, names ...string) []string {
	for _, n := range names {
		if n == "" || contains(list, n) || len(list) >= 8 {
			continue
		}
		list = append(list, n)
	}
	return list
}

// secretEnv records the secret-named variables the call's words and stdin
// hold, tags a network program that sends them (with where they go) and a
// filter that picks secrets out of the environment.
func (k *call) secretEnv() {
	var inWords []string
	var urls []string
	for _, f := range k.argv {
		if f.sec != nil {
			inWords = addSecrets(inWords, f.sec.name)
			if p := f.sec.partial; strings.Contains(p, "://") || strings.Contains(p, "@") {
				urls = append(urls, p)
			}
		}
	}
	k.envFilter()
	names := addSecrets(append([]string(nil), inWords...), k.c.stdin.secrets...)
	k.meta.secrets = names // what it prints may hold them (base64 <<< "$T" | …)
	if len(names) == 0 {
		return
	}
	if k.name == "echo" || k.name == "printf" || k.name == "print" {
		if len(inWords) > 0 {
			k.tag(TagSecretEnvPrint)
			k.attr("secret-var", strings.Join(inWords, ","))
		}
		return
	}
	var hosts []string
	unknownHost, sends := false, false
	for _, e := range k.cmd.Effects {
		if e.Kind != Network {
			continue
		}
		sends = true
		if e.Unknown || e.Target == "" {
			// a URL holding the secret is not known, but its host is
			unknownHost = unknownHost || len(urls) == 0
			continue
		}
		hosts = append(hosts, e.Target)
	}
	if !sends && len(urls) > 0 && k.name == "git" && gitRemoteSet(k.args) {
		// git remote add x https://$TOKEN@host/r.git: the next fetch or
		// push sends the secret to that host
		sends = true
	}
	if !sends {
		return // not a network program
	}
	k.judgeSend(names, append(hosts, urls...), unknownHost)
}

// judgeSend tags the call as sending the secrets names to hosts (URLs or
// host names; unknownHost when some host is not known): to a host one of
// them is not for is secret-host=other, to a host that cannot be matched
// secret-host=unknown; this machine and private networks are fine.
func (k *call) judgeSend(names, hosts []string, unknownHost bool) {
	verdict, where := "", ""
	for _, n := range names {
		for _, h := range hosts {
			host := hostOf(h)
			if host == "" {
				unknownHost = true
				continue
			}
			if localHost(host) {
				continue
			}
			switch secretFor(n, host) {
			case forOther:
				verdict, where = "other", host
			case forUnknown:
				if verdict == "" {
					verdict, where = "unknown", host
				}
			}
		}
	}
	if verdict == "" && unknownHost {
		verdict = "unknown"
	}
	if verdict == "" {
		return
	}
	k.tag(TagSecretEnvSend)
	k.attr("secret-var", strings.Join(names, ","))
	k.attr("secret-host", verdict)
	if where != "" {
		k.attr("host", where)
	}
}

// envFilter tags a filter reading the environment (env | grep -i token)
// whose pattern names a secret: it prints the secrets it picks.
func (k *call) envFilter() {
	switch k.name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "sed", "jq":
	default:
		return
	}
	env := false
	for _, e := range k.c.stdin.carries {
		env = env || e.Target == "/proc/self/environ"
	}
	if !env {
		return
	}
	for _, f := range k.args {
		if f.known && !strings.HasPrefix(f.val, "-") && secretPattern(f.val) {
			k.tag(TagSecretEnvPrint)
			k.attr("secret-var", f.val)
			return
		}
	}
}

// secretPattern reports whether a filter's pattern picks variables whose
// names say secret (token, SECRET, pass, KEY=, _key).
func secretPattern(p string) bool {
	l := strings.ToLower(p)
	for _, w := range []string{"token", "secret", "pass", "pwd", "key", "cred", "auth", "api"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// hostOf returns the lower-case host name of a URL, user@host[:path] or
// host[:port] target, or "".
func hostOf(t string) string {
	v := t
	if !strings.Contains(v, "://") {
		if at := strings.LastIndexByte(v, '@'); at >= 0 {
			v = v[at+1:]
		}
		v = "http://" + v
	}
	u, err := url.Parse(v)
	if err != nil {
		if i := strings.Index(t, "://"); i >= 0 {
			rest := t[i+3:]
			if at := strings.LastIndexByte(rest, '@'); at >= 0 {
				rest = rest[at+1:]
			}
			if j := strings.IndexAny(rest, ":/?#"); j >= 0 {
				rest = rest[:j]
			}
			return strings.ToLower(rest)
		}
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// localHost reports whether host is this machine or a private network.
func localHost(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") ||
		!strings.Contains(h, ".") && net.ParseIP(h) == nil {
		return true // a bare name is a host of the local network or ssh config
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast())
}

// Whom a secret is for, as far as its name says.
const (
	forHost    = iota // the host is one the secret is for
	forOther          // the secret is for someone else
	forUnknown        // the name does not say
)

// secretHosts are the hosts (domain suffixes) the secrets of a family are
// for, by a word of the variable's name: GITHUB_TOKEN and GH_TOKEN go to
// GitHub, AWS_SECRET_ACCESS_KEY to AWS.
var secretHosts = map[string][]string{
	"github": {"github.com", "githubusercontent.com", "ghcr.io", "githubcopilot.com"}, "gh": {"github.com", "githubusercontent.com", "ghcr.io"},
	"gitlab": {"gitlab.com"}, "glab": {"gitlab.com"}, "bitbucket": {"bitbucket.org", "atlassian.com"},
	"jira": {"atlassian.net", "atlassian.com"}, "confluence": {"atlassian.net", "atlassian.com"}, "atlassian": {"atlassian.net", "atlassian.com"},
	"npm": {"npmjs.org", "npmjs.com"}, "yarn": {"yarnpkg.com", "npmjs.org"}, "pypi": {"pypi.org"}, "twine": {"pypi.org"},
	"cargo": {"crates.io"}, "crates": {"crates.io"}, "gem": {"rubygems.org"}, "rubygems": {"rubygems.org"},
	"docker": {"docker.io", "docker.com"}, "dockerhub": {"docker.io", "docker.com"}, "quay": {"quay.io"},
	"aws": {"amazonaws.com", "aws.amazon.com", "amazonaws.com.cn", "awsapps.com"}, "amazon": {"amazonaws.com", "amazon.com"},
	"google": {"googleapis.com", "google.com"}, "gcp": {"googleapis.com", "google.com"}, "gcloud": {"googleapis.com"}, "gemini": {"googleapis.com"},
	"firebase": {"googleapis.com", "firebaseio.com", "firebase.com"},
	"azure":    {"azure.com", "azure.net", "windows.net", "microsoft.com", "microsoftonline.com", "azurecr.io"},
	"openai":   {"openai.com"}, "anthropic": {"anthropic.com"}, "claude": {"anthropic.com"}, "mistral": {"mistral.ai"},
	"groq": {"groq.com"}, "cohere": {"cohere.ai", "cohere.com"}, "replicate": {"replicate.com"}, "openrouter": {"openrouter.ai"},
	"deepseek": {"deepseek.com"}, "perplexity": {"perplexity.ai"}, "pplx": {"perplexity.ai"}, "xai": {"x.ai"}, "together": {"together.xyz", "together.ai"},
	"hf": {"huggingface.co", "hf.co"}, "huggingface": {"huggingface.co", "hf.co"}, "hugging": {"huggingface.co", "hf.co"},
	"slack": {"slack.com"}, "discord": {"discord.com", "discordapp.com"}, "telegram": {"telegram.org"}, "twilio": {"twilio.com"},
	"sendgrid": {"sendgrid.com", "sendgrid.net"}, "mailgun": {"mailgun.net", "mailgun.org"}, "postmark": {"postmarkapp.com"},
	"stripe": {"stripe.com"}, "shopify": {"shopify.com", "myshopify.com"}, "paypal": {"paypal.com"},
	"cloudflare": {"cloudflare.com"}, "cf": {"cloudflare.com"}, "digitalocean": {"digitalocean.com"}, "do": {"digitalocean.com"},
	"heroku": {"heroku.com"}, "vercel": {"vercel.com"}, "netlify": {"netlify.com"}, "fly": {"fly.io"}, "railway": {"railway.app"}, "render": {"render.com"},
	"sentry": {"sentry.io"}, "datadog": {"datadoghq.com", "datadoghq.eu"}, "dd": {"datadoghq.com", "datadoghq.eu"},
	"newrelic": {"newrelic.com"}, "grafana": {"grafana.net", "grafana.com"}, "pagerduty": {"pagerduty.com"}, "honeycomb": {"honeycomb.io"},
	"linear": {"linear.app"}, "notion": {"notion.com", "notion.so"}, "figma": {"figma.com"}, "asana": {"asana.com"},
	"codecov": {"codecov.io"}, "sonar": {"sonarcloud.io"}, "snyk": {"snyk.io"}, "circleci": {"circleci.com"},
	"supabase": {"supabase.co", "supabase.com"}, "algolia": {"algolia.net", "algolia.io"}, "pinecone": {"pinecone.io"},
	"tfe": {"terraform.io"}, "terraform": {"terraform.io"}, "tf": {"terraform.io"}, "vault": {}, "doppler": {"doppler.com"},
}

// genericWords are name words that say nothing of whom a secret is for.
var genericWords = map[string]bool{"api": true, "app": true, "my": true, "the": true, "prod": true, "production": true, "dev": true,
	"staging": true, "test": true, "ci": true, "access": true, "secret": true, "private": true, "personal": true, "default": true,
	"service": true, "client": true, "server": true, "user": true, "admin": true, "root": true, "master": true, "main": true,
	"local": true, "web": true, "http": true, "https": true, "auth": true, "oauth": true, "bearer": true, "key": true, "session": true,
	"refresh": true, "id": true, "env": true, "live": true, "deploy": true, "bot": true, "read": true, "write": true, "new": true, "old": true,
	"signing": true, "encryption": true, "shared": true, "public": true}

// secretFor says whether the secret in variable name is for host: by its
// family's hosts (GITHUB_TOKEN: github.com), by a word of its name that
// is a part of the host's name (ACME_API_KEY: api.acme.io), for someone
// else when its name says whom and host is not it, unknown when its name
// does not say (TOKEN, API_KEY).
func secretFor(name, host string) int {
	words := strings.Split(strings.ToLower(name), "_")
	labels := strings.FieldsFunc(registrable(host), func(r rune) bool { return r == '.' || r == '-' })
	says := false
	for _, w := range words {
		for _, suf := range []string{"token", "secret", "password", "apikey", "pass", "pwd"} {
			if len(w) > len(suf)+1 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf) // PGPASSWORD says pg, GHTOKEN gh
				break
			}
		}
		if w == "" || secretWords[w] || genericWords[w] {
			continue
		}
		says = true
		if hs, ok := secretHosts[w]; ok {
			for _, h := range hs {
				if host == h || strings.HasSuffix(host, "."+h) {
					return forHost
				}
			}
		}
		for _, l := range labels {
			if l == w || len(w) >= 4 && strings.Contains(l, w) {
				return forHost
			}
		}
	}
	if says {
		return forOther
	}
	return forUnknown
}

// registrable returns the part of a host name that its owner registered:
// the last two labels, or three under a short second-level label
// (example.co.uk); an IP address is itself. A label of a subdomain
// (github.com.evil.example) says nothing of who owns the host.
func registrable(host string) string {
	if net.ParseIP(host) != nil {
		return host
	}
	ls := strings.Split(host, ".")
	n := 2
	if len(ls) >= 3 && len(ls[len(ls)-2]) <= 3 && len(ls[len(ls)-1]) == 2 {
		n = 3
	}
	if len(ls) <= n {
		return host
	}
	return strings.Join(ls[len(ls)-n:], ".")
}

// gitRemoteSet reports whether git's arguments add a remote or change its
// URL (remote add, remote set-url, config remote.X.url).
func gitRemoteSet(args []field) bool {
	for i, f := range args {
		if !f.known {
			continue
		}
		switch {
		case f.val == "remote" && i+1 < len(args) && args[i+1].known && (args[i+1].val == "add" || args[i+1].val == "set-url"):
			return true
		case f.val == "config" && i+1 < len(args):
			for _, g := range args[i+1:] {
				if g.known && strings.HasPrefix(g.val, "remote.") && (strings.HasSuffix(g.val, ".url") || strings.HasSuffix(g.val, ".pushurl")) {
					return true
				}
			}
		}
	}
	return false
}

// codeEnvRead finds the environment variables code reads by name:
// os.environ["X"], os.getenv("X"), process.env.X, ENV["X"], $ENV{X},
// Deno.env.get("X"), Bun.env.X, System.getenv("X").
var codeEnvRead = regexp.MustCompile(`(?:environ(?:\.get)?\s*[\[(]\s*["']|getenv\s*\(\s*["']|(?:process|Bun|import\.meta)\.env\.|process\.env\[\s*["']|ENV\[\s*["']|ENV\.fetch\(\s*["']|\$ENV\{\s*["']?|Deno\.env\.get\(\s*["']|System\.getenv\(\s*["'])([A-Za-z_][A-Za-z0-9_]*)`)

// codeURL finds the addresses code names.
var codeURL = regexp.MustCompile(`(?i)\b(?:https?|wss?|ftp)://[^\s"'\x60<>)]+`)

// codeNetWords mark code that reaches the network.
var codeNetWords = []string{"urlopen", "requests.", "httpx", "urllib", "fetch(", "axios", "http.request", "https.request", "http.get", "https.get",
	"net::http", "net.http", "lwp", "http::tiny", "curl_", "socket", "smtplib", "websocket", "xmlhttprequest", "invoke-webrequest",
	"invoke-restmethod", "webclient", "httpclient", "open-uri", "uri.open", "faraday", "httparty", "got(", "undici", "dns.resolve", "getaddrinfo"}

// codeSecretEnv judges inline code that reads a secret-named variable from
// its environment and reaches the network: the secret is sent to the
// addresses the code names (deny when it is not for them), or to an
// address not known at check time (ask).
func (k *call) codeSecretEnv(src string) {
	var names []string
	for _, m := range codeEnvRead.FindAllStringSubmatch(src, 8) {
		if isSecretName(m[1]) {
			names = addSecrets(names, m[1])
		}
	}
	if len(names) == 0 {
		return
	}
	l := strings.ToLower(codeEnvRead.ReplaceAllString(src, " ")) // ENV.fetch("X") is no download
	urls := codeURL.FindAllString(src, 8)
	if len(urls) == 0 && !hasAny(l, codeNetWords) {
		if hasAny(l, codePrintWords) || hasArg(k.args, "-p", "--print") {
			// print(os.environ["GITHUB_TOKEN"]), node -p process.env.X:
			// printed to the agent, as echo "$GITHUB_TOKEN" is
			k.tag(TagSecretEnvPrint)
			k.attr("secret-var", strings.Join(names, ","))
		}
		return
	}
	k.judgeSend(names, urls, len(urls) == 0)
}

// codePrintWords mark code that prints to its output.
var codePrintWords = []string{"print", "console.log", "console.error", "puts ", "puts(", "say ", "echo ", "stdout", "pp(", "p(", "dump", "var_dump", "inspect"}
