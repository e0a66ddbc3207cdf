package shell

import "strings"

// Tags for changes made on the other side of a network call, where the
// sandbox cannot see and nothing local can undo them.
const (
	// TagRemoteChange marks a command that changes something on a remote
	// service — an upload to cloud storage (aws s3 cp … s3://, gsutil
	// cp … gs://, az storage blob upload, rclone copy … remote:), a gist
	// published, a pull request merged, a repository created or renamed,
	// a secret set, a write through gh api. Attr remote-action names it.
	TagRemoteChange = "remote.change"
	// TagHooksInstall marks a command that installs git hooks (husky,
	// pre-commit install, lefthook install): code that runs on every
	// commit from then on, outside warden's sight.
	TagHooksInstall = "hooks.install"
)

// remoteChange tags the remote changes of the cloud and forge CLIs, and
// the installers of git hooks.
func (k *call) remoteChange() {
	ops := k.words()
	at := func(i int) string {
		if i < len(ops) {
			return ops[i]
		}
		return ""
	}
	mark := func(action string) {
		k.tag(TagRemoteChange)
		k.attr("remote-action", action)
	}
	switch k.name {
	case "gh":
		switch sc, sub := at(0), at(1); {
		case sc == "gist" && (sub == "create" || sub == "new" || sub == "edit"):
			mark("gh gist " + sub)
		case sc == "pr" && sub == "merge":
			mark("gh pr merge")
		case sc == "repo" && (sub == "create" || sub == "new" || sub == "rename" || sub == "archive" || sub == "edit" || sub == "transfer"):
			mark("gh repo " + sub)
		case (sc == "secret" || sc == "variable") && (sub == "set" || sub == "delete" || sub == "remove"):
			mark("gh " + sc + " " + sub)
		case sc == "api" && k.ghAPIWrites():
			mark("gh api (a write)")
		}
	case "aws":
		// global options' values (--profile ci) come before the service
		if i := indexOf(ops, "s3"); i >= 0 && (at(i+1) == "cp" || at(i+1) == "sync" || at(i+1) == "mv") && strings.HasPrefix(lastOperand(ops), "s3://") {
			mark("aws s3 " + at(i+1) + " to " + lastOperand(ops))
		}
		if i := indexOf(ops, "s3api"); i >= 0 && (at(i+1) == "put-object" || at(i+1) == "upload-part") {
			mark("aws s3api " + at(i+1))
		}
	case "gsutil":
		if i := indexOf(ops, "cp", "rsync", "mv"); i >= 0 && strings.HasPrefix(lastOperand(ops), "gs://") {
			mark("gsutil " + ops[i] + " to " + lastOperand(ops))
		}
	case "gcloud":
		if i := indexOf(ops, "storage"); i >= 0 && (at(i+1) == "cp" || at(i+1) == "rsync" || at(i+1) == "mv") && strings.HasPrefix(lastOperand(ops), "gs://") {
			mark("gcloud storage " + at(i+1) + " to " + lastOperand(ops))
		}
	case "az":
		if at(0) == "storage" && (at(1) == "blob" || at(1) == "file" || at(1) == "fs") {
			switch at(2) {
			case "upload", "upload-batch", "sync":
				mark("az storage " + at(1) + " " + at(2))
			}
		}
	case "rclone":
		switch at(0) {
		case "copy", "copyto", "sync", "move", "moveto", "bisync":
			if rcloneRemote(lastOperand(ops)) {
				mark("rclone " + at(0) + " to " + lastOperand(ops))
			}
		}
	case "husky":
		if sc := at(0); sc == "" || sc == "init" || sc == "install" || sc == "add" || sc == "set" {
			k.tag(TagHooksInstall)
		}
	case "pre-commit":
		if at(0) == "install" || k.has("--install-hooks") && at(0) == "install" {
			k.tag(TagHooksInstall)
		}
	case "lefthook":
		if at(0) == "install" || at(0) == "add" {
			k.tag(TagHooksInstall)
		}
	case "simple-git-hooks", "git-hooks":
		k.tag(TagHooksInstall)
	case "overcommit":
		if k.has("--install") || k.has("-i") {
			k.tag(TagHooksInstall)
		}
	}
}

// words are the call's known words that are not options, in order.
func (k *call) words() []string {
	var out []string
	for _, f := range k.args {
		if f.known && !strings.HasPrefix(f.val, "-") {
			out = append(out, f.val)
		}
	}
	return out
}

// has reports whether the call has the known word w.
func (k *call) has(w string) bool {
	for _, f := range k.args {
		if f.known && f.val == w {
			return true
		}
	}
	return false
}

func lastOperand(ops []string) string {
	if len(ops) == 0 {
		return ""
	}
	return ops[len(ops)-1]
}

func indexOf(list []string, vals ...string) int {
	for i, x := range list {
		if contains(vals, x) {
			return i
		}
	}
	return -1
}

// rcloneRemote reports whether an rclone path names a remote (NAME:path),
// not a local path.
func rcloneRemote(p string) bool {
	i := strings.IndexByte(p, ':')
	if i <= 0 || strings.HasPrefix(p, "/") || strings.HasPrefix(p, ".") {
		return false
	}
	return i > 1 // C:\x is a Windows drive
}

// ghAPIWrites reports whether a gh api call writes: a method other than
// GET, or fields (which make it a POST), except a GraphQL query that is
// not a mutation.
func (k *call) ghAPIWrites() bool {
	method, fields, graphql, mutation := "", false, false, false
	for i, f := range k.args {
		if !f.known {
			continue
		}
		v := f.val
		switch {
		case v == "-X" || v == "--method":
			if i+1 < len(k.args) && k.args[i+1].known {
				method = strings.ToUpper(k.args[i+1].val)
			}
		case strings.HasPrefix(v, "--method="):
			method = strings.ToUpper(v[len("--method="):])
		case strings.HasPrefix(v, "-X") && len(v) > 2:
			method = strings.ToUpper(v[2:])
		case v == "-f" || v == "-F" || v == "--field" || v == "--raw-field" || v == "--input" ||
			strings.HasPrefix(v, "--field=") || strings.HasPrefix(v, "--raw-field=") || strings.HasPrefix(v, "--input="):
			fields = true
		case v == "graphql":
			graphql = true
		}
		if strings.Contains(v, "mutation") {
			mutation = true
		}
	}
	if method != "" {
		return method != "GET" && method != "HEAD"
	}
	if graphql {
		return mutation
	}
	return fields
}
