package shell

// wrapperPrograms declares wrappers: programs that run another program given in their arguments.
func wrapperPrograms() []program {
	return []program{
		{names: []string{"sudo"}, model: (*call).sudo,
			examples: []example{ex("sudo rm -rf /x", "delete:r /x", "tag privilege", "via rm sudo")}},
		{names: []string{"sudoedit"}, model: func(k *call) {
			k.privilege("root")
			k.files(Write, parseOpts(k.args, spec{arg: "ugCDpRrTtU"}).ops, false)
		}, examples: []example{ex("sudoedit /etc/hosts", "write /etc/hosts", "priv root")}},
		{names: []string{"doas"}, model: (*call).doas},
		{names: []string{"pkexec", "run0"}, model: (*call).pkexec},
		{names: []string{"su"}, model: (*call).su},
		{names: []string{"runuser"}, model: (*call).runuser},
		{names: []string{"env"}, model: (*call).env},
		{names: []string{"nice"}, model: wraps(spec{arg: "n", long: []string{"adjustment"}, num: true}, 0),
			examples: []example{ex("nice -n 10 rm -rf /x", "delete:r /x", "via rm nice"), ex("nice -5 make", "cmd make")}},
		{names: []string{"nohup", "builtin", "unbuffer", "setsid", "catchsegv", "proxychains", "proxychains4", "torsocks", "tsocks", "firejail", "time-out"}, model: wraps(spec{}, 0),
			examples: []example{ex("nohup rm -rf /x &", "delete:r /x"), ex("setsid -f make", "cmd make")}},
		{names: []string{"sshpass"}, model: wraps(spec{arg: "pfdP"}, 0),
			examples: []example{ex("sshpass -p s3cret ssh web1 'rm -rf /srv/x'", "delete:r /srv/x", "via ssh sshpass"),
				ex("sshpass -f pw.txt ssh -o StrictHostKeyChecking=no web1 'mkdir -p app'", "tag remote.exec"), ex("sshpass -e scp a.txt h:/tmp/", "cmd scp")}},
		{names: []string{"exec"}, model: wraps(spec{arg: "a"}, 0),
			examples: []example{ex("exec -a foo rm -rf /x", "delete:r /x")}},
		{names: []string{"command"}, model: (*call).commandBuiltin},
		{names: []string{"time"}, model: (*call).timeCmd},
		{names: []string{"timeout"}, model: wraps(spec{arg: "sk", long: []string{"signal", "kill-after"}}, 1),
			examples: []example{ex("timeout -s KILL 5 rm -rf /x", "delete:r /x", "!cmd 5")}},
		{names: []string{"stdbuf"}, model: wraps(spec{arg: "ioe", long: []string{"input", "output", "error"}}, 0),
			examples: []example{ex("stdbuf -o L rm -rf /x", "delete:r /x", "!cmd L")}},
		{names: []string{"caffeinate"}, model: wraps(spec{arg: "tw"}, 0),
			examples: []example{ex("caffeinate -t 60 rm -rf /x", "delete:r /x")}},
		{names: []string{"ionice"}, model: (*call).ionice},
		{names: []string{"chrt"}, model: (*call).chrt},
		{names: []string{"taskset"}, model: (*call).taskset},
		{names: []string{"flock"}, model: (*call).flock},
		{names: []string{"strace", "ltrace"}, model: (*call).traceCmd},
		{names: []string{"chroot"}, model: (*call).chroot},
		{names: []string{"watch"}, model: (*call).watch},
		{names: []string{"xargs"}, model: (*call).xargs,
			examples: []example{ex("echo /x | xargs rm -rf", "cmd rm", "via rm xargs")}},
		{names: []string{"parallel"}, model: (*call).parallel},
		{names: []string{"find"}, model: (*call).find,
			examples: []example{ex("find . -name \"*.o\" -delete", "delete:r /home/u/proj", "!tag workspace.sources"),
				ex("find . -name '*.ts' -delete", "tag workspace.sources"), ex("find src -type f -exec rm {} +", "tag workspace.sources"),
				ex("find dist -type f -delete", "!tag workspace.sources"), ex("find . -type d -empty -delete", "!tag workspace.sources")}},
		{names: []string{"busybox", "toybox"}, model: (*call).busybox},
		{names: []string{"npx", "bunx", "pnpx"}, model: func(k *call) {
			k.npx(k.args, k.name)
		}, examples: []example{ex("npx rimraf dist", "cmd rimraf", "delete:r /home/u/proj/dist")}},
	}
}
