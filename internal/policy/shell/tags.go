package shell

// Tags added beyond types.go.
const (
	TagForkBomb       = "fork-bomb"           // a function that spawns itself recursively (:(){ :|:& };:)
	TagSystemPower    = "system.power"        // shutdown, reboot, halt, poweroff, systemctl poweroff/reboot...
	TagCrontab        = "crontab"             // crontab changes (Attrs: action=remove|install|edit)
	TagRemoteDelete   = "remote.delete"       // deletes remote resources: kubectl delete, terraform destroy, aws s3 rm, gh repo delete...
	TagUpload         = "network.upload"      // sends local files over the network (curl -F @f, -T, scp to a host...)
	TagFirewall       = "network.firewall"    // iptables, nft, ufw, firewall-cmd
	TagUserAdmin      = "user.admin"          // useradd, userdel, usermod, passwd, chpasswd, visudo...
	TagMount          = "fs.mount"            // mount, umount
	TagPackageInstall = "package.install"     // apt/dnf/yum/brew/pip/npm... install (Attrs: manager)
	TagContainerHost  = "container.host"      // a container given the host: --privileged, the runtime's socket, --pid=host, SYS_ADMIN (Attrs: container)
	TagProcessAttach  = "process.attach"      // a debugger or tracer attached to a running process (strace -p, gdb -p)
	TagDBDestroy      = "db.destroy"          // a database statement that destroys data: DROP, TRUNCATE, DELETE/UPDATE without WHERE, FLUSHALL (Attrs: statement)
	TagGitDiscard     = "git.discard"         // overwrites or drops uncommitted work across a tree: checkout -- ., checkout -f, restore ., switch -f, stash clear (Attrs: discard)
	TagGitPushNew     = "git.push.new-remote" // a push to a URL, or to a remote added earlier in the line (Attrs: remote, url)
	TagRemoteCommand  = "remote.exec"         // a command that changes something run on another machine over ssh (Attrs: host, remote-command)
	TagTunnel         = "network.tunnel"      // an ssh tunnel or port forward (-L, -R, -D, -w) (Attrs: host)
)
