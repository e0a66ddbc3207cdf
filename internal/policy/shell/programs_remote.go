package shell

import (
	"strings"
)

// Remote execution beyond ssh: programs that run a command line on another
// machine, a pod, a VM or a fleet of hosts. Each hands the command to the
// same judgement as ssh HOST CMD (remoteRun): the command is analysed as
// if it ran there, so what would be denied here is denied there, one that
// changes anything asks (remote.exec), and a read-only one is allowed.

// remotePrograms declares the fleet and VM runners not part of a cloud
// CLI (kubectl exec, gcloud compute ssh, az vm run-command, aws ssm,
// fly ssh console and heroku run are in their CLIs' models).
func remotePrograms() []program {
	return []program{
		{names: []string{"ansible"}, model: (*call).ansible, examples: []example{
			ex("ansible db -i hosts -m ansible.builtin.shell -a 'rm -rf /srv/data'", "tag remote.exec", "delete:r /srv/data"),
			ex("ansible all -a 'systemctl restart app'", "tag remote.exec"),
			ex("ansible all -a uptime", "!tag remote.exec"),
			ex("ansible all -m ping", "!tag remote.exec"),
			ex("ansible web -m file -a 'path=/etc/app state=absent'", "tag remote.exec")}},
		{names: []string{"salt", "salt-ssh"}, model: (*call).salt, examples: []example{
			ex("salt -G os:Ubuntu cmd.shell 'rm -rf /opt/app'", "tag remote.exec", "delete:r /opt/app"),
			ex("salt '*' test.ping", "!tag remote.exec"),
			ex("salt web1 pkg.remove nginx", "tag remote.exec")}},
		{names: []string{"pdsh", "pssh", "parallel-ssh", "clush", "dsh"}, model: (*call).fleetShell, examples: []example{
			ex("pdsh -R ssh -w node[01-04] 'rm -rf /scratch'", "tag remote.exec", "delete:r /scratch"),
			ex("parallel-ssh -h hosts.txt -i 'systemctl stop app'", "tag remote.exec"),
			ex("clush -w @web uptime", "!tag remote.exec")}},
		{names: []string{"multipass", "lxc", "incus", "vagrant"}, model: (*call).vmExec, examples: []example{
			ex("lxc exec web -- sh -c 'rm -rf /var/lib/app'", "tag remote.exec", "delete:r /var/lib/app"),
			ex("vagrant ssh -c 'sudo reboot'", "tag remote.exec"),
			ex("multipass exec vm1 -- df -h", "!tag remote.exec")}},
	}
}

// afterDashes returns the fields after the first "--", or nil.
func afterDashes(args []field) []field {
	for i, f := range args {
		if f.known && f.val == "--" {
			return args[i+1:]
		}
	}
	return nil
}

// remoteArgv judges an argv run remotely: one field is a command line,
// several are words, quoted and joined into one (kubectl exec and its kin
// keep the words apart; where the far side joins them with spaces, as ssh
// does, the quoted reading is the one that runs the same program).
func (k *call) remoteArgv(argv []field, host, via string) {
	if len(argv) == 0 {
		return
	}
	rc := argv[0]
	if len(argv) > 1 {
		rc = joinCode(argv)
		if rc.known {
			words := make([]string, len(argv))
			for i, f := range argv {
				words[i] = Quote(f.val)
			}
			rc = sub(rc, strings.Join(words, " "))
		}
	}
	k.attr("remote-command", rc.text(k.c))
	k.remoteRun(rc, host, via)
}

// kubeExec models kubectl exec POD -- CMD (and oc rsh/exec, kubectl
// debug ... -- CMD): the command runs in the pod.
func (k *call) kubeExec() {
	cmd := afterDashes(k.args)
	pod := "pod"
	p := parseOpts(k.args, spec{arg: "nscf", long: []string{"namespace", "context", "cluster", "kubeconfig", "user", "server", "container", "filename", "image", "target", "pod-running-timeout"}})
	if len(p.ops) > 1 && p.ops[1].known {
		pod = p.ops[1].val
	}
	k.attr("host", pod)
	if cmd == nil {
		return
	}
	k.remoteArgv(cmd, pod, k.name+" exec")
}

// ansible runs a module on the hosts of a pattern: the command modules
// (command, shell, raw; command is the default) run their -a argument as a
// command line; a read-only module (ping, setup, stat) is allowed; any
// other module changes the hosts (remote.exec).
func (k *call) ansible() {
	p := parseOpts(k.args, spec{arg: "maiuecflMBPtT", long: []string{"module-name", "args", "inventory", "user", "extra-vars", "connection", "forks", "limit",
		"become-user", "become-method", "private-key", "module-path", "timeout", "tree", "vault-password-file", "ssh-common-args", "ssh-extra-args"}})
	host := "hosts"
	if len(p.ops) > 0 {
		host = p.ops[0].text(k.c)
	}
	mod := "command"
	if m, ok := p.get("m", "module-name"); ok {
		mod = m.val
		if !m.known {
			mod = "?"
		}
	}
	mod = strings.TrimPrefix(strings.TrimPrefix(mod, "ansible.builtin."), "ansible.legacy.")
	a, hasA := p.get("a", "args")
	switch {
	case mod == "command" || mod == "shell" || mod == "raw":
		if hasA {
			k.attr("remote-command", a.text(k.c))
			k.remoteRun(a, host, "ansible")
		}
	case mod == "ping" || mod == "setup" || mod == "debug" || mod == "stat" || mod == "gather_facts" || mod == "slurp" || mod == "find" || mod == "package_facts" || mod == "service_facts":
	default:
		k.tag(TagRemoteCommand)
		k.attr("reason", "ansible module "+mod+" changes the hosts")
	}
}

// salt runs an execution function on minions: cmd.run and its kin run a
// command line; the reporting functions (test., grains., status., ...)
// only read; any other function changes the minions (remote.exec).
func (k *call) salt() {
	p := parseOpts(k.args, spec{arg: "tc", long: []string{"timeout", "out", "return", "config-dir", "subset", "batch-size", "log-level", "roster-file", "priv", "user"}, stop: true})
	if len(p.ops) < 2 {
		return
	}
	host, fn := p.ops[0].text(k.c), p.ops[1]
	if !fn.known {
		k.tag(TagRemoteCommand)
		return
	}
	switch f := fn.val; {
	case f == "cmd.run" || f == "cmd.shell" || f == "cmd.run_all" || f == "cmd.run_stdout" || f == "cmd.exec_code" || f == "cmd.script":
		k.remoteArgv(p.ops[2:], host, "salt")
		if len(p.ops) == 2 {
			k.tag(TagRemoteCommand)
		}
	case strings.HasPrefix(f, "test.") || strings.HasPrefix(f, "grains.") || strings.HasPrefix(f, "status.") || strings.HasPrefix(f, "sys.") ||
		strings.HasPrefix(f, "pillar.") || strings.HasSuffix(f, ".list") || strings.HasSuffix(f, ".status") || strings.HasSuffix(f, ".version"):
	default:
		k.tag(TagRemoteCommand)
	}
}

// fleetShell models pdsh/pssh/clush/dsh: the operands after the options
// are a command line run on every host.
func (k *call) fleetShell() {
	p := parseOpts(k.args, spec{arg: "wxgXRlhHpOtoeuaf", long: []string{"hosts", "host", "user", "par", "outdir", "errdir", "timeout", "options", "group", "exclude", "fanout"}, stop: true})
	host := "hosts"
	if h, ok := p.get("w", "H", "g", "h"); ok {
		host = h.text(k.c)
	}
	k.remoteArgv(p.ops, host, k.name)
}

// vmExec models multipass/lxc/incus exec VM -- CMD and vagrant ssh -c CMD.
func (k *call) vmExec() {
	if len(k.args) == 0 || !k.args[0].known {
		return
	}
	switch sc := k.args[0].val; {
	case k.name == "vagrant" && sc == "ssh":
		p := parseOpts(k.args[1:], spec{arg: "c", long: []string{"command"}})
		if c, ok := p.get("c", "command"); ok {
			k.remoteArgv([]field{c}, "vagrant", "vagrant ssh")
		} else if cmd := afterDashes(k.args); cmd != nil {
			k.remoteArgv(cmd, "vagrant", "vagrant ssh")
		}
	case sc == "exec" || sc == "shell" && k.name == "multipass":
		vm := "vm"
		if len(k.args) > 1 {
			vm = k.args[1].text(k.c)
		}
		k.remoteArgv(afterDashes(k.args), vm, k.name+" exec")
	}
}

// cloudRemote models the remote-command forms of cloud CLIs: gcloud
// compute ssh --command (or -- CMD), az vm run-command invoke --scripts,
// aws ssm send-command --parameters commands=..., aws ecs execute-command
// --command, fly ssh console -C, heroku run CMD.
func (k *call) cloudRemote() {
	words := make([]string, 0, 4)
	for _, f := range k.args {
		if f.known && !strings.HasPrefix(f.val, "-") {
			words = append(words, f.val)
		}
		if len(words) == 4 {
			break
		}
	}
	has := func(w ...string) bool { return hasRun(words, w) }
	switch {
	case k.name == "gcloud" && has("ssh"):
		p := parseOpts(k.args, spec{long: []string{"command", "zone", "project", "ssh-key-file", "ssh-flag", "container", "worker"}})
		host := "instance"
		if len(p.ops) > 2 {
			host = p.ops[len(p.ops)-1].text(k.c)
		}
		if c, ok := p.get("command"); ok {
			k.remoteArgv([]field{c}, host, "gcloud compute ssh")
		} else if cmd := afterDashes(k.args); cmd != nil {
			k.remoteArgv(cmd, host, "gcloud compute ssh")
		}
	case k.name == "az" && has("run-command"):
		var script []field
		for i := 0; i < len(k.args); i++ {
			if f := k.args[i]; f.known && (f.val == "--scripts" || f.val == "--script") {
				for i++; i < len(k.args) && !(k.args[i].known && strings.HasPrefix(k.args[i].val, "--")); i++ {
					script = append(script, k.args[i])
				}
				i--
			}
		}
		if len(script) == 0 {
			k.tag(TagRemoteCommand)
			return
		}
		k.remoteArgv(script, "vm", "az vm run-command")
	case (k.name == "fly" || k.name == "flyctl") && has("ssh", "console"):
		p := parseOpts(k.args, spec{arg: "Cas", long: []string{"command", "app", "select", "region", "machine", "user", "config"}})
		if c, ok := p.get("C", "command"); ok {
			k.remoteArgv([]field{c}, "fly", "fly ssh console")
		}
	case k.name == "heroku" && len(words) > 0 && (words[0] == "run" || words[0] == "run:detached" || words[0] == "run:inside"):
		p := parseOpts(k.args[1:], spec{arg: "asetr", long: []string{"app", "size", "env", "type", "remote"}, stop: true})
		app := "app"
		if a, ok := p.get("a", "app"); ok {
			app = a.text(k.c)
		}
		k.attr("host", app)
		k.remoteArgv(p.ops, app, "heroku run")
	}
}

// awsRemote models aws ssm send-command --parameters commands=[...] and
// aws ecs execute-command --command: the command runs on instances or a
// task's container.
func (k *call) awsRemote(svc, op string) {
	switch {
	case svc == "ssm" && op == "send-command":
		p := parseOpts(k.args, spec{long: []string{"parameters", "document-name", "targets", "instance-ids", "comment", "profile", "region", "output"}})
		prm, ok := p.get("parameters")
		if !ok || !prm.known {
			k.tag(TagRemoteCommand)
			return
		}
		k.remoteArgv([]field{ssmCommands(prm)}, "instances", "aws ssm send-command")
	case svc == "ecs" && op == "execute-command":
		p := parseOpts(k.args, spec{long: []string{"command", "cluster", "task", "container", "profile", "region", "output"}})
		if c, ok := p.get("command"); ok {
			k.remoteArgv([]field{c}, "task", "aws ecs execute-command")
		}
	}
}

// ssmCommands extracts the command lines of an SSM --parameters value
// (commands=a,b / commands=["a","b"] / {"commands":["a"]}); what cannot
// be read is unknown.
func ssmCommands(prm field) field {
	v := strings.TrimSpace(prm.val)
	if strings.HasPrefix(v, "{") {
		i := strings.Index(v, "[")
		j := strings.LastIndex(v, "]")
		if i < 0 || j < i {
			return unknownField("SSM parameters not understood")
		}
		v = "commands=" + v[i:j+1]
	}
	rest, ok := strings.CutPrefix(v, "commands=")
	if !ok {
		return unknownField("SSM parameters not understood")
	}
	if strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") {
		var lines []string
		for _, part := range strings.Split(rest[1:len(rest)-1], "\",") {
			lines = append(lines, strings.Trim(strings.TrimSpace(part), "\""))
		}
		rest = strings.Join(lines, "\n")
	}
	return sub(prm, rest)
}
