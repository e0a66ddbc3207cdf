package policy

import "testing"

// TestPrivilegeAsksAtLeast: a command run as root or another user asks
// however sudo, doas, pkexec or su is spelled (its own options and the
// NAME=value words before the command are read, so the command is
// found); what it runs is judged too and a denied command stays denied;
// the sudoers file is written by visudo whatever its editor, and a probe
// that runs nothing stays allowed.
func TestPrivilegeAsksAtLeast(t *testing.T) {
	p := mustDefault(t)
	runCases(t, p, []decideCase{
		// ordinary commands as root ask
		{call: bash("sudo dnf install -y ripgrep"), want: Ask, rule: "privilege"},
		{call: bash("sudo -H pip install --upgrade pip"), want: Ask, rule: "privilege"},
		{call: bash("sudo --preserve-env=HTTP_PROXY,HTTPS_PROXY cargo install --path ."), want: Ask, rule: "privilege"},
		{call: bash("sudo -E go install ./cmd/tool"), want: Ask},
		{call: bash("sudo -u www-data php artisan cache:clear"), want: Ask},
		{call: bash("sudo --user=redis redis-cli ping"), want: Ask},
		{call: bash("sudo service nginx reload"), want: Ask},
		{call: bash("sudo GOFLAGS=-mod=mod make -C build install"), want: Ask},
		{call: bash("cd build && sudo ninja install"), want: Ask},
		{call: bash("doas -u _pkg pkg_add vim"), want: Ask},
		{call: bash("pkexec apt full-upgrade"), want: Ask},
		{call: bash("su -c 'yarn global add pm2' admin"), want: Ask},
		{call: bash("su - postgres -c 'pg_dumpall > /tmp/all.sql'"), want: Ask},
		// a transient unit of the system manager runs as root (through polkit)
		{call: bash("systemd-run --wait --pty make install"), want: Ask},
		{call: bash("systemd-run -p User=postgres pg_dump app -f /tmp/app.sql"), want: Ask},
		{call: bash("systemd-run --uid=0 -- rm -rf /srv/old"), want: Deny},
		{call: bash("systemd-run --user --scope -p MemoryMax=1G go test ./..."), want: Allow},
		// the command under the wrapper decides when it is denied
		{call: bash("sudo LANG=C rm -rf /usr/share/doc"), want: Deny},
		{call: bash("sudo -E -H PATH=/opt/bin:$PATH rm -rf /opt/../etc/ssl"), want: Deny},
		{call: bash("sudo -- X=$UNSET rm -rf /var/cache/../lib"), want: Deny},
		{call: bash("doas ENV=1 mkfs.ext4 /dev/sdc"), want: Deny},
		{call: bash("pkexec DEBUG=1 dd if=/dev/zero of=/dev/sda"), want: Deny},
		{call: bash("sudo -u nobody tee -a /etc/profile.d/x.sh < x"), want: Deny},
		// sudoers: visudo writes its file whatever the editor does
		{call: bash("printf 'dev ALL=(ALL) NOPASSWD:ALL\\n' | sudo SUDO_EDITOR='tee -a' visudo"), want: Deny},
		{call: bash("sudo env VISUAL=cp visudo -f /etc/sudoers.d/dev"), want: Deny},
		{call: bash("echo x | sudo EDITOR=tee visudo --file=/etc/sudoers.d/50-ci"), want: Deny},
		{call: bash("sudo install -m 0440 ci.sudoers /etc/sudoers.d/ci"), want: Deny},
		{call: bash("sudo sh -c 'echo \"ci ALL=NOPASSWD: ALL\" >> /etc/sudoers'"), want: Deny},
		{call: tool2("write", "/etc/sudoers.d/agent"), want: Deny},
		// probes that run nothing
		{call: bash("sudo -n true"), want: Allow},
		{call: bash("sudo -n : && echo passwordless"), want: Allow},
		{call: bash("sudo -v"), want: Allow},
		{call: bash("sudo -l"), want: Ask, rule: "privilege"},
		{call: bash("sudo --list"), want: Ask},
		{call: bash("sudo --version"), want: Allow},
		{call: bash("sudo -V"), want: Allow},
		{call: bash("sudo -h"), want: Allow},
		{call: bash("sudo -K"), want: Allow},
		{call: bash("doas -n true"), want: Allow},
		{call: bash("doas -n true && doas make install"), want: Ask},
		{call: bash("sudo visudo -c"), want: Ask},
		{call: bash("command -v sudo"), want: Allow},
		{call: bash("grep -n sudo scripts/install.sh"), want: Allow},
	})
}
