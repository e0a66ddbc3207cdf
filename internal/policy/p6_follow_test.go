package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// TestP6FollowingWalks: a tool that follows the symlinks it meets while
// walking a tree reads what they lead to. The workspace holds links to a
// key, to the home and to /usr: walking it with grep -R, zip -r, rsync -L,
// cp -L, tar -h, rg -L, find -L … -exec, or serving it over HTTP reads
// the key and the home (denied); the same walks that do not follow links,
// or over a subtree without links out, stay allowed.
func TestP6FollowingWalks(t *testing.T) {
	p, _, ws, scratch, _ := p6Home(t, false)
	// a link that stays inside the tree
	if err := os.Symlink("../README.md", filepath.Join(ws, "src", "readme")); err != nil {
		t.Fatal(err)
	}
	sh := p6Sh(ws)
	out := scratch + "/out"
	runCases(t, p, []decideCase{
		{call: sh("grep -R password ."), want: Deny},
		{call: sh("grep --dereference-recursive -n token"), want: Deny},
		{call: sh("rg -L secret"), want: Deny},
		{call: sh("zip -r " + out + ".zip ."), want: Deny},
		{call: sh("rsync -aL ./ " + out), want: Deny},
		{call: sh("rsync -a --copy-unsafe-links . " + out), want: Deny},
		{call: sh("cp -rL . " + out), want: Deny},
		{call: sh("tar -chzf " + out + ".tgz ."), want: Deny},
		{call: sh("tar --dereference -cf " + out + ".tar ."), want: Deny},
		{call: sh("python3 -m http.server 8000"), want: Deny},
		{call: sh("php -S 0.0.0.0:8000"), want: Deny},
		{call: sh("npx serve ."), want: Deny},
		{call: sh("find -L . -name '*.txt' -exec cat {} +"), want: Deny},
		{call: sh("find -L . -type f | xargs cat"), want: Deny},
		{call: sh("7z a " + out + ".7z ."), want: Deny},
		{call: sh("7z a -snl " + out + ".7z ."), want: Allow},
		// not following, or a tree without links out
		{call: sh("grep -r password ."), want: Allow},
		{call: sh("grep -R password src"), want: Allow},
		{call: sh("rg secret"), want: Allow},
		{call: sh("zip -ry " + out + ".zip ."), want: Allow},
		{call: sh("zip -r " + out + ".zip src"), want: Allow},
		{call: sh("rsync -a ./ " + out), want: Allow},
		{call: sh("cp -r . " + out), want: Allow},
		{call: sh("tar czf " + out + ".tgz ."), want: Allow},
		{call: sh("cd src && python3 -m http.server"), want: Allow},
		{call: sh("find . -name '*.txt' -exec cat {} +"), want: Allow},
		{call: sh("find -L . -name '*.go'"), want: Allow}, // names only
		{call: sh("find -L src -type f -exec wc -l {} +"), want: Allow},
	})
}
