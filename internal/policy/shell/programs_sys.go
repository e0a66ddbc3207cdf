package shell

import (
	"strings"
)

// sysPrograms declares the system: power, processes, services, schedulers, firewalls, accounts, keys.
func sysPrograms() []program {
	return []program{
		{names: []string{"shutdown", "reboot", "halt", "poweroff", "kexec"}, model: tags(TagSystemPower), examples: []example{ex("shutdown -h now", "tag system.power")}},
		{names: []string{"init", "telinit"}, model: func(k *call) {
			if len(k.args) > 0 && k.args[0].known && (k.args[0].val == "0" || k.args[0].val == "6") {
				k.tag(TagSystemPower)
			}
		}, examples: []example{ex("init 0", "tag system.power"), ex("init 3", "!tag system.power")}},
		{names: []string{"kill"}, model: (*call).kill},
		{names: []string{"pkill", "pgrep", "pidwait"}, model: (*call).pkill},
		{names: []string{"killall"}, model: (*call).killall},
		{names: []string{"pidof"}, model: (*call).pidof},
		{names: []string{"service", "launchctl"}, model: (*call).serviceStop},
		{names: []string{"systemctl", "loginctl"}, model: func(k *call) {
			n := k.name
			if n == "systemctl" {
				k.serviceStop()
			}
			for _, f := range k.args {
				switch f.val {
				case "poweroff", "reboot", "halt", "suspend", "hibernate", "kexec", "rescue", "emergency", "hybrid-sleep", "soft-reboot":
					k.tag(TagSystemPower)
				}
			}
		}, examples: []example{ex("systemctl reboot", "tag system.power"), ex("systemctl status x", "!tag system.power")}},
		{names: []string{"crontab"}, model: func(k *call) {
			p := parseOpts(k.args, spec{arg: "uc"})
			switch {
			case p.has("r"):
				k.tag(TagCrontab)
				k.attr("action", "remove")
			case p.has("e"):
				k.tag(TagCrontab)
				k.attr("action", "edit")
			case p.has("l"):
			default:
				k.tag(TagCrontab)
				k.attr("action", "install")
				k.files(Read, p.ops, false)
				switch {
				case len(p.ops) == 0 || p.ops[0].known && p.ops[0].val == "-":
					in := k.c.stdin
					if in.literal {
						k.cronEntries(in.text)
					} else {
						k.cronEntries(in.partial)
					}
				default:
					if txt, ok := k.writtenScript(p.ops[0]); ok {
						k.cronEntries(txt) // a crontab file written earlier in the line
					}
				}
			}
		}, examples: []example{ex("crontab -r", "tag crontab", "attr action=remove"), ex("crontab -l", "!tag crontab"), ex("crontab jobs", "attr action=install", "read /home/u/proj/jobs")}},
		{names: []string{"iptables", "ip6tables", "nft", "ufw", "firewall-cmd", "pfctl", "iptables-restore"}, model: tags(TagFirewall), examples: []example{ex("iptables -F", "tag network.firewall"), ex("ufw disable", "tag network.firewall")}},
		{names: []string{"useradd", "userdel", "usermod", "adduser", "deluser", "passwd", "chpasswd", "groupadd", "groupdel", "groupmod", "gpasswd", "vipw", "chsh", "chfn", "addgroup", "delgroup"}, model: func(k *call) {
			k.tag(TagUserAdmin)
			ops := parseOpts(k.args, spec{arg: "cdegGkKpsuUbfRP", long: []string{"comment", "home", "home-dir", "expiredate", "gid", "groups", "skel", "key", "password", "shell", "uid", "root", "prefix"}}).ops
			user := ""
			if len(ops) > 0 {
				user = ops[len(ops)-1].text(k.c)
			}
			k.eff(Effect{Kind: Privilege, Target: user, Unknown: user == "", Reason: reasonIf(user == "", "user not given")})
		}, examples: []example{ex("userdel -r bob", "tag user.admin", "priv bob")}},
		{names: []string{"visudo"}, model: (*call).visudo,
			examples: []example{ex("visudo", "write /etc/sudoers", "tag user.admin"),
				ex("EDITOR='tee -a' visudo -f /etc/sudoers.d/x", "write /etc/sudoers.d/x"),
				ex("visudo -c", "!write /etc/sudoers")}},
		{names: []string{"openssl"}, model: (*call).openssl,
			examples: []example{ex("openssl rsa -in ~/.ssh/id_rsa -out k.pem", "read /home/u/.ssh/id_rsa", "write /home/u/proj/k.pem")}},
	}
}

// openssl reads the files named by its input options and writes those of
// its output options.
func (k *call) openssl() {
	for i := 0; i+1 < len(k.args); i++ {
		f := k.args[i]
		if !f.known {
			continue
		}
		switch f.val {
		case "-in", "-inkey", "-key", "-kfile", "-passin", "-CAkey", "-signkey", "-infiles", "-pubin":
			if f.val == "-pubin" {
				continue
			}
			v := k.args[i+1]
			if v.known && strings.HasPrefix(v.val, "file:") {
				v = sub(v, v.val[len("file:"):])
			}
			k.file(Read, v, false)
			i++
		case "-out", "-keyout":
			k.file(Write, k.args[i+1], false)
			i++
		case "-connect":
			// s_client (and s_time) talk to a server: what flows in is sent
			k.net(k.args[i+1])
			i++
		}
	}
}

// visudo edits the sudoers file (or -f FILE) with $EDITOR and installs
// the result: a write of that file, whatever the editor is (EDITOR='tee
// -a' makes it append stdin). -c only checks its syntax.
func (k *call) visudo() {
	k.tag(TagUserAdmin)
	p := parseOpts(k.args, spec{arg: "f", long: []string{"file"}})
	file := field{known: true, val: "/etc/sudoers"}
	if f, ok := p.get("f", "file"); ok {
		file = f
	} else if len(p.ops) > 0 {
		file = p.ops[0] // visudo [sudoers] (1.9+)
	}
	if p.has("c", "check", "V", "version", "h", "help") {
		return // a syntax check prints no contents
	}
	k.file(Write, file, false)
}

// cronEntries judges the jobs of a crontab installed from standard input
// (echo '* * * * * job' | crontab -, (crontab -l; echo …) | crontab -) or
// from a file written earlier in the line (txt, what is known of it):
// each entry's command runs later, in the home directory, and is
// analysed as code run there, so remote code or a wrecker scheduled is
// judged as run.
func (k *call) cronEntries(txt string) {
	if txt == "" {
		return
	}
	var st *state
	if k.a.opts.Home != "" {
		st = k.withDir(lit(k.a.opts.Home))
	}
	for _, line := range strings.Split(txt, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		n := 5
		switch {
		case strings.HasPrefix(line, "@"):
			n = 1
		case len(fields) > 0 && strings.Contains(fields[0], "=") && !strings.ContainsAny(fields[0], "*/,"):
			continue // VAR=value
		}
		if len(fields) <= n {
			continue
		}
		rest := line
		for i := 0; i < n; i++ {
			rest = strings.TrimLeft(rest, " \t")
			j := strings.IndexAny(rest, " \t")
			if j < 0 {
				rest = ""
				break
			}
			rest = rest[j:]
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			k.nestedIn(lit(rest), "crontab entry", st)
		}
	}
}
