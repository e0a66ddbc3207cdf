package policy

import (
	"path/filepath"
	"testing"
)

// TestP7CdPhysicalFallback: a logical cd whose directory does not exist
// is tried again by bash as the kernel resolves the name, through its
// symlinks; what runs after it runs there. A logical cd that exists
// stays logical (link_home/.. is the workspace), and a name that is no
// directory either way changes nothing.
func TestP7CdPhysicalFallback(t *testing.T) {
	p, home, ws, _, _ := p6Home(t, false)
	sh := p6Sh(ws)
	rel, err := filepath.Rel("/", home)
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, p, []decideCase{
		// link_usr -> /usr: link_usr/.. is / for the kernel, and ./<home> does not exist
		{call: sh("cd link_usr/../" + rel + " && rm -rf Documents"), want: Deny},
		{call: sh("cd " + ws + "/link_usr/../" + rel + " && rm -rf Documents"), want: Deny},
		{call: sh("cd link_usr/../" + rel + "/.ssh && cat id_ed25519"), want: Deny},
		// logical and existing: the workspace itself
		{call: sh("cd link_home/.. && cat README.md && rm -rf build"), want: Allow},
		{call: sh("cd src/.. && ls"), want: Allow},
		// neither way a directory: the cd fails, nothing more is known to move
		{call: sh("cd link_usr/../no/such/dir && ls"), want: Allow},
	})
}
