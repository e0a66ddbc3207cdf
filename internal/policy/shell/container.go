package shell

import (
	"path"
	"strings"
)

// maxMounts bounds the mounts one container is modelled with; more are
// treated as mounts not known at check time.
const maxMounts = 32

// container is where a command runs when it is not the host's file system:
// a container (docker run) or a chroot. Paths in the state of code running
// there are the container's; mounts say which host paths are reachable and
// where, and the commands are reported with host paths (a path that no
// mount reaches is the container's own and not reported).
type container struct {
	label  string // "docker run", "chroot", ...
	mounts []mount
	// unknownMounts is set when the container may reach host paths not
	// known at check time (docker exec, compose services, --volumes-from, a
	// mount whose host path is not known); why says why.
	unknownMounts bool
	why           string
	// ownEnv: the container has its own environment; the host's variables
	// (Options.Env, $HOME) are not its own.
	ownEnv bool
	// parent is the container the mounts' host paths are in (a chroot
	// inside a container); nil when they are the host's.
	parent *container
}

// mount makes the host path src reachable as dst in the container.
type mount struct {
	src, dst string // absolute and clean
	ro       bool
	device   bool // --device: a device node, not a tree of files
}

// writes reports whether an effect kind changes its target.
func writes(k Kind) bool { return k == Write || k == Delete }

// mountOf returns the mount path p (in the container) is in: the one with
// the longest dst that is p or one of its ancestors.
func (ct *container) mountOf(p string) (mount, bool) {
	best, found := mount{}, false
	for _, m := range ct.mounts {
		if under(p, m.dst) && (!found || len(m.dst) > len(best.dst)) {
			best, found = m, true
		}
	}
	return best, found
}

// under reports whether p is dir or below it.
func under(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// reaches reports whether an effect of kind k on a path not known at
// check time can reach the host.
func (ct *container) reaches(k Kind) bool {
	if ct.unknownMounts {
		return true
	}
	for _, m := range ct.mounts {
		if !(m.ro && writes(k)) {
			return true
		}
	}
	return false
}

// hostEffects translates an effect of code running in the container into
// the effects it has on the host: a path under a mount is the same path
// under the mount's host path (a write through a read-only mount fails and
// has none), a recursive effect on an ancestor of mounts reaches into each
// of them, and a path no mount reaches is the container's own.
func (ct *container) hostEffects(e Effect) []Effect {
	switch e.Kind {
	case Read, Write, Delete, Exec:
	default:
		return []Effect{e}
	}
	var out []Effect
	switch {
	case e.Unknown:
		if !ct.reaches(e.Kind) {
			return nil
		}
		e.Reason = orDefault(e.Reason, "target is not known at check time") + " (in " + ct.label + ", which reaches host paths)"
		out = append(out, e)
	case !strings.HasPrefix(e.Target, "/"):
		return []Effect{e} // not a path (exec of a package.json script)
	default:
		p := e.Target
		m, ok := ct.mountOf(p)
		switch {
		case ok && !(m.ro && writes(e.Kind)):
			h := e
			h.Target = path.Join(m.src, strings.TrimPrefix(p, m.dst))
			out = append(out, h)
		case !ok && ct.unknownMounts:
			h := e
			h.Target, h.Unknown = "", true
			h.Reason = p + " in " + ct.label + ": " + ct.why
			out = append(out, h)
		}
		if e.Recursive {
			// rm -rf / in the container deletes what is mounted below it
			for _, n := range ct.mounts {
				if n.dst != m.dst && n.dst != p && under(n.dst, p) && !(n.ro && writes(e.Kind)) {
					h := e
					h.Target, h.Recursive = n.src, true
					out = append(out, h)
				}
			}
		}
	}
	if ct.parent == nil {
		return out
	}
	var res []Effect
	for _, h := range out {
		res = append(res, ct.parent.hostEffects(h)...)
	}
	return res
}

// hostDir is the host directory a container directory is, "" when it is
// the container's own.
func (ct *container) hostDir(d string) string {
	for c := ct; c != nil && d != ""; c = c.parent {
		m, ok := c.mountOf(d)
		if !ok {
			return ""
		}
		d = path.Join(m.src, strings.TrimPrefix(d, m.dst))
	}
	return d
}

// hostCommand rewrites a command that ran in the container with host
// paths: its effects, its directory, and the disk.write tag, which holds
// only when a write reaches a host block device.
func (ct *container) hostCommand(cm *Command) {
	var effs []Effect
	disk := false
	for _, e := range cm.Effects {
		for _, h := range ct.hostEffects(e) {
			dup := false
			for _, x := range effs {
				if x == h {
					dup = true
					break
				}
			}
			if !dup {
				effs = append(effs, h)
			}
			disk = disk || h.Kind == Write && !h.Unknown && isDiskDevice(h.Target)
		}
	}
	cm.Effects = effs
	tags := make([]string, 0, len(cm.Tags))
	for _, t := range cm.Tags {
		if t != TagDiskWrite {
			tags = append(tags, t)
		}
	}
	if disk {
		tags = append(tags, TagDiskWrite)
	}
	if len(tags) == 0 {
		tags = nil
	}
	cm.Tags = tags
	cm.Dir = ct.hostDir(cm.Dir)
}

// chrootState is the state of a command run by chroot NEWROOT: the root is
// NEWROOT, and the directory /.
func (k *call) chrootState(root field) *state {
	m := mount{dst: "/"}
	ct := &container{label: "chroot " + root.text(k.c), parent: k.st.ctr, ownEnv: k.st.ctr != nil && k.st.ctr.ownEnv}
	if e, ok := k.a.target(k.st, Read, root, false); ok && !e.Unknown && e.Target != "" {
		m.src = e.Target
		ct.mounts = []mount{m}
	} else {
		ct.unknownMounts = true
		ct.why = "the new root " + root.text(k.c) + " is not known at check time"
	}
	st := k.st.clone()
	st.ctr = ct
	st.dir = "/"
	return st
}

// runSpec is how a container-running subcommand's options are parsed.
var runSpec = spec{arg: "acehlmpuvw", stop: true, long: []string{
	"add-host", "annotation", "attach", "blkio-weight", "blkio-weight-device", "cap-add", "cap-drop", "cgroup-parent",
	"cgroupns", "cidfile", "cpu-count", "cpu-percent", "cpu-period", "cpu-quota", "cpu-rt-period", "cpu-rt-runtime",
	"cpu-shares", "cpus", "cpuset-cpus", "cpuset-mems", "device", "device-cgroup-rule", "device-read-bps",
	"device-read-iops", "device-write-bps", "device-write-iops", "dns", "dns-option", "dns-opt", "dns-search",
	"domainname", "entrypoint", "env", "env-file", "expose", "gpus", "group-add", "health-cmd", "health-interval",
	"health-retries", "health-start-period", "health-start-interval", "health-timeout", "hostname", "ip", "ip6", "ipc",
	"isolation", "kernel-memory", "label", "label-file", "link", "link-local-ip", "log-driver", "log-opt",
	"mac-address", "memory", "memory-reservation", "memory-swap", "memory-swappiness", "mount", "name", "network",
	"net", "network-alias", "net-alias", "oom-score-adj", "pid", "pids-limit", "platform", "publish", "pull", "restart",
	"runtime", "security-opt", "shm-size", "stop-signal", "stop-timeout", "storage-opt", "sysctl", "tmpfs", "ulimit",
	"user", "userns", "uts", "volume", "volume-driver", "volumes-from", "workdir", "detach-keys",
	// podman
	"pod", "pod-id-file", "secret", "uidmap", "gidmap", "subuidname", "subgidname", "arch", "os", "variant",
	"preserve-fds", "sdnotify", "systemd", "tz", "umask", "chrootdirs", "passwd-entry", "group-entry", "pidfile",
	"requires", "timeout", "image-volume", "hostuser", "init-path", "cgroup-conf", "cgroups", "conmon-pidfile",
	"personality", "seccomp-policy", "decryption-key", "creds", "cert-dir", "authfile", "env-merge", "retry",
	"retry-delay", "health-on-failure", "health-startup-cmd", "health-startup-interval", "health-startup-retries",
	"health-startup-success", "health-startup-timeout", "rdt-class", "health-log-destination",
	"health-max-log-count", "health-max-log-size", "label-file", "mount",
	// compose run / exec
	"env-from-file", "index",
}}

// containerCmd is what a command line says about a container to run in.
type containerCmd struct {
	ct     *container
	dir    string
	dirWhy string
	vars   map[string]variable
	stdin  bool // -i: the container's standard input is the command's
	detach bool
	argv   []field
	noCmd  bool // no command: the image's own entrypoint runs
	blind  bool // the command cannot be analysed (arguments to the image's entrypoint)
}

// containerRun models docker/podman run and create, docker exec, and
// compose run and exec. args are the subcommand's arguments: options, the
// image (container, service), then the command. exec is set for a command
// that runs in an existing container or a compose service, whose own
// mounts are not known.
func (k *call) containerRun(args []field, label string, exec bool) {
	p := parseOpts(args, runSpec)
	ct := &container{label: label, ownEnv: true}
	if exec {
		ct.unknownMounts = true
		ct.why = "the mounts of the container it runs in are not known at check time"
	}
	cc := &containerCmd{ct: ct, vars: map[string]variable{}}
	home := lit("/root")
	for _, o := range p.opts {
		v := o.val
		flag := func() bool { return !o.has || !v.known || (v.val != "false" && v.val != "0") }
		switch o.name {
		case "v", "volume":
			k.volume(cc, v)
		case "mount":
			k.mountOpt(cc, v)
		case "device":
			k.deviceOpt(cc, v)
		case "volumes-from":
			ct.unknownMounts = true
			ct.why = "it has the mounts of another container (--volumes-from), which are not known at check time"
		case "privileged":
			if flag() {
				k.tag(TagPrivilege)
				k.tag(TagContainerHost)
				k.attr("container", "privileged")
				// every device of the host
				ct.mounts = append(ct.mounts, mount{src: "/dev", dst: "/dev", device: true})
			}
		case "cap-add":
			if c := strings.TrimPrefix(strings.ToUpper(v.val), "CAP_"); v.known {
				switch c {
				case "ALL", "SYS_ADMIN", "SYS_MODULE", "SYS_PTRACE", "SYS_RAWIO", "DAC_READ_SEARCH":
					k.tag(TagContainerHost)
					k.attr("container", "cap-add "+c)
				}
			}
		case "pid":
			if v.known && v.val == "host" {
				k.tag(TagPrivilege)
				k.tag(TagContainerHost)
				k.attr("container", "pid=host")
			}
		case "net", "network":
			if v.known && v.val == "host" {
				k.tag(TagPrivilege)
			}
		case "w", "workdir":
			cc.dir, cc.dirWhy = "", "the container's working directory "+v.text(k.c)+" is not known at check time"
			if v.known && strings.HasPrefix(v.val, "/") {
				cc.dir = path.Clean(v.val)
			}
		case "e", "env":
			k.envOpt(cc, v)
		case "u", "user":
			if !(v.known && (v.val == "root" || v.val == "0" || strings.HasPrefix(v.val, "0:") || strings.HasPrefix(v.val, "root:"))) {
				home = unknownField("the home directory of the container's user " + v.text(k.c) + " is not known at check time")
			}
		case "i", "interactive":
			cc.stdin = flag()
		case "d", "detach":
			cc.detach = flag()
		}
	}
	if len(ct.mounts) > maxMounts {
		ct.mounts = ct.mounts[:maxMounts]
		ct.unknownMounts = true
		ct.why = "it has too many mounts to analyse"
	}
	if _, ok := cc.vars["HOME"]; !ok {
		cc.vars["HOME"] = variable{f: home, exported: true}
	}
	if cc.dir == "" && cc.dirWhy == "" {
		cc.dirWhy = "the container starts in its image's working directory, which is not known at check time"
	}
	ops := p.ops
	if len(ops) > 0 {
		ops = ops[1:] // the image, container or service
	}
	argv := ops
	if ep, ok := p.get("entrypoint"); ok && !(ep.known && ep.val == "") {
		argv = append([]field{ep}, ops...)
	}
	switch {
	case len(argv) == 0:
		cc.noCmd = true
	case argv[0].known && strings.HasPrefix(argv[0].val, "-"):
		cc.blind = true // arguments to the image's entrypoint
	default:
		cc.argv = argv
	}
	k.runIn(cc)
}

// runIn schedules the analysis of the container's command in its state and
// adds, to the command that starts it, the writes its mounts enable when
// what runs in it cannot be known: no command (the image's entrypoint),
// arguments to the entrypoint, a command not known at check time, a shell
// reading commands from the terminal (-i), or a detached container (it keeps running and can be
// given any command later).
func (k *call) runIn(cc *containerCmd) {
	if cc.noCmd || cc.blind || cc.detach {
		k.blanket(cc.ct, &k.cmd)
	}
	if len(cc.argv) == 0 {
		return
	}
	st := &state{dir: cc.dir, dirWhy: cc.dirWhy, vars: cc.vars, ctr: cc.ct}
	c := k.c.withVia(cc.ct.label)
	if !cc.stdin {
		c = c.withStdin(stdinInfo{})
	}
	ro := runOpts{sp: innerSpan(cc.argv, k.ro.sp)}
	argv := cc.argv
	blanketDone := cc.noCmd || cc.blind || cc.detach
	k.later = append(k.later, func() {
		a := k.a
		self := len(a.out.Commands) - 1 // the command that starts the container
		start := len(a.out.Commands)
		a.run(c, st, argv, ro)
		if blanketDone || self < 0 || a.out.Commands[self].Span != k.cmd.Span || a.out.Commands[self].Name != k.cmd.Name {
			return
		}
		for i := start; i < len(a.out.Commands); i++ {
			cm := &a.out.Commands[i]
			direct := len(cm.Via) == len(c.via) || len(cm.Via) == len(c.via)+1 && cm.Via[len(cm.Via)-1] == "chroot"
			if cm.Dynamic || cc.stdin && direct && len(cm.Argv) > 0 && isShell(cm.Name) && interactiveShell(cm.Argv[1:], c.stdin) {
				k.blanket(cc.ct, &a.out.Commands[self])
				return
			}
		}
	})
}

// interactiveShell reports whether a shell given these arguments reads its
// commands from the terminal (the container was given one with -i): no
// script, no -c, no known standard input.
func interactiveShell(args []string, in stdinInfo) bool {
	if in.literal || in.remote || in.dynamic {
		return false
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			return false
		}
		if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") {
			return false
		}
	}
	return true
}

// blanket adds to cm what a program not known can do through the
// container's mounts: write anything under each read-write mount's host
// path (recursively), read anything under each read-only one. Sockets and
// devices are not trees of files (the container.host tag covers the
// runtime's socket).
func (k *call) blanket(ct *container, cm *Command) {
	add := func(e Effect) {
		for _, x := range cm.Effects {
			if x == e {
				return
			}
		}
		cm.Effects = append(cm.Effects, e)
	}
	for _, m := range ct.mounts {
		if m.device || isRuntimeSocket(m.src) {
			continue
		}
		kind, verb := Write, "write"
		if m.ro {
			kind, verb = Read, "read"
		}
		add(Effect{Kind: kind, Target: m.src, Recursive: true,
			Reason: "what runs in " + ct.label + " is not known and can " + verb + " anything under " + m.src + " (mounted at " + m.dst + ")"})
	}
	if ct.unknownMounts && len(ct.mounts) > 0 {
		add(Effect{Kind: Write, Unknown: true, Reason: "what runs in " + ct.label + " is not known, and " + ct.why})
	}
}

// isRuntimeSocket reports whether p is a container runtime's API socket,
// which gives whoever can write it control of the host.
func isRuntimeSocket(p string) bool {
	b := path.Base(p)
	if !strings.HasSuffix(b, ".sock") {
		return false
	}
	for _, n := range []string{"docker", "podman", "containerd", "crio", "cri-dockerd", "buildkit"} {
		if strings.Contains(b, n) || strings.Contains(p, "/"+n+"/") {
			return true
		}
	}
	return false
}

// hostPath resolves a mount's host path (absolute, ./relative, ~) in the
// command's state, "" when it cannot be known.
func (k *call) hostPath(f field) (string, bool) {
	f = k.home(f)
	if e, ok := k.a.target(k.st, Read, f, false); ok && !e.Unknown && e.Target != "" {
		return e.Target, true
	}
	return "", false
}

// addMount records a bind mount; a host path not known makes the
// container's mounts not known.
func (k *call) addMount(cc *containerCmd, src field, dst string, ro, device bool) {
	if !strings.HasPrefix(dst, "/") {
		return
	}
	s, ok := k.hostPath(src)
	if !ok {
		cc.ct.unknownMounts = true
		cc.ct.why = "it mounts " + src.text(k.c) + ", a host path not known at check time"
		return
	}
	m := mount{src: s, dst: path.Clean(dst), ro: ro, device: device}
	if isRuntimeSocket(s) {
		k.tag(TagContainerHost)
		k.attr("container", "runtime socket "+s)
	}
	cc.ct.mounts = append(cc.ct.mounts, m)
}

// volume models -v SRC:DST[:OPTS]; a SRC that is not a path is a named
// volume, and a lone DST an anonymous one: neither is a host path.
func (k *call) volume(cc *containerCmd, f field) {
	if !f.known {
		txt := f.text(k.c)
		if i := strings.Index(txt, ":/"); i > 0 {
			cc.ct.unknownMounts = true
			cc.ct.why = "it mounts " + txt[:i] + ", a host path not known at check time"
		}
		return
	}
	parts := strings.Split(f.val, ":")
	if len(parts) < 2 {
		return
	}
	src, dst := parts[0], parts[1]
	if !(strings.HasPrefix(src, "/") || strings.HasPrefix(src, ".") || strings.HasPrefix(src, "~")) {
		return
	}
	ro := false
	if len(parts) > 2 {
		for _, o := range strings.Split(parts[2], ",") {
			if o == "ro" || o == "readonly" {
				ro = true
			}
		}
	}
	k.addMount(cc, sub(f, src), dst, ro, false)
}

// mountOpt models --mount type=bind,source=S,target=D[,readonly].
func (k *call) mountOpt(cc *containerCmd, f field) {
	if !f.known {
		if strings.Contains(f.text(k.c), "bind") {
			cc.ct.unknownMounts = true
			cc.ct.why = "it has a bind mount not known at check time"
		}
		return
	}
	typ, src, dst, ro := "volume", "", "", false
	for _, kv := range strings.Split(f.val, ",") {
		key, val, _ := strings.Cut(kv, "=")
		switch strings.ToLower(key) {
		case "type":
			typ = val
		case "source", "src":
			src = val
		case "target", "destination", "dst":
			dst = val
		case "readonly", "ro":
			ro = val == "" || val == "true" || val == "1"
		}
	}
	if typ != "bind" || src == "" {
		return
	}
	k.addMount(cc, sub(f, src), dst, ro, false)
}

// deviceOpt models --device SRC[:DST[:PERMS]].
func (k *call) deviceOpt(cc *containerCmd, f field) {
	if !f.known {
		return
	}
	parts := strings.Split(f.val, ":")
	src, dst := parts[0], parts[0]
	if len(parts) > 1 && strings.HasPrefix(parts[1], "/") {
		dst = parts[1]
	}
	ro := len(parts) > 2 && !strings.Contains(parts[2], "w")
	k.addMount(cc, sub(f, src), dst, ro, true)
}

// envOpt models -e NAME=VALUE and -e NAME (the host's value).
func (k *call) envOpt(cc *containerCmd, f field) {
	txt := f.text(k.c)
	if f.known {
		txt = f.val
	}
	name, ok := assignName(txt)
	switch {
	case ok && f.known:
		_, val, _ := strings.Cut(f.val, "=")
		cc.vars[name] = variable{f: sub(f, val), exported: true}
	case ok:
		cc.vars[name] = variable{f: unknownField("variable $" + name + " is set to a value not known at check time"), exported: true}
	case f.known && f.val != "":
		cc.vars[f.val] = variable{f: k.a.lookup(k.st, f.val), exported: true}
	}
}
