package shell

import "testing"

// TestGitCommandValues: the value of a git config key that names a command
// is analysed as that command, wherever it is set (git config, git -c, the
// environment), and the exec lines an editor writes into a rebase todo
// are commands git runs.
func TestGitCommandValues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`git config core.pager 'less -R'`, []string{"attr value=judged", "cmd less", "!delete"}},
		{`git config filter.x.clean 'rm -rf /srv'`, []string{"delete:r /srv"}},
		{`git config credential.helper store`, []string{"attr value=judged", "!cmd store"}},
		{`git config alias.x '!rm -rf /srv'`, []string{"delete:r /srv"}},
		{`git config core.fsmonitor true`, []string{"attr value=judged", "!cmd true"}},
		{`git config core.pager "$P"`, []string{"!attr value=judged", "tag dynamic-exec"}},
		{`git -c merge.m.driver='rm -rf /srv' merge x`, []string{"delete:r /srv"}},
		{`git -c core.hooksPath=/opt/h commit`, []string{"exec:r /opt/h", "attr hooks=path"}},
		{`GIT_SEQUENCE_EDITOR="sed -i '1i exec rm -rf /srv'" git rebase -i HEAD~2`, []string{"delete:r /srv"}},
		{`GIT_SEQUENCE_EDITOR="sed -i 's/^pick/fixup/'" git rebase -i HEAD~2`, []string{"!delete", "!exec"}},
		{`EDITOR="printf 'x rm -rf /srv\n' >>" git rebase -i main`, []string{"delete:r /srv"}},
		{`git -c sequence.editor="sed -i '\$a exec rm -rf /srv'" rebase -i x`, []string{"delete:r /srv"}},
	} {
		expectAll(t, c.in, c.want)
	}
}

// TestCredentialStoreCode: inline code that reads a credential store
// through its library prints a secret; writing one does not.
func TestCredentialStoreCode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`python3 -c 'import keyring; print(keyring.get_password("a","b"))'`, []string{"tag secret.print"}},
		{`ruby -e 'require "keychain"; puts Keychain.generic_passwords.where(service: "x").first.password'`, []string{"tag secret.print"}},
		{`node -e 'require("keytar").getPassword("a","b").then(console.log)'`, []string{"tag secret.print"}},
		{`python3 -c 'import keyring; keyring.set_password("a","b","c")'`, []string{"!tag secret.print"}},
	} {
		expectAll(t, c.in, c.want)
	}
}
