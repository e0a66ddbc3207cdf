package shell

import (
	"path"
	"strings"
)

// TagSecretPrint marks a call that prints a stored credential (a token, a
// password, a decrypted secret, a kubeconfig with its keys) to its output
// (Attrs: secret, the task that prints it). What an agent runs is read by
// the agent, so a credential printed is a credential sent to the model
// provider.
const TagSecretPrint = "secret.print"

// A secretTask is one way a program prints a stored credential: a run of
// operand words (path.Match patterns: "*" is any one word, "*secret*" a
// word holding "secret"), one of the flags that must be present when
// flags is given (-d, --raw; a short flag also counts inside a cluster,
// -gw), and flags that turn the printing off (the secret goes to a file,
// the clipboard, or is not printed: --output, -c, -no-print).
type secretTask struct {
	words  []string
	flags  []string
	unless []string
}

// prints makes a secretTask from its words.
func prints(words ...string) secretTask { return secretTask{words: words} }

// printsWith makes a secretTask that also needs one of flags.
func printsWith(flags []string, words ...string) secretTask {
	return secretTask{words: words, flags: flags}
}

// but returns t, which prints nothing when one of flags is given.
func (t secretTask) but(flags ...string) secretTask { t.unless = flags; return t }

// secretPrinters are the programs whose subcommands print a credential,
// by program: the concept "this call shows a secret" as data, beside the
// stores (the files the secret-read rule lists). Each call that spells one
// is tagged secret.print; the credential-print rule denies it.
var secretPrinters = map[string][]secretTask{
	"kubectl": {printsWith([]string{"--raw", "--flatten"}, "config", "view"), prints("create", "token")},
	"gh":      {prints("auth", "token"), printsWith([]string{"--show-token", "-t"}, "auth", "status")},
	"glab":    {printsWith([]string{"--show-token", "-t"}, "auth", "status")},
	"sops":    {printsWith([]string{"-d", "--decrypt"}).but("-i", "--in-place", "--output"), prints("decrypt").but("-i", "--in-place", "--output")},
	"doppler": {prints("secrets", "download").but("--output"), prints("secrets", "get"), prints("secrets", "substitute")},
	"vault": {prints("kv", "get"), prints("read"), prints("print", "token"), prints("kv", "metadata", "get"),
		prints("token", "create")},
	"aws": {prints("configure", "export-credentials"), prints("configure", "get", "*secret*"), prints("configure", "get", "*token*"),
		prints("configure", "get", "*key*"), prints("sts", "get-session-token"), prints("sts", "assume-role"),
		prints("sts", "get-federation-token"), prints("sts", "assume-role-with-web-identity"), prints("ecr", "get-login-password"),
		prints("ecr-public", "get-login-password"), prints("codeartifact", "get-authorization-token"),
		prints("secretsmanager", "get-secret-value"), prints("secretsmanager", "batch-get-secret-value"),
		printsWith([]string{"--with-decryption"}, "ssm", "get-parameter"), printsWith([]string{"--with-decryption"}, "ssm", "get-parameters"),
		printsWith([]string{"--with-decryption"}, "ssm", "get-parameters-by-path"), prints("iam", "create-access-key"),
		prints("sso", "get-role-credentials"), prints("ecr", "get-authorization-token"), prints("rds", "generate-db-auth-token"),
		prints("eks", "get-token")},
	"op": {prints("read").but("-o", "--out-file"), prints("item", "get"), prints("document", "get").but("-o", "--out-file"),
		prints("inject").but("-o", "--out-file")},
	"gcloud": {prints("auth", "print-access-token"), prints("auth", "print-identity-token"), prints("auth", "print-refresh-token"),
		prints("auth", "application-default", "print-access-token"), prints("config", "config-helper"),
		prints("secrets", "versions", "access")},
	"az": {prints("account", "get-access-token"), prints("keyvault", "secret", "show"),
		prints("storage", "account", "keys", "list"), printsWith([]string{"--expose-token", "-t"}, "acr", "login"),
		prints("ad", "sp", "create-for-rbac"), prints("ad", "sp", "credential", "reset")},
	"heroku":            {prints("auth:token"), prints("authorizations:create"), prints("config:get", "*"), prints("config").but("-s", "--shell", "--json")},
	"doctl":             {prints("auth", "token"), prints("kubernetes", "cluster", "kubeconfig", "show")},
	"npm":               {prints("token", "list"), prints("token", "create"), prints("token", "ls"), prints("config", "get", "%auth"), prints("config", "get", "%password")},
	"netlify":           {prints("env:get")},
	"railway":           {prints("variables")},
	"firebase":          {prints("functions:config:get")},
	"cf":                {prints("oauth-token")},
	"keyctl":            {prints("print"), prints("pipe"), prints("read")},
	"pnpm":              {prints("token", "list"), prints("token", "create")},
	"pass":              {prints("show").but("-c", "--clip", "-q", "--qrcode"), prints("grep"), prints("generate").but("-c", "--clip", "-q", "--qrcode")},
	"gopass":            {prints("show").but("-c", "--clip"), prints("cat"), prints("generate").but("-c", "--clip")},
	"secret-tool":       {prints("lookup"), prints("search")},
	"security":          {printsWith([]string{"-w", "-g"}, "find-generic-password"), printsWith([]string{"-w", "-g"}, "find-internet-password"), prints("dump-keychain")},
	"gpg":               {printsWith([]string{"--export-secret-keys", "--export-secret-subkeys"}), printsWith([]string{"-d", "--decrypt"}).but("-o", "--output")},
	"git":               {prints("credential", "fill"), prints("credential-store", "get"), prints("credential-cache", "get"), prints("credential-manager", "get"), prints("credential-osxkeychain", "get"), prints("credential-libsecret", "get")},
	"bw":                {prints("get")},
	"docker-credential": {prints("get"), prints("list")},
	"lpass":             {prints("show")},
	"keyring":           {prints("get")},
	"kwallet-query":     {printsWith([]string{"-r", "--read-password"})},
	"age":               {printsWith([]string{"-d", "--decrypt"}).but("-o", "--output")},
	"ansible-vault":     {prints("view"), prints("decrypt", "--output", "-")},
	"chamber":           {prints("read"), prints("export"), prints("env")},
	"infisical":         {prints("secrets"), prints("export")},
}

// secretPrinterAlias maps other names of the same program.
var secretPrinterAlias = map[string]string{"oc": "kubectl", "gpg2": "gpg", "docker-credential-desktop": "docker-credential",
	"docker-credential-osxkeychain": "docker-credential", "docker-credential-secretservice": "docker-credential",
	"docker-credential-pass": "docker-credential", "docker-credential-wincred": "docker-credential",
	"docker-credential-ecr-login": "docker-credential", "docker-credential-gcloud": "docker-credential"}

// secretExamples are what the secret-printer table reports, run as tests
// with the program registry's examples.
var secretExamples = []example{
	ex("kubectl --context dev config view --flatten --minify", "tag secret.print"),
	ex("oc config view --raw", "tag secret.print"),
	ex("kubectl config view", "!tag secret.print"),
	ex("kubectl get pods -A", "!tag secret.print"),
	ex("gh auth status -t", "tag secret.print"),
	ex("gh auth status", "!tag secret.print"),
	ex("gh pr list", "!tag secret.print"),
	ex("sops --decrypt deploy/values.enc.json", "tag secret.print"),
	ex("sops -d -i deploy/values.enc.json", "!tag secret.print"),
	ex("sops -e -i deploy/values.json", "!tag secret.print"),
	ex("doppler -p api secrets get DB_URL --plain", "tag secret.print"),
	ex("doppler run -- make test", "!tag secret.print"),
	ex("vault kv get -mount=secret app/db", "tag secret.print"),
	ex("vault status", "!tag secret.print"),
	ex("aws --profile ci sts get-session-token --duration-seconds 900", "tag secret.print"),
	ex("aws s3 ls", "!tag secret.print"),
	ex("aws configure get region", "!tag secret.print"),
	ex("op read op://Private/db/password", "tag secret.print"),
	ex("op read --out-file db.pw op://Private/db/password", "!tag secret.print"),
	ex("gcloud auth application-default print-access-token", "tag secret.print"),
	ex("gcloud compute instances list", "!tag secret.print"),
	ex("az account get-access-token --resource https://x", "tag secret.print"),
	ex("heroku auth:token", "tag secret.print"),
	ex("npm token list --json", "tag secret.print"),
	ex("npm ls", "!tag secret.print"),
	ex("pass show web/bank", "tag secret.print"),
	ex("pass web/bank", "tag secret.print"),
	ex("pass -c web/bank", "!tag secret.print"),
	ex("pass ls", "!tag secret.print"),
	ex("pass", "!tag secret.print"),
	ex("secret-tool lookup service smtp", "tag secret.print"),
	ex("security find-generic-password -s wifi -gw", "tag secret.print"),
	ex("security find-generic-password -s wifi", "!tag secret.print"),
	ex("git -C repo credential fill", "tag secret.print"),
	ex("sudo -u deploy gh auth token", "tag secret.print"),
	ex("aws ecr get-login-password | docker login --username AWS --password-stdin 1.dkr.ecr.x.amazonaws.com", "!tag secret.print"),
	ex("gh auth token | base64", "tag secret.print"),
	ex(`echo "$CR_PAT" | docker login ghcr.io -u me --password-stdin`, "!tag secret.env.print"),
	ex(`printf %s "$GL_TOKEN" | glab auth login --stdin`, "!tag secret.env.print"),
	ex(`echo "$CR_PAT" | base64`, "tag secret.env.print"),
	ex("npm config get //registry.npmjs.org/:_authToken", "tag secret.print"),
	ex("npm config get registry", "!tag secret.print"),
	ex("echo https://index.docker.io/v1/ | docker-credential-desktop get", "tag secret.print"),
	ex("kubectl -n ci create token deployer", "tag secret.print"),
	ex("aws eks get-token --cluster-name prod", "tag secret.print"),
	ex("heroku config -a shop", "tag secret.print"),
	ex("heroku config:set X=1 -a shop", "!tag secret.print"),
	ex("sops -d k8s/secret.enc.yaml | kubectl apply -f -", "!tag secret.print"),
	ex("sops -d k8s/secret.enc.yaml | kubectl apply -f - -o yaml", "tag secret.print"),
}

// passCommands are the subcommands of pass (and gopass); any other first
// operand is the name of a password, which pass shows.
var passCommands = []string{"init", "ls", "list", "find", "search", "grep", "insert", "add", "edit", "generate", "rm", "remove",
	"delete", "mv", "rename", "cp", "copy", "git", "help", "version", "otp", "show", "cat", "sync", "setup", "config",
	"mounts", "recipients", "audit", "fsck", "templates", "clone", "create", "new", "update", "history", "hist", "fscopy"}

// secretPrint tags secret.print when the call spells one of its program's
// credential-printing tasks.
func (k *call) secretPrint() {
	tool := k.name
	if a, ok := secretPrinterAlias[tool]; ok {
		tool = a
	}
	tasks, ok := secretPrinters[tool]
	if !ok {
		return
	}
	var ops, flags []string
	for _, f := range k.args {
		switch {
		case !f.known:
			ops = append(ops, "\x00")
		case strings.HasPrefix(f.val, "-") && len(f.val) > 1:
			flags = append(flags, f.val)
			if f.val == "--" {
				ops = append(ops, f.val)
			}
			if tool == "ansible-vault" {
				ops = append(ops, f.val) // their flags are part of the task
			}
		default:
			ops = append(ops, f.val)
		}
	}
	if tool == "pass" || tool == "gopass" {
		if len(ops) > 0 && ops[0] != "\x00" && !contains(passCommands, ops[0]) && !hasFlag(flags, []string{"-c", "--clip", "-q", "--qrcode"}) {
			k.secretPrinted(tool + " show")
			return
		}
	}
	for _, t := range tasks {
		if len(t.flags) > 0 && !hasFlag(flags, t.flags) || hasFlag(flags, t.unless) {
			continue
		}
		if matchRun(ops, t.words) {
			k.secretPrinted(strings.TrimSpace(tool + " " + strings.Join(t.words, " ")))
			return
		}
	}
}

// secretPrinted tags the call as printing the credential of task.
func (k *call) secretPrinted(task string) {
	k.tag(TagSecretPrint)
	k.attr("secret", task)
}

// hasFlag reports whether one of want was given: a long flag by name (with
// or without =value), a short one alone, with its value attached, or
// inside a cluster of short flags (-gw holds -w).
func hasFlag(have, want []string) bool {
	for _, w := range want {
		for _, h := range have {
			name, _, _ := strings.Cut(h, "=")
			switch {
			case h == w || name == w:
				return true
			case len(w) == 2 && w[0] == '-' && w[1] != '-' && !strings.HasPrefix(h, "--") && strings.IndexByte(h[1:], w[1]) >= 0 &&
				strings.IndexByte(h[1:], '=') < 0:
				return true
			}
		}
	}
	return false
}

// matchRun reports whether words (path.Match patterns; "%x" a word
// holding x in any case) occur in ops next to each other, in order.
func matchRun(ops, words []string) bool {
	for i := 0; i+len(words) <= len(ops); i++ {
		ok := true
		for j, w := range words {
			m, _ := path.Match(w, ops[i+j])
			if sub, pct := strings.CutPrefix(w, "%"); pct {
				m = strings.Contains(strings.ToLower(ops[i+j]), sub)
			}
			if !m || ops[i+j] == "\x00" && w != "*" {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// loginStdin reports whether cm takes what it reads on stdin as a
// credential or a manifest and prints none of it: a login that reads a
// password on stdin (docker login --password-stdin), or kubectl apply -f -
// with no -o. A credential piped into it goes where it is for, not to the
// agent.
func loginStdin(cm *Command) bool {
	switch cm.Name {
	case "docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "crane", "regctl", "finch", "cosign", "notation":
		login := false
		for _, a := range cm.Argv[1:] {
			switch {
			case a == "login":
				login = true
			case a == "--password-stdin" || a == "--pass-stdin" || a == "--token-stdin":
				return login
			}
		}
	case "gh", "glab":
		// gh auth login --with-token reads the token on stdin
		login := false
		for _, a := range cm.Argv[1:] {
			switch a {
			case "login":
				login = true
			case "--with-token", "--stdin":
				return login
			}
		}
	case "kubectl", "oc":
		apply, stdin := false, false
		for i, a := range cm.Argv[1:] {
			switch {
			case a == "apply" || a == "create" || a == "replace":
				apply = true
			case (a == "-f" || a == "--filename") && i+2 < len(cm.Argv) && cm.Argv[i+2] == "-", a == "-f-", a == "--filename=-":
				stdin = true
			case a == "-o" || strings.HasPrefix(a, "-o") && !strings.HasPrefix(a, "--") || strings.HasPrefix(a, "--output"):
				return false
			}
		}
		return apply && stdin
	}
	return false
}

// secretToLogin drops secret.print from the stages of a pipeline (their
// commands begin at bounds[i], the last bound ends them) whose output goes
// straight into a login that reads a password on stdin: aws ecr
// get-login-password | docker login --password-stdin hands the token to the
// registry, and the agent never sees it.
func (a *analyzer) secretToLogin(bounds []int) {
	for i := 0; i+2 < len(bounds); i++ {
		next := a.out.Commands[bounds[i+1]:bounds[i+2]]
		login := false
		for j := range next {
			login = login || loginStdin(&next[j])
		}
		if !login {
			continue
		}
		for j := bounds[i]; j < bounds[i+1]; j++ {
			cm := &a.out.Commands[j]
			if n := len(cm.Tags); n > 0 {
				tags := cm.Tags[:0:0]
				for _, t := range cm.Tags {
					if t != TagSecretPrint && t != TagSecretEnvPrint {
						tags = append(tags, t)
					}
				}
				if len(tags) < n {
					cm.Tags = tags
					cm.Attrs["secret-to"] = "a login reading it on stdin"
				}
			}
		}
	}
}
